// want class="nonpaired recv" message="processor 0 sent it a message with tag 1 at main.go:15:4 instead, never received: a receive with tag 1 (or rtlib.AnyTag) would take it"
// The receive asks for another tag than the send has.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 0 {
			rtlib.Send(1, 1, []int{1})
		} else {
			rtlib.Recv(0, 2, make([]int, 1)) // ERROR
		}
	}
}
