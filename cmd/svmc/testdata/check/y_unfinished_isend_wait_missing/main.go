// want class="unfinished send" flags="--msg-buffer 0"
// A synchronous-sized Isend that nobody receives and nobody waits for (msg_buffer
// 0).
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
			rtlib.Isend(1, 0, []int{1, 2, 3}) // ERROR
		}
	}
}
