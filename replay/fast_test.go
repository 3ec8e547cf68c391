package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

// Locks, critical sections and split barriers whose clocks already
// follow their edges are taken too, with the consistent order's records.
func TestClockOrderSync(t *testing.T) {
	data := tracetest.Sync2().MustEncode(t, trace.Binary, tracetest.Prog())
	got, st, ok := clockOrder(t, data)
	if !ok {
		t.Fatal("gave up on a trace whose clocks follow its locks, critical sections and barriers")
	}
	want := perProc{}
	if _, err := OrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{Prog: tracetest.Prog()}, want.add); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || !st.ClockOrder {
		t.Errorf("records differ from the consistent order's:\n%v\n%v", got, want)
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
	// Each processor holds the lock (or is in the critical section, or
	// checks in and out of a split barrier) over [from, to].
	holds := func(kind string, from, to [2]float64) *tracetest.Synth {
		s := tracetest.New(2)
		for p := range 2 {
			s.Start(p, 0, m, 0, trace.RegionProgram)
			switch kind {
			case "lock":
				s.LockWait(p, from[p]-1, m, tracetest.DirLock, 4096)
				s.Sync(p, from[p], trace.TagWaitLockStop, m, tracetest.DirLock)
				s.Sync(p, to[p], trace.TagReleaseLock, m, tracetest.DirLock)
			case "critical":
				s.Sync(p, from[p]-1, trace.TagWaitCritSecStart, m, tracetest.DirCrit)
				s.Sync(p, from[p], trace.TagWaitCritSecStop, m, tracetest.DirCrit)
				s.Sync(p, to[p], trace.TagExitCritSec, m, tracetest.DirCrit)
			case "split":
				s.Sync(p, from[p], trace.TagBarrierCheckin, m, tracetest.DirIn)
				s.Sync(p, to[p]-1, trace.TagWaitBCheckoutStart, m, tracetest.DirOut)
				s.Sync(p, to[p], trace.TagWaitBCheckoutStop, m, tracetest.DirOut)
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
		{"a processor leaves a barrier before another enters it", barrier([2]float64{10, 30}, [2]float64{20, 31}, 2)},
		{"a processor never leaves a barrier", barrier([2]float64{10, 11}, [2]float64{12, 12}, 1)},
		{"a lock granted before its holder released it", holds("lock", [2]float64{10, 15}, [2]float64{20, 25})},
		{"a critical section entered before the other left it", holds("critical", [2]float64{10, 15}, [2]float64{20, 25})},
		{"a split barrier left before the other checked in", holds("split", [2]float64{10, 30}, [2]float64{20, 40})},
	} {
		if _, _, ok := clockOrder(t, c.s.MustEncode(t, trace.Binary, tracetest.Prog())); ok {
			t.Errorf("%s: taken in clock order", c.name)
		}
	}
	// And the controls: the same with their clocks in agreement.
	for _, c := range []struct {
		name string
		s    *tracetest.Synth
	}{
		{"barrier", barrier([2]float64{10, 11}, [2]float64{12, 12}, 2)},
		{"lock", holds("lock", [2]float64{10, 20}, [2]float64{20, 25})},
		{"critical", holds("critical", [2]float64{10, 25}, [2]float64{20, 30})},
		{"split", holds("split", [2]float64{10, 11}, [2]float64{20, 21})},
	} {
		if _, _, ok := clockOrder(t, c.s.MustEncode(t, trace.Binary, tracetest.Prog())); !ok {
			t.Errorf("a well-ordered %s: gave up", c.name)
		}
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

// Random runs of 2 or 3 processors through barriers, split barriers,
// locks and critical sections, with clocks that sometimes contradict
// them: where ClockOrderFile takes one, the consistent order takes it too,
// repairs nothing and gives every processor the same records at the same
// times. (The fuzz targets hold the same property on arbitrary bytes.)
func TestClockOrderRandom(t *testing.T) {
	const m = tracetest.SubMain
	rng := rand.New(rand.NewPCG(1, 2))
	taken := 0
	for run := range 400 {
		procs := 2 + rng.IntN(2)
		s := tracetest.New(procs)
		clock := make([]float64, procs)
		step := func(p int) float64 {
			clock[p] += 1 + float64(rng.IntN(10))
			return clock[p]
		}
		for p := range procs {
			s.Start(p, step(p), m, 0, trace.RegionProgram)
		}
		for range 6 {
			switch rng.IntN(4) {
			case 0, 1: // a barrier; its exits usually after the last entry
				kind := rng.IntN(2)
				last := 0.0
				for p := range procs {
					if kind == 0 {
						s.Sync(p, step(p), trace.TagWaitBarrierStart, m, tracetest.DirBar)
					} else {
						s.Sync(p, step(p), trace.TagBarrierCheckin, m, tracetest.DirIn)
					}
					last = max(last, clock[p])
				}
				for p := range procs {
					if rng.IntN(8) > 0 {
						clock[p] = max(clock[p], last)
					}
					if kind == 0 {
						s.Sync(p, step(p), trace.TagWaitBarrierStop, m, tracetest.DirBar)
					} else {
						s.Sync(p, step(p), trace.TagWaitBCheckoutStart, m, tracetest.DirOut)
						s.Sync(p, step(p), trace.TagWaitBCheckoutStop, m, tracetest.DirOut)
					}
				}
			case 2, 3: // the lock or critical section, each processor in turn,
				// usually after the one before it left
				crit := rng.IntN(2) == 0
				prev := 0.0
				for _, p := range rng.Perm(procs) {
					if crit {
						s.Sync(p, step(p), trace.TagWaitCritSecStart, m, tracetest.DirCrit)
					} else {
						s.LockWait(p, step(p), m, tracetest.DirLock, 4096)
					}
					if rng.IntN(8) > 0 {
						clock[p] = max(clock[p], prev)
					}
					if crit {
						s.Sync(p, step(p), trace.TagWaitCritSecStop, m, tracetest.DirCrit)
						s.Sync(p, step(p), trace.TagExitCritSec, m, tracetest.DirCrit)
					} else {
						s.Sync(p, step(p), trace.TagWaitLockStop, m, tracetest.DirLock)
						s.Sync(p, step(p), trace.TagReleaseLock, m, tracetest.DirLock)
					}
					prev = clock[p]
				}
			}
		}
		for p := range procs {
			s.Stop(p, step(p), m, 0, trace.RegionProgram)
		}
		data := s.MustEncode(t, trace.Binary, tracetest.Prog())
		got, st, ok := clockOrder(t, data)
		if !ok {
			continue
		}
		taken++
		want := perProc{}
		wst, err := OrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{Prog: tracetest.Prog()}, want.add)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if wst.Violations != 0 || wst.EdgeViolations != 0 || wst.Forced != 0 || wst.Records != st.Records {
			t.Fatalf("run %d: taken in clock order, but the consistent order says %+v", run, wst)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("run %d: records differ:\nclock order      %v\nconsistent order %v", run, got, want)
		}
	}
	// Both ways must be exercised: about (7/8)^k of the runs agree.
	if taken < 20 || taken > 380 {
		t.Errorf("%d of 400 runs taken in clock order", taken)
	}
	t.Logf("%d of 400 runs taken in clock order", taken)
}

// TestClockOrderAcross: the records come in the order of their clocks
// across the processors, also where one processor starts earlier than the
// one that writes what its records depend on (a segment's variable before
// processor 1's page faults in it: the false-sharing finding was lost when
// processor 1's first batch came whole before processor 0's first record).
func TestClockOrderAcross(t *testing.T) {
	const m = tracetest.SubMain
	s := tracetest.New(2)
	s.Start(0, 100, m, tracetest.DirPhase, trace.RegionUser)
	s.Stop(0, 100+3*batchItems, m, tracetest.DirPhase, trace.RegionUser)
	for i := range 2 * batchItems {
		at := 50 + float64(i)
		s.Start(1, at, m, tracetest.DirPhase, trace.RegionUser)
		s.Stop(1, at+0.5, m, tracetest.DirPhase, trace.RegionUser)
	}
	data := s.MustEncode(t, trace.Binary, tracetest.Prog())
	last, n := -1.0, 0
	_, ok, err := ClockOrderFile(bytes.NewReader(data), int64(len(data)), "t", OrderOptions{}, func(e *Event) error {
		if e.Clock < last {
			t.Fatalf("record %d: clock %g after %g", n, e.Clock, last)
		}
		last = e.Clock
		n++
		return nil
	})
	if err != nil || !ok || n != 2+4*batchItems {
		t.Fatalf("ok %v, %v, %d records", ok, err, n)
	}
}

// TestRankLocalSync: the processors of two ranks hold a critical section
// and a lock over overlapping times, each rank's lock its own (an MPI job
// that took no global lock, OrderOptions.RankLocal): neither the consistent
// order nor the clock-order check finds a hold that follows another's
// release. Without RankLocal both see one lock held twice at once.
func TestRankLocalSync(t *testing.T) {
	const m = tracetest.SubMain
	s := tracetest.New(2)
	for p := range 2 {
		from, to := 10.0+5*float64(p), 20.0+5*float64(p)
		s.Start(p, 0, m, 0, trace.RegionProgram)
		s.Sync(p, from-1, trace.TagWaitCritSecStart, m, tracetest.DirCrit)
		s.Sync(p, from, trace.TagWaitCritSecStop, m, tracetest.DirCrit)
		s.Sync(p, to, trace.TagExitCritSec, m, tracetest.DirCrit)
		s.LockWait(p, from+20, m, tracetest.DirLock, 4096)
		s.Sync(p, from+21, trace.TagWaitLockStop, m, tracetest.DirLock)
		s.Sync(p, to+21, trace.TagReleaseLock, m, tracetest.DirLock)
		s.Stop(p, 100, m, 0, trace.RegionProgram)
	}
	data := s.MustEncode(t, trace.Binary, tracetest.Prog())
	for _, local := range []int{0, 1} {
		opt := OrderOptions{Prog: tracetest.Prog(), RankLocal: local}
		st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "t", opt, func(*Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := ClockOrderFile(bytes.NewReader(data), int64(len(data)), "t", opt, func(*Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := local == 0; (st.Violations > 0) != want || ok == want {
			t.Errorf("RankLocal %d: %d violations, clock order taken %v", local, st.Violations, ok)
		}
	}
}

// TestClockBarsWindow: the instances of a barrier site that every member
// left are dropped as the window grows (a batch of one stream's records
// comes before the other's), and an instance left before its last entry
// is still found after thousands of them, the check complete at the end.
func TestClockBarsWindow(t *testing.T) {
	for _, bad := range []int{-1, 5, 3000} {
		bs := &clockBars{size: 2, in: make([]int, 2), out: make([]int, 2)}
		ok := true
		const n, batch = 5000, 700
		for lo := 0; lo < n && ok; lo += batch {
			for q := 0; q < 2 && ok; q++ {
				for k := lo; k < min(lo+batch, n) && ok; k++ {
					t0 := float64(10 * k)
					in, out := t0+float64(q), t0+5
					if k == bad && q == 1 {
						in = t0 + 6 // enters after processor 0 left
					}
					ok = bs.take(q, true, in) && bs.take(q, false, out)
				}
			}
		}
		if want := bad < 0; ok != want {
			t.Errorf("bad instance %d: every instance in order %v, want %v", bad, ok, want)
		}
		if bad < 0 {
			c := &clockCheck{bars: map[barKey]*clockBars{{}: bs}}
			if !c.complete() {
				t.Errorf("the site's %d instances are not complete: base %d done %d window %d", n, bs.base, bs.done, len(bs.left))
			}
			if len(bs.left) > 2*batch {
				t.Errorf("window of %d instances kept", len(bs.left))
			}
		}
	}
}
