package team

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// member waits at the barrier b of n members the way rtlib does: arrive,
// the last one releases and wakes the others, the others wait for the
// generation to change.
func member(b *Barrier, ws []Waiter, me, n int, h uint64, aborting *atomic.Bool) (same bool) {
	g := b.Gen.Load()
	last, same := Complete(b.Arrive(h), n, h)
	if last {
		b.Arrived.Store(0)
		b.Gen.Store(g + 1)
		for i := range ws {
			if i != me {
				ws[i].Wakeup()
			}
		}
		return same
	}
	for {
		if _, changed := ws[me].Block(&b.Gen, g, aborting); changed {
			break
		}
	}
	return true
}

// TestBarrier: no member leaves a round before every member arrived, over
// many rounds and more goroutines than CPUs (so that waiters sleep), and
// no wake-up is lost (the test would hang).
func TestBarrier(t *testing.T) {
	const n, rounds = 5, 2000
	var b Barrier
	ws := make([]Waiter, n)
	for i := range ws {
		ws[i].Init()
	}
	var aborting atomic.Bool
	var arrived [rounds]atomic.Int32
	var wg sync.WaitGroup
	for me := 0; me < n; me++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				arrived[r].Add(1)
				member(&b, ws, me, n, SiteHash(1, 2, 3), &aborting)
				if got := arrived[r].Load(); got != n {
					t.Errorf("member %d left round %d with %d arrivals", me, r, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if g := b.Gen.Load(); g != rounds {
		t.Errorf("%d generations, want %d", g, rounds)
	}
}

// TestSites: the last arrival tells whether every member arrived at the
// same site (what Complete says of the others' sites is meaningless).
func TestSites(t *testing.T) {
	var b Barrier
	h1, h2 := SiteHash(1, 2, 0), SiteHash(1, 3, 0)
	if h1 == h2 || SiteHash(1, 2, 1) == h1 || h1>>32 != 0 {
		t.Fatal("site hashes collide or exceed 32 bits")
	}
	b.Arrive(h1)
	if last, _ := Complete(b.Arrive(h1), 3, h1); last {
		t.Error("the second of 3 arrivals is the last")
	}
	if last, same := Complete(b.Arrive(h2), 3, h2); !last || same {
		t.Errorf("third arrival at another site: last %v same %v", last, same)
	}
	b.Release()
	if b.Arrived.Load() != 0 || b.Gen.Load() != 1 {
		t.Error("Release")
	}
}

// TestBlockAborting: a waiter blocked when the run aborts returns, saying
// the word did not change.
func TestBlockAborting(t *testing.T) {
	var wt Waiter
	wt.Init()
	var w atomic.Uint64
	var aborting atomic.Bool
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if _, changed := wt.Block(&w, 0, &aborting); changed {
			t.Error("Block says the word changed")
		}
	}()
	time.Sleep(10 * time.Millisecond)
	aborting.Store(true)
	wt.Wakeup()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not see the abort")
	}
}

func TestAdapt(t *testing.T) {
	if Adapt(4, 2, time.Microsecond) != 8 || Adapt(MaxYields, 2, 0) != MaxYields {
		t.Error("a short block doubles, up to MaxYields")
	}
	if Adapt(4, 2, 40*time.Microsecond) != 8 {
		t.Error("a wait woken as fast as a thread wakes (16-30 µs on a virtual machine) counts as long")
	}
	if Adapt(8, 2, time.Millisecond) != 4 || Adapt(2, 2, time.Millisecond) != 2 {
		t.Error("a long block halves, down to the least")
	}
	if s, y := SpinPolicy(1); s <= 0 || y != MinYields {
		t.Errorf("SpinPolicy(1) = %d, %d", s, y)
	}
	if s, _ := SpinPolicy(1 << 20); s >= 32 {
		t.Errorf("more processors than CPUs spin %d loads", s)
	}
}

// BenchmarkBarrier is a barrier of two goroutines on the team's
// primitives alone (rtlib's BenchmarkBarrier adds the processors' work).
func BenchmarkBarrier(b *testing.B) {
	var bar Barrier
	ws := make([]Waiter, 2)
	ws[0].Init()
	ws[1].Init()
	var aborting atomic.Bool
	done := make(chan struct{})
	go func() {
		for i := 0; i < b.N; i++ {
			member(&bar, ws, 1, 2, 7, &aborting)
		}
		close(done)
	}()
	for i := 0; i < b.N; i++ {
		member(&bar, ws, 0, 2, 7, &aborting)
	}
	<-done
}

func TestSameSite(t *testing.T) {
	var b Barrier
	h := SiteHash(4, 5, 6)
	b.Arrive(h)
	b.Arrive(h)
	if last, same := Complete(b.Arrive(h), 3, h); !last || !same {
		t.Errorf("three arrivals at one site: last %v same %v", last, same)
	}
}
