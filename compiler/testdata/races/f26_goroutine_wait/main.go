// want race=no
// a goroutine started in an iteration, which the iteration waits for
package main

import (
	"fmt"
	"sync"
)

func main() {
	out := make([]int, 64)
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { out[i] = i * i; wg.Done() }()
		wg.Wait()
	}
	fmt.Println(out[63])
}
