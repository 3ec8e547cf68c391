// want OK
// Both processors Isend first, then receive, then wait: correct with any
// buffering.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		in := make([]int, 1)
		r := rtlib.Isend(1-me, 0, []int{me})
		rtlib.Recv(1-me, 0, in)
		r.Wait()
	}
}
