// want OK
// The twin of nonfreed: WaitAll completes the request.
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
			r := rtlib.Isend(1, 0, []int{7})
			rtlib.WaitAll(r)
		} else {
			rtlib.Recv(0, 0, make([]int, 1))
		}
	}
}
