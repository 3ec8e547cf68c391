// want OK
// The twin of diff_reductions.
package main

import (
	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		op := rtlib.Sum
		rtlib.Reduce(0, op, []int{me + 1}, make([]int, 1))
	}
}
