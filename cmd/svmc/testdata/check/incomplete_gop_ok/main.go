// want OK
// The twin of incomplete_gop.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		out := make([]int, 1)
		rtlib.Allreduce(rtlib.Sum, []int{me}, out)
	}
}
