// want race=yes line=16
// a timer's function started in an iteration (time.AfterFunc) runs on a
// goroutine of its own after the iteration, maybe after the loop
package main

import (
	"fmt"
	"time"
)

func main() {
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		d := time.Duration(i) * time.Microsecond
		time.AfterFunc(d, func() { out[i] = i })
	}
	time.Sleep(10 * time.Millisecond)
	fmt.Println(out[63])
}
