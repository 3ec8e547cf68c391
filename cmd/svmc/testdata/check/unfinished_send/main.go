// want class="unfinished send"
// An Isend that is never waited for and whose message nobody receives.
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
			rtlib.Isend(1, 3, []int{1, 2}) // ERROR
		}
	}
}
