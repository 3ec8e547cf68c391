// want OK
// The twin of lock_order: both take a before b.
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
		//svm:critical a
		{
			//svm:critical b
			{
				counter++
			}
		}
	}
}
