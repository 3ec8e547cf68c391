package replay

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// perProc is what a tool that takes the records processor by processor
// sees: each processor's records in order, with their times.
type perProc map[int32][]string

func (pp perProc) add(e *Event) error {
	pp[e.Proc] = append(pp[e.Proc], fmt.Sprintf("%d@%g/%g", e.Tag, e.Clock, e.Time))
	return nil
}

func clockOrder(t *testing.T, data []byte) (perProc, OrderStats, bool) {
	t.Helper()
	pp := perProc{}
	st, ok, err := ClockOrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{Prog: tracetest.Prog()}, pp.add)
	if err != nil {
		t.Fatal(err)
	}
	return pp, st, ok
}

// Where the clocks agree with the barriers, ClockOrderFile gives every
// processor the records and times the consistent order gives it, over
// more records than a batch.
func TestClockOrderFile(t *testing.T) {
	data := tracetest.Lanes(3, 1500).MustEncode(t, trace.Binary, tracetest.Prog())
	got, st, ok := clockOrder(t, data)
	if !ok {
		t.Fatal("gave up on a trace whose clocks agree with its barriers")
	}
	want := perProc{}
	wst, err := OrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{Prog: tracetest.Prog()}, want.add)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) < 3*batchItems || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("records differ from the consistent order's (%d on processor 0)", len(got[0]))
	}
	if !st.ClockOrder || !st.PerNode || st.Records != wst.Records || st.Violations != 0 || st.Forced != 0 {
		t.Errorf("stats %+v, the consistent order's %+v", st, wst)
	}
}

// Where it cannot vouch for the order, it gives up.
func TestClockOrderGivesUp(t *testing.T) {
	const m = tracetest.SubMain
	barrier := func(enter, leave [2]float64, exits int) *tracetest.Synth {
		s := tracetest.New(2)
		for p := range 2 {
			s.Start(p, 0, m, 0, trace.RegionProgram)
			s.Sync(p, enter[p], trace.TagWaitBarrierStart, m, tracetest.DirBar)
			if p < exits {
				s.Sync(p, leave[p], trace.TagWaitBarrierStop, m, tracetest.DirBar)
			}
			s.Stop(p, 100, m, 0, trace.RegionProgram)
		}
		return s
	}
	for _, c := range []struct {
		name string
		s    *tracetest.Synth
	}{
		{"skewed clocks", skewed()},
		{"locks and critical sections", tracetest.Sync2()},
		{"a processor leaves a barrier before another enters it", barrier([2]float64{10, 30}, [2]float64{20, 31}, 2)},
		{"a processor never leaves a barrier", barrier([2]float64{10, 11}, [2]float64{12, 12}, 1)},
	} {
		if _, _, ok := clockOrder(t, c.s.MustEncode(t, trace.Binary, tracetest.Prog())); ok {
			t.Errorf("%s: taken in clock order", c.name)
		}
	}
	// And the control: the same barrier with its clocks in agreement.
	if _, _, ok := clockOrder(t, barrier([2]float64{10, 11}, [2]float64{12, 12}, 2).MustEncode(t, trace.Binary, tracetest.Prog())); !ok {
		t.Error("a well-ordered barrier: gave up")
	}
	// An ASCII trace has no per-processor index.
	if _, _, ok := clockOrder(t, tracetest.Lanes(2, 3).MustEncode(t, trace.ASCII, tracetest.Prog())); ok {
		t.Error("an ASCII trace taken in clock order")
	}
}

// A processor that writes twice the records of another is not let fall
// behind it in time (a tool keeps what it knows of a loop until every
// processor has passed it): the processors' clocks stay within a batch.
func TestClockOrderKeepsTogether(t *testing.T) {
	const m, n = tracetest.SubMain, 10 * batchItems
	s := tracetest.New(2)
	for p, step := range []float64{0.5, 1} {
		for i := range int(float64(n) / step / 2) {
			at := float64(i) * step * 2
			s.Start(p, at, m, tracetest.DirPhase, trace.RegionUser)
			s.Stop(p, at+step, m, tracetest.DirPhase, trace.RegionUser)
		}
	}
	data := s.MustEncode(t, trace.Binary, tracetest.Prog())
	var last [2]float64
	drift := 0.0
	_, ok, err := ClockOrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{}, func(e *Event) error {
		last[e.Proc] = e.Clock
		drift = max(drift, last[e.Proc]-last[1-e.Proc])
		return nil
	})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if drift > 2*batchItems {
		t.Errorf("one processor ran %g µs ahead of the other", drift)
	}
}
