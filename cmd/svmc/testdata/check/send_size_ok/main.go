// want OK
// The twin of send_size.
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
			rtlib.Send(1, 0, []int{1, 2, 3, 4})
		} else {
			rtlib.Recv(0, 0, make([]int, 4))
		}
	}
}
