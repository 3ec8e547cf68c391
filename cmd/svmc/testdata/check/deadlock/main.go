// want class="real deadlock"
// Both processors receive first.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := make([]int, 1)
		rtlib.Recv(1-me, 0, buf) // ERROR
		rtlib.Send(1-me, 0, buf)
	}
}
