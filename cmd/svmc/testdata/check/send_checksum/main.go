// want class="send checksum"
// The buffer of an Isend is changed before the send completes.
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
			buf := []int{1, 2, 3}
			r := rtlib.Isend(1, 0, buf) // ERROR
			buf[0] = 99
			r.Wait()
		} else {
			time.Sleep(20 * time.Millisecond)
			rtlib.Recv(0, 0, make([]int, 3))
		}
	}
}
