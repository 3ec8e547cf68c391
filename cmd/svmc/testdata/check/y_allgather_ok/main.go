// want OK procs=4
// Allgather and Alltoall on four processors.
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
		all := make([]int, n)
		rtlib.Allgather([]int{me}, all)
		out := make([]int, n)
		rtlib.Alltoall(all, out)
	}
}
