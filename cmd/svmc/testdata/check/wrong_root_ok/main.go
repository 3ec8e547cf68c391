// want OK
// The twin of wrong_root.
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
		rtlib.Bcast(0, buf)
	}
}
