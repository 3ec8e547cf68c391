// want class="nonpaired send" procs=3
// Processor 0 sends to 1 and 2; only 1 receives.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		switch me {
		case 0:
			rtlib.Send(1, 0, []int{1})
			rtlib.Send(2, 0, []int{2}) // ERROR
		case 1:
			rtlib.Recv(0, 0, make([]int, 1))
		}
	}
}
