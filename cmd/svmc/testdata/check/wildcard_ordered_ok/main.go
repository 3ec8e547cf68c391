// want OK procs=3
// A wildcard receive, then a receive from processor 1, which sends only after it
// heard from processor 0: no race.
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
			st := rtlib.Recv(rtlib.AnySource, 0, make([]int, 1))
			rtlib.Send(1, 1, []int{st.Source})
			rtlib.Recv(1, 0, make([]int, 1))
		case 1:
			rtlib.Recv(0, 1, make([]int, 1))
			rtlib.Send(0, 0, []int{1})
		case 2:
			rtlib.Send(0, 0, []int{2})
		}
	}
}
