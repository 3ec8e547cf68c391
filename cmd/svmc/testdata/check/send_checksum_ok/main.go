// want OK
// The twin of send_checksum: the buffer changes after Wait.
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
			r := rtlib.Isend(1, 0, buf)
			r.Wait()
			buf[0] = 99
		} else {
			time.Sleep(20 * time.Millisecond)
			rtlib.Recv(0, 0, make([]int, 3))
		}
	}
}
