// A program that calls C through cgo, in a pdo body and in a function
// called from one: the instrumented build keeps the cgo preamble and
// calls, and the sums match the serial run.
package main

/*
#cgo LDFLAGS: -lm
#include <math.h>
static double cube(double x) { return x * x * x; }
static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
*/
import "C"

import "fmt"

func scaled(i int) float64 {
	return float64(C.cube(C.double(i))) / 1000
}

func main() {
	const n = 200
	total, roots := 0.0, 0.0
	//svm:pdo loops(i) reduction(+: total, roots)
	for i := 0; i < n; i++ {
		total += scaled(i)
		roots += float64(C.sqrt(C.double(i)))
	}
	clamped := 0
	//svm:pdo loops(i) strategy(cyclic) reduction(+: clamped)
	for i := -50; i < 50; i++ {
		clamped += int(C.clamp(C.int(i), -10, 10))
	}
	fmt.Printf("%.3f %.3f %d\n", total, roots, clamped)
}
