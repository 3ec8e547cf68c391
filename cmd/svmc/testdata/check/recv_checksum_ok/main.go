// want OK
// The twin of recv_checksum: the goroutine changes a copy.
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
			cp := append([]int(nil), buf...)
			go func() {
				time.Sleep(20 * time.Millisecond)
				cp[1] = -2
				done <- true
			}()
			rtlib.Ssend(1, 0, buf)
			<-done
		} else {
			time.Sleep(80 * time.Millisecond)
			rtlib.Recv(0, 0, buf)
		}
	}
}
