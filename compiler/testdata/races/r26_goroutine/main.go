// want race=yes line=12
// a goroutine started in an iteration writes after the loop has ended
package main

import "fmt"

func main() {
	out := make([]int, 64)
	done := make(chan bool, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		go func() { out[i] = i * i; done <- true }()
	}
	fmt.Println(out[63])
	for range 64 {
		<-done
	}
}
