// want class="real deadlock"
// Both processors probe for the other before sending.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		rtlib.Probe(1-me, 0) // ERROR
		rtlib.Send(1-me, 0, []int{me})
	}
}
