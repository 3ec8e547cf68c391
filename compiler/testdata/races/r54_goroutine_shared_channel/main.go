// want race=yes line=14
// goroutines started in the iterations send on one channel from outside
// the loop: an iteration's receive may take another iteration's value
// while its own goroutine still runs, and writes, after the loop
package main

import "fmt"

func main() {
	out := make([]int, 64)
	results := make(chan int)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		go func() { out[i] = i * i; results <- i }()
		<-results
	}
	fmt.Println(out[63])
}
