// want OK
// The twin of barrier_deadlock: the send comes before the barrier.
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
			rtlib.Send(1, 0, buf)
			step()
		} else {
			rtlib.Recv(0, 0, buf)
			step()
		}
	}
}
