// want kind="late sender" line=20 share=0.5 tolerance=0.1 title="sends later from Send"
// Processor 1 posts its receive at once; processor 0 sends 50 ms later.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		buf := make([]float64, 4)
		if rtlib.ProcessorID() == 0 {
			time.Sleep(50 * time.Millisecond)
			rtlib.Send(1, 7, buf)
		} else {
			// The receive waits for the late send.
			rtlib.Recv(0, 7, buf)
		}
	}
}
