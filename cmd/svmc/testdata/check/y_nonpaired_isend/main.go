// want class="nonpaired send"
// An Isend completed by Wait (its data buffered) whose message nobody receives.
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
			r := rtlib.Isend(1, 9, []int{1}) // ERROR
			r.Wait()
		}
	}
}
