// want kind="early reduce" line=19 share=0.5 tolerance=0.1
// The root enters the Reduce 40 ms before processor 1 contributes.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		sum := make([]float64, 1)
		if rtlib.ProcessorID() == 1 {
			time.Sleep(40 * time.Millisecond)
		}
		// The root, processor 0, waits here for the contribution.
		rtlib.Reduce(0, rtlib.Sum, []float64{1}, sum)
	}
}
