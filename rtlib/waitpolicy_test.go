package rtlib

import (
	"io"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestActiveWait: with wait_policy active the processors spin between
// constructs instead of blocking, and the program computes what it does
// with passive waits: pdos (static and dynamic) separated by serial code
// shorter and longer than the spin (so that both the spin and the block
// after it end waits), with barriers between.
func TestActiveWait(t *testing.T) {
	for _, n := range []int{2, 3} {
		var sum atomic.Int64
		err := Run(testProg(), Params{NProcs: n, ActiveWait: 300 * time.Microsecond, Stderr: io.Discard}, func(p *Proc) {
			for k := range 12 {
				time.Sleep(time.Duration(k%4) * 150 * time.Microsecond) // serial: 0 to 450 µs
				sched := DefaultSchedule()
				if k%2 == 1 {
					sched = Dynamic(1)
				}
				p.PDO(1, 1, sched, []Range{{Lo: 0, Hi: 99, Step: 1}}, func(q *Proc, it *Iter) {
					for it.Next() {
						sum.Add(int64(it.Index(0)))
					}
				})
				p.Barrier(1, 1)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sum.Load(), int64(12*4950); got != want {
			t.Errorf("%d processors: sum %d, want %d", n, got, want)
		}
	}
}

// TestActiveWaitSpins: a wait that ends within the active spin never
// blocks; with the passive policy the same wait blocks. (A word changed
// 2 ms after the wait began, the spin 200 ms long.)
func TestActiveWaitSpins(t *testing.T) {
	for _, active := range []time.Duration{0, 200 * time.Millisecond} {
		blocks := lateWordBlocks(t, 1, active, nil)
		if active > 0 && blocks != 0 || active == 0 && blocks != 1 {
			t.Errorf("active wait %v: %d blocked waits", active, blocks)
		}
	}
}

// TestActiveWaitFewerPs: a program that lowers runtime.GOMAXPROCS below
// the number of processors (x567: GOMAXPROCS(1) first thing in main) makes
// an active wait block instead of spinning on the P the others need (x567
// ran 15-35 times longer than with passive waits). The wait's word
// changes 2 ms after it begins, the spin is 200 ms long: the processor
// blocks once.
func TestActiveWaitFewerPs(t *testing.T) {
	blocks := lateWordBlocks(t, 2, 200*time.Millisecond, func() func() {
		old := runtime.GOMAXPROCS(1)
		return func() { runtime.GOMAXPROCS(old) }
	})
	if blocks != 1 {
		t.Errorf("%d blocked waits, want 1: the wait spun on the only P", blocks)
	}
}

// lateWordBlocks runs n processors with the given active wait; processor
// 0 (after setup, which returns its undoing) awaits a word that another
// goroutine changes 2 ms later. It returns how many times processor 0
// blocked.
func lateWordBlocks(t *testing.T, n int, active time.Duration, setup func() func()) int {
	t.Helper()
	var blocks int
	err := Run(testProg(), Params{NProcs: n, ActiveWait: active, Stderr: io.Discard}, func(p *Proc) {
		if setup != nil {
			defer setup()()
		}
		var w atomic.Uint64
		go func() {
			time.Sleep(2 * time.Millisecond)
			w.Store(1)
			p.wakeup()
		}()
		if v := p.await(&w, 0, false); v != 1 {
			t.Errorf("await returned %d", v)
		}
		blocks = p.blocks
	})
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}
