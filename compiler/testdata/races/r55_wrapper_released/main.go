// want race=yes line=23
// the write comes after the method that releases the mutex
package main

import "sync"

type stats struct {
	mu  sync.Mutex
	sum int
	max int
}

func (s *stats) lock()   { s.mu.Lock() }
func (s *stats) unlock() { s.mu.Unlock() }

func main() {
	st := &stats{}
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		st.lock()
		st.sum += i
		st.unlock()
		st.max = i
	}
}
