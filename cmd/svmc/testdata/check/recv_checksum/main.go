// want class="recv checksum"
// A goroutine changes the buffer of a synchronous send while it waits for its late
// receive: what arrives is not what was sent.
package main

import (
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		_ = me
		buf := []int{1, 2, 3}
		if me == 0 {
			done := make(chan bool)
			go func() {
				time.Sleep(20 * time.Millisecond)
				buf[1] = -2
				done <- true
			}()
			rtlib.Ssend(1, 0, buf) // ERROR
			<-done
		} else {
			time.Sleep(80 * time.Millisecond)
			rtlib.Recv(0, 0, buf)
		}
	}
}
