// want class="wrong root process"
// The processors name different roots of a Scatter.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		rtlib.Scatter(me, make([]int, 2), make([]int, 1)) // ERROR
	}
}
