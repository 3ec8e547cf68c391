// want class="nonpaired recv" procs=3
// Processor 2 waits for processor 1, but processor 0 sent the message.
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
			rtlib.Send(2, 0, []int{1})
		case 2:
			rtlib.Recv(1, 0, make([]int, 1)) // ERROR
		}
	}
}
