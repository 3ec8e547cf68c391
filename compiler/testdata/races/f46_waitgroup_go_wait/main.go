// want race=no
// goroutines started in an iteration by WaitGroup.Go, which the
// iteration waits for
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
		half := make([]int, 2)
		for h := range half {
			wg.Go(func() { half[h] = i * (h + 1) })
		}
		wg.Wait()
		out[i] = half[0] + half[1]
	}
	fmt.Println(out[63])
}
