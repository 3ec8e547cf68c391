// want class="wrong data type"
// One processor gathers int64 where the other gathers int.
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
			rtlib.Allgather([]int{me}, make([]int, 2)) // ERROR
		} else {
			rtlib.Allgather([]int64{int64(me)}, make([]int64, 2))
		}
	}
}
