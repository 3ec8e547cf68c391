// want race=no
// a counter updated holding a sync.Mutex in the body
package main

import "sync"

func main() {
	var mu sync.Mutex
	hits, total := 0, 0
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		mu.Lock()
		hits++
		mu.Unlock()
		if i%2 == 0 {
			func() {
				mu.Lock()
				defer mu.Unlock()
				total += i
			}()
		}
	}
	_, _ = hits, total
}
