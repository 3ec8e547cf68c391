// want class="nonpaired send"
// Processor 0 sends a message that processor 1 never receives.
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
			rtlib.Send(1, 4, []string{"lost"}) // ERROR
		}
	}
}
