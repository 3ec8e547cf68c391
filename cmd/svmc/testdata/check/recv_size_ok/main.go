// want OK
// The twin of recv_size.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		n := 2
		rtlib.Allreduce(rtlib.Sum, make([]int, n), make([]int, n))
	}
}
