// want class="wrong data type"
// One processor reduces int, the other int64.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 0 {
			rtlib.Reduce(0, rtlib.Sum, []int{1}, make([]int, 1)) // ERROR
		} else {
			rtlib.Reduce(0, rtlib.Sum, []int64{1}, make([]int64, 1))
		}
	}
}
