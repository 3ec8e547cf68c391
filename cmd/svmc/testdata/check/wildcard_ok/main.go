// want OK procs=3
// The twin of the races: both receives take any source.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		switch me {
		case 0:
			rtlib.Recv(rtlib.AnySource, 0, make([]int, 1))
			rtlib.Recv(rtlib.AnySource, 0, make([]int, 1))
		case 1:
			rtlib.Send(0, 0, []int{1})
		case 2:
			rtlib.Send(0, 0, []int{2})
		}
	}
}
