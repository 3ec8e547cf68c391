// want kind="barrier" line=17 share=0.5
// One processor arrives 30 ms late at an explicit barrier.
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
		//svm:barrier
	}
}
