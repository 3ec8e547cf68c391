// want kind="unequal work" line=13 share=0.25
// Work in proportion to the processor number in a replicated region: the
// first processor waits 20 ms of 80 at the region's end.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	time.Sleep(time.Duration(rtlib.ProcessorID()+1) * 20 * time.Millisecond)
}
