// want OK
// The twin of potential: Sendrecv.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf, in := []int{me}, make([]int, 1)
		rtlib.Sendrecv(1-me, 0, buf, 1-me, 0, in)
	}
}
