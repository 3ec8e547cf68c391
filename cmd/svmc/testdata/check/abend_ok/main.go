// want OK
// The twin of abend: the value is checked without a panic.
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
		if me == 0 {
			rtlib.Send(1, 0, []int{-1})
		} else {
			rtlib.Recv(0, 0, buf)
			if buf[0] < 0 {
				buf[0] = 0
			}
		}
	}
}
