// want OK
// The twin of nonpaired_send.
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
			rtlib.Send(1, 4, []string{"found"})
		} else {
			rtlib.Recv(0, 4, make([]string, 1))
		}
	}
}
