// want race=yes line=14
// a goroutine started in an iteration signals the iteration before it
// writes: the write may come after the loop's barrier
package main

import "fmt"

func main() {
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		ready := make(chan bool)
		x := i * i
		go func() { ready <- true; out[i] = x }()
		<-ready
	}
	fmt.Println(out[63])
}
