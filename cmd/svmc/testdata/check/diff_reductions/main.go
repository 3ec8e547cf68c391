// want class="diff reductions"
// Processor 1 reduces with Max where processor 0 uses Sum.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		op := rtlib.Sum
		if me == 1 {
			op = rtlib.Max
		}
		rtlib.Reduce(0, op, []int{me + 1}, make([]int, 1)) // ERROR
	}
}
