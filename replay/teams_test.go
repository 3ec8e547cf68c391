package replay

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// nestedTeams is a recursion of psections on three processors: the outer
// psection's two sections run on the teams {0, 1} and {2}; in each, the
// same psection again ends with its barrier (same site) on that team
// only; then the outer psection's barrier of all three. Clocks (µs):
//
//	p0: inner barrier 10..12, outer 40..60
//	p1: inner barrier 20..21, outer 45..60
//	p2: inner barrier 30..31, outer 59..60
//
// Processor 0 leaves its team's barrier at 12, before processor 1 of the
// same team enters it at 20: the one edge the order must repair. Team
// {2}'s barrier is a barrier of its own: p2's entry at 30 is no
// predecessor of p0's exit at 12.
func nestedTeams() *tracetest.Synth {
	return teamsTrace([3][2]float64{{10, 12}, {20, 21}, {30, 31}}, [3]float64{40, 45, 59})
}

// teamsTrace is nestedTeams' program with the given clocks of each
// processor's inner barrier (entry, exit) and outer barrier entry.
func teamsTrace(inner [3][2]float64, outer [3]float64) *tracetest.Synth {
	const m = tracetest.SubMain
	s := tracetest.New(3)
	teams := [3][]int{{0, 1}, {0, 1}, {2}}
	for p := range 3 {
		s.Start(p, 1, m, 0, trace.RegionProgram)
		s.Start(p, 2, m, tracetest.DirPSec, trace.RegionPSection)
		s.Start(p, 3, m, tracetest.DirSec, trace.RegionSection)
		s.APSInfo(p, 3.5, teams[p]...)
		s.Start(p, 4, m, tracetest.DirPSec, trace.RegionPSection)
		s.Sync(p, inner[p][0], trace.TagWaitBarrierStart, m, tracetest.DirPSec)
		s.Sync(p, inner[p][1], trace.TagWaitBarrierStop, m, tracetest.DirPSec)
		s.Stop(p, inner[p][1]+1, m, tracetest.DirPSec, trace.RegionPSection)
		s.Stop(p, inner[p][1]+2, m, tracetest.DirSec, trace.RegionSection)
		s.Sync(p, outer[p], trace.TagWaitBarrierStart, m, tracetest.DirPSec)
		s.Sync(p, 60, trace.TagWaitBarrierStop, m, tracetest.DirPSec)
		s.Stop(p, 61, m, tracetest.DirPSec, trace.RegionPSection)
		s.Stop(p, 62, m, 0, trace.RegionProgram)
	}
	return s
}

func TestOrderSectionTeams(t *testing.T) {
	data := nestedTeams().MustEncode(t, trace.Binary, tracetest.Prog())
	var evs []ordered
	st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{Prog: tracetest.Prog(), Records: true}, collect(&evs))
	if err != nil {
		t.Fatal(err)
	}
	if st.EdgeViolations != 1 || st.Forced != 0 {
		t.Errorf("stats %+v: want one edge repaired (team {0, 1}'s barrier), nothing forced", st)
	}
	exit0 := evs[find(evs, 0, "wait-barrier-stop", 0)]
	if exit0.time != 20 {
		t.Errorf("p0's exit from its team's barrier at %v, want 20 (p1's entry)", exit0.time)
	}
	if e := evs[find(evs, 2, "wait-barrier-stop", 0)]; e.time != 31 {
		t.Errorf("p2's exit from its own team's barrier moved to %v (its clock 31)", e.time)
	}
	// The outer barrier is every processor's: each exit after p2's entry.
	for p := range 3 {
		if e := evs[find(evs, p, "wait-barrier-stop", 1)]; e.time < 59 {
			t.Errorf("p%d left the outer barrier at %v, before p2 entered it (59)", p, e.time)
		}
	}
}

// Where the clocks follow the teams' barriers, the fast path takes the
// trace and gives what the consistent order gives.
func TestClockOrderSectionTeams(t *testing.T) {
	s := teamsTrace([3][2]float64{{10, 22}, {20, 22}, {30, 31}}, [3]float64{40, 41, 42}) // p0 waits for p1
	data := s.MustEncode(t, trace.Binary, tracetest.Prog())
	got, st, ok := clockOrder(t, data)
	if !ok {
		t.Fatal("gave up on a trace whose clocks follow its teams' barriers")
	}
	want := perProc{}
	wst, err := OrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{Prog: tracetest.Prog()}, want.add)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || wst.Violations != 0 || wst.EdgeViolations != 0 || !st.ClockOrder {
		t.Errorf("fast path %v\nconsistent order %v (stats %+v)", got, want, wst)
	}
}

// A split barrier in a section is its team's too: processors 0 and 1,
// each a section's team of one, check in and out on their own.
func TestOrderSectionTeamsSplit(t *testing.T) {
	const m = tracetest.SubMain
	s := tracetest.New(2)
	in, out := [2]float64{10, 30}, [2]float64{12, 31}
	for p := range 2 {
		s.Start(p, 1, m, 0, trace.RegionProgram)
		s.Start(p, 2, m, tracetest.DirPSec, trace.RegionPSection)
		s.Start(p, 3, m, tracetest.DirSec, trace.RegionSection)
		s.APSInfo(p, 3.5, p)
		s.Sync(p, in[p], trace.TagBarrierCheckin, m, tracetest.DirIn)
		s.Sync(p, out[p]-0.5, trace.TagWaitBCheckoutStart, m, tracetest.DirOut)
		s.Sync(p, out[p], trace.TagWaitBCheckoutStop, m, tracetest.DirOut)
		s.Stop(p, 40, m, tracetest.DirSec, trace.RegionSection)
		s.Sync(p, 41, trace.TagWaitBarrierStart, m, tracetest.DirPSec)
		s.Sync(p, 42, trace.TagWaitBarrierStop, m, tracetest.DirPSec)
		s.Stop(p, 43, m, tracetest.DirPSec, trace.RegionPSection)
		s.Stop(p, 44, m, 0, trace.RegionProgram)
	}
	data := s.MustEncode(t, trace.Binary, tracetest.Prog())
	var evs []ordered
	st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{Prog: tracetest.Prog(), Records: true}, collect(&evs))
	if err != nil {
		t.Fatal(err)
	}
	if st.Violations != 0 || st.EdgeViolations != 0 || st.Forced != 0 {
		t.Errorf("stats %+v: the teams' split barriers are independent, nothing to repair", st)
	}
	if _, _, ok := clockOrder(t, data); !ok {
		t.Error("the fast path gave up on independent split barriers")
	}
}
