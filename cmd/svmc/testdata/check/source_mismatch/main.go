// want class="nonpaired recv" procs=3 message="processor 0 sent it one with tag 0 at main.go:16:4, never received: a receive from processor 0 (or rtlib.AnySource) would take it"
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
