// want class="incomplete gop" procs=3
// Processor 2 skips the Barrier the others call.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me != 2 {
			rtlib.Barrier() // ERROR
		}
	}
}
