// want OK procs=3
// A receiver takes four messages of any source and tag.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 0 {
			for range 4 {
				rtlib.Recv(rtlib.AnySource, rtlib.AnyTag, make([]int, 1))
			}
		} else {
			rtlib.Send(0, me, []int{me})
			rtlib.Send(0, 10+me, []int{me})
		}
	}
}
