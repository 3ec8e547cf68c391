// want class="real deadlock"
// The two processors take critical sections a and b in opposite orders at the same
// time.
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
		if me == 0 {
			//svm:critical a
			{
				time.Sleep(30 * time.Millisecond)
				// ERROR below
				//svm:critical b
				{
					counter++
				}
			}
		} else {
			//svm:critical b
			{
				time.Sleep(30 * time.Millisecond)
				//svm:critical a
				{
					counter++
				}
			}
		}
	}
}
