// want class="real hang-up" procs=3
// Processor 0 waits for 1, which waits for 2, which sends nothing: one cause, the
// wait of processor 1.
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
			rtlib.Recv(1, 0, make([]int, 1))
		case 1:
			rtlib.Recv(2, 0, make([]int, 1)) // ERROR
			rtlib.Send(0, 0, []int{1})
		}
	}
}
