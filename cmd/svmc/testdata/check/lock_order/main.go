// want class="potential deadlock"
// Processor 0 enters critical section a, then b; processor 1 later b, then a: run
// at the same time they would deadlock.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

var counter int

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		if me == 1 {
			time.Sleep(100 * time.Millisecond)
		}
		if me == 0 {
			//svm:critical a
			{
				// ERROR below
				//svm:critical b
				{
					counter++
				}
			}
		} else {
			//svm:critical b
			{
				//svm:critical a
				{
					counter++
				}
			}
		}
	}
}
