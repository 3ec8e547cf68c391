// The program's own goroutines doing the work, joined by a WaitGroup and a
// channel, in code that runs on processor 0 (exclusive).
package main

import (
	"fmt"
	"sync"
)

func work(seed, n int) int {
	s := seed
	for i := 0; i < n; i++ {
		s = (s*31 + i) % 1000003
	}
	return s
}

func main() {
	const workers = 4
	results := make(chan int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- work(w, 10_000_000)
		}()
	}
	wg.Wait()
	close(results)
	sum := 0
	for r := range results {
		sum += r
	}
	fmt.Println(sum)
}
