// want class="real deadlock"
// Both processors Ssend first.
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
		rtlib.Ssend(1-me, 0, []int{me}) // ERROR
		rtlib.Recv(1-me, 0, in)
	}
}
