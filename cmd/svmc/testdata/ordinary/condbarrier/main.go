// The program's own goroutines meeting at a sync.Cond barrier many times in
// code that runs on processor 0 (exclusive), then one pdo: with more
// processors, the idle ones wait for that pdo meanwhile and must not slow
// the goroutines down.
package main

import (
	"fmt"
	"sync"
)

type barrier struct {
	mu    sync.Mutex
	c     *sync.Cond
	n     int
	count int
	gen   int
}

func newBarrier(n int) *barrier {
	b := &barrier{n: n}
	b.c = sync.NewCond(&b.mu)
	return b
}

func (b *barrier) wait() {
	b.mu.Lock()
	g := b.gen
	if b.count++; b.count == b.n {
		b.count = 0
		b.gen++
		b.c.Broadcast()
	} else {
		for g == b.gen {
			b.c.Wait()
		}
	}
	b.mu.Unlock()
}

func main() {
	const workers, rounds = 4, 20000
	b := newBarrier(workers)
	sums := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				sums[w] += r % 7
				b.wait()
			}
		}()
	}
	wg.Wait()
	total := 0
	//svm:pdo loops(w) reduction(+: total)
	for w := 0; w < workers; w++ {
		total += sums[w]
	}
	fmt.Println(total)
}
