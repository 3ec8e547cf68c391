// want class="real hang-up"
// Waiting on an Irecv whose message is never sent.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 1 {
			r := rtlib.Irecv(0, 0, make([]int, 1))
			r.Wait() // ERROR
		}
	}
}
