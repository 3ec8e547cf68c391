// want OK
// The twin of unfinished_send: waited for and received.
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
			r := rtlib.Isend(1, 3, []int{1, 2})
			r.Wait()
		} else {
			rtlib.Recv(0, 3, make([]int, 2))
		}
	}
}
