package view_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
	"github.com/svmc/svmc/view"
)

// TestSummarizeWindow: the whole run's window is the summary; two halves
// add up to it (time per processor, per region site, per wait site and
// the messages); each processor's busy, waiting and idle time fill its
// window.
func TestSummarizeWindow(t *testing.T) {
	for _, name := range []string{"jacobi.sddf", "halo.sddf", "ex31.sddf"} {
		t.Run(name, func(t *testing.T) {
			tl := buildFile(t, fixture(name))
			all := view.Summarize(tl, 1<<30)
			if w := view.SummarizeWindow(tl, tl.Start, tl.End, 1<<30); !sameSummary(all, w) {
				t.Fatalf("the whole run's window differs from the summary")
			}
			mid := tl.Start + (tl.End-tl.Start)*0.37
			a := view.SummarizeWindow(tl, tl.Start, mid, 1<<30)
			b := view.SummarizeWindow(tl, mid, tl.End, 1<<30)
			for p := range all.PerProc {
				x, y, z := &a.PerProc[p], &b.PerProc[p], &all.PerProc[p]
				if !near(x.Busy+y.Busy, z.Busy) || !near(x.Wait+y.Wait, z.Wait) || !near(x.Idle+y.Idle, z.Idle) {
					t.Errorf("P%d: halves busy %.3f+%.3f, wait %.3f+%.3f, idle %.3f+%.3f; whole %.3f, %.3f, %.3f",
						p, x.Busy, y.Busy, x.Wait, y.Wait, x.Idle, y.Idle, z.Busy, z.Wait, z.Idle)
				}
				if x.Sent+y.Sent != z.Sent || x.Received+y.Received != z.Received || x.SentBytes+y.SentBytes != z.SentBytes {
					t.Errorf("P%d: messages of the halves %d+%d sent, %d+%d received; whole %d, %d", p, x.Sent, y.Sent, x.Received, y.Received, z.Sent, z.Received)
				}
				for _, h := range []*view.Summary{a, b} {
					ps := &h.PerProc[p]
					if !near(ps.Busy+ps.Wait+ps.Idle, h.RunTime) {
						t.Errorf("P%d [%.3f, %.3f]: busy %.3f + wait %.3f + idle %.3f != %.3f", p, h.From, h.To, ps.Busy, ps.Wait, ps.Idle, h.RunTime)
					}
				}
			}
			for _, tab := range []func(*view.Summary) []view.SiteTotal{
				func(s *view.Summary) []view.SiteTotal { return s.Top },
				func(s *view.Summary) []view.SiteTotal { return s.TopWaits },
			} {
				halves := byKey(tab(a))
				for k, v := range byKey(tab(b)) {
					halves[k] += v
				}
				for k, v := range byKey(tab(all)) {
					if !near(halves[k], v) {
						t.Errorf("site %d kind %v: halves %.3f µs, whole %.3f µs", k[0], view.Kind(k[1]), halves[k], v)
					}
				}
			}
		})
	}
}

func near(x, y float64) bool { return math.Abs(x-y) <= 1e-6*max(1, math.Abs(y)) }

func byKey(ts []view.SiteTotal) map[[2]int]float64 {
	m := map[[2]int]float64{}
	for _, st := range ts {
		m[[2]int{st.Site, int(st.Kind)}] += st.Time
	}
	return m
}

func sameSummary(x, y *view.Summary) bool {
	if len(x.PerProc) != len(y.PerProc) || len(x.Top) != len(y.Top) || len(x.TopWaits) != len(y.TopWaits) {
		return false
	}
	for p := range x.PerProc {
		if x.PerProc[p] != y.PerProc[p] {
			return false
		}
	}
	for i := range x.Top {
		if x.Top[i] != y.Top[i] {
			return false
		}
	}
	for i := range x.TopWaits {
		if x.TopWaits[i] != y.TopWaits[i] {
			return false
		}
	}
	return true
}

// TestSource: the source view's lines hold the region totals of their
// sites, and each message once at its send's line and once at its
// receive's.
func TestSource(t *testing.T) {
	tl := buildFile(t, fixture("halo.sddf"))
	tl.AddNote(view.Note{File: "main.go", Line: 3, Class: "finding", Text: "something"})
	tl.AddNote(view.Note{File: "main.go", Line: 3, Class: "finding", Text: "something"})
	files := tl.Source()
	if len(files) == 0 {
		t.Fatal("no files")
	}
	sum := view.Summarize(tl, 1<<30)
	want := map[string]float64{} // file:line -> region time
	for _, st := range sum.Top {
		if s := tl.Sites[st.Site]; s.File != "" {
			want[s.Where()] += st.Time
		}
	}
	msgs, notes := 0, 0
	for _, f := range files {
		for _, l := range f.Lines {
			where := f.Name + ":" + strconv.Itoa(l.Line)
			if !near(l.Time, want[where]) {
				t.Errorf("%s: time %.3f µs, want %.3f", where, l.Time, want[where])
			}
			delete(want, where)
			msgs += l.Messages
			notes += len(l.Notes)
		}
	}
	for where, v := range want {
		t.Errorf("%s: %.3f µs of regions missing from the source view", where, v)
	}
	if len(tl.Messages) == 0 || msgs != 2*len(tl.Messages) {
		t.Errorf("%d message ends on the lines, want 2 × %d", msgs, len(tl.Messages))
	}
	if notes != 1 {
		t.Errorf("%d notes, want the one added (twice)", notes)
	}
}

// TestSourceImbalance: a pdo whose processor 1 works 30 µs and waits 70 µs
// at the loop's barrier while processor 0 works 100 µs has busy times 100
// and 30: imbalance (100 − 65) / 100 = 0.35, though both spent 100 µs in
// the loop's region.
func TestSourceImbalance(t *testing.T) {
	const sub, dir, pdo = tracetest.SubMain, tracetest.DirPDO, 4
	s := tracetest.New(2)
	for p := range 2 {
		s.Start(p, 0, sub, 0, 0)
		s.Start(p, 10, sub, dir, pdo)
	}
	s.Sync(1, 40, trace.TagWaitBarrierStart, sub, dir)
	s.Sync(1, 110, trace.TagWaitBarrierStop, sub, dir)
	s.Sync(0, 110, trace.TagWaitBarrierStart, sub, dir)
	s.Sync(0, 110, trace.TagWaitBarrierStop, sub, dir)
	for p := range 2 {
		s.Stop(p, 110, sub, dir, pdo)
		s.Stop(p, 120, sub, 0, 0)
	}
	tl := buildBytes(t, s.MustEncode(t, trace.Binary, tracetest.Prog()), view.Options{})
	for _, f := range tl.Source() {
		for _, l := range f.Lines {
			if l.Line == 40 {
				if math.Abs(l.Imbalance-0.35) > 1e-9 || l.Time != 200 || l.Wait != 70 {
					t.Fatalf("pdo line: imbalance %.4f, time %.1f, waiting %.1f; want 0.35, 200, 70", l.Imbalance, l.Time, l.Wait)
				}
				return
			}
		}
	}
	t.Fatal("no line 40 (the pdo) in the source view")
}
