// want class="nonfreed request"
// An Isend whose message is received but whose request is never completed.
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
			rtlib.Isend(1, 0, []int{7}) // ERROR
		} else {
			rtlib.Recv(0, 0, make([]int, 1))
		}
	}
}
