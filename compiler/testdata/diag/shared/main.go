// shared names slices and arrays (of any element type, several dimensions
// included): the SVM layer keeps their storage in pages. Anything else is an
// error at the name.
package main

type point struct{ x, y float64 }

func main() {
	a := make([]float64, 100)
	var grid [8][8]int32
	rows := make([][]point, 4)
	var total float64
	m := map[int]int{}
	p := &point{}
	//svm:shared a, grid, rows
	//svm:shared total // want 15:`^shared: total has type float64, not a slice or array: the shared virtual memory layer keeps the storage of slices and arrays in pages`
	//svm:shared m, p // want 15:`^shared: m has type map\[int\]int, not a slice or array` 18:`^shared: p has type \*point, not a slice or array`
	//svm:shared late // want 15:`^shared: late is declared at line 19, after the directive: a directive names variables declared before it; move //svm:shared late below that line$`
	late := make([]int, 4)
	_, _, _, _, _, _, _ = a, grid, rows, total, m, p, late
}
