// want kind="unequal work" line=14 share=0.375 procs=4
// The same on 4 processors: they wait 30, 20 and 10 ms of 4 x 40 at the
// region's end; the one that arrives last is processor 3.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	time.Sleep(time.Millisecond)
	//svm:replicated
	time.Sleep(time.Duration(rtlib.ProcessorID()+1) * 10 * time.Millisecond)
}
