package view_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
	"github.com/svmc/svmc/view"
)

// The fixtures are real runs on 4 processors (see export/testdata/README).
func fixture(name string) string { return filepath.Join("..", "export", "testdata", name) }

func buildFile(t *testing.T, path string) *view.Timeline {
	t.Helper()
	tl, err := view.BuildFile(path, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func buildBytes(t *testing.T, data []byte, opt view.Options) *view.Timeline {
	t.Helper()
	tl, err := view.Build(bytes.NewReader(data), int64(len(data)), "synthetic", opt)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// counts reads a trace straight through, without the view: records per
// name and in all.
func counts(t *testing.T, path string) (map[string]int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	c, n := map[string]int{}, 0
	for r, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		c[r.Desc.Name]++
		n++
	}
	return c, n
}

// checkStructure checks what every timeline must satisfy: intervals nest
// on their processor (a child inside its parent in time and in order),
// times run forward, instants are not inside-out.
func checkStructure(t *testing.T, tl *view.Timeline) {
	t.Helper()
	var stack []*view.Interval
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if i > 0 && tl.Intervals[i-1].Proc != iv.Proc {
			stack = stack[:0]
		}
		if iv.End < iv.Start || math.IsNaN(iv.Start) || math.IsNaN(iv.End) {
			t.Errorf("interval %d (%v on P%d) runs backwards: %v → %v", i, iv.Kind, iv.Proc, iv.Start, iv.End)
		}
		if iv.Start < tl.Start || iv.End > tl.End {
			t.Errorf("interval %d outside the run [%v, %v]: %v → %v", i, tl.Start, tl.End, iv.Start, iv.End)
		}
		if iv.Depth > len(stack) {
			t.Fatalf("interval %d (%v on P%d) at depth %d has only %d open ancestors", i, iv.Kind, iv.Proc, iv.Depth, len(stack))
		}
		stack = append(stack[:iv.Depth], iv)
		if iv.Depth > 0 {
			par := stack[iv.Depth-1]
			if iv.Start < par.Start || iv.End > par.End || iv.Seq0 < par.Seq0 || iv.Seq1 > par.Seq1 {
				t.Errorf("interval %d (%v on P%d, %v→%v) is not inside its parent (%v, %v→%v)",
					i, iv.Kind, iv.Proc, iv.Start, iv.End, par.Kind, par.Start, par.End)
			}
		}
	}
}

// checkBarriers checks the causal order the page relies on: within each
// barrier instance (the k-th wait of each processor at one site), no
// processor leaves before the last one arrived.
func checkBarriers(t *testing.T, tl *view.Timeline) int {
	t.Helper()
	type inst struct {
		site, k int
	}
	type span struct{ lastIn, firstOut float64 }
	seen := map[[2]int]int{} // (proc, site) -> waits so far
	inst2 := map[inst]*span{}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if iv.Kind != view.KindBarrier && iv.Kind != view.KindImplicitBarrier {
			continue
		}
		k := seen[[2]int{iv.Proc, iv.Site}]
		seen[[2]int{iv.Proc, iv.Site}]++
		s := inst2[inst{iv.Site, k}]
		if s == nil {
			s = &span{math.Inf(-1), math.Inf(1)}
			inst2[inst{iv.Site, k}] = s
		}
		s.lastIn = max(s.lastIn, iv.Start)
		s.firstOut = min(s.firstOut, iv.End)
	}
	for k, s := range inst2 {
		if s.firstOut < s.lastIn {
			t.Errorf("barrier %s instance %d: a processor leaves at %v before the last arrives at %v",
				tl.Sites[k.site].Name, k.k, s.firstOut, s.lastIn)
		}
	}
	return len(inst2)
}

func TestExample31(t *testing.T) {
	path := fixture("ex31.sddf")
	tl := buildFile(t, path)
	c, total := counts(t, path)
	if tl.Procs != 4 {
		t.Errorf("procs = %d, want 4", tl.Procs)
	}
	regions := c["trace-region-start"]
	waits := c["wait-barrier-start"] + c["wait-bcheckout-start"] + c["wait-lock-start"] + c["wait-crit-sec-start"]
	if regions == 0 || waits == 0 {
		t.Fatalf("fixture has %d regions and %d waits", regions, waits)
	}
	if len(tl.Intervals) != regions+waits || tl.Waits() != waits {
		t.Errorf("%d intervals (%d waits), want %d regions + %d waits", len(tl.Intervals), tl.Waits(), regions, waits)
	}
	closing := c["trace-region-stop"] + c["wait-barrier-stop"]
	if want := total - regions - waits - closing; len(tl.Instants) != want {
		t.Errorf("%d instants, want %d (every other record)", len(tl.Instants), want)
	}
	if tl.Records != int64(total) {
		t.Errorf("records = %d, want %d", tl.Records, total)
	}
	checkStructure(t, tl)
	if n := checkBarriers(t, tl); n != 3 {
		t.Errorf("%d barrier instances, want 3 (one per pdo)", n)
	}
	// Sites come from the program information in the trace.
	var fill *view.Site
	for i := range tl.Sites {
		if tl.Sites[i].Label == "fill" && tl.Sites[i].Kind == "pdo" {
			fill = &tl.Sites[i]
		}
	}
	if fill == nil || fill.Func != "G" || fill.Where() != "main.go:30" || !strings.Contains(fill.Text, "label(fill)") {
		t.Errorf("site of pdo fill = %+v, want G at main.go:30", fill)
	}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if iv.Kind.IsWait() && iv.Kind != view.KindImplicitBarrier {
			t.Errorf("wait %d is %v; every wait of Example 3.1 ends a pdo", i, iv.Kind)
		}
		if iv.Unclosed {
			t.Errorf("interval %d (%v) unclosed in a complete trace", i, iv.Kind)
		}
	}
	if len(tl.Warnings) != 0 {
		t.Errorf("warnings: %q", tl.Warnings)
	}
}

// TestJacobiBinary reads the binary fixture (the indexed, per-processor
// path of the ordering).
func TestJacobiBinary(t *testing.T) {
	path := fixture("jacobi.sddf")
	tl := buildFile(t, path)
	c, _ := counts(t, path)
	if want := c["trace-region-start"] + c["wait-barrier-start"]; len(tl.Intervals) != want {
		t.Errorf("%d intervals, want %d", len(tl.Intervals), want)
	}
	checkStructure(t, tl)
	if n := checkBarriers(t, tl); n != c["wait-barrier-start"]/4 {
		t.Errorf("%d barrier instances, want %d", n, c["wait-barrier-start"]/4)
	}
}

// TestSkewedClocks: processor 1's clock says it left the barrier before
// processor 0 arrived. The view must not draw that.
func TestSkewedClocks(t *testing.T) {
	s := tracetest.New(2)
	s.Start(0, 0, 1, 0, trace.RegionProgram)
	s.Sync(0, 12, trace.TagWaitBarrierStart, 1, tracetest.DirBar)
	s.Sync(0, 13, trace.TagWaitBarrierStop, 1, tracetest.DirBar)
	s.Stop(0, 20, 1, 0, trace.RegionProgram)
	s.Start(1, 0, 1, 0, trace.RegionProgram)
	s.Sync(1, 5, trace.TagWaitBarrierStart, 1, tracetest.DirBar)
	s.Sync(1, 10, trace.TagWaitBarrierStop, 1, tracetest.DirBar) // skewed: before 12
	s.Stop(1, 20, 1, 0, trace.RegionProgram)
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	checkStructure(t, tl)
	checkBarriers(t, tl)
	var w *view.Interval
	for i := range tl.Intervals {
		if iv := &tl.Intervals[i]; iv.Proc == 1 && iv.Kind == view.KindBarrier {
			w = iv
		}
	}
	if w == nil || w.End < 12 || w.Clock1 != 10 {
		t.Fatalf("P1's barrier wait = %+v, want it to end at 12 or later with its clock 10 kept", w)
	}
	if tl.Order.Violations == 0 || len(tl.Warnings) == 0 || !strings.Contains(tl.Warnings[0], "corrected") {
		t.Errorf("violations %d, warnings %q: want the correction reported", tl.Order.Violations, tl.Warnings)
	}
}

func TestSyncKinds(t *testing.T) {
	data, err := tracetest.Sync2().Encode(trace.ASCII, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	checkStructure(t, tl)
	checkBarriers(t, tl)
	want := []view.Kind{view.KindProgram, view.KindUser, view.KindLockWait, view.KindLockHeld,
		view.KindCriticalWait, view.KindCriticalHeld, view.KindCheckout, view.KindLockWait,
		view.KindReplicated, view.KindImplicitBarrier, view.KindPSection, view.KindSection, view.KindImplicitBarrier,
		view.KindPDO, view.KindSubroutine, view.KindImplicitBarrier, view.KindBarrier}
	for p := 0; p < 2; p++ {
		var got []view.Kind
		for i := range tl.Intervals {
			if tl.Intervals[i].Proc == p {
				got = append(got, tl.Intervals[i].Kind)
			}
		}
		if !equalKinds(got, want) {
			t.Errorf("P%d kinds in opening order:\n got %v\nwant %v", p, got, want)
		}
	}
	var names []string
	for _, in := range tl.Instants {
		names = append(names, in.Name)
	}
	if strings.Join(names, " ") != "barrier-checkin aps-info barrier-checkin aps-info" {
		t.Errorf("instants %q, want a check-in and an aps-info per processor", names)
	}
	// P1 gets the lock only after P0 released it, and the critical section
	// after P0 left it.
	held := func(p int, k view.Kind) *view.Interval {
		for i := range tl.Intervals {
			if iv := &tl.Intervals[i]; iv.Proc == p && iv.Kind == k {
				return iv
			}
		}
		t.Fatalf("no %v on P%d", k, p)
		return nil
	}
	for _, k := range []view.Kind{view.KindLockHeld, view.KindCriticalHeld} {
		if a, b := held(0, k), held(1, k); b.Start < a.End {
			t.Errorf("%v: P1 enters at %v before P0 leaves at %v", k, b.Start, a.End)
		}
	}
	lock := held(0, view.KindLockWait)
	if s := tl.Sites[lock.Site]; s.Kind != "lock" || s.Where() != "main.go:22" || lock.Depth != 2 {
		t.Errorf("lock wait: site %+v depth %d", s, lock.Depth)
	}
	if len(tl.Warnings) != 0 {
		t.Errorf("warnings: %q", tl.Warnings)
	}

	// Without program information the implicit barriers are still found
	// (the barrier's directive opened an enclosing region), and sites are
	// named by numbers.
	data, err = tracetest.Sync2().Encode(trace.Binary, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl = buildBytes(t, data, view.Options{})
	var implicit int
	for i := range tl.Intervals {
		if tl.Intervals[i].Kind == view.KindImplicitBarrier {
			implicit++
		}
	}
	if implicit != 6 {
		t.Errorf("without program information: %d implicit barrier waits, want 6", implicit)
	}
	if s := tl.Sites[tl.Intervals[0].Site]; s.Name != "sub 1" || s.Where() != "" {
		t.Errorf("site without program information: %+v", s)
	}
}

func equalKinds(a, b []view.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestUnmatched: a region left open is closed by its enclosing region's
// stop, one left open at the end by the processor's last record; a stop
// without a start becomes an event. All are reported.
func TestUnmatched(t *testing.T) {
	s := tracetest.New(2)
	s.Start(0, 0, 1, 0, trace.RegionProgram)
	s.Start(0, 1, 1, tracetest.DirPhase, trace.RegionUser) // never stopped
	s.Stop(0, 5, 1, 0, trace.RegionProgram)
	s.Stop(0, 6, 2, 0, trace.RegionSubroutine) // never started
	s.Start(1, 0, 1, 0, trace.RegionProgram)
	s.Start(1, 2, 1, tracetest.DirPDO, trace.RegionPDO)
	s.APSInfo(1, 3, 0, 1) // the last record of P1
	data, err := s.Encode(trace.ASCII, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	checkStructure(t, tl)
	if len(tl.Intervals) != 4 {
		t.Fatalf("%d intervals, want 4", len(tl.Intervals))
	}
	user, pdo := tl.Intervals[1], tl.Intervals[3]
	if !user.Unclosed || user.End != 5 || tl.Intervals[0].Unclosed {
		t.Errorf("user region %+v: want unclosed, ending with the program at 5", user)
	}
	if !pdo.Unclosed || pdo.End != 3 || !tl.Intervals[2].Unclosed {
		t.Errorf("P1's regions %+v, %+v: want unclosed at its last record (3)", tl.Intervals[2], pdo)
	}
	if len(tl.Instants) != 2 || tl.Instants[0].Name != "trace-region-stop" {
		t.Errorf("instants %+v: want the stray stop and the aps-info", tl.Instants)
	}
	if len(tl.Warnings) != 2 {
		t.Errorf("warnings %q: want one for the stray stop, one for the unclosed regions", tl.Warnings)
	}
}

// TestDamaged: a truncated trace is an error that names the file and the
// byte offset.
func TestDamaged(t *testing.T) {
	data, err := os.ReadFile(fixture("jacobi.sddf"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.sddf")
	if err := os.WriteFile(path, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = view.BuildFile(path, view.Options{})
	var ce *trace.CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "byte offset") {
		t.Fatalf("error %v: want a trace.CorruptError naming %s and the byte offset", err, path)
	}
	if _, err := view.BuildFile(t.TempDir(), view.Options{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a directory: error %v", err)
	}
}

func TestSummary(t *testing.T) {
	tl := buildFile(t, fixture("ex31.sddf"))
	s := view.Summarize(tl, 3)
	if len(s.PerProc) != 4 || len(s.Top) != 3 {
		t.Fatalf("summary %+v", s)
	}
	for _, p := range s.PerProc {
		if sum := p.Busy + p.Wait + p.Idle; math.Abs(sum-s.RunTime) > 1e-6 || p.Busy < 0 || p.Wait <= 0 {
			t.Errorf("P%d: busy %v + wait %v + idle %v != run time %v", p.Proc, p.Busy, p.Wait, p.Idle, s.RunTime)
		}
	}
	if top := tl.Sites[s.Top[0].Site]; top.Name != "main" || s.Top[0].Calls != 4 {
		t.Errorf("top region %+v (%+v), want main with 4 calls", top, s.Top[0])
	}
	var waitSum float64
	for _, w := range view.Summarize(tl, 100).TopWaits {
		waitSum += w.Time
	}
	var procWait float64
	for _, p := range s.PerProc {
		procWait += p.Wait
	}
	if math.Abs(waitSum-procWait) > 1e-6 {
		t.Errorf("waits by site sum to %v, by processor to %v", waitSum, procWait)
	}
}

// The halo exchange's messages: every receive of the trace completes a
// message from a neighbour, after its send, between call sites of the
// program information.
func TestBuildMessages(t *testing.T) {
	tl := buildFile(t, fixture("halo.sddf"))
	calls := 0
	for i := range tl.Intervals {
		if tl.Intervals[i].Kind == view.KindMsgCall {
			calls++
		}
	}
	// 4 processors: 3 neighbour pairs, a row each way per sweep, 5 sweeps.
	if want := 3 * 2 * 5; len(tl.Messages) != want || calls == 0 {
		t.Fatalf("%d messages (want %d), %d message calls", len(tl.Messages), want, calls)
	}
	for _, m := range tl.Messages {
		if m.From-m.To != 1 && m.To-m.From != 1 || m.Recv < m.Send || m.Bytes != 32*8 {
			t.Errorf("message %+v", m)
		}
		if s := tl.Sites[m.RecvSite]; s.File != "main.go" || s.Kind == "" {
			t.Errorf("receive site %+v", s)
		}
	}
}

// TestMutexWait: a processor's wait for the program's own sync.Mutex is
// drawn as a lock wait whose site is the Lock statement, in the function
// the program information gives it.
func TestMutexWait(t *testing.T) {
	prog := tracetest.Prog()
	prog.MutexSites = []*progdb.Call{{Num: 1, Func: "Mutex.Lock", Sub: tracetest.SubWork, Pos: progdb.Pos{File: "main.go", Line: 64, Col: 2}}}
	s := tracetest.New(1)
	s.Start(0, 0, tracetest.SubMain, 0, trace.RegionProgram)
	s.Rec(0, 10, trace.TagWaitMutexStart, 1, 0xc000010000)
	s.Rec(0, 25, trace.TagWaitMutexStop, 1)
	s.Stop(0, 30, tracetest.SubMain, 0, trace.RegionProgram)
	data, err := s.Encode(trace.Binary, prog)
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	for _, iv := range tl.Intervals {
		if iv.Kind != view.KindLockWait {
			continue
		}
		st := tl.Sites[iv.Site]
		if st.Name != "Mutex.Lock main.go:64" || st.Func != "Work" || iv.End-iv.Start != 15 || iv.Unclosed {
			t.Errorf("mutex wait %+v at site %+v, want 15 µs at Mutex.Lock main.go:64 in Work", iv, st)
		}
		return
	}
	t.Errorf("no lock wait in %+v", tl.Intervals)
}

// TestDeadlockedWaitsLastToTheEnd: in a run that deadlocked, a mutex wait
// still open at the processor's last record (10 µs) is drawn to the run's
// end (1000 µs), unclosed; in a run that ended normally it stops at the
// processor's last record.
func TestDeadlockedWaitsLastToTheEnd(t *testing.T) {
	prog := tracetest.Prog()
	prog.MutexSites = []*progdb.Call{{Num: 1, Func: "Mutex.Lock", Sub: tracetest.SubWork, Pos: progdb.Pos{File: "main.go", Line: 64, Col: 2}}}
	for _, c := range []struct {
		status int
		end    float64
	}{{trace.EndDeadlock, 1000}, {trace.EndNormal, 10}} {
		s := tracetest.New(1)
		s.Start(0, 0, tracetest.SubMain, 0, trace.RegionProgram)
		s.Rec(0, 10, trace.TagWaitMutexStart, 1, 0xc000010000)
		s.TraceEnd(1000, c.status, "deadlock", []int{0}, 0)
		tl := buildBytes(t, s.MustEncode(t, trace.Binary, prog), view.Options{})
		found := false
		for _, iv := range tl.Intervals {
			if iv.Kind == view.KindLockWait {
				found = true
				if iv.End != c.end || !iv.Unclosed {
					t.Errorf("status %d: mutex wait %+v, want to %v µs, unclosed", c.status, iv, c.end)
				}
			}
		}
		if !found {
			t.Errorf("status %d: no lock wait in %+v", c.status, tl.Intervals)
		}
		if tl.End != c.end {
			t.Errorf("status %d: the timeline ends at %v µs, want %v", c.status, tl.End, c.end)
		}
	}
}
