// Jacobi relaxation of the Laplace equation on an n×n grid. The grid rows
// are distributed BLOCK-wise through template T, both sweeps of an iteration
// are parallel loops scheduled by T's ownership, and the largest change of
// an iteration is a max reduction.
//
//	go run ./examples/jacobi                  # serial, plain Go
//	svmc run -n 4 ./examples/jacobi           # on 4 processors
//
//go:generate go run github.com/svmc/svmc/cmd/svmc compile -o ./svm .
package main

import (
	"flag"
	"fmt"
	"math"
)

func main() {
	n := flag.Int("n", 64, "grid size")
	iters := flag.Int("iters", 200, "iterations")
	flag.Parse()
	size := *n

	//svm:processors P(nprocs())
	//svm:template T(size, size)
	//svm:distribute (block, *) onto P :: T

	a, b := grid(size), grid(size)
	//svm:shared a, b
	for j := 0; j < size; j++ {
		a[0][j], b[0][j] = 1, 1 // the hot top edge
	}
	change := 0.0
	for it := 0; it < *iters; it++ {
		//svm:pdo label(sweep) loops(i, j) strategy(on_home(T(i, j)))
		for i := 1; i < size-1; i++ {
			for j := 1; j < size-1; j++ {
				b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1])
			}
		}
		change = 0
		//svm:pdo label(update) loops(i, j) strategy(on_home(T(i, j))) reduction(max: change)
		for i := 1; i < size-1; i++ {
			for j := 1; j < size-1; j++ {
				change = max(change, math.Abs(b[i][j]-a[i][j]))
				a[i][j] = b[i][j]
			}
		}
	}
	fmt.Printf("jacobi %dx%d, %d iterations: last change %.9e, checksum %.9f\n", size, size, *iters, change, checksum(a))
}

func grid(n int) [][]float64 {
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, n)
	}
	return g
}

// checksum runs serially (exclusive mode), so it is the same for every
// number of processors.
func checksum(a [][]float64) float64 {
	s := 0.0
	for _, row := range a {
		for _, x := range row {
			s += x
		}
	}
	return s
}
