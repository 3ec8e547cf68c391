package view_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/view"
)

// runsTrace is a binary trace of procs processors whose records reach the
// file in many small buffer runs (every 37 records of a processor), so
// that intervals stay open across runs: per processor the program region,
// then loops of a subroutine holding a pdo that ends at a barrier, and an
// event now and then.
func runsTrace(t testing.TB, procs, loops int) []byte {
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, trace.Binary, []trace.Attr{{Key: "processors", Value: fmt.Sprint(procs)}})
	if err != nil {
		t.Fatal(err)
	}
	bufs := make([]trace.Buf, procs)
	rec := func(p int, tag trace.Tag, c float64, ints ...int) {
		b := &bufs[p]
		b.Begin(tag, p, c)
		for _, v := range ints {
			b.Int(v)
		}
		b.End()
		if b.Records() >= 37 {
			if err := w.WriteBuf(b); err != nil {
				t.Fatal(err)
			}
			b.Reset()
		}
	}
	for p := range procs {
		rec(p, trace.TagTraceRegionStart, 0, 1, 0, trace.RegionProgram)
	}
	c := 1.0
	for k := range loops {
		for p := range procs {
			rec(p, trace.TagTraceRegionStart, c, 2, 0, trace.RegionSubroutine)
			rec(p, trace.TagTraceRegionStart, c+1, 2, 1, trace.RegionPDO)
			busy := 5 + float64((p+k)%4)*3
			rec(p, trace.TagWaitBarrierStart, c+1+busy, 2, 1)
			rec(p, trace.TagWaitBarrierStop, c+20, 2, 1)
			rec(p, trace.TagTraceRegionStop, c+21, 2, 1, trace.RegionPDO)
			if k%5 == 0 {
				rec(p, trace.TagBarrierCheckin, c+21.5, 2, 2)
			}
			rec(p, trace.TagTraceRegionStop, c+22, 2, 0, trace.RegionSubroutine)
		}
		c += 25
	}
	for p := range procs {
		rec(p, trace.TagTraceRegionStop, c, 1, 0, trace.RegionProgram)
		if err := w.WriteBuf(&bufs[p]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// ivKey is an interval as both timelines name it.
type ivKey struct {
	proc, depth int
	kind        view.Kind
	site        string
	start, end  float64
}

func keys(tl *view.Timeline, t0, t1 float64) []ivKey {
	var out []ivKey
	for _, iv := range tl.Intervals {
		if iv.End < t0 || iv.Start > t1 {
			continue
		}
		out = append(out, ivKey{iv.Proc, iv.Depth, iv.Kind, tl.Sites[iv.Site].Name, iv.Start, min(iv.End, t1)})
	}
	slices.SortFunc(out, func(a, b ivKey) int {
		return cmp.Or(cmp.Compare(a.proc, b.proc), cmp.Compare(a.start, b.start), cmp.Compare(a.depth, b.depth))
	})
	return out
}

// TestLOD: the level-of-detail timeline of a trace of many buffer runs has
// per lane the busy and waiting time the whole timeline has; the buckets'
// records add up to the trace's; and the window of any part of the run,
// decoded from the run that holds its start, has exactly the intervals
// (clipped at its end) and events of the whole timeline in that part.
func TestLOD(t *testing.T) {
	data := runsTrace(t, 3, 400)
	full, err := view.Build(bytes.NewReader(data), int64(len(data)), "runs", view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := view.BuildLOD(bytes.NewReader(data), int64(len(data)), "runs", view.Options{}, 256)
	if err != nil {
		t.Fatal(err)
	}
	if l.Procs != 3 || l.Records != full.Records || l.Start != full.Start || l.End != full.End {
		t.Fatalf("LOD: %d lanes, %d records, %v..%v; timeline: %d, %d, %v..%v", l.Procs, l.Records, l.Start, l.End,
			full.Procs, full.Records, full.Start, full.End)
	}
	if l.Ended.Recorded != full.Ended.Recorded || l.Ended.Status != full.Ended.Status {
		t.Errorf("run end %+v, the timeline's %+v", l.Ended, full.Ended)
	}
	sum := view.Summarize(full, 0)
	var counted int64
	for p, ln := range l.Lanes {
		if math.Abs(ln.Busy-sum.PerProc[p].Busy) > 1e-6 || math.Abs(ln.Wait-sum.PerProc[p].Wait) > 1e-6 {
			t.Errorf("lane %d: busy %v, waiting %v; the timeline says %v, %v", p, ln.Busy, ln.Wait, sum.PerProc[p].Busy, sum.PerProc[p].Wait)
		}
		if len(ln.Rows) != 4 { // program, subroutine, pdo, barrier wait
			t.Errorf("lane %d: %d rows, want 4", p, len(ln.Rows))
		}
		for _, n := range ln.Records {
			counted += int64(n)
		}
		// The program covers every bucket; the pdos' row is mostly pdo.
		pdo := 0
		for b := range l.Buckets {
			if c := ln.Rows[0][b]; c.Kind != int8(view.KindProgram) || c.Cover < 99 {
				t.Fatalf("lane %d bucket %d of the program's row: %+v", p, b, c)
			}
			if ln.Rows[2][b].Kind == int8(view.KindPDO) {
				pdo++
			}
		}
		if pdo < l.Buckets*9/10 {
			t.Errorf("lane %d: %d of %d buckets of row 2 are pdo", p, pdo, l.Buckets)
		}
	}
	if counted != l.Records {
		t.Errorf("the buckets count %d records, the trace has %d", counted, l.Records)
	}
	for _, w := range [][2]float64{{0, 30}, {1000.5, 1100}, {5012, 5013}, {3333, 7777}, {9900, 10100}} {
		win, err := l.Window(w[0], w[1], 0)
		if err != nil {
			t.Fatal(err)
		}
		want, got := keys(full, w[0], w[1]), keys(win, w[0], w[1])
		if !slices.Equal(want, got) {
			t.Errorf("window %v: %d intervals, the timeline has %d there; first differences:\n%s", w, len(got), len(want), firstDiff(want, got))
		}
		nin := 0
		for _, in := range full.Instants {
			if in.Time >= w[0] && in.Time <= w[1] {
				nin++
			}
		}
		if len(win.Instants) != nin {
			t.Errorf("window %v: %d events, the timeline has %d", w, len(win.Instants), nin)
		}
	}
	if _, err := l.Window(l.Start, l.End, 100); err == nil || !strings.Contains(err.Error(), "too many records") {
		t.Errorf("a window of the whole run with a limit of 100 records: %v", err)
	}
}

func firstDiff(a, b []ivKey) string {
	var s strings.Builder
	for i := 0; i < max(len(a), len(b)) && s.Len() < 600; i++ {
		var x, y ivKey
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			fmt.Fprintf(&s, "  timeline %+v\n  window   %+v\n", x, y)
		}
	}
	return s.String()
}
