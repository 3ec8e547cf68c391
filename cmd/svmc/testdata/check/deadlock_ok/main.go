// want OK
// The twin of deadlock: processor 0 sends first.
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
			rtlib.Send(1, 0, buf)
			rtlib.Recv(1, 0, buf)
		} else {
			rtlib.Recv(0, 0, buf)
			rtlib.Send(0, 0, buf)
		}
	}
}
