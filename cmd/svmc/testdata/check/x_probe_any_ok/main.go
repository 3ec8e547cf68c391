// want OK procs=3 runs=3
// A master probes any worker and receives exactly what it probed (run several
// times with random yields).
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
			for range n - 1 {
				st := rtlib.Probe(rtlib.AnySource, rtlib.AnyTag)
				rtlib.Recv(st.Source, st.Tag, make([]int, st.Count))
			}
		} else {
			rtlib.Send(0, me, make([]int, me))
		}
	}
}
