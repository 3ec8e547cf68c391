// want class="overlapping" message="are one slice: svmc runs the call in place"
// An Allreduce whose send and receive buffers are one slice.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := []int{me}
		rtlib.Allreduce(rtlib.Sum, buf, buf) // ERROR
	}
}
