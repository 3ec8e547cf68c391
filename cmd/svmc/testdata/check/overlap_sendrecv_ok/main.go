// want OK
// The twin of overlap_sendrecv: two buffers.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf, in := []int{me, me}, make([]int, 2)
		rtlib.Sendrecv(1-me, 0, buf, 1-me, 0, in)
	}
}
