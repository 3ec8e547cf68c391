package rtlib

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestLockedLeaderSpins: processor 0 handed to the goroutine that reads
// Params.onMain (Main's main goroutine) runs there, and when that
// goroutine is locked to its thread (runtime.LockOSThread in a program's
// init, or in main: the body locks it in the last case) its waits spin
// for lockedWait before they block unless the wait policy sets a spin;
// unlocked, it keeps the policy's. The pdos' sums are right either way.
func TestLockedLeaderSpins(t *testing.T) {
	for _, c := range []struct {
		locked, inMain bool
		policy         time.Duration
		want           time.Duration
	}{{false, false, 0, 0}, {true, false, 0, lockedWait}, {true, false, 5 * time.Millisecond, 5 * time.Millisecond}, {false, true, 0, lockedWait}} {
		onMain := make(chan func(), 1)
		done := make(chan error, 1)
		var on, goro int64
		var wait time.Duration
		var sum int
		go func() {
			done <- Run(testProg(), Params{NProcs: 2, ActiveWait: c.policy, onMain: onMain}, func(p *Proc) {
				if c.inMain {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
				}
				goro, wait = goid(), p.spinWait()
				for k := range 100 {
					p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {
						s := 0
						for it.Next() {
							s += it.Index(0) + k
						}
						ReduceInto(it, &sum, s, OpAdd)
					})
				}
			})
		}()
		func() {
			if c.locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			on = goid()
			select {
			case f := <-onMain:
				f()
			case err := <-done:
				t.Fatalf("Run ended (%v) without handing processor 0 over", err)
			}
		}()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if goro != on {
			t.Errorf("locked %v: processor 0 ran on goroutine %d, not on %d, which took it", c.locked, goro, on)
		}
		if wait != c.want {
			t.Errorf("locked %v (in main %v), policy %v: processor 0 spins %v before it blocks, want %v", c.locked, c.inMain, c.policy, wait, c.want)
		}
		if want := 100*45 + 10*(99*100/2); sum != want {
			t.Errorf("locked %v: sum %d, want %d", c.locked, sum, want)
		}
	}
}

// BenchmarkPDOLockedLeader: pdos of 4 096 iterations on 2 processors led
// by processor 0 on a goroutine locked to its thread (Main's, in a
// program that called runtime.LockOSThread in init) and on an unlocked
// one, under the default (passive) wait policy: the locked leader spins
// for lockedWait before it blocks (without, x593 measured it about 3×
// slower: each blocked wait a hand-off between threads).
func BenchmarkPDOLockedLeader(b *testing.B) {
	a := make([]float64, 4096)
	space := []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}
	body := func(q *Proc, it *Iter) {
		for it.Next() {
			i := it.Index(0)
			a[i] = a[i]*0.5 + 1
		}
	}
	for _, locked := range []bool{false, true} {
		b.Run(fmt.Sprintf("locked=%v", locked), func(b *testing.B) {
			onMain := make(chan func(), 1)
			done := make(chan error, 1)
			go func() {
				done <- Run(testProg(), Params{NProcs: 2, onMain: onMain}, func(p *Proc) {
					for b.Loop() {
						p.PDO(1, 1, DefaultSchedule(), space, body)
					}
				})
			}()
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			(<-onMain)()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}
