// want OK
// The twin of order.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		a, b := []int{1}, make([]int, 1)
		rtlib.Bcast(0, a)
		rtlib.Allreduce(rtlib.Sum, a, b)
	}
}
