package main

import "fmt"

import "github.com/svmc/svmc/golden/corpus/shapes/geom"

// report is a second file of the program, called with an interface slice.
func report(ss []geom.Shape) {
	for _, s := range ss {
		fmt.Printf("%s %.2f\n", s.Name(), s.Area())
	}
}
