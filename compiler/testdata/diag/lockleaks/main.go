// A mutex a path leaves locked deadlocks the next Lock: a return, continue
// or break between the Lock and its Unlock, or an Unlock in some branches
// only, is warned of in a function that unlocks it; the usual shapes
// (defer, unlocking before an early return, a helper whose caller unlocks)
// are not.
package main

import "sync"

type cache struct {
	mu sync.RWMutex
	m  map[int]int
}

func (c *cache) get(k int) (int, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	if !ok {
		return 0, false // want 3:`^warning: this return leaves c.mu locked \(locked at line 16, not unlocked on this path\): the next Lock of it waits for ever \(a deadlock of the processors in a pdo\); unlock before it, or write defer c.mu.RUnlock\(\) right after the Lock$`
	}
	c.mu.RUnlock()
	return v, true
}

func (c *cache) put(k, v int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v < 0 {
		return
	}
	c.m[k] = v
}

func (c *cache) lockForCaller() { c.mu.Lock() }

// grab hands the read lock to its caller with the function that releases
// it (as database/sql does): the early return unlocks, the last one does
// not, and neither is a leak.
func (c *cache) grab() (func(), bool) {
	c.mu.RLock()
	if c.m == nil {
		c.mu.RUnlock()
		return nil, false
	}
	return c.mu.RUnlock, true
}

func (c *cache) clear(wait func()) {
	c.mu.Lock()
	defer func() {
		c.mu.Unlock()
	}()
	if len(c.m) == 0 {
		return
	}
	c.mu.Unlock()
	wait()
	c.mu.Lock() // the deferred literal releases it
	clear(c.m)
}

func (c *cache) drop(k int) bool {
	c.mu.Lock()
	if _, ok := c.m[k]; !ok {
		c.mu.Unlock()
		return false
	}
	delete(c.m, k)
	c.mu.Unlock()
	return true
}

func main() {
	var mu sync.Mutex
	c := &cache{m: map[int]int{}}
	total := 0
	//svm:pdo
	for i := range 100 {
		mu.Lock()
		if i%10 == 0 {
			continue // want 4:`^warning: this continue leaves mu locked \(locked at line 79, not unlocked on this path\)`
		}
		total += i
		mu.Unlock()
		c.put(i, i)
		c.get(i)
		c.drop(i)
	}
	//svm:pdo
	for i := range 100 {
		mu.Lock()
		total += i
		if i != 3 {
			mu.Unlock() // want 4:`^warning: mu, locked at line 91, is unlocked here on some paths only: a path that skips this Unlock leaves it locked`
		}
	}
	for i := range 3 {
		mu.Lock()
		switch i {
		case 1:
			mu.Unlock()
			continue
		}
		mu.Unlock()
	}
	c.lockForCaller()
	c.mu.Unlock()
	if release, ok := c.grab(); ok {
		release()
	}
	c.clear(func() {})
	mu.Lock()
	if total < 0 {
		goto done
	}
	total++
done:
	mu.Unlock()
	println(total)
}
