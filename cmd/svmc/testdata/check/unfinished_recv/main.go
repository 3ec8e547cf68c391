// want class="unfinished recv"
// An Irecv that is never completed by Wait or Test.
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
			rtlib.Send(1, 0, []float64{1.5})
		} else {
			rtlib.Irecv(0, 0, make([]float64, 1)) // ERROR
		}
	}
}
