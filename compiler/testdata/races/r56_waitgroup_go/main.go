// want race=yes line=16
// a goroutine started in an iteration by WaitGroup.Go (Go 1.25), waited
// for only after the loop: its write may come after the loop's barrier
package main

import (
	"fmt"
	"sync"
)

func main() {
	out := make([]int, 64)
	var wg sync.WaitGroup
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		wg.Go(func() { out[i] = i * i })
	}
	wg.Wait()
	fmt.Println(out[63])
}
