// want class="abend"
// Processor 1 panics after its receive.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := make([]int, 1)
		if me == 0 {
			rtlib.Send(1, 0, []int{-1})
		} else {
			rtlib.Recv(0, 0, buf)
			if buf[0] < 0 {
				panic("negative value") // ERROR
			}
		}
	}
}
