package rtlib

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

// TestLockAtRecordsWaits: LockAt and RLockAt lock as Lock and RLock do;
// a processor that finds the mutex held by another records its wait with
// the site (wait-mutex-start, wait-mutex-stop), one that finds it free
// records nothing, and below stage 3 nothing is recorded.
func TestLockAtRecordsWaits(t *testing.T) {
	for _, stage := range []int{2, 3} {
		var mu sync.Mutex
		var rw sync.RWMutex
		held, back, held2 := make(chan struct{}), make(chan struct{}), make(chan struct{})
		n := 0
		recs := traced(t, 2, stage, trace.Binary, func(p *Proc) {
			p.Replicated(1, 1, func(p *Proc) {
				if p.id == 0 {
					LockAt(1, &mu) // free: no records
					close(held)
					time.Sleep(3 * time.Millisecond)
					n++
					mu.Unlock()
					<-back
					rw.Lock()
					close(held2)
					time.Sleep(3 * time.Millisecond)
					rw.Unlock()
					return
				}
				<-held
				LockAt(2, &mu) // processor 0 holds it
				n++
				mu.Unlock()
				close(back)
				<-held2
				RLockAt(3, &rw) // a writer holds it
				rw.RUnlock()
			})
		})
		if n != 2 {
			t.Errorf("stage %d: %d increments under the mutex, want 2", stage, n)
		}
		var got []string
		for _, r := range recs {
			if r.Desc.Tag == trace.TagWaitMutexStart || r.Desc.Tag == trace.TagWaitMutexStop {
				s := r.Desc.Name + " node " + string(rune('0'+r.Node())) + " site " + string(rune('0'+r.Int("mutex site")))
				if r.Desc.Tag == trace.TagWaitMutexStart && r.Int("mutex address") == 0 {
					s += " no address"
				}
				got = append(got, s)
			}
		}
		var want []string
		if stage >= 3 {
			want = []string{"wait-mutex-start node 1 site 2", "wait-mutex-stop node 1 site 2", "wait-mutex-start node 1 site 3", "wait-mutex-stop node 1 site 3"}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stage %d: mutex records %q, want %q", stage, got, want)
		}
	}
}

// TestLockerAt: a lock through a sync.Locker records the wait when the
// Locker holds a *sync.Mutex another processor holds (x199's
// var l sync.Locker = &mu: its waits were in no record), and locks any
// other Locker (an RWMutex's RLocker) as it is.
func TestLockerAt(t *testing.T) {
	var mu sync.Mutex
	var rw sync.RWMutex
	held := make(chan struct{})
	n := 0
	recs := traced(t, 2, 3, trace.Binary, func(p *Proc) {
		p.Replicated(1, 1, func(p *Proc) {
			var l sync.Locker = &mu
			if p.id == 0 {
				LockerAt(1, l)
				close(held)
				time.Sleep(3 * time.Millisecond)
				n++
				l.Unlock()
				return
			}
			<-held
			LockerAt(2, l) // processor 0 holds it
			n++
			l.Unlock()
			r := rw.RLocker()
			LockerAt(3, r) // no TryLock: locked as it is
			r.Unlock()
		})
	})
	if n != 2 {
		t.Errorf("%d increments under the mutex, want 2", n)
	}
	var got []string
	for _, r := range recs {
		if r.Desc.Tag == trace.TagWaitMutexStart || r.Desc.Tag == trace.TagWaitMutexStop {
			got = append(got, fmt.Sprintf("%s node %d site %d", r.Desc.Name, r.Node(), r.Int("mutex site")))
		}
	}
	if want := []string{"wait-mutex-start node 1 site 2", "wait-mutex-stop node 1 site 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("mutex records %q, want %q", got, want)
	}
}

// TestLockAtOffProcessor: a goroutine that is no processor locks as
// usual (nothing to record it on): it waits while the mutex is held and
// holds it when LockAt returns.
func TestLockAtOffProcessor(t *testing.T) {
	var mu sync.Mutex
	var released atomic.Bool
	mu.Lock()
	done := make(chan bool)
	go func() {
		LockAt(1, &mu)
		early := !released.Load()
		held := !mu.TryLock()
		mu.Unlock()
		done <- !early && held
	}()
	time.Sleep(time.Millisecond)
	released.Store(true)
	mu.Unlock()
	if !<-done {
		t.Error("LockAt off a processor returned before the mutex was released, or without holding it")
	}
}

// BenchmarkLockAt is an uncontended lock and unlock through LockAt,
// against the same with sync.Mutex's own Lock.
func BenchmarkLockAt(b *testing.B) {
	var mu sync.Mutex
	b.Run("lockat", func(b *testing.B) {
		for b.Loop() {
			LockAt(1, &mu)
			mu.Unlock()
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			mu.Lock()
			mu.Unlock()
		}
	})
}

// TestLockAtStatistics: a processor's wait for a mutex another holds is
// synchronisation in the runtime's statistics (the user program's calls
// of the synchronisation group), as a lock directive's is.
func TestLockAtStatistics(t *testing.T) {
	var msg bytes.Buffer
	var mu sync.Mutex
	held := make(chan struct{})
	err := Run(testProg(), Params{NProcs: 2, Stats: true, Stderr: &msg}, func(p *Proc) {
		p.Replicated(1, 1, func(p *Proc) {
			if p.id == 0 {
				mu.Lock()
				close(held)
				time.Sleep(3 * time.Millisecond)
				mu.Unlock()
				return
			}
			<-held
			LockAt(1, &mu)
			mu.Unlock()
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if text := msg.String(); !strings.Contains(text, "IM[UserGrp    ][SyncGrp    ] CallCount") {
		t.Errorf("no calls of the synchronisation group by the user program in\n%s", text)
	}
}

// TestStackFrameNames: a goroutine blocked in an instrumented function is
// named by the function the user wrote (add, not its twin svm_add).
func TestStackFrameNames(t *testing.T) {
	dump := `goroutine 7 [sync.Mutex.Lock]:
sync.runtime_SemacquireMutex(0x0?, 0x0?, 0x0?)
	/usr/lib/go/src/runtime/sema.go:95 +0x25
sync.(*Mutex).Lock(...)
	/usr/lib/go/src/sync/mutex.go:149
github.com/svmc/svmc/rtlib.LockAt(...)
	/tmp/rtlib/mutex.go:38
main.(*ledger).svm_add(0xc000012345, 0x0?, 0x5)
	/tmp/x/main.go:14 +0x45
main.main.func1.1(0xc000123456, 0xc000234567)
	/tmp/x/main.go:26 +0x78`
	gs := parseStacks(dump)
	if len(gs) != 1 || gs[0].id != 7 || gs[0].state != "sync.Mutex.Lock" || gs[0].where != "main.(*ledger).add at /tmp/x/main.go:14" {
		t.Errorf("parsed %+v, want goroutine 7 blocked in main.(*ledger).add at /tmp/x/main.go:14", gs)
	}
	// Function literals are named by the function they are written in:
	// main's body and pdo bodies are svmc's literals.
	for fn, want := range map[string]string{
		"main.main.func1":             "main.main",
		"main.main.func1.2":           "main.main",
		"main.(*T).svm_Run.func3":     "main.(*T).Run",
		"main.Map[...].func1":         "main.Map[...]",
		"main.main.gowrap1":           "main.main",
		"main.work.deferwrap2":        "main.work",
		"main.init.0":                 "main.init.0",
		"example.com/x/fun.function1": "example.com/x/fun.function1",
		"main.func1x":                 "main.func1x",
		"main.svm_svm_walk":           "main.walk",     // a traced entry
		"main.(*T).svm_svm_svm_Sum":   "main.(*T).Sum", // a plain clone
	} {
		if got := userFunc(fn); got != want {
			t.Errorf("userFunc(%q) = %q, want %q", fn, got, want)
		}
	}
}

// BenchmarkLockAtContended is four goroutines that are no processors
// taking one mutex in turn through LockAt, against sync.Mutex's Lock: the
// cost of the instrumented lock when it waits and nothing is traced.
func BenchmarkLockAtContended(b *testing.B) {
	for _, mode := range []string{"lockat", "plain"} {
		b.Run(mode, func(b *testing.B) {
			var mu sync.Mutex
			shared := 0
			b.SetParallelism(2) // four goroutines on two cores
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if mode == "lockat" {
						LockAt(1, &mu)
					} else {
						mu.Lock()
					}
					shared++
					mu.Unlock()
				}
			})
		})
	}
}
