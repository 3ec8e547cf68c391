// Mutexwait: the iterations of a pdo hold one sync.Mutex for most of their
// time, so that the processors take turns at it: the report says how long
// they waited to lock it, and where.
package main

import (
	"fmt"
	"sync"
	"time"
)

type ledger struct {
	mu    sync.Mutex
	total time.Duration
}

func (l *ledger) record(d time.Duration) {
	l.mu.Lock()
	time.Sleep(d) // the work is done holding the mutex
	l.total += d
	l.mu.Unlock()
}

func main() {
	l := &ledger{}
	//svm:pdo strategy(cyclic)
	for i := range 40 {
		l.record(time.Millisecond)
		_ = i
	}
	fmt.Println(l.total)
}
