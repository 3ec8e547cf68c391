// want race=no
// goroutines started in an iteration that the iteration waits for by
// receiving what they send as their last act (a result channel, a done
// channel closed by defer, a range over a channel the goroutine closes)
package main

import "fmt"

func square(x int) int { return x * x }

func main() {
	out := make([]int, 64)
	sum := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		ch := make(chan int, 1)
		go func() { ch <- square(i) }()
		out[i] = <-ch
		done := make(chan struct{})
		go func() {
			defer close(done)
			sum[i] = out[i] + 1
		}()
		<-done
		parts := make(chan int)
		go func() {
			for k := range 3 {
				parts <- k * i
			}
			close(parts)
		}()
		for v := range parts {
			sum[i] += v
		}
	}
	fmt.Println(out[63], sum[63])
}
