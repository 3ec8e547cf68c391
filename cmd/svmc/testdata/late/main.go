// Processor 2 arrives late at a barrier by a known delay; the others wait
// for it there. Serially (processor 0 only) nothing waits.
package main

import (
	"fmt"
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		if rtlib.ProcessorID() == 2 {
			time.Sleep(500 * time.Millisecond)
		}
		//svm:barrier
	}
	fmt.Println("done")
}
