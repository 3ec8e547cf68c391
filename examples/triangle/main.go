// A triangular loop nest: iteration i of the outer loop does i units of
// work. Block scheduling gives the last processor the largest share; dynamic
// self-scheduling in chunks of 4 balances it. Compare the busy times per
// processor in the trace (pdo-work records) or in svmc's report.
//
//	svmc run -n 4 --trace tri.sddf ./examples/triangle
package main

import (
	"flag"
	"fmt"
)

func main() {
	n := flag.Int("n", 2000, "rows of the triangle")
	flag.Parse()
	rows := *n
	a := make([]float64, rows)

	//svm:pdo label(static) loops(i) strategy(block)
	for i := 0; i < rows; i++ {
		s := 0.0
		for j := 0; j < i*50; j++ {
			s += float64(j%7) * 0.5
		}
		a[i] = s
	}
	static := a[rows-1]

	//svm:pdo label(dynamic) loops(i) strategy(dynamic(4))
	for i := 0; i < rows; i++ {
		s := 0.0
		for j := 0; j < i*50; j++ {
			s += float64(j%7) * 0.5
		}
		a[i] = s
	}
	fmt.Printf("last row: %.1f (block) %.1f (dynamic)\n", static, a[rows-1])
}
