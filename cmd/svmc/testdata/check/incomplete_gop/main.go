// want class="incomplete gop"
// Only processor 0 calls the Allreduce.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		out := make([]int, 1)
		if me == 0 {
			rtlib.Allreduce(rtlib.Sum, []int{me}, out) // ERROR
		}
	}
}
