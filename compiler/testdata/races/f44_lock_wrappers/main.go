// want race=no
// writes between methods that take and release the struct's mutex (and
// its embedded one) for their callers
package main

import "sync"

type stats struct {
	mu    sync.Mutex
	sum   int
	count int
}

func (s *stats) lock()   { s.mu.Lock() }
func (s *stats) unlock() { s.mu.Unlock() }

type cache struct {
	sync.Mutex
	hits map[int]int
}

func (c *cache) acquire() { c.Lock() }
func (c *cache) release() { c.Unlock() }

func main() {
	st := &stats{}
	c := &cache{hits: map[int]int{}}
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		v := i * i
		st.lock()
		st.sum += v
		st.count++
		st.unlock()
		c.acquire()
		c.hits[i%7]++
		c.release()
	}
}
