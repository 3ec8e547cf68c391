package check

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// TestLanesAreNoProcessors: a trace whose processors started goroutines
// has their lanes after the processors; the protocol lists the run's
// processors and counts the lanes (it listed each lane as a processor
// that "stopped").
func TestLanesAreNoProcessors(t *testing.T) {
	s := tracetest.New(3) // processors 0 and 1, and a lane of processor 0
	for p := range 2 {
		s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
		s.Stop(p, 20, tracetest.SubMain, 0, trace.RegionProgram)
	}
	s.GoroutineStart(2, 1, 0, 1, "main.go:9")
	s.Start(2, 2, tracetest.SubWork, 0, trace.RegionSubroutine)
	s.Stop(2, 5, tracetest.SubWork, 0, trace.RegionSubroutine)
	s.Rec(2, 6, trace.TagGoroutineEnd)
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, trace.Binary, []trace.Attr{{Key: "processors", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Bufs {
		if err := w.WriteBuf(&s.Bufs[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	data := out.Bytes()
	res, err := Analyze(bytes.NewReader(data), int64(len(data)), "lanes", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ProcState) != 2 || res.Lanes != 1 {
		t.Fatalf("states of %d processors and %d lanes; want 2 and 1", len(res.ProcState), res.Lanes)
	}
	out.Reset()
	if err := WriteText(&out, "lanes", res, PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, "processor 2:") || !strings.Contains(s, "goroutine lanes: ") {
		t.Errorf("protocol:\n%s", s)
	}
}

// TestMutexDeadlock: a run that deadlocked while two goroutines of
// processor 0 waited for sync mutexes of the program: for two different
// mutexes it is a real deadlock (locks taken in different orders), both
// waiters named with their go statements and the lock's line; for one
// mutex, a real hang-up (no one unlocks it).
func TestMutexDeadlock(t *testing.T) {
	for _, c := range []struct {
		addrs []int
		class string
		text  string
	}{
		{[]int{0x1030, 0x1040}, RealDeadlock, "2 waits for 2 different sync mutexes lasted until the run deadlocked"},
		{[]int{0x1030, 0x1030}, RealHangup, "2 waits for one sync mutex (Mutex.Lock at main.go:17:3) lasted until the run deadlocked: no one unlocks it"},
	} {
		prog := tracetest.Prog()
		prog.MutexSites = []*progdb.Call{{Num: 1, Func: "Mutex.Lock", Sub: tracetest.SubMain, Pos: progdb.Pos{File: "main.go", Line: 17, Col: 3}}}
		s := tracetest.New(4) // processors 0 and 1, two lanes of processor 0
		s.Procs = 2
		for p := range 2 {
			s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
		}
		for k, lane := range []int{2, 3} {
			s.GoroutineStart(lane, 1, 0, k+1, fmt.Sprintf("main.go:%d:2", 29+k))
			s.Rec(lane, 5, trace.TagWaitMutexStart, 1, c.addrs[k])
		}
		s.TraceEnd(1000, trace.EndDeadlock, "deadlock: all goroutines are asleep", []int{0}, 0)
		data := s.MustEncode(t, trace.Binary, prog)
		res, err := Analyze(bytes.NewReader(data), int64(len(data)), "mutex", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var d *Diagnosis
		for _, x := range res.Diagnoses {
			if x.Class == c.class {
				d = x
			}
		}
		if d == nil || !strings.Contains(d.Message, c.text) || d.File != "main.go" || d.Line != 17 || len(d.Calls) != 2 ||
			!strings.HasPrefix(d.Calls[0], "the goroutine of processor 0 started at main.go:29:2: Mutex.Lock at main.go:17:3") {
			t.Errorf("addresses %#x: diagnoses %+v, want a %s: %q with both waiters", c.addrs, res.Diagnoses, c.class, c.text)
		}
	}
}

// TestSourcePointsCount: the protocol's source points say "1 call" and
// "2 calls" (it said "1 calls").
func TestSourcePointsCount(t *testing.T) {
	res := &Result{Sites: []SitePoint{{Site: 1, Func: "Send", Where: "main.go:17:4", Calls: 2}, {Site: 2, Func: "Recv", Where: "main.go:22:5", Calls: 1}}}
	var out bytes.Buffer
	if err := WriteText(&out, "t", res, PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "main.go:17:4           2 calls\n") || !strings.Contains(s, "main.go:22:5           1 call\n") {
		t.Errorf("source points:\n%s", s)
	}
}
