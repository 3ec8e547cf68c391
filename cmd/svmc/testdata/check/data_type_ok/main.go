// want OK
// The twin of data_type.
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
			rtlib.Send(1, 0, []float32{1, 2})
		} else {
			rtlib.Recv(0, 0, make([]float32, 2))
		}
	}
}
