// want class="different order"
// The processors call Bcast and Allreduce in opposite orders.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		a, b := []int{1}, make([]int, 1)
		if me == 0 {
			rtlib.Bcast(0, a)
			rtlib.Allreduce(rtlib.Sum, a, b)
		} else {
			rtlib.Allreduce(rtlib.Sum, a, b) // ERROR
			rtlib.Bcast(0, a)
		}
	}
}
