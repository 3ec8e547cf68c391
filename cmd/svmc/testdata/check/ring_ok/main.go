// want OK procs=3
// A ring of non-blocking exchanges completed by WaitAll.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		n := rtlib.NumProcessors()
		in := make([]int, 1)
		r1 := rtlib.Irecv((me+n-1)%n, 0, in)
		r2 := rtlib.Isend((me+1)%n, 0, []int{me})
		rtlib.WaitAll(r1, r2)
	}
}
