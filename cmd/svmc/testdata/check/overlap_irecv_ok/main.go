// want OK
// The twin of overlap_irecv: the second receive has its own buffer.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf, last := make([]int, 4), make([]int, 1)
		if me == 0 {
			rtlib.Send(1, 0, []int{1, 2, 3, 4})
			rtlib.Send(1, 1, []int{5})
		} else {
			r := rtlib.Irecv(0, 0, buf)
			rtlib.Recv(0, 1, last)
			r.Wait()
		}
	}
}
