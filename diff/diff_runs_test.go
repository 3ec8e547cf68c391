package diff

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// The exact Mann-Whitney U test against values from its tables: complete
// separation of 3 and 3 gives 2/20, of 5 and 5 2/252, of 4 and 4 2/70;
// interleaved samples give 1; the normal approximation beyond 400 pairs is
// close to the exact value where both apply.
func TestMannWhitney(t *testing.T) {
	seq := func(from, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(from + i)
		}
		return xs
	}
	for _, c := range []struct {
		name string
		a, b []float64
		want float64
	}{
		{"3 below 3", seq(0, 3), seq(10, 3), 0.1},
		{"5 above 5", seq(10, 5), seq(0, 5), 2.0 / 252},
		{"4 below 4", seq(0, 4), seq(10, 4), 2.0 / 70},
		{"interleaved", []float64{1, 3, 5, 7}, []float64{2, 4, 6, 8}, 48.0 / 70}, // U = 6: P(U ≤ 6) = 24/70,
		{"one shift", []float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 4.0 / 70},    // U = 1: P(U ≤ 1) = 2/70,
	} {
		if got := mannWhitneyP(c.a, c.b); math.Abs(got-c.want) > 0.001 {
			t.Errorf("%s: p = %.4f, want %.4f", c.name, got, c.want)
		}
	}
	if got, want := mannWhitneyMinP(3, 3), 0.1; math.Abs(got-want) > 1e-9 {
		t.Errorf("min p of 3 and 3: %v, want %v", got, want)
	}
	// 20 and 21 values: beyond the exact count; shifted by half the range.
	a, b := seq(0, 20), seq(10, 21)
	if p := mannWhitneyP(a, b); p > 0.01 || p < 1e-5 {
		t.Errorf("normal approximation: p = %g for samples overlapping by half", p)
	}
}

// CompareFlows finds a step where the runs reach different barriers, names
// each with its line, and the loop instance whose iterations differ.
func TestCompareFlowsSync(t *testing.T) {
	prog := &progdb.Program{Subprograms: []*progdb.Subprogram{{Num: 1, Name: "main",
		Directives: []*progdb.Directive{
			{Num: 1, Kind: "barrier", Pos: progdb.Pos{File: "main.go", Line: 7}},
			{Num: 2, Kind: "barrier", Pos: progdb.Pos{File: "main.go", Line: 9}},
		}}}}
	region := Step{Kind: stepRegion, Sub: 1, Dir: 0, A: trace.RegionProgram}
	bar := func(dir int32) Step {
		return Step{Kind: stepSync, Sub: 1, Dir: dir, A: int32(trace.TagWaitBarrierStart)}
	}
	a := &Flow{Procs: 2, Steps: [][]Step{{region, bar(1), bar(2)}, {bar(1), bar(2)}}, Loops: true, Work: true,
		Iterations: map[[2]int32][]int64{{1, 3}: {10, 10}}}
	b := &Flow{Procs: 2, Steps: [][]Step{{region, bar(1), bar(2)}, {bar(2)}}, Loops: true, Work: true,
		Iterations: map[[2]int32][]int64{{1, 3}: {10, 12}}}
	d := CompareFlows(a, b, prog)
	if d.First == nil || d.First.Proc != 1 || d.First.Step != 1 || d.First.A != "reaches the barrier (main.go:7)" || d.First.B != "reaches the barrier (main.go:9)" {
		t.Errorf("first divergence %+v", d.First)
	}
	if d.Loop == nil || d.Loop.Instance != 2 || d.Loop.A != 10 || d.Loop.B != 12 {
		t.Errorf("loop divergence %+v", d.Loop)
	}
	if d := CompareFlows(a, a, prog); d.First != nil || d.Loop != nil || d.Steps != 5 {
		t.Errorf("a run against itself: %+v", d)
	}
}

// Without program information the steps are still compared and named by
// number.
func TestCompareFlowsNoProgram(t *testing.T) {
	a := &Flow{Procs: 1, Steps: [][]Step{{{Kind: stepRegion, Sub: 1, A: trace.RegionProgram}, {Kind: stepCall, Sub: 1, Dir: 2, A: trace.CallSend, Peer: 0, Count: 3}}}}
	b := &Flow{Procs: 1, Steps: [][]Step{{{Kind: stepRegion, Sub: 1, A: trace.RegionProgram}, {Kind: stepCall, Sub: 1, Dir: 2, A: trace.CallSend, Peer: 0, Count: 4}}}}
	d := CompareFlows(a, b, nil)
	if d.First == nil || d.First.Step != 2 || !strings.Contains(d.First.A, "3 elements") || !strings.Contains(d.First.B, "4 elements") {
		t.Errorf("first divergence %+v", d.First)
	}
}

// A pdo called in the body of another runs on one processor per call,
// where the outer loop's schedule sends it: its calls on two processors
// are no instance of a team, and compare with the serial run's calls
// (x206: "pdo (main.go:7) instance 1: ran 60 iterations in A, ran 120
// iterations in B" for a dot product in a matrix product's rows). The
// outer loop's instances still compare.
func TestNestedPDOIsNoTeamInstance(t *testing.T) {
	flow := func(procs int, outer []int) *Flow {
		s := tracetest.New(procs)
		for p := range procs {
			s.Start(p, 0, 1, 0, trace.RegionProgram)
			s.Start(p, 1, 1, 1, trace.RegionPDO)
			for k := 0; k < 2/procs; k++ { // each processor's rows
				s.Start(p, 2, 2, 1, trace.RegionPDO)
				s.PDOWork(p, 3, 2, 1, 60, 1)
				s.Stop(p, 4, 2, 1, trace.RegionPDO)
			}
			s.PDOWork(p, 5, 1, 1, outer[p], 4)
			s.Stop(p, 6, 1, 1, trace.RegionPDO)
			s.Stop(p, 7, 1, 0, trace.RegionProgram)
		}
		return synthFlow(t, s)
	}
	a, b := flow(1, []int{2}), flow(2, []int{1, 1})
	if d := CompareFlows(a, b, nil); d.Loop != nil {
		t.Errorf("loop divergence %+v: the inner pdo's calls compared as instances", d.Loop)
	}
	if c := flow(2, []int{1, 2}); CompareFlows(a, c, nil).Loop == nil {
		t.Errorf("the outer loop's 2 against 3 iterations not found")
	}
}

// TestFlowLanes: goroutine lanes are no processors of the run: two runs
// of 2 processors compare every processor's steps whatever their lanes,
// and runs of 2 and 4 processors with four lanes each are said to have 2
// and 4 (x338's diff said 6 and 8).
func TestFlowLanes(t *testing.T) {
	flow := func(procs, lanes int) *Flow {
		s := tracetest.New(procs + lanes)
		s.Procs = procs
		for p := range procs {
			s.Start(p, 0, 1, 0, trace.RegionProgram)
			s.Sync(p, 1, trace.TagWaitBarrierStart, 1, 2)
			s.Stop(p, 9, 1, 0, trace.RegionProgram)
		}
		for l := procs; l < procs+lanes; l++ {
			s.GoroutineStart(l, 2, 0, l-procs+1, "main.go:7")
			s.Start(l, 3, 2, 0, trace.RegionSubroutine)
			s.Stop(l, 4, 2, 0, trace.RegionSubroutine)
		}
		return synthFlow(t, s)
	}
	if f := flow(2, 4); f.Procs != 2 {
		t.Errorf("2 processors and 4 lanes: Procs %d", f.Procs)
	}
	if d := CompareFlows(flow(2, 1), flow(2, 3), nil); !strings.HasPrefix(d.Compared, "every processor's") || d.First != nil {
		t.Errorf("same processors, other lanes: compared %q, first divergence %+v", d.Compared, d.First)
	}
	if d := CompareFlows(flow(2, 4), flow(4, 4), nil); !strings.Contains(d.Compared, "the runs have 2 and 4 processors") {
		t.Errorf("2 and 4 processors: compared %q", d.Compared)
	}
}

// synthFlow is the behaviour of the trace s writes.
func synthFlow(t *testing.T, s *tracetest.Synth) *Flow {
	t.Helper()
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFlow(rd)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
