// want class="incomplete call" flags="--tracebuf 64"
// Processor 0 kills the program (SIGKILL) while processor 1 is in Recv: the trace
// has no end, the receive is entered and never left.
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
			time.Sleep(100 * time.Millisecond)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		} else {
			rtlib.Recv(0, 0, make([]int, 1)) // ERROR
		}
	}
}
