// want class="wrong recv size"
// The processors pass buffers of different lengths to one Allreduce.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		n := 2 + me
		rtlib.Allreduce(rtlib.Sum, make([]int, n), make([]int, n)) // ERROR
	}
}
