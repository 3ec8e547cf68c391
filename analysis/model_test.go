package analysis

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

const eps = 1e-9

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > eps*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func region(m *Model, sub, dir, code int) *RegionStat {
	for _, r := range m.Regions {
		if r.Sub == sub && r.Dir == dir && r.Code == code {
			return r
		}
	}
	return nil
}

func loopAt(m *Model, sub, dir int) *LoopStat {
	for _, l := range m.Loops {
		if l.Sub == sub && l.Dir == dir {
			return l
		}
	}
	return nil
}

func waitAt(m *Model, sub, dir int, kind string) *WaitStat {
	for _, w := range m.Waits {
		if w.Sub == sub && w.Dir == dir && w.Wait == kind {
			return w
		}
	}
	return nil
}

// Inclusive and exclusive times with nesting and recursion, on one
// processor: program [0,100], T.M [10,90], T.M again [20,50], user region
// [30,40] inside the inner call.
func TestRegionTimes(t *testing.T) {
	s := tracetest.New(1)
	s.Start(0, 0, 2, 0, trace.RegionProgram)
	s.Start(0, 10, 3, 0, trace.RegionSubroutine)
	s.Start(0, 20, 3, 0, trace.RegionSubroutine)
	s.Start(0, 30, 2, 1, trace.RegionUser)
	s.Stop(0, 40, 2, 1, trace.RegionUser)
	s.Stop(0, 50, 3, 0, trace.RegionSubroutine)
	s.Stop(0, 90, 3, 0, trace.RegionSubroutine)
	s.Stop(0, 100, 2, 0, trace.RegionProgram)
	for _, f := range []trace.Format{trace.ASCII, trace.Binary} {
		m := analyzeBytes(t, s.MustEncode(t, f, testProg()), Options{})
		prog := region(m, 2, 0, trace.RegionProgram)
		tm := region(m, 3, 0, trace.RegionSubroutine)
		user := region(m, 2, 1, trace.RegionUser)
		if prog == nil || tm == nil || user == nil {
			t.Fatalf("regions missing: %+v", m.Regions)
		}
		near(t, "program incl", prog.Incl, 100)
		near(t, "program excl", prog.Excl, 20)
		if tm.Calls != 2 || tm.Func != "T.M" || tm.Where() != "other.go:5" {
			t.Errorf("T.M: calls %d, func %q at %s", tm.Calls, tm.Func, tm.Where())
		}
		near(t, "T.M incl (outermost call only)", tm.Incl, 80)
		near(t, "T.M excl", tm.Excl, 50+20)
		near(t, "user incl", user.Incl, 10)
		near(t, "user excl", user.Excl, 10)
		if user.Label != "phase" || user.Region != 1 || user.Where() != "main.go:42" {
			t.Errorf("user region: label %q region %d at %s", user.Label, user.Region, user.Where())
		}
		if m.Regions[0] != prog {
			t.Errorf("regions not sorted by inclusive time: first is %+v", m.Regions[0].Site)
		}
		near(t, "efficiency", m.Time.Efficiency, 1)
	}
}

// twoLoops is a run on 4 processors of G with a triangular loop (busy
// 100:300:500:700 µs, block scheduling, line 20) and a balanced one
// (busy 200 µs each, line 30), between short serial parts of the leader:
//
//	all:    program [0, 1000]
//	leader: G [10, 990]
//	loop tri (sub 1 dir 2): region [20, 730], arrival 20+busy_p, barrier
//	        release at 720 (the last arrival)
//	loop 3 (sub 1 dir 3):   region [730, 940], arrival 930, release 935
//
// With pdoWork the members also write pdo-work records (25 iterations each
// for tri, 50 for the balanced loop).
func twoLoops(pdoWork bool) *tracetest.Synth {
	s := tracetest.New(4)
	busy := []float64{100, 300, 500, 700}
	for p := 0; p < 4; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		if p == 0 {
			s.Start(0, 10, 1, 0, trace.RegionSubroutine)
		}
		s.Start(p, 20, 1, 2, trace.RegionPDO)
		if p == 0 {
			s.PDOInfo(0, 20, 1, 2, 0)
		}
		if pdoWork {
			s.PDOWork(p, 20+busy[p], 1, 2, 25, busy[p])
		}
		s.Sync(p, 20+busy[p], trace.TagWaitBarrierStart, 1, 2)
		s.Sync(p, 720, trace.TagWaitBarrierStop, 1, 2)
		if p == 0 {
			s.IterSpace(0, 725, 1, 2, 0, 99)
		}
		s.Stop(p, 730, 1, 2, trace.RegionPDO)
		s.Start(p, 730, 1, 3, trace.RegionPDO)
		if pdoWork {
			s.PDOWork(p, 930, 1, 3, 50, 200)
		}
		s.Sync(p, 930, trace.TagWaitBarrierStart, 1, 3)
		s.Sync(p, 935, trace.TagWaitBarrierStop, 1, 3)
		s.Stop(p, 940, 1, 3, trace.RegionPDO)
		if p == 0 {
			s.Stop(0, 990, 1, 0, trace.RegionSubroutine)
		}
		s.Stop(p, 1000, 2, 0, trace.RegionProgram)
	}
	return s
}

func TestLoopImbalance(t *testing.T) {
	for _, pdoWork := range []bool{false, true} {
		m := analyzeBytes(t, twoLoops(pdoWork).MustEncode(t, trace.Binary, testProg()), Options{})
		if m.Procs != 4 || m.Duration != 1000 {
			t.Fatalf("procs %d, duration %v", m.Procs, m.Duration)
		}
		tri := loopAt(m, 1, 2)
		bal := loopAt(m, 1, 3)
		if tri == nil || bal == nil {
			t.Fatalf("loops missing: %+v", m.Loops)
		}
		if tri.Label != "tri" || tri.Strategy != "block" || tri.Where() != "main.go:20" || tri.Instances != 1 || tri.Iterations != 100 {
			t.Errorf("tri: label %q strategy %q at %s, %d instances, %d iterations", tri.Label, tri.Strategy, tri.Where(), tri.Instances, tri.Iterations)
		}
		if bal.Strategy != "block (default)" || bal.Region != 2 {
			t.Errorf("balanced loop: strategy %q region %d", bal.Strategy, bal.Region)
		}
		near(t, "tri busy max", tri.BusyMax, 700)
		near(t, "tri busy mean", tri.BusyMean, 400)
		near(t, "tri imbalance", tri.Imbalance, 1.75)
		near(t, "tri lost", tri.Lost, 600+400+200)
		near(t, "tri APS time", tri.APSTime, 4*710)
		near(t, "tri lost share", tri.LostShare, 1200.0/2840)
		near(t, "tri time", tri.Time, 710)
		for p, lp := range tri.PerProc {
			near(t, "tri busy p"+string(rune('0'+p)), lp.Busy, []float64{100, 300, 500, 700}[p])
			near(t, "tri wait p"+string(rune('0'+p)), lp.Wait, []float64{600, 400, 200, 0}[p])
			want := int64(-1)
			if pdoWork {
				want = 25
			}
			if lp.Iterations != want {
				t.Errorf("tri iterations p%d = %d, want %d", p, lp.Iterations, want)
			}
		}
		wantSrc := "regions"
		if pdoWork {
			wantSrc = "pdo-work"
		}
		if tri.BusySource != wantSrc {
			t.Errorf("busy source %q, want %q", tri.BusySource, wantSrc)
		}
		near(t, "balanced imbalance", bal.Imbalance, 1)
		near(t, "balanced lost", bal.Lost, 0)
		// The per-processor rows say where their loop is: two functions'
		// loops may have one label.
		var txt strings.Builder
		if err := WriteText(&txt, NewReport("t", m, 0)); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^  tri +main\.go:20 +3 `).MatchString(txt.String()) {
			t.Errorf("the per-processor loop table has no row for tri at main.go:20 on processor 3:\n%s", txt.String())
		}

		// Lib-DVM characteristics: N×T = 4000; imbalance 1200 (tri);
		// waiting 4×5 at the balanced loop's barrier; serial: the members
		// idle in [0,20] and [940,1000].
		c := m.Time
		near(t, "total", c.Total, 4000)
		near(t, "imbalance", c.Imbalance, 1200)
		near(t, "sync", c.Sync, 20)
		near(t, "serial", c.Serial, 3*80)
		near(t, "overhead", c.Overhead, 0)
		near(t, "productive", c.Productive, 4000-1200-20-240)
		near(t, "efficiency", c.Efficiency, 2540.0/4000)
		near(t, "leader productive", m.PerProc[0].Productive, 1000-600-5)
		near(t, "proc 3 productive", m.PerProc[3].Productive, 1000-0-5-80)

		// Implicit barrier waits per site.
		w := waitAt(m, 1, 2, WaitImplicit)
		if w == nil || w.Count != 4 {
			t.Fatalf("implicit barrier of tri: %+v", w)
		}
		near(t, "tri barrier wait", w.Total, 1200)
		near(t, "tri barrier max", w.Max, 600)

		// Regions: G excludes the loops; the program region of a member
		// excludes its loop regions.
		g := region(m, 1, 0, trace.RegionSubroutine)
		near(t, "G incl", g.Incl, 980)
		near(t, "G excl", g.Excl, 980-710-210)
		prog := region(m, 2, 0, trace.RegionProgram)
		near(t, "program excl", prog.Excl, 20+3*80)

		// Findings: the triangular loop first, naming its line; the
		// balanced one is no imbalance finding.
		fs := Findings(m)
		if len(fs) == 0 || fs[0].Kind != FindImbalance || fs[0].Site.Dir != 2 {
			t.Fatalf("top finding is not the triangular loop: %+v", fs)
		}
		near(t, "severity", fs[0].Severity, 1200.0/4000)
		if !strings.Contains(fs[0].Title, "main.go:20") || !strings.Contains(fs[0].Title, "loop tri") {
			t.Errorf("finding title does not name the loop and its line: %q", fs[0].Title)
		}
		for _, f := range fs {
			if f.Kind == FindImbalance && f.Site.Dir == 3 {
				t.Errorf("balanced loop reported: %+v", f)
			}
		}
		// Serial: the leader's exclusive code, 20 µs in main and 60 µs in
		// G: 10 before the loop tri, 50 after the second loop, each a
		// finding of its own that says where it runs. main's 20 are two
		// spans too, before G's first loop and after its last: the
		// constructs of a subprogram main calls divide main's code.
		var serial []Finding
		for _, f := range fs {
			if f.Kind == FindSerial {
				serial = append(serial, f)
			}
		}
		// (A span of 10 µs costs 30 of 4000 µs, under MinSeverity.)
		if len(serial) != 1 || serial[0].Site.Func != "G" || !strings.HasSuffix(serial[0].Title, "after the pdo at main.go:30 for 50.0 µs") {
			t.Fatalf("serial findings: %+v", serial)
		}
		near(t, "serial G after lost", serial[0].Lost, 3*50)
		at := func(s *Site) string {
			if s == nil {
				return "-"
			}
			return fmt.Sprintf("%s:%d", s.Func, s.Dir)
		}
		spans := map[string]float64{}
		for _, st := range m.Serial {
			spans[st.Func+" after "+at(st.After)+" before "+at(st.Before)] += st.Time
		}
		want := map[string]float64{"G after - before G:2": 10, "G after G:3 before -": 50, "main after - before G:2": 10, "main after G:3 before -": 10}
		if !maps.Equal(spans, want) {
			t.Errorf("serial spans %v, want %v", spans, want)
		}
	}
}

// A processor that arrives late at a barrier by a known delay: the others
// wait that long (within 10%), whatever the small jitter of the release.
func TestLateArrival(t *testing.T) {
	const delay = 300.0
	s := tracetest.New(4)
	jitter := []float64{0.5, 1.5, 0, 2.5}
	for p := 0; p < 4; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		for k := 0; k < 10; k++ {
			base := float64(1000 * k)
			arrive := base + 100 + jitter[p]*float64(k%3)
			if p == 2 {
				arrive = base + 100 + delay
			}
			s.Sync(p, arrive, trace.TagWaitBarrierStart, 2, 2)
			s.Sync(p, base+100+delay+1+jitter[p], trace.TagWaitBarrierStop, 2, 2)
		}
		s.Stop(p, 10000, 2, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	w := waitAt(m, 2, 2, WaitBarrier)
	if w == nil || w.Count != 40 || w.Where() != "main.go:45" {
		t.Fatalf("barrier waits: %+v", w)
	}
	for p := 0; p < 4; p++ {
		per := w.PerProc[p] / float64(w.Counts[p])
		if p == 2 {
			if per > 0.1*delay {
				t.Errorf("late processor waits %v per barrier", per)
			}
			continue
		}
		if math.Abs(per-delay) > 0.1*delay {
			t.Errorf("processor %d waits %v per barrier, want %v ± 10%%", p, per, delay)
		}
	}
	var bf *Finding
	fs := Findings(m)
	for i := range fs {
		if fs[i].Kind == FindBarrier {
			bf = &fs[i]
		}
	}
	if bf == nil || !strings.Contains(bf.Title, "processor 2 waits least") {
		t.Fatalf("findings: %+v", fs)
	}
	near(t, "barrier finding lost", bf.Lost, w.Total)
	if bf.Region != 1 || bf.Site.Where() != "main.go:45" {
		t.Errorf("barrier finding region %d (want 1, the user region holding it) at %s", bf.Region, bf.Site.Where())
	}
	near(t, "sync", m.Time.Sync, w.Total)
}

// Locks, critical sections, split barriers, overhead records: waits and
// hold times per site.
func TestSyncWaits(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		s.Start(p, 0, 2, 8, trace.RegionReplicated)
	}
	// Processor 0 takes the lock at 10 and releases it at 40; processor
	// 1 asks at 15 and gets it at 40, releases at 50.
	s.LockWait(0, 10, 2, 3, 0x1000)
	s.Sync(0, 10, trace.TagWaitLockStop, 2, 3)
	s.Sync(0, 40, trace.TagReleaseLock, 2, 3)
	s.LockWait(1, 15, 2, 3, 0x1000)
	s.Sync(1, 40, trace.TagWaitLockStop, 2, 3)
	s.Sync(1, 50, trace.TagReleaseLock, 2, 3)
	// Critical section: 0 in [60,80], 1 waits from 65 to 80, in until 90.
	s.Sync(0, 60, trace.TagWaitCritSecStart, 2, 4)
	s.Sync(0, 60, trace.TagWaitCritSecStop, 2, 4)
	s.Sync(0, 80, trace.TagExitCritSec, 2, 4)
	s.Sync(1, 65, trace.TagWaitCritSecStart, 2, 4)
	s.Sync(1, 80, trace.TagWaitCritSecStop, 2, 4)
	s.Sync(1, 90, trace.TagExitCritSec, 2, 4)
	// Split barrier: check-in at 100 (0) and 150 (1); check-out waits.
	s.Sync(0, 100, trace.TagBarrierCheckin, 2, 5)
	s.Sync(0, 110, trace.TagWaitBCheckoutStart, 2, 6)
	s.Sync(0, 150, trace.TagWaitBCheckoutStop, 2, 6)
	s.Sync(1, 150, trace.TagBarrierCheckin, 2, 5)
	s.Sync(1, 151, trace.TagWaitBCheckoutStart, 2, 6)
	s.Sync(1, 152, trace.TagWaitBCheckoutStop, 2, 6)
	// Atomic update: a lock grant without release.
	s.LockWait(0, 160, 2, 7, 0x2000)
	s.Sync(0, 161, trace.TagWaitLockStop, 2, 7)
	s.LockWait(1, 160, 2, 7, 0x2000)
	s.Sync(1, 162, trace.TagWaitLockStop, 2, 7)
	s.Overhead(1, 170, 8)
	for p := 0; p < 2; p++ {
		s.Stop(p, 200, 2, 8, trace.RegionReplicated)
		s.Stop(p, 200, 2, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	lock := waitAt(m, 2, 3, WaitLock)
	crit := waitAt(m, 2, 4, WaitCritical)
	split := waitAt(m, 2, 6, WaitCheckout)
	atomic := waitAt(m, 2, 7, WaitLock)
	if lock == nil || crit == nil || split == nil || atomic == nil {
		t.Fatalf("waits: %+v", m.Waits)
	}
	near(t, "lock wait", lock.Total, 25)
	near(t, "lock hold", lock.Hold, 30+10)
	near(t, "lock wait p1", lock.PerProc[1], 25)
	near(t, "critical wait", crit.Total, 15)
	near(t, "critical hold", crit.Hold, 20+10)
	near(t, "split barrier wait", split.Total, 40+1)
	near(t, "atomic wait", atomic.Total, 1+2)
	near(t, "atomic hold", atomic.Hold, 0)
	if lock.Where() != "main.go:50" || crit.Label != "upd" {
		t.Errorf("sites: lock at %s, critical %q", lock.Where(), crit.Label)
	}
	near(t, "trace overhead", m.Time.TraceOverhead, 8)
	near(t, "sync", m.Time.Sync, 25+15+41+3)
	near(t, "productive", m.Time.Productive, 400-84-8)
	if m.Order == nil || m.Order.Forced != 0 {
		t.Errorf("order: %+v", m.Order)
	}
	fs := Findings(m)
	kinds := map[string]bool{}
	for _, f := range fs {
		kinds[f.Kind] = true
	}
	for _, k := range []string{FindLock, FindCritical, FindCheckout, FindOverhead} {
		if !kinds[k] {
			t.Errorf("no %s finding in %+v", k, fs)
		}
	}
	// The atomic update's waits are its own: no advice to use one. (Its
	// 3 µs are 0.75% of the run: below the default threshold.)
	defer func(v float64) { MinSeverity = v }(MinSeverity)
	MinSeverity = 0.001
	var atomicF *Finding
	for _, f := range Findings(m) {
		if f.Kind == FindLock && f.Site.Line == 59 {
			atomicF = &f
		}
	}
	if atomicF == nil || !strings.Contains(atomicF.Title, "for the atomic update") || strings.Contains(atomicF.Advice, "atomic update") {
		t.Errorf("the atomic update's finding: %+v", atomicF)
	}
}

// A pdo inside a pdo body runs serially on each processor: its executions
// are instances of one member each, not matched across processors.
func TestNestedLoop(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		s.Start(p, 0, 1, 2, trace.RegionPDO)
		for k := 0; k <= p; k++ { // processor 1 runs the inner loop twice
			s.Start(p, float64(10+20*k), 1, 3, trace.RegionPDO)
			s.Stop(p, float64(20+20*k+5*p), 1, 3, trace.RegionPDO)
		}
		s.Sync(p, 50, trace.TagWaitBarrierStart, 1, 2)
		s.Sync(p, 50, trace.TagWaitBarrierStop, 1, 2)
		s.Stop(p, 50, 1, 2, trace.RegionPDO)
		s.Stop(p, 60, 2, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	in := loopAt(m, 1, 3)
	if in == nil || in.Instances != 3 {
		t.Fatalf("inner loop: %+v", in)
	}
	near(t, "inner lost", in.Lost, 0)
	near(t, "inner time", in.Time, 10+15+15)
	near(t, "inner busy p1", in.PerProc[1].Busy, 30)
	out := loopAt(m, 1, 2)
	if out == nil || out.Instances != 1 {
		t.Fatalf("outer loop: %+v", out)
	}
}

// TestThrottled: the calls a processor made after the runtime stopped
// tracing a subprogram count in its region (inclusive and exclusive), and
// the report lists the subprogram with when and how often.
func TestThrottled(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		s.Start(p, 1, 3, 0, trace.RegionSubroutine)
		s.Stop(p, 2, 3, 0, trace.RegionSubroutine)
		s.Stop(p, 100, 2, 0, trace.RegionProgram)
	}
	s.Throttle(0, 3, trace.TagTraceThrottled, 3, 1, 1.0)
	s.Throttle(0, 99, trace.TagThrottledCalls, 3, 1000, 40)
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	r := region(m, 3, 0, trace.RegionSubroutine)
	if r == nil || r.Calls != 1002 || r.PerProc[0].Calls != 1001 || !nearly(r.Incl, 42) || !nearly(r.PerProc[0].Excl, 41) {
		t.Fatalf("region of T.M: %+v", r)
	}
	// The 40 µs of untraced calls ran inside the program's region, as the
	// traced call did: its exclusive time on processor 0 is 100 - 1 - 40.
	if main := region(m, 2, 0, trace.RegionProgram); main == nil || !nearly(main.PerProc[0].Excl, 59) || !nearly(main.PerProc[1].Excl, 99) {
		t.Fatalf("region of main: %+v", main)
	}
	if len(m.Throttled) != 1 {
		t.Fatalf("throttled %+v", m.Throttled)
	}
	ts := m.Throttled[0]
	if ts.Func != "T.M" || ts.Untraced != 1000 || !ts.PerProc[0].Throttled || ts.PerProc[1].Throttled || ts.PerProc[0].Traced != 1 {
		t.Errorf("throttled %+v", ts)
	}
	var txt bytes.Buffer
	WriteText(&txt, NewReport("t", m, 0))
	if !strings.Contains(txt.String(), "Throttled") || !strings.Contains(txt.String(), "T.M") {
		t.Errorf("report:\n%s", txt.String())
	}
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestOverlapOfPieces(t *testing.T) {
	lives := unionOf([][2]float64{{10, 20}, {15, 30}, {50, math.Inf(1)}, {40, 45}})
	want := [][2]float64{{10, 30}, {40, 45}, {50, math.Inf(1)}}
	if !slices.Equal(lives, want) {
		t.Fatalf("union %v, want %v", lives, want)
	}
	pieces := addPiece(addPiece(nil, 0, 12), 12, 14) // joined: [0, 14]
	pieces = addPiece(pieces, 28, 42)                // 2 + 2
	pieces = addPiece(pieces, 60, 70)                // 10
	if len(pieces) != 3 {
		t.Fatalf("pieces %v, want 3 of them", pieces)
	}
	if got := overlap(pieces, lives); got != 4+2+2+10 {
		t.Errorf("overlap %v, want 18", got)
	}
	if got := overlap(pieces, nil); got != 0 {
		t.Errorf("overlap with no lives %v, want 0", got)
	}
}

// The collector's pauses against the waits: each wait's share of the
// pauses, overlapping pauses counted once.
func TestGCInWaits(t *testing.T) {
	a, c := waitKey{1, 2, replay.WaitBarrier}, waitKey{1, 3, replay.WaitBarrier}
	b := &builder{
		gcPauses: []gcPause{{20, 5}, {10, 2}, {22, 1}}, // [20, 25], [10, 12], [22, 23] within the first
		waitIvs:  []waitIv{{a, 11, 21}, {a, 24, 30}, {c, 0, 5}},
	}
	m := &Model{}
	out := b.gcInWaits(m)
	if out[a] != 1+1+1 || out[c] != 0 || m.GC.InWaits != 3 || m.GC.Pauses != 3 || m.GC.Total != 8 || m.GC.Longest != 5 {
		t.Errorf("waits %v, stats %+v", out, m.GC)
	}
}

// loopPart writes processor p's part of an instance of loop (1, 2): it
// enters at enter, ends its iters iterations (busy µs) and reaches the
// implicit barrier at done, leaves the barrier at release and the loop
// 1 µs later.
func loopPart(s *tracetest.Synth, p int, enter, done, release float64, iters int, busy float64) {
	s.Start(p, enter, 1, 2, trace.RegionPDO)
	s.PDOWork(p, done, 1, 2, iters, busy)
	s.Sync(p, done, trace.TagWaitBarrierStart, 1, 2)
	s.Sync(p, release, trace.TagWaitBarrierStop, 1, 2)
	s.Stop(p, release+1, 1, 2, trace.RegionPDO)
}

// TestLateEntry: processor 1, idle while the leader runs serial code, enters
// a pdo 300 µs after the leader began it (a processor woken late, as on
// a virtual machine whose idle CPU sleeps): those 300 µs are "late to a
// pdo", a finding of their own at the loop, not serial time (the leader
// was in the loop, not in serial code); the idle time before the leader
// entered the loop stays serial.
func TestLateEntry(t *testing.T) {
	s := tracetest.New(2)
	for p := range 2 {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
	}
	// The leader runs serial code from 0 to 100, then the loop.
	loopPart(s, 0, 100, 500, 502, 100, 400)
	// Processor 1 arrives when the leader has done all of it.
	loopPart(s, 1, 400, 401, 502, 0, 1)
	// A second instance begins at 600 while processor 1 is in a call
	// (590-650) of its own: late from its last record, 650, on.
	s.Start(0, 600, 1, 2, trace.RegionPDO)
	s.Sync(0, 700, trace.TagWaitBarrierStart, 1, 2)
	s.Sync(0, 760, trace.TagWaitBarrierStop, 1, 2)
	s.Stop(0, 761, 1, 2, trace.RegionPDO)
	s.Start(1, 590, 1, 0, trace.RegionSubroutine)
	s.Stop(1, 650, 1, 0, trace.RegionSubroutine)
	s.Start(1, 700, 1, 2, trace.RegionPDO)
	s.Sync(1, 750, trace.TagWaitBarrierStart, 1, 2)
	s.Sync(1, 760, trace.TagWaitBarrierStop, 1, 2)
	s.Stop(1, 761, 1, 2, trace.RegionPDO)
	for p := range 2 {
		s.Stop(p, 770, 2, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	p1 := m.PerProc[1]
	near(t, "processor 1 late to the pdo", p1.Join, 300+50)
	// Serial: before the first loop, between the loops (its call too),
	// after the second.
	near(t, "processor 1 serial", p1.Serial, 100+(590-503)+(650-590)+(770-761))
	near(t, "total late", m.Time.Join, 300+50)
	l := loopAt(m, 1, 2)
	if l == nil || l.Late != 2 {
		t.Fatalf("loop: %+v", l)
	}
	near(t, "loop join", l.Join, 300+50)
	near(t, "loop join p1", l.PerProc[1].Join, 300+50)
	fs := Findings(m)
	if len(fs) == 0 || fs[0].Kind != FindLate || !strings.Contains(fs[0].Title, "processor 1 entered loop tri") {
		t.Fatalf("findings: %+v", fs)
	}
	// Its lost time holds the leader's waits at the loops' ends for
	// processor 1 beyond the busy times' difference: 2 µs of the first
	// instance (processor 1 arrived at its barrier at 401, the leader at
	// 500, released at 502), 60 of the second (the leader arrived at 700,
	// processor 1, entered 100 µs after it, at 750, both released at 760).
	near(t, "late finding lost", fs[0].Lost, 300+50+2+60)
	near(t, "loop's waits for the late", l.JoinWait, 2+60)
	if !strings.Contains(fs[0].Title, "the others then waited 62.0 µs for it at its end") {
		t.Errorf("late finding without the others' waits: %s", fs[0].Title)
	}
	if !strings.Contains(fs[0].Advice, "--wait-policy active") {
		t.Errorf("advice without the trace's CPUs: %s", fs[0].Advice)
	}
	m.CPUs = 1 // the trace's "cpus" attribute: more processors than CPUs
	if fs := Findings(m); !strings.Contains(fs[0].Advice, "the run had 2 processors on 1 CPUs") {
		t.Errorf("advice with 2 processors on 1 CPU: %s", fs[0].Advice)
	}
}

// TestLateStartedProcessor: a processor whose goroutine the Go scheduler
// ran late (its program region starts 350 µs after the leader's) was idle
// from the run's start: serial while the leader ran serial code, late to
// the loop the leader began, not time outside the run. (x191: 700 µs of a
// 3.7 ms run were "before a processor's records", no finding named them.)
func TestLateStartedProcessor(t *testing.T) {
	s := tracetest.New(2)
	s.Start(0, 0, 2, 0, trace.RegionProgram)
	// The leader runs serial code from 0 to 200, then the loop.
	loopPart(s, 0, 200, 500, 702, 100, 300)
	s.Stop(0, 800, 2, 0, trace.RegionProgram)
	s.Start(1, 350, 2, 0, trace.RegionProgram)
	loopPart(s, 1, 352, 700, 702, 100, 348)
	s.Stop(1, 800, 2, 0, trace.RegionProgram)
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	p1 := m.PerProc[1]
	near(t, "processor 1 outside its records", p1.Outside, 0)
	near(t, "processor 1 serial", p1.Serial, 200+(800-703))
	near(t, "processor 1 late to the pdo", p1.Join, 352-200)
	fs := Findings(m)
	var late, serial bool
	for _, f := range fs {
		late = late || f.Kind == FindLate && strings.Contains(f.Title, "processor 1 entered loop tri")
		serial = serial || f.Kind == FindSerial && strings.Contains(f.Title, "processor 1 idles")
	}
	if !late || !serial {
		t.Errorf("findings without the late start or the serial code before it: %+v", fs)
	}
}

// TestImbalanceAdvice: processors that ran as many iterations of a static
// loop in unequal times are told the two causes that fit (costlier
// iterations, or less of a CPU); unequal counts keep the strategy's advice.
func TestImbalanceAdvice(t *testing.T) {
	loop := func(iters [2]int) *Model {
		s := tracetest.New(2)
		busy := [2]float64{100, 400}
		for p := range 2 {
			s.Start(p, 0, 2, 0, trace.RegionProgram)
			s.Start(p, 10, 1, 2, trace.RegionPDO)
			if p == 0 {
				s.PDOInfo(0, 10, 1, 2, 0)
			}
			s.PDOWork(p, 10+busy[p], 1, 2, iters[p], busy[p])
			s.Sync(p, 10+busy[p], trace.TagWaitBarrierStart, 1, 2)
			s.Sync(p, 420, trace.TagWaitBarrierStop, 1, 2)
			s.Stop(p, 430, 1, 2, trace.RegionPDO)
			s.Stop(p, 440, 2, 0, trace.RegionProgram)
		}
		return analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	}
	advice := func(m *Model) string {
		for _, f := range Findings(m) {
			if f.Kind == FindImbalance {
				return f.Advice
			}
		}
		t.Fatalf("no imbalance finding: %+v", Findings(m))
		return ""
	}
	if a := advice(loop([2]int{50, 50})); !strings.HasPrefix(a, "processor 1 ran as many iterations as processor 0 (50 and 50) in more time: either its iterations cost more") {
		t.Errorf("equal iterations: %s", a)
	}
	if a := advice(loop([2]int{20, 80})); strings.Contains(a, "as many iterations") {
		t.Errorf("unequal iterations: %s", a)
	}
}

// TestImbalanceAdviceChunks: a self-scheduled loop is told to use smaller
// chunks only when its chunks hold more than one iteration (x328: a
// dynamic(1) loop of fib(i) was told to use a smaller chunk size).
func TestImbalanceAdviceChunks(t *testing.T) {
	m := &Model{Procs: 2}
	for _, c := range []struct{ strategy, want string }{
		{"dynamic(4)", "use a smaller chunk size"},
		{"dynamic(k)", "use a smaller chunk size"},
		{"guided(8)", "use a smaller chunk size"},
		{"dynamic(1)", "already hands out one iteration at a time"},
		{"dynamic", "already hands out one iteration at a time"},
		{"dynamic(1) onto P", "already hands out one iteration at a time"},
		{"guided", "guided scheduling hands out large chunks first"},
		{"guided(1)", "guided scheduling hands out large chunks first"},
		{"dynamic(16)", "use a smaller chunk size"},
	} {
		l := &LoopStat{Strategy: c.strategy, PerProc: []LoopProc{{Iterations: 18, Busy: 97}, {Iterations: 2, Busy: 1}}}
		if a := imbalanceAdvice(m, l, 0, 1); !strings.Contains(a, c.want) {
			t.Errorf("%s: advice %q, want %q in it", c.strategy, a, c.want)
		}
	}
}

// TestSerialSpan: serial code between two calls of a function whose loop
// it is says "between two runs of" the loop, not "between" it "and" it.
func TestSerialSpan(t *testing.T) {
	loop := &Site{Sub: 3, Dir: 1, Kind: "pdo", File: "main.go", Line: 41}
	other := &Site{Sub: 2, Dir: 1, Kind: "pdo", File: "main.go", Line: 29}
	for _, c := range []struct {
		after, before *Site
		want          string
	}{
		{loop, loop, "between two runs of the pdo at main.go:41"},
		{other, loop, "between the pdo at main.go:29 and the pdo at main.go:41"},
		{nil, loop, "before the pdo at main.go:41"},
		{loop, nil, "after the pdo at main.go:41"},
		{nil, nil, ""},
	} {
		if got := (&SerialStat{After: c.after, Before: c.before}).Span(); got != c.want {
			t.Errorf("Span() = %q, want %q", got, c.want)
		}
	}
}

// TestLateAdvice: entries a few microseconds late (a waiting processor
// that yielded, x296 after stop 45's adaptive waits: 1.7-2.2 µs) are not
// blamed on a blocked thread's wake-up, which takes ten times that.
func TestLateAdvice(t *testing.T) {
	m := &Model{Procs: 2, CPUs: 2}
	if a := lateAdvice(m, 2.2); !strings.Contains(a, "a few microseconds late") || strings.Contains(a, "wake-up latency") {
		t.Errorf("2.2 µs late: %s", a)
	}
	if a := lateAdvice(m, 28); !strings.Contains(a, "wake-up latency") {
		t.Errorf("28 µs late: %s", a)
	}
	if a := lateAdvice(&Model{Procs: 4, CPUs: 2}, 2.2); !strings.Contains(a, "4 processors on 2 CPUs") {
		t.Errorf("4 processors on 2 CPUs: %s", a)
	}
}

// TestImbalanceAdviceFewIterations: a loop with fewer iterations than
// processors is told so, whatever its schedule (x544: three tasks on four
// processors were told "the iterations have unequal cost: use cyclic"),
// and a loop with enough iterations that one processor got none of is not.
func TestImbalanceAdviceFewIterations(t *testing.T) {
	m := &Model{Procs: 4}
	few := &LoopStat{Strategy: "block (default)", Instances: 2, Iterations: 6,
		PerProc: []LoopProc{{Instances: 2, Iterations: 2, Busy: 90}, {Instances: 2, Iterations: 2, Busy: 88}, {Instances: 2, Iterations: 2, Busy: 91}, {Instances: 2, Busy: 1}}}
	want := "processor 3 ran no iteration: the loop has 3 iterations each time it runs for 4 processors"
	if a := imbalanceAdvice(m, few, 2, 3); !strings.HasPrefix(a, want) {
		t.Errorf("3 iterations on 4: %q, want it to begin %q", a, want)
	}
	enough := &LoopStat{Strategy: "dynamic(4)", Instances: 1, Iterations: 12,
		PerProc: []LoopProc{{Instances: 1, Iterations: 4, Busy: 90}, {Instances: 1, Iterations: 4, Busy: 88}, {Instances: 1, Iterations: 4, Busy: 91}, {Instances: 1, Busy: 1}}}
	if a := imbalanceAdvice(m, enough, 2, 3); strings.Contains(a, "ran no iteration") || !strings.Contains(a, "smaller chunk") {
		t.Errorf("12 iterations in chunks of 4 on 4: %q", a)
	}
}

// TestImbalanceAdviceUnevenDivision: iterations of the same cost that do
// not divide evenly (x552: 20 rows on 3 processors, 7, 7 and 6) are told
// so, not to use cyclic scheduling; iterations that took longer each on
// a run with more processors than CPUs name both causes with the costs.
func TestImbalanceAdviceUnevenDivision(t *testing.T) {
	m := &Model{Procs: 3}
	even := &LoopStat{Strategy: "block (default)", Instances: 100, Iterations: 2000,
		PerProc: []LoopProc{{Instances: 100, Iterations: 700, Busy: 7000}, {Instances: 100, Iterations: 700, Busy: 7050}, {Instances: 100, Iterations: 600, Busy: 6000}}}
	if a := imbalanceAdvice(m, even, 1, 2); !strings.HasPrefix(a, "the iterations do not divide evenly among the processors: processor 1 ran 700 and processor 2 ran 600, at about the same cost each") {
		t.Errorf("7, 7 and 6 rows: %q", a)
	}
	m = &Model{Procs: 3, CPUs: 2}
	slower := &LoopStat{Strategy: "block (default)", Instances: 100, Iterations: 2000,
		PerProc: []LoopProc{{Instances: 100, Iterations: 700, Busy: 20300}, {Instances: 100, Iterations: 700, Busy: 15000}, {Instances: 100, Iterations: 600, Busy: 12600}}}
	if a := imbalanceAdvice(m, slower, 0, 2); !strings.HasPrefix(a, "processor 0's iterations took 29.0 µs each and processor 2's 21.0 µs (700 and 600 iterations)") || !strings.Contains(a, "the run had 3 processors on 2 CPUs") {
		t.Errorf("3 processors on 2 CPUs: %q", a)
	}
}
