// want race=no
// writes between the lock and unlock methods of a generic type
package main

import "sync"

type acc[T int | float64] struct {
	mu  sync.Mutex
	sum T
}

func (a *acc[T]) lock()   { a.mu.Lock() }
func (a *acc[T]) unlock() { a.mu.Unlock() }

func main() {
	a := &acc[float64]{}
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		a.lock()
		a.sum += float64(i)
		a.unlock()
	}
}
