// want class="abort"
// Processor 0 sends the program SIGTERM while processor 1 waits for a message.
package main

import (
	"os"
	"syscall"
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 0 {
			time.Sleep(50 * time.Millisecond)
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			time.Sleep(time.Second)
			rtlib.Send(1, 0, []int{1})
		} else {
			rtlib.Recv(0, 0, make([]int, 1))
		}
	}
}
