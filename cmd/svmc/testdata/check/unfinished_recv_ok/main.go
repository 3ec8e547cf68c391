// want OK
// The twin of unfinished_recv: the Irecv is completed by a Test loop.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 0 {
			rtlib.Send(1, 0, []float64{1.5})
		} else {
			r := rtlib.Irecv(0, 0, make([]float64, 1))
			for {
				if ok, _ := r.Test(); ok {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
}
