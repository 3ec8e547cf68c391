// A template and a processor arrangement that cross a function boundary are
// package variables of the runtime's types; directives name them, and the
// serial build still compiles.
package main

import "github.com/svmc/svmc/rtlib"

var (
	procs *rtlib.Procs
	grid  *rtlib.Template
)

func main() {
	n := 8
	//svm:processors procs(2)
	//svm:template grid(n)
	//svm:template local(n)
	//svm:distribute (block) onto procs :: grid, local
	a := make([]int, n)
	work(a)
	println(a[0])
}

func work(a []int) {
	//svm:redistribute (cyclic) onto procs :: grid
	//svm:pdo loops(i) strategy(on_home(grid(i)))
	for i := range a {
		a[i] = i
	}
}
