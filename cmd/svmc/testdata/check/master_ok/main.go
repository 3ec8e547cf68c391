// want OK procs=3
// Master and workers with AnySource (run several times with random yields):
// correct whatever the order.
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
		if me == 0 {
			res := make([]int, 1)
			for range 3 * (n - 1) {
				rtlib.Recv(rtlib.AnySource, 1, res)
			}
		} else {
			for i := range 3 {
				rtlib.Send(0, 1, []int{me*10 + i})
			}
		}
	}
}
