// want class="potential deadlock"
// Both processors send before they receive: it completes only because the standard
// sends are buffered.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf, in := []int{me}, make([]int, 1)
		rtlib.Send(1-me, 0, buf) // ERROR
		rtlib.Recv(1-me, 0, in)
	}
}
