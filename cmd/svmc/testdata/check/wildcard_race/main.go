// want class="potential hang-up" procs=3
// A wildcard receive, then a receive from processor 1 only: here the wildcard took
// the message of processor 2, but it could have taken that of processor 1, and
// then the second receive would wait for ever.
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
			time.Sleep(30 * time.Millisecond)
			rtlib.Send(0, 0, []int{1})
		case 2:
			rtlib.Send(0, 0, []int{2})
		}
	}
}
