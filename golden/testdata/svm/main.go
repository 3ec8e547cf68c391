// The SVM layer at stages 4, 5 and 6 (issue 15): shared arrays whose pages
// fault where the distribution says. a is 16 pages of 4 KiB (a large
// allocation, so page-aligned); the first pdo writes it block by block, the
// second reads it by the same distribution (no faults), the third reads the
// element before every 1024th (a fault where that is a neighbour's page). c
// is one page that the processors write alternately (false sharing: its
// pages get the multiple-writers protocol, as the default is), and
// grid a two-dimensional array read by rows.
package main

import "fmt"

func main() {
	//svm:processors P(nprocs())
	//svm:template T(8192)
	//svm:distribute (block) onto P :: T
	a := make([]float64, 8192)
	c := make([]int64, 512)
	grid := new([64][64]float64)
	//svm:shared a, c, grid

	//svm:pdo label(fill) loops(i) strategy(on_home(T(i)))
	for i := 0; i < len(a); i++ {
		a[i] = float64(i % 7)
	}
	s := 0.0
	//svm:pdo label(sum) loops(i) strategy(on_home(T(i))) reduction(+: s)
	for i := 0; i < len(a); i++ {
		s += a[i]
	}
	edges := 0.0
	//svm:pdo label(halo) loops(i) strategy(on_home(T(i))) reduction(+: edges)
	for i := 0; i < len(a); i++ {
		if i > 0 && i%1024 == 0 {
			edges += a[i-1]
		}
	}
	//svm:coherence(multiple_writers) :: c
	//svm:pdo label(false_sharing) loops(i) strategy(cyclic)
	for i := 0; i < len(c); i++ {
		c[i] = int64(i)
	}
	//svm:pdo label(rows) loops(i) strategy(block)
	for i := 0; i < 64; i++ {
		for j := 0; j < 64; j++ {
			grid[i][j] = float64(i + j)
		}
	}
	fmt.Println(s, edges, c[511], grid[63][63])
}
