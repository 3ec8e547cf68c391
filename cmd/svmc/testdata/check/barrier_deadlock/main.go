// want class="real deadlock"
// Processor 0 sends after a barrier that processor 1 reaches only after its
// receive.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

// step is a barrier of all processors.
func step() {
	//svm:barrier
}

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := make([]int, 1)
		if me == 0 {
			step()
			rtlib.Send(1, 0, buf)
		} else {
			rtlib.Recv(0, 0, buf) // ERROR
			step()
		}
	}
}
