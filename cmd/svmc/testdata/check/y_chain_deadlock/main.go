// want class="real deadlock" procs=3
// Three processors each receive from the next before sending to it.
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
		buf := make([]int, 1)
		rtlib.Recv((me+1)%n, 0, buf) // ERROR
		rtlib.Send((me+n-1)%n, 0, buf)
	}
}
