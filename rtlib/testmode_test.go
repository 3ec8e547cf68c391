package rtlib

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/svmc/svmc/trace"
)

// fakeT runs subtests as the testing package does: each on a goroutine of
// its own, the parent waiting in Run until the subtest ends or calls
// Parallel; a paused subtest resumes when release is closed.
type fakeT struct {
	paused  chan struct{}
	release chan struct{}
	wg      *sync.WaitGroup
}

func (t *fakeT) Run(name string, f func(*fakeT)) bool {
	sub := &fakeT{paused: make(chan struct{}), release: t.release, wg: t.wg}
	done := make(chan struct{})
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer close(done)
		f(sub)
	}()
	select {
	case <-done:
	case <-sub.paused:
	}
	return true
}

func (t *fakeT) Parallel() {
	close(t.paused)
	<-t.release
}

// TestSubtestLending: svmc test's subtests borrow processor 0 from their
// test (SubRun): a sequential one and a parallel one before it pauses;
// the test has it back while the parallel one waits (TestParallel), and
// the parallel one takes it again when it resumes with processor 0 free.
// A test that starts while another acts as processor 0 runs beside it,
// serially, and says so.
func TestSubtestLending(t *testing.T) {
	workers := func(p *Proc) string {
		var mu sync.Mutex
		ran := map[int]bool{}
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 3, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
				mu.Lock()
				ran[q.ID()] = true
				mu.Unlock()
			}
		})
		if ran[0] && ran[1] {
			return "both"
		}
		return "one"
	}
	var errs bytes.Buffer
	got := map[string]string{}
	err := Run(testProg(), Params{NProcs: 2, Stderr: &errs}, func(*Proc) {
		release, wg := make(chan struct{}), &sync.WaitGroup{}
		top := &fakeT{release: release, wg: wg}
		var mu sync.Mutex
		set := func(k, v string) { mu.Lock(); got[k] = v; mu.Unlock() }
		done := make(chan struct{})
		go func() { // the test's goroutine
			defer close(done)
			OnLeader(func(p *Proc) {
				SubRun(top, "seq", func(*fakeT) { set("seq", workers(Current())) })
				SubRun(top, "par", func(st *fakeT) {
					set("par before", workers(Current()))
					set("par after", workers(TestParallel(Current(), st)))
				})
				set("test", workers(p))
				inside := make(chan struct{})
				go func() { // another test, while this one holds processor 0
					defer close(inside)
					OnLeader(func(q *Proc) { set("beside", workers(q)) })
				}()
				<-inside
			})
		}()
		<-done
		close(release) // processor 0 is free: the paused subtest resumes
		wg.Wait()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"seq": "both", "par before": "both", "test": "both", "beside": "one", "par after": "both"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s ran its pdo on %s processor(s), want %s", k, got[k], v)
		}
	}
	if !strings.Contains(errs.String(), "its test runs beside another test that holds processor 0 (t.Parallel)") {
		t.Errorf("no word of the test run beside:\n%s", errs.String())
	}
	if holder.Load() != 0 || !lendMu.TryLock() {
		t.Error("processor 0 is still lent after every test ended")
	} else {
		lendMu.Unlock()
	}
}

// TestParallelTestRegions: two tests whose functions have traced entries
// call t.Parallel; when they resume, one acts as processor 0 and the
// other runs beside it. The region each opened on processor 0 before it
// paused ends as it pauses, and the entry's exit of the test running
// beside does not touch processor 0 (the race detector saw it write
// processor 0's region stack and trace buffer while the other test held
// it; svmc test crashed once in the buffer).
func TestParallelTestRegions(t *testing.T) {
	var buf bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stage: 3, Trace: &buf, Format: trace.ASCII, Stderr: io.Discard}, func(*Proc) {
		release, wg := make(chan struct{}), &sync.WaitGroup{}
		test := func() *fakeT {
			ft := &fakeT{paused: make(chan struct{}), release: release, wg: wg}
			wg.Add(1)
			go func() { // the test's goroutine, as the testing package starts it
				defer wg.Done()
				OnLeader(func(p *Proc) {
					p.Enter(2) // the test function's traced entry
					q := TestParallel(p, ft)
					for range 20 {
						q.PDO(2, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 7, Step: 1}}, func(*Proc, *Iter) {})
					}
					p.Exit(2)
				})
			}()
			<-ft.paused
			return ft
		}
		test()
		test()
		close(release) // the sequential tests are done: both resume
		wg.Wait()
	})
	if err != nil {
		t.Fatal(err)
	}
	open := 0
	for _, r := range byNode(readTrace(t, buf.Bytes()))[0] {
		if r.Desc.Name != "trace-region-start" && r.Desc.Name != "trace-region-stop" {
			continue
		}
		switch typ := r.Int("trace region type"); {
		case typ == trace.RegionSubroutine && r.Int("subprogram number") == 2:
			if r.Desc.Name == "trace-region-start" {
				open++
			} else {
				open--
			}
		case typ == trace.RegionPDO && open != 0:
			t.Fatalf("processor 0 runs a pdo with %d paused tests' regions open: %s", open, evString(r))
		}
	}
	if open != 0 {
		t.Errorf("%d test regions never closed on processor 0", open)
	}
}
