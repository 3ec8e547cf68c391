// want OK
// Probe, then a receive of exactly the probed size.
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
			rtlib.Send(1, 5, []byte("hello"))
		} else {
			st := rtlib.Probe(0, rtlib.AnyTag)
			rtlib.Recv(0, st.Tag, make([]byte, st.Count))
		}
	}
}
