// want class="real hang-up"
// A probe for a message that never comes.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 1 {
			rtlib.Probe(0, 3) // ERROR
		}
	}
}
