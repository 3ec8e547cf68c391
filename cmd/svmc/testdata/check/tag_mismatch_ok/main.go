// want OK
// The twin of tag_mismatch.
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
			rtlib.Send(1, 1, []int{1})
		} else {
			rtlib.Recv(0, 1, make([]int, 1))
		}
	}
}
