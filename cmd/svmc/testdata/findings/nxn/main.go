// want kind="wait at N×N" line=22 share=0.75 tolerance=0.1 procs=4
// Processor 3 reaches the Allreduce 40 ms after the other three.
package main

import (
	"fmt"
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	sum := make([]int, 1)
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		if me == 3 {
			time.Sleep(40 * time.Millisecond)
		}
		// Three processors wait here for the fourth.
		out := make([]int, 1)
		rtlib.Allreduce(rtlib.Sum, []int{me}, out)
		if me == 0 {
			sum[0] = out[0]
		}
	}
	fmt.Println(sum[0] >= 0)
}
