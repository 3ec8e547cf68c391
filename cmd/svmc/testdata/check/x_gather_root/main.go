// want class="wrong root process"
// The processors disagree on the root of a Gather.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		root := 0
		if me == 1 {
			root = 1
		}
		rtlib.Gather(root, []int{me}, make([]int, 2)) // ERROR
	}
}
