// want class="wrong recv size"
// Processor 1 contributes two elements to a Gather of one each.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		n := 1 + me
		rtlib.Gather(0, make([]int, n), make([]int, 4)) // ERROR
	}
}
