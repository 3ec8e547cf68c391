// want class="wrong data type"
// int32 elements sent, float32 elements expected.
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
			rtlib.Send(1, 0, []int32{1, 2})
		} else {
			rtlib.Recv(0, 0, make([]float32, 2)) // ERROR
		}
	}
}
