// Mutexes: the program's own sync.Mutex and RWMutex in every form Go code
// locks them (a local, a field through a pointer, an embedded one, an
// element of an array of stripes, a *sync.Mutex field, a read lock, in a
// closure, in a goroutine, in a method of a generic type) inside pdos: svmc
// records the waits for them, and the results are the serial program's.
package main

import (
	"fmt"
	"sort"
	"sync"
)

type counter struct {
	sync.Mutex
	n map[string]int
}

func (c *counter) add(k string) {
	c.Lock()
	defer c.Unlock()
	c.n[k]++
}

type stats struct {
	mu  *sync.Mutex
	sum int
}

type cache[K comparable, V any] struct {
	rw sync.RWMutex
	m  map[K]V
}

func (c *cache[K, V]) get(k K) (V, bool) {
	c.rw.RLock()
	defer c.rw.RUnlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *cache[K, V]) put(k K, v V) {
	c.rw.Lock()
	c.m[k] = v
	c.rw.Unlock()
}

func main() {
	var mu sync.Mutex
	total := 0
	c := &counter{n: map[string]int{}}
	st := &stats{mu: &sync.Mutex{}}
	var stripes [4]sync.Mutex
	buckets := make([]int, 4)
	sq := &cache[int, int]{m: map[int]int{}}
	//svm:pdo strategy(cyclic)
	for i := range 200 {
		mu.Lock()
		total += i
		mu.Unlock()
		c.add([]string{"even", "odd"}[i%2])
		st.mu.Lock()
		st.sum += i * i
		st.mu.Unlock()
		k := i % 4
		stripes[k].Lock()
		buckets[k]++
		stripes[k].Unlock()
		if _, ok := sq.get(i % 10); !ok {
			sq.put(i%10, (i%10)*(i%10))
		}
		func() {
			mu.Lock()
			defer mu.Unlock()
			total++
		}()
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			total += 1000 * (g + 1)
			mu.Unlock()
		}()
	}
	wg.Wait()
	keys := make([]string, 0, len(c.n))
	for k := range c.n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, c.n[k])
	}
	v, _ := sq.get(7)
	fmt.Println(total, st.sum, buckets, len(sq.m), v)
}
