package analysis

import (
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// TestMutexWaits: processor 1 waits 30 µs at the program's sync.Mutex
// locked at main.go:42, inside the pdo of lines 40-45: the model lists the
// wait at that line as a mutex wait of kind Mutex.Lock, the run's waiting
// time holds it, and the lock finding asks the next run for that pdo's
// region.
func TestMutexWaits(t *testing.T) {
	prog, s := inMutexPDO()
	s.Rec(1, 10, trace.TagWaitMutexStart, 1, 0xc000123450)
	s.Rec(1, 40, trace.TagWaitMutexStop, 1)
	for p := range 2 {
		s.Stop(p, 50, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.Stop(p, 60, tracetest.SubMain, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{})
	w := mutexWaitOf(m)
	if w == nil || w.Kind != "Mutex.Lock" || w.Line != 42 || w.Total != 30 || w.Count != 1 || w.PerProc[1] != 30 {
		t.Fatalf("mutex wait %+v, want 30 µs of processor 1 at main.go:42", w)
	}
	if m.PerProc[1].Sync < 30 {
		t.Errorf("processor 1's waiting %v µs, want the mutex's 30 µs in it", m.PerProc[1].Sync)
	}
	for _, f := range Findings(m) {
		if f.Kind == FindLock && f.Site.Line == 42 {
			if f.Region != 5 {
				t.Errorf("the lock finding asks for region %d, want the pdo's, 5", f.Region)
			}
			return
		}
	}
	t.Errorf("no lock finding at main.go:42 in %+v", Findings(m))
}

// TestMutexNeverUnlocked: a run that deadlocked with both processors
// waiting for the mutex locked at main.go:42 (an iteration kept it): the
// waits last to the run's end, and the finding says the mutex was never
// unlocked and how to make every path unlock it.
func TestMutexNeverUnlocked(t *testing.T) {
	prog, s := inMutexPDO()
	for p := range 2 {
		s.Rec(p, float64(10+p), trace.TagWaitMutexStart, 1, 0xc000123450)
	}
	s.TraceEnd(1000, trace.EndDeadlock, "deadlock: all goroutines are asleep", []int{0, 1}, 0)
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{})
	w := mutexWaitOf(m)
	if w == nil || w.Unfinished != 2 || w.Total != 990+989 {
		t.Fatalf("mutex waits %+v, want 2 unfinished, 1979 µs", w)
	}
	for _, f := range Findings(m) {
		if f.Kind == FindLock && strings.Contains(f.Title, "2 of the waits lasted until the run deadlocked: the mutex was never unlocked") &&
			strings.Contains(f.Advice, "defer mu.Unlock()") {
			return
		}
	}
	t.Errorf("no finding that the mutex was never unlocked in %+v", Findings(m))
}

// inMutexPDO is the synthetic program with mutex site 1 at main.go:42,
// inside its pdo (lines 40-45), and a run of two processors that entered
// that pdo.
func inMutexPDO() (*progdb.Program, *tracetest.Synth) {
	prog := tracetest.Prog()
	prog.MutexSites = []*progdb.Call{{Num: 1, Func: "Mutex.Lock", Sub: tracetest.SubMain, Pos: progdb.Pos{File: "main.go", Line: 42, Col: 3}}}
	s := tracetest.New(2)
	for p := range 2 {
		s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
		s.Start(p, 1, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	}
	return prog, s
}

// mutexWaitOf is the model's mutex wait, nil if none.
func mutexWaitOf(m *Model) *WaitStat {
	for _, w := range m.Waits {
		if w.Wait == WaitMutex {
			return w
		}
	}
	return nil
}

// TestMutexWaitInCalledFunction: the mutex is locked in Work (main.go:62),
// which the pdo's iterations call: the wait knows the pdo it happened in,
// and the next request asks for that pdo's region with its lock waits, not
// for Work's region. Naming Work traced every call of it, never throttled
// (x484: 55 MB instead of 0.5 MB), and left the pdo out, so that the next
// report took the processors in Work for idle ones ("serial").
func TestMutexWaitInCalledFunction(t *testing.T) {
	prog, s := inMutexPDO()
	site := prog.MutexSites[0]
	site.Sub, site.Pos.Line = tracetest.SubWork, 62
	for p := range 2 {
		s.Start(p, 2, tracetest.SubWork, 0, trace.RegionSubroutine)
	}
	s.Rec(1, 10, trace.TagWaitMutexStart, 1, 0xc000123450)
	s.Rec(1, 40, trace.TagWaitMutexStop, 1)
	for p := range 2 {
		s.Stop(p, 45, tracetest.SubWork, 0, trace.RegionSubroutine)
		s.Stop(p, 50, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.Stop(p, 60, tracetest.SubMain, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{})
	w := mutexWaitOf(m)
	if w == nil || w.Line != 62 || w.Within == nil || w.Within.Region != 5 || w.Within.Line != 40 {
		t.Fatalf("mutex wait %+v (within %+v), want the wait at main.go:62 within the pdo, region 5 at main.go:40", w, w.Within)
	}
	req := string(NextRequest(Findings(m), prog))
	if !strings.Contains(req, "REQUEST LOCAL @MAIN.PDO_LABEL(work): (REGION), (LOCK)\n") || strings.Contains(req, "Work.REG_NO") ||
		!strings.Contains(req, "main.go:62, in the pdo at main.go:40") {
		t.Errorf("the next request does not ask for the pdo around the lock:\n%s", req)
	}
}
