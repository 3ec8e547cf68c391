// want kind="late receiver" line=17 share=0.5 tolerance=0.1
// A synchronous send waits 40 ms for a receive posted late.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		buf := make([]int, 16)
		switch rtlib.ProcessorID() {
		case 0:
			rtlib.Ssend(1, 0, buf)
		case 1:
			time.Sleep(40 * time.Millisecond)
			rtlib.Recv(0, 0, buf)
		}
	}
}
