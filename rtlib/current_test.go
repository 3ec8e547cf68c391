package rtlib

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"sync/atomic"
	"time"
)

// TestCurrent: a processor finds itself, a goroutine the program starts
// gets a detached Proc of its own that stays the same, and neither lookup
// allocates (the wrapper path used to parse the stack and allocate a Proc
// per call).
func TestCurrent(t *testing.T) {
	err := Run(testProg(), Params{NProcs: 3, Stderr: io.Discard}, func(p *Proc) {
		if Current() != p {
			t.Errorf("processor %d does not find itself", p.id)
		}
		if n := testing.AllocsPerRun(100, func() { Current() }); n != 0 {
			t.Errorf("Current on a processor allocates %v times", n)
		}
		done := make(chan *Proc)
		for range 2 {
			go func() {
				q := Current()
				if !q.detached || q.r != p.r || Current() != q {
					t.Errorf("goroutine: %+v", q)
				}
				if n := testing.AllocsPerRun(100, func() { Current() }); n != 0 {
					t.Errorf("Current on a goroutine allocates %v times", n)
				}
				done <- q
			}()
		}
		if a, b := <-done, <-done; a == b {
			t.Error("two goroutines share a detached Proc")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGMapGrows: the table keeps every goroutine's entry through growth,
// and a cleared entry reads as none.
func TestGMapGrows(t *testing.T) {
	var m gMap
	ps := make([]*Proc, 1000)
	for i := range ps {
		ps[i] = &Proc{id: i}
		m.store(uintptr(0x1000+64*i), ps[i])
	}
	for i, p := range ps {
		if m.load(uintptr(0x1000+64*i)) != p {
			t.Fatalf("entry %d lost", i)
		}
	}
	m.store(0x1000, nil)
	if m.load(0x1000) != nil || m.load(0x999) != nil {
		t.Error("a cleared or unknown goroutine has a Proc")
	}
	m.store(0x1000, ps[1])
	if m.load(0x1000) != ps[1] {
		t.Error("a tombstone is not reused")
	}
}

// TestExit: Exit on a processor, or on a goroutine the program started,
// ends the run with an ExitError carrying the status, and the trace ends
// with trace-end: status exit, or normal for Exit(0).
func TestExit(t *testing.T) {
	for _, c := range []struct {
		code      int
		goroutine bool
		status    int
	}{{3, false, trace.EndExit}, {0, false, trace.EndNormal}, {4, true, trace.EndExit}} {
		var buf bytes.Buffer
		err := Run(testProg(), Params{NProcs: 2, Stage: 1, Trace: &buf, Stderr: io.Discard}, func(p *Proc) {
			p.Barrier(1, 1)
			if c.goroutine {
				go Exit(c.code)
				for { // until the exit reaches this processor's next safe point
					p.checkAbort()
					runtime.Gosched()
				}
			}
			// Processor 1's iteration exits; processor 0 waits at the
			// loop's end until the exit stops it.
			p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					if q.ID() == 1 {
						Exit(c.code)
						t.Error("Exit returned")
					}
				}
			})
			t.Error("the pdo ended")
		})
		var xe *ExitError
		if !errors.As(err, &xe) || xe.Code != c.code {
			t.Errorf("%+v: Run returned %v", c, err)
		}
		recs := readTraceAll(t, buf.Bytes())
		end := recs[len(recs)-1]
		if end.Desc.Name != "trace-end" || end.Int("status") != c.status || !strings.Contains(end.String("message"), "os.Exit(") {
			t.Errorf("%+v: last record %v", c, trace.DumpLine(end))
		}
		// The message says which processor stopped the program (a
		// goroutine the test's processor started has no lane at stage 1).
		// (The position is the first frame outside rtlib: none here.)
		want := fmt.Sprintf("processor 1 called os.Exit(%d)", c.code)
		if c.goroutine {
			want = fmt.Sprintf("the program called os.Exit(%d)", c.code)
		}
		if !strings.HasPrefix(xe.Error(), want) {
			t.Errorf("%+v: the run's error is %q, want %q", c, xe.Error(), want)
		}
	}
}

// readTraceAll is every record of a trace, trace-end included.
func readTraceAll(t *testing.T, b []byte) []*trace.Record {
	t.Helper()
	rd, err := trace.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*trace.Record
	for r, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestNilQueries: in the serial build no template or processors directive
// runs, so the variables stay nil: their queries answer as for an
// undefined template and for one processor instead of panicking.
func TestNilQueries(t *testing.T) {
	var T *Template
	var P *Procs
	if T.Size() != 0 || T.LocalSize(0) != 0 || T.Rank() != 0 || T.Defined() || T.Distributed() || T.Extent(0) != (Extent{}) || T.Name() != "" || T.ID() != 0 || T.String() == "" {
		t.Error("nil template")
	}
	if P.Size() != 1 || P.LocalSize() != 1 || P.Rank() != 1 || len(P.Pids()) != 1 || P.Extent(0) != (Extent{}) || P.Name() != "" || P.ID() != 0 || P.String() == "" {
		t.Error("nil arrangement")
	}
}

// TestDetachedPDO: a goroutine that is not a processor runs its pdos
// serially, nested ones too, again and again without allocating an Iter
// each time, says so once per construct, and a panic in a body leaves its
// Iter and loop frame free for the next pdo.
func TestDetachedPDO(t *testing.T) {
	var stderr bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stderr: &stderr}, func(*Proc) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			p := Current()
			nest := func() (sum int) {
				p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 3, Step: 1}}, func(q *Proc, it *Iter) {
					for it.Next() {
						i := it.Index(0)
						q.PDO(1, 2, DefaultSchedule(), []Range{{Lo: 0, Hi: 4, Step: 1}}, func(q *Proc, jt *Iter) {
							for jt.Next() {
								sum += 10*i + jt.Index(0)
							}
						})
					}
				})
				return sum
			}
			for range 3 {
				func() {
					defer func() { recover() }()
					p.PDO(1, 3, DefaultSchedule(), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {
						for it.Next() {
							if it.Index(0) == 5 {
								panic("bad")
							}
						}
					})
				}()
			}
			if p.nSerial != 0 || p.LoopSize() != 0 {
				t.Errorf("after panicking pdos: %d serial Iters in use, LoopSize %d", p.nSerial, p.LoopSize())
			}
			if got := nest(); got != 5*(0+10+20+30)+4*(0+1+2+3+4) {
				t.Errorf("nested sum %d", got)
			}
			walk := func(q *Proc, it *Iter) {
				for it.Next() {
				}
			}
			if a := testing.AllocsPerRun(100, func() {
				p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 63, Step: 1}}, walk)
			}); a != 0 {
				t.Errorf("a serial pdo allocates %.0f times a call", a)
			}
			if len(p.serial) != 2 {
				t.Errorf("%d serial Iters kept, want 2 (one per level)", len(p.serial))
			}
		}()
		<-done
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr.String(), "pdo runs all its iterations on this goroutine"); n != 3 {
		t.Errorf("%d messages for 3 pdo directives:\n%s", n, stderr.String())
	}
}

// TestDetachedOneProcessor: on one processor a goroutine's pdo, psection
// and barrier do what the processor's would, so nothing is said of them.
func TestDetachedOneProcessor(t *testing.T) {
	for _, n := range []int{1, 2} {
		var stderr bytes.Buffer
		err := Run(testProg(), Params{NProcs: n, Stderr: &stderr}, func(*Proc) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				p := Current()
				p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 3, Step: 1}}, func(q *Proc, it *Iter) {
					for it.Next() {
					}
				})
				p.Barrier(1, 2)
			}()
			<-done
		})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Count(stderr.String(), "svmc: ")
		if want := map[int]int{1: 0, 2: 2}[n]; got != want {
			t.Errorf("n=%d: %d messages, want %d:\n%s", n, got, want, stderr.String())
		}
	}
}

// TestExitAtOnceUntraced: os.Exit from a goroutine that is not a processor,
// while both processors are in a pdo's iterations, ends a run that writes
// nothing (no trace, no statistics) at once, as plain Go's os.Exit ends
// every goroutine where it is: Run returns without waiting for the
// processors to reach a safe point (x549 waited for the loop's end, 0.3 s
// against plain Go's 0.07). The processors are released only after Run
// returns, so a run that waited for them (stop_wait an hour) would hang
// until the test's own bound, which fails it.
func TestExitAtOnceUntraced(t *testing.T) {
	var release, forced atomic.Bool
	bound := time.AfterFunc(20*time.Second, func() { forced.Store(true); release.Store(true) })
	defer bound.Stop()
	err := Run(testProg(), Params{NProcs: 2, StopWait: time.Hour, Stderr: io.Discard}, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
				if q.ID() == 0 {
					go Exit(5)
				}
				for !release.Load() {
					runtime.Gosched()
				}
			}
		})
	})
	release.Store(true)
	var xe *ExitError
	if !errors.As(err, &xe) || xe.Code != 5 {
		t.Errorf("Run returned %v", err)
	}
	if forced.Load() {
		t.Error("Run waited for the processors to leave the pdo")
	}
}
