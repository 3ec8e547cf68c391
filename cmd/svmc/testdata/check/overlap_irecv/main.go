// want class="overlapping"
// A receive into part of the buffer of a pending Irecv.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := make([]int, 4)
		if me == 0 {
			rtlib.Send(1, 0, []int{1, 2, 3, 4})
			rtlib.Send(1, 1, []int{5})
		} else {
			r := rtlib.Irecv(0, 0, buf)
			rtlib.Recv(0, 1, buf[3:]) // ERROR
			r.Wait()
		}
	}
}
