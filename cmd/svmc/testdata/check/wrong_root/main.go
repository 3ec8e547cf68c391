// want class="wrong root process"
// Every processor names itself the root of the broadcast.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := []int{me}
		rtlib.Bcast(me, buf) // ERROR
	}
}
