// want kind="late broadcast" line=20 share=0.5 tolerance=0.1
// Processor 1 waits in Bcast 40 ms for the root.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		params := make([]int, 3)
		if rtlib.ProcessorID() == 0 {
			time.Sleep(40 * time.Millisecond)
			params[0] = 42
		}
		// Everybody but the root waits for it here.
		rtlib.Bcast(0, params)
	}
}
