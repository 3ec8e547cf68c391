// want OK
// Two pending Isends read one buffer: allowed.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := []int{me, me}
		if me == 0 {
			r1 := rtlib.Isend(1, 1, buf)
			r2 := rtlib.Isend(1, 2, buf)
			rtlib.WaitAll(r1, r2)
		} else {
			rtlib.Recv(0, 1, make([]int, 2))
			rtlib.Recv(0, 2, make([]int, 2))
		}
	}
}
