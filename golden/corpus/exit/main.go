// A program that ends with os.Exit(3) after printing, with log output on
// the way: the status and the output are those of go run.
package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	log.SetFlags(0)
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 10; i++ {
		s += i
	}
	log.Println("partial", s)
	fmt.Println("sum", s)
	os.Exit(3)
}
