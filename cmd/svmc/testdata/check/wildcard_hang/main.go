// want class="real hang-up" procs=3
// The same race, the other way: the wildcard receive took the message of processor
// 1, and the receive from processor 1 waits for ever.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		switch me {
		case 0:
			rtlib.Recv(rtlib.AnySource, 0, make([]int, 1)) // ERROR
			rtlib.Recv(1, 0, make([]int, 1))
		case 1:
			rtlib.Send(0, 0, []int{1})
		case 2:
			time.Sleep(30 * time.Millisecond)
			rtlib.Send(0, 0, []int{2})
		}
	}
}
