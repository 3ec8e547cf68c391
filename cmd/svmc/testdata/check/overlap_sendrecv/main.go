// want class="overlapping" message="MPI_Sendrecv_replace"
// Sendrecv with one slice as its send and its receive buffer.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := []int{me, me}
		rtlib.Sendrecv(1-me, 0, buf, 1-me, 0, buf) // ERROR
	}
}
