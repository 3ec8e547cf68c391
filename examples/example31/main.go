// Example 3.1 of the SVM-Fortran report (M. Gerndt, KFA-ZAM-IB-9417, 1994)
// written in Go: a fixed template T passed in by the caller, an automatic
// template T1 whose shape depends on n, a creatable template T2 adapted to
// the iteration space, and three parallel loops: two with predefined
// scheduling by template ownership, one with static loop-level scheduling.
//
// Without svmc this is a serial program. With svmc:
//
//	svmc run -n 4 --trace ex31.sddf --format ascii ./examples/example31
package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

// G is the subroutine of the example. The first loop is scheduled by T1,
// which is larger than the iteration space, so its BLOCK distribution leaves
// the processors unevenly loaded; the second by T2, created with the shape
// of the iteration space, which balances it; the third distributes its own
// iteration space over P.
func G(T *rtlib.Template, n, m int, a [][]float64) (float64, int) {
	//svm:template T(10, 10)
	//svm:template T1(n, n)
	//svm:template T2(:, :)
	//svm:processors P(2, 2)
	//svm:distribute (block, block) onto P :: T1
	//svm:shared a

	//svm:pdo label(fill) loops(i, j) strategy(on_home(T1(i, j)))
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			a[i][j] = float64(i*m + j)
		}
	}

	//svm:create T2(m, m)
	//svm:redistribute (block, block) onto P :: T2
	sum := 0.0
	//svm:pdo label(total) loops(i, j) strategy(on_home(T2(i, j))) reduction(+: sum)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			sum += a[i][j]
		}
	}

	diagonal := 0
	//svm:pdo label(grid) loops(i, j) processors(P) strategy(block, block) reduction(+: diagonal)
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			if i == j {
				diagonal++
			}
		}
	}
	//svm:destroy T2
	return sum, diagonal
}

func main() {
	const n, m = 12, 8
	// The rows share one backing array: 512 bytes, which the allocator
	// aligns to 512, so a lies on one page of the shared virtual memory
	// layer on every run.
	cells := make([]float64, m*m)
	a := make([][]float64, m)
	for i := range a {
		a[i] = cells[i*m : (i+1)*m]
	}
	var T *rtlib.Template
	sum, diagonal := G(T, n, m, a)
	fmt.Printf("sum of a = %.1f (want %d), diagonal elements = %d\n", sum, m*m*(m*m-1)/2, diagonal)
}
