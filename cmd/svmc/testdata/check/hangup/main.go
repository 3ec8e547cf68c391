// want class="real hang-up"
// Processor 0 waits for a message processor 1 never sends.
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
			rtlib.Recv(1, 0, make([]int, 1)) // ERROR
		}
	}
}
