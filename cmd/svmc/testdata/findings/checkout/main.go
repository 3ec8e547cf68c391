// want kind="split barrier" line=19 share=0.5
// One processor checks in 30 ms late; the other has nothing to do between
// its check-in and check-out.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		if rtlib.ProcessorID() == 1 {
			time.Sleep(30 * time.Millisecond)
		}
		//svm:barrier_checkin
		//svm:barrier_checkout
	}
}
