package rtlib

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
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
			Exit(c.code)
			t.Error("Exit returned")
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
