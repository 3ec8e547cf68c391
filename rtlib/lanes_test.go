package rtlib

import (
	"sync"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

// TestLanes: goroutines processor 0 starts (as svmc's rewrite of go
// statements does: GoLane in the starter, GoRecover and GoEnter first in
// the goroutine) get lanes N, N+1, ... that later goroutines reuse once
// free (a goroutine whose WaitGroup is done may still be closing its lane:
// then the next takes another); their regions are on their lanes; one still running when the run
// ends (it keeps entering regions, under the race detector too) leaves
// its records up to the end; a run without a trace gives no lane.
func TestLanes(t *testing.T) {
	stop := make(chan struct{})
	var spin sync.WaitGroup
	recs := traced(t, 2, 1, trace.Binary, func(p *Proc) {
		var wg sync.WaitGroup
		for round := 0; round < 3; round++ {
			for g := 0; g < 2; g++ {
				wg.Add(1)
				l := GoLane()
				go func() {
					defer GoRecover(l, "main.go:7:3")
					l.GoEnter("main.go:7:3")
					defer wg.Done()
					q := Current()
					q.Enter(2)
					q.Exit(2)
				}()
			}
			wg.Wait()
		}
		spin.Add(1)
		l := GoLane()
		go func() {
			defer GoRecover(l, "main.go:9:2")
			l.GoEnter("main.go:9:2")
			spin.Done()
			q := Current()
			for {
				select {
				case <-stop:
					return
				default:
				}
				q.Enter(2)
				q.Exit(2)
			}
		}()
		spin.Wait()
	})
	close(stop)
	starts, ends, regions := 0, 0, map[int]int{}
	for _, r := range recs {
		n := r.Int("node id")
		switch r.Desc.Tag {
		case trace.TagGoroutineStart:
			starts++
			if n < 2 || n >= 2+7 || r.Int("processor") != 0 {
				t.Errorf("goroutine-start on node %d for processor %d: want a lane 2..8 of processor 0", n, r.Int("processor"))
			}
		case trace.TagGoroutineEnd:
			ends++
		case trace.TagTraceRegionStart:
			if n >= 2 {
				regions[n]++
			}
		}
	}
	onLanes := 0
	for _, n := range regions {
		onLanes += n
	}
	if starts != 7 || ends != 6 || onLanes < 6 {
		t.Errorf("%d goroutine-start, %d goroutine-end, regions on lanes %v; want 7, 6 and at least 6", starts, ends, regions)
	}
	var got *Proc
	runN(t, 2, func(p *Proc) { got = GoLane() })
	if got == nil || got.lane || !got.tagOnly || got.startedBy() != 0 {
		t.Errorf("a run without a trace gave %+v; want processor 0's starter, no lane", got)
	}
}

// TestUntracedGoroutines: goroutines started while every lane is in use
// run without one, and the run says after its records how many, per
// processor (goroutines-untraced), so that the report can say its
// goroutine figures are short.
func TestUntracedGoroutines(t *testing.T) {
	const extra = 5
	release := make(chan struct{})
	recs := traced(t, 2, 1, trace.Binary, func(p *Proc) {
		var started, done sync.WaitGroup
		for g := 0; g < maxLanes+extra; g++ {
			started.Add(1)
			done.Add(1)
			l := GoLane()
			go func() {
				defer GoRecover(l, "main.go:7:3")
				l.GoEnter("main.go:7:3")
				defer done.Done()
				started.Done()
				<-release // every lane stays in use until all have started
			}()
		}
		started.Wait()
		close(release)
		done.Wait()
	})
	starts, untraced := 0, 0
	for _, r := range recs {
		switch r.Desc.Tag {
		case trace.TagGoroutineStart:
			starts++
		case trace.TagGoroutinesUntraced:
			if r.Int("processor") != 0 {
				t.Errorf("goroutines-untraced for processor %d, want 0", r.Int("processor"))
			}
			untraced += r.Int("goroutines")
		}
	}
	if starts != maxLanes || untraced != extra {
		t.Errorf("%d goroutine-start and %d untraced goroutines, want %d and %d", starts, untraced, maxLanes, extra)
	}
}

// TestLaterLanes: a function that runs later or never (GuardLater0, as
// svmc wraps time.AfterFunc's) takes its lane when it runs: timers stopped
// before they fire hold none, so more of them than there are lanes leave
// every later goroutine traced; one that fires gets a lane of the
// processor that set it, with the mask in force then.
func TestLaterLanes(t *testing.T) {
	var inUse int
	recs := traced(t, 2, 1, trace.Binary, func(p *Proc) {
		for range maxLanes + 10 {
			tm := time.AfterFunc(time.Hour, GuardLater0(func() {}, "main.go:5:3"))
			tm.Stop()
		}
		done := make(chan struct{})
		time.AfterFunc(time.Millisecond, GuardLater0(func() {
			q := Current()
			q.Enter(2)
			q.Exit(2)
			close(done)
		}, "main.go:8:2"))
		<-done
		ls := &p.r.lanes
		ls.mu.Lock()
		inUse = ls.inUse()
		ls.mu.Unlock()
	})
	starts, onLane := 0, 0
	for _, r := range recs {
		switch r.Desc.Tag {
		case trace.TagGoroutineStart:
			starts++
			if r.Int("processor") != 0 || r.String("started at") != "main.go:8:2" {
				t.Errorf("goroutine-start %v, want processor 0's timer at main.go:8:2", r)
			}
		case trace.TagGoroutinesUntraced:
			t.Errorf("%d goroutines untraced: stopped timers held lanes", r.Int("goroutines"))
		case trace.TagTraceRegionStart:
			if r.Int("node id") >= 2 {
				onLane++
			}
		}
	}
	if starts != 1 || onLane != 1 || inUse > 1 {
		t.Errorf("%d goroutine-start, %d regions on lanes, %d lanes in use; want 1, 1 and at most the fired timer's", starts, onLane, inUse)
	}
}
