// want class="potential deadlock" procs=3
// Three processors each send to the next, then receive from the previous.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		n := rtlib.NumProcessors()
		rtlib.Send((me+1)%n, 0, []int{me}) // ERROR
		rtlib.Recv((me+n-1)%n, 0, make([]int, 1))
	}
}
