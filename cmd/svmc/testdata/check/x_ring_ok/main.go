// want OK procs=4
// A ring of Sendrecv on four processors.
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
		in := make([]float64, 1)
		rtlib.Sendrecv((me+1)%n, 0, []float64{float64(me)}, (me+n-1)%n, 0, in)
	}
}
