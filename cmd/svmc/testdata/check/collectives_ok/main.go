// want OK procs=3
// Every collective once.
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
		a := []int{me}
		rtlib.Bcast(0, a)
		all := make([]int, n)
		rtlib.Gather(0, []int{me}, all)
		part := make([]int, 1)
		rtlib.Scatter(0, all, part)
		rtlib.Allgather([]int{me}, all)
		out := make([]int, n)
		rtlib.Alltoall(all, out)
		sum := make([]int, 1)
		rtlib.Reduce(0, rtlib.Sum, []int{me}, sum)
		rtlib.Allreduce(rtlib.Max, []int{me}, sum)
		rtlib.Barrier()
	}
}
