package analysis

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// TestCoverage: the count of running goroutines (lives minus their waits)
// integrated over pieces of serial time, up to a limit of processors.
func TestCoverage(t *testing.T) {
	steps := countSteps([][2]float64{{0, 10}, {2, 6}, {4, 8}}, [][2]float64{{3, 5}})
	for _, c := range []struct {
		pieces [][2]float64
		limit  int
		want   float64
	}{
		{[][2]float64{{1, 9}}, 1, 8},
		{[][2]float64{{1, 9}}, 2, 13}, // 1+2+1+2+2+2+2+1
		{[][2]float64{{1, 9}}, 3, 14},
		{[][2]float64{{-5, -1}}, 2, 0},
		{[][2]float64{{9, 12}}, 2, 1},
		{[][2]float64{{-1, 1}, {9, 12}}, 1, 2},
	} {
		if got := coverage(c.pieces, steps, c.limit); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("coverage(%v, limit %d) = %v, want %v", c.pieces, c.limit, got, c.want)
		}
	}
}

// TestGoroutinesFillIdleProcessors: processor 0 runs serial code for
// 1000 µs while its two goroutines (lanes 2 and 3) compute in an
// instrumented function, the second waiting 300 µs for a mutex: the idle
// processor 1's time is their work as far as a second goroutine ran (698
// µs; the first is taken to be on processor 0's core), the serial finding
// keeps the rest,
// and the mutex wait is the goroutines'. Without goroutines the same
// serial code is processor 1's idle time.
func TestGoroutinesFillIdleProcessors(t *testing.T) {
	prog, s := inMutexPDO()
	s.Stop(0, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(1, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(0, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	s.Stop(1, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	plain := s.MustEncode(t, trace.Binary, prog)

	prog, s = inMutexPDO()
	s.Bufs, s.Procs = append(s.Bufs, trace.Buf{}, trace.Buf{}), 2
	for k, lane := range []int{2, 3} {
		s.GoroutineStart(lane, 3, 0, k+1, "main.go:30:3")
	}
	for _, lane := range []int{2, 3} {
		s.Start(lane, 3, tracetest.SubWork, 0, trace.RegionSubroutine)
	}
	s.Rec(3, 100, trace.TagWaitMutexStart, 1, 0xc000123450)
	s.Rec(3, 400, trace.TagWaitMutexStop, 1)
	for _, lane := range []int{2, 3} {
		s.Stop(lane, 1001, tracetest.SubWork, 0, trace.RegionSubroutine)
		s.Rec(lane, 1001, trace.TagGoroutineEnd)
	}
	s.Stop(0, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(1, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(0, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	s.Stop(1, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	// Read from a file the lanes come first; read as a stream (an ASCII
	// trace, a pipe) they come after the processors' buffers, or before
	// them when the goroutines ended before the processors' last flush:
	// analyzeBytes checks that the two ways agree, for both orders.
	withGo := s.MustEncode(t, trace.Binary, prog)
	s.Bufs = []trace.Buf{s.Bufs[2], s.Bufs[3], s.Bufs[0], s.Bufs[1]}
	lanesFirst := s.MustEncode(t, trace.Binary, prog)
	for name, data := range map[string][]byte{"lanes last": withGo, "lanes first": lanesFirst} {
		rd, err := trace.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		m, err := Analyze(rd, Options{Procs: 2})
		if err != nil {
			t.Fatal(err)
		}
		if g := m.PerProc[1].Goroutines; math.Abs(g-698) > 1e-6 {
			t.Errorf("read as a stream, %s: processor 1's time as goroutines' work %v µs, want 698", name, g)
		}
	}

	m0 := analyzeBytes(t, plain, Options{Procs: 2})
	if m0.PerProc[1].Serial < 999 || m0.Time.Goroutines != 0 || !hasFinding(m0, FindSerial, "") {
		t.Errorf("without goroutines: processor 1 %+v, want 1000 µs idle and a serial finding", m0.PerProc[1].Characteristics)
	}
	m := analyzeBytes(t, lanesFirst, Options{Procs: 2})
	p1 := m.PerProc[1]
	// The goroutines ran side by side from 3 to 1001 µs of the stretch
	// from 2 to 1002 but for the second's 300 µs wait: one is taken to
	// run on processor 0's core, the other filled 698 µs of processor 1's.
	if math.Abs(p1.Goroutines-698) > 1e-6 || math.Abs(p1.Serial-303) > 1e-6 || m.Time.Goroutines != p1.Goroutines {
		t.Errorf("with goroutines: processor 1 %+v, want 698 of its 1001 µs idle time as the goroutines' work", p1.Characteristics)
	}
	if len(m.Serial) == 0 || m.Serial[0].Time != 1000 || math.Abs(m.Serial[0].Covered-698) > 1e-6 {
		t.Errorf("serial stats %+v, want 698 µs of the stretch covered", m.Serial)
	}
	lost := -1.0
	for _, f := range Findings(m) {
		if f.Kind == FindSerial && strings.Contains(f.Title, "for 1.00 ms") {
			lost = f.Lost
		}
	}
	if math.Abs(lost-302) > 1 {
		t.Errorf("serial finding losing %v µs, want the 302 µs the goroutines left idle: %+v", lost, Findings(m))
	}
	w := mutexWaitOf(m)
	if w == nil || w.Total != 300 || w.Goroutines != 1 || w.PerProc[0] != 300 || !hasFinding(m, FindLock, "goroutines of processor 0 wait 300.0 µs") {
		t.Errorf("the goroutine's mutex wait %+v (findings %+v), want 300 µs of processor 0's goroutines", w, Findings(m))
	}
}

// hasFinding reports whether m has a finding of kind whose title holds text.
func hasFinding(m *Model, kind, text string) bool {
	for _, f := range Findings(m) {
		if f.Kind == kind && strings.Contains(f.Title, text) {
			return true
		}
	}
	return false
}

// TestBlockedGoroutinesLeaveIdleTime: two goroutines alive during the
// leader's serial code but in no region but one job (workers blocked on a
// channel, waiting for jobs) do not fill the idle processor: its time
// stays serial idle time and the serial finding stays.
func TestBlockedGoroutinesLeaveIdleTime(t *testing.T) {
	prog, s := inMutexPDO()
	s.Bufs, s.Procs = append(s.Bufs, trace.Buf{}, trace.Buf{}), 2
	for k, lane := range []int{2, 3} { // two workers, alive side by side
		s.GoroutineStart(lane, 3, 0, k+1, "main.go:30:3")
	}
	s.Start(2, 900, tracetest.SubWork, 0, trace.RegionSubroutine) // one job, at the end
	s.Stop(2, 1000, tracetest.SubWork, 0, trace.RegionSubroutine)
	for _, lane := range []int{2, 3} {
		s.Rec(lane, 1001, trace.TagGoroutineEnd)
	}
	s.Stop(0, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(1, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(0, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	s.Stop(1, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	s.Bufs = []trace.Buf{s.Bufs[2], s.Bufs[3], s.Bufs[0], s.Bufs[1]}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{Procs: 2})
	if g := m.PerProc[1].Goroutines; g != 0 || !hasFinding(m, FindSerial, "its goroutines were alive on their lanes for 998.0 µs of it") {
		t.Errorf("processor 1's time as goroutines' work %v µs, want none (two workers alive, one job at a time, taken to be on processor 0's core); findings %+v", g, Findings(m))
	}
}

// TestSerialAdviceWithGoroutines: serial code during which processor 0's
// goroutines were alive but not side by side busy gets advice about the
// goroutines (its code may have waited for them) as well as the advice for
// serial code (it may have computed while they were blocked on a channel,
// x192's collector).
func TestSerialAdviceWithGoroutines(t *testing.T) {
	m := &Model{Procs: 2, Duration: 1000, Serial: []*SerialStat{{Site: Site{Func: "main", File: "main.go", Line: 10}, Time: 1000, Lost: 1000, Goroutines: 990}}}
	for _, f := range Findings(m) {
		if f.Kind == FindSerial {
			if !strings.Contains(f.Advice, "at most one of them ran at a time") || !strings.Contains(f.Advice, "if processor 0's code computes, run the loops of this code as pdo") {
				t.Errorf("advice %q", f.Advice)
			}
			return
		}
	}
	t.Errorf("no serial finding in %+v", Findings(m))
}

// TestUntracedGoroutines: the goroutines that ran without a lane (the
// runtime's goroutines-untraced record, after the run) are counted with
// their processor's and a warning says the goroutine figures are short
// (x201: 3000 goroutines at once, 1976 of them untraced, and the report
// called the time they worked on processor 1's core serial idle time
// without a word).
func TestUntracedGoroutines(t *testing.T) {
	prog, s := inMutexPDO()
	s.Bufs, s.Procs = append(s.Bufs, trace.Buf{}), 2
	s.GoroutineStart(2, 3, 0, 1, "main.go:30:3")
	s.Rec(2, 500, trace.TagGoroutineEnd)
	s.Stop(0, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(1, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(0, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	s.Stop(1, 1002, tracetest.SubMain, 0, trace.RegionProgram)
	s.Rec(0, 1003, trace.TagGoroutinesUntraced, 0, 7)
	s.Bufs = []trace.Buf{s.Bufs[2], s.Bufs[0], s.Bufs[1]}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{Procs: 2})
	if len(m.Goroutines) != 1 || m.Goroutines[0].Goroutines != 1 || m.Goroutines[0].Untraced != 7 {
		t.Fatalf("goroutines %+v, want processor 0's one traced and 7 untraced", m.Goroutines)
	}
	warned := false
	for _, w := range m.Warnings {
		warned = warned || strings.Contains(w, "7 goroutines (7 of processor 0) ran untraced")
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, NewReport("t", m, 0)); err != nil {
		t.Fatal(err)
	}
	if !warned || !strings.Contains(txt.String(), "main.go:30:3 (1), 7 more untraced") {
		t.Errorf("warnings %q; report:\n%s", m.Warnings, txt.String())
	}
}

// TestPDOOnGoroutines: a pdo reached from goroutines of processor 0 (two
// lanes, three runs in all, each all its iterations on its goroutine) is
// counted apart from its run on the processors, in the model and in the
// report, which says what to do; a pdo only goroutines ran still gets its
// row.
func TestPDOOnGoroutines(t *testing.T) {
	prog, s := inMutexPDO()
	s.PDOWork(0, 1.5, tracetest.SubMain, tracetest.DirPDO, 5, 0.5)
	s.PDOWork(1, 1.5, tracetest.SubMain, tracetest.DirPDO, 5, 0.5)
	s.Stop(0, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Stop(1, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	s.Bufs, s.Procs = append(s.Bufs, trace.Buf{}, trace.Buf{}), 2
	for k, lane := range []int{2, 3} {
		s.GoroutineStart(lane, 3, 0, k+1, "main.go:30:3")
	}
	runs := [][2]int{{2, 10}, {3, 20}, {2, 30}} // lane, start
	for _, r := range runs {
		at := float64(r[1])
		s.Start(r[0], at, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.PDOWork(r[0], at+4, tracetest.SubMain, tracetest.DirPDO, 100, 4)
		s.Stop(r[0], at+5, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
	}
	for _, lane := range []int{2, 3} {
		s.Rec(lane, 40, trace.TagGoroutineEnd)
	}
	s.Stop(0, 50, tracetest.SubMain, 0, trace.RegionProgram)
	s.Stop(1, 50, tracetest.SubMain, 0, trace.RegionProgram)
	s.Bufs = []trace.Buf{s.Bufs[2], s.Bufs[3], s.Bufs[0], s.Bufs[1]} // as a file holds them
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{Procs: 2})
	if len(m.Loops) != 1 {
		t.Fatalf("%d loops, want 1", len(m.Loops))
	}
	l := m.Loops[0]
	if g := l.OnGoroutines; g == nil || g.Runs != 3 || g.Iterations != 300 || g.Busy != 12 || len(g.Procs) != 1 || g.Procs[0] != 0 {
		t.Errorf("on goroutines: %+v, want 3 runs, 300 iterations, 12 µs, of processor 0", g)
	}
	if l.Instances != 1 || l.PerProc[0].Iterations != 5 || l.PerProc[1].Iterations != 5 {
		t.Errorf("the processors' part: %d instances, %+v; want 1 instance of 5 iterations each", l.Instances, l.PerProc)
	}
	var out strings.Builder
	if err := WriteText(&out, NewReport("t", m, 0)); err != nil {
		t.Fatal(err)
	}
	if want := "also ran 3 times on goroutines of processor 0, each time all its iterations on one goroutine: 300 iterations, 12.0 µs busy"; !strings.Contains(out.String(), want) {
		t.Errorf("the report does not say %q:\n%s", want, out.String())
	}
}

// TestLaneTraceOverhead: the trace-overhead records of goroutines' lanes
// (a goroutine's chunk handed to the writer) count as their processor's
// lanes' tracing, said in the report and its finding, and leave the
// processors' time as it was (svmc report said "tracing 0.0 µs" of a
// program whose four goroutines spent a millisecond handing their trace
// over).
func TestLaneTraceOverhead(t *testing.T) {
	build := func(overhead bool) *Model {
		prog, s := inMutexPDO()
		s.Bufs, s.Procs = append(s.Bufs, trace.Buf{}, trace.Buf{}), 2
		for k, lane := range []int{2, 3} {
			s.GoroutineStart(lane, 3, 0, k+1, "main.go:30:3")
			s.Start(lane, 3, tracetest.SubWork, 0, trace.RegionSubroutine)
		}
		if overhead {
			s.Overhead(2, 500, 120)
			s.Overhead(3, 600, 80)
		}
		for _, lane := range []int{2, 3} {
			s.Stop(lane, 1001, tracetest.SubWork, 0, trace.RegionSubroutine)
			s.Rec(lane, 1001, trace.TagGoroutineEnd)
		}
		s.Stop(0, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.Stop(1, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		if overhead {
			s.Overhead(0, 700, 5)
		}
		s.Stop(0, 1002, tracetest.SubMain, 0, trace.RegionProgram)
		s.Stop(1, 1002, tracetest.SubMain, 0, trace.RegionProgram)
		s.Bufs = []trace.Buf{s.Bufs[2], s.Bufs[3], s.Bufs[0], s.Bufs[1]} // lanes first, as a file has them
		return analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{Procs: 2})
	}
	plain, m := build(false), build(true)
	if m.Time.LaneTraceOverhead != 200 || m.PerProc[0].LaneTraceOverhead != 200 || m.PerProc[1].LaneTraceOverhead != 0 {
		t.Errorf("lanes' trace overhead: run %v, processors %v and %v; want 200 µs, all processor 0's",
			m.Time.LaneTraceOverhead, m.PerProc[0].LaneTraceOverhead, m.PerProc[1].LaneTraceOverhead)
	}
	if m.Time.TraceOverhead != 5 || m.PerProc[0].Productive != plain.PerProc[0].Productive-5 || m.PerProc[1].Productive != plain.PerProc[1].Productive {
		t.Errorf("processors' time: trace overhead %v (want processor 0's 5 µs alone), productive %v and %v (without the records %v and %v)",
			m.Time.TraceOverhead, m.PerProc[0].Productive, m.PerProc[1].Productive, plain.PerProc[0].Productive, plain.PerProc[1].Productive)
	}
	if !hasFinding(m, FindOverhead, "writing trace buffers took 205.0 µs (trace-overhead records; 200.0 µs of it on goroutines' lanes)") {
		t.Errorf("findings %+v, want the tracing finding with the lanes' part", Findings(m))
	}
	var text bytes.Buffer
	if err := WriteText(&text, NewReport("t", m, 0)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "tracing 5.0 µs (and 200.0 µs on goroutines' lanes, within their processor's productive time)") {
		t.Errorf("the report does not say the lanes' tracing:\n%s", text.String())
	}
}

// TestRecordingEstimate: the trace-overhead records of type recording (the
// runtime's estimate of its own work, written when a processor or a lane's
// goroutine ends) add up per processor, the lanes' to their owner's, leave
// every processor's time as it was (the estimate is spread through the
// run), and make the tracing finding say how much the trace cost; svmc
// report said "tracing 15 ms" of x514, whose traced run took 0.98 s
// against 0.56-0.68 s untraced.
func TestRecordingEstimate(t *testing.T) {
	build := func(estimate bool) *Model {
		prog, s := inMutexPDO()
		s.Bufs, s.Procs = append(s.Bufs, trace.Buf{}), 2
		s.GoroutineStart(2, 3, 0, 1, "main.go:30:3")
		s.Start(2, 3, tracetest.SubWork, 0, trace.RegionSubroutine)
		s.Stop(2, 1001, tracetest.SubWork, 0, trace.RegionSubroutine)
		if estimate {
			s.Recording(2, 1001, 40)
		}
		s.Rec(2, 1001, trace.TagGoroutineEnd)
		s.Stop(0, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.Stop(1, 2, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.Stop(0, 1002, tracetest.SubMain, 0, trace.RegionProgram)
		s.Stop(1, 1002, tracetest.SubMain, 0, trace.RegionProgram)
		if estimate {
			s.Recording(0, 1002, 160)
			s.Recording(1, 1002, 100)
		}
		s.Bufs = []trace.Buf{s.Bufs[2], s.Bufs[0], s.Bufs[1]} // the lane first, as a file has it
		return analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{Procs: 2})
	}
	plain, m := build(false), build(true)
	if m.Time.Recording != 300 || m.PerProc[0].Recording != 200 || m.PerProc[1].Recording != 100 {
		t.Errorf("recording: run %v, processors %v and %v; want 300 µs, 200 (its lane's 40 included) and 100",
			m.Time.Recording, m.PerProc[0].Recording, m.PerProc[1].Recording)
	}
	for p := range 2 {
		if a, b := m.PerProc[p], plain.PerProc[p]; a.Productive != b.Productive || a.Overhead != b.Overhead || a.TraceOverhead != 0 || a.Total != b.Total {
			t.Errorf("processor %d: productive %v, overhead %v (trace %v), total %v; without the estimate %v, %v, %v",
				p, a.Productive, a.Overhead, a.TraceOverhead, a.Total, b.Productive, b.Overhead, b.Total)
		}
	}
	if !hasFinding(m, FindOverhead, "recording the trace took about 300.0 µs of the processors' time") || hasFinding(plain, FindOverhead, "") {
		t.Errorf("findings %+v, want the tracing finding of the estimate (and none without it: %+v)", Findings(m), Findings(plain))
	}
	var text bytes.Buffer
	if err := WriteText(&text, NewReport("t", m, 0)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "of all these, recording the trace took about 300.0 µs (") {
		t.Errorf("the report does not say the estimate:\n%s", text.String())
	}
}
