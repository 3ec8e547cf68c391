// want race=no
// closures of main called by every iteration: one fills a map holding a
// mutex, one writes the element its argument names
package main

import "sync"

func main() {
	var mu sync.Mutex
	seen := map[int]bool{}
	mark := func(k int) {
		mu.Lock()
		seen[k] = true
		mu.Unlock()
	}
	out := make([]int, 64)
	set := func(k, v int) { out[k] = v }
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		mark(i % 7)
		set(i, i*i)
	}
}
