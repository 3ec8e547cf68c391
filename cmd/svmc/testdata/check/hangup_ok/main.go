// want OK
// The twin of hangup.
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
			rtlib.Recv(1, 0, make([]int, 1))
		} else {
			rtlib.Send(0, 0, []int{1})
		}
	}
}
