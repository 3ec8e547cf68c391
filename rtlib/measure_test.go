package rtlib

import (
	"errors"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

func TestMeasureRecords(t *testing.T) {
	recs := traced(t, 2, 1, trace.ASCII, func(p *Proc) {
		MeasureStart("outer") // the package functions find the processor
		p.MeasureStart("inner")
		time.Sleep(2 * time.Millisecond)
		p.MeasureFinish("inner")
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			q.MeasureStart("body")
			q.MeasureFinish("")
		})
		MeasureFinish("outer")
	})
	type ev struct {
		node  int
		name  string
		level int
		what  string
	}
	var got []ev
	var innerElapsed, outerElapsed float64
	for _, r := range recs {
		switch r.Desc.Name {
		case "measure-start", "measure-finish":
			got = append(got, ev{r.Node(), r.Desc.Name, r.Int("level"), r.String("name")})
			if r.Desc.Name == "measure-finish" && r.String("name") == "inner" {
				innerElapsed = r.Double("elapsed microseconds")
			}
			if r.Desc.Name == "measure-finish" && r.String("name") == "outer" {
				outerElapsed = r.Double("elapsed microseconds")
			}
		}
	}
	want := []ev{
		{0, "measure-start", 1, "outer"}, {0, "measure-start", 2, "inner"}, {0, "measure-finish", 2, "inner"},
		{0, "measure-start", 2, "body"}, {0, "measure-finish", 2, "body"}, {0, "measure-finish", 1, "outer"},
		{1, "measure-start", 1, "body"}, {1, "measure-finish", 1, "body"},
	}
	slices.SortStableFunc(got, func(a, b ev) int { return a.node - b.node })
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if innerElapsed < 2000 || outerElapsed < innerElapsed {
		t.Errorf("elapsed inner %v, outer %v", innerElapsed, outerElapsed)
	}
}

func TestMeasureOutsideRun(t *testing.T) {
	// The serial build: nothing runs, nothing happens.
	MeasureStart("x")
	MeasureFinish("y")
	if LoopSize() != 0 || LoopLocalSize() != 0 {
		t.Error("loop sizes outside a PDO")
	}
}

func TestMeasureErrors(t *testing.T) {
	for _, c := range []struct {
		body func(p *Proc)
		want string
	}{
		{func(p *Proc) { p.MeasureFinish("a") }, `MeasureFinish("a") without an open measured interval`},
		{func(p *Proc) { p.MeasureStart("a"); p.MeasureFinish("b") }, `MeasureFinish("b"): the innermost measured interval is "a"`},
	} {
		err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, c.body)
		var e *Error
		// The position is the caller's outside rtlib (see
		// TestMeasureErrorPosition); here every frame is in rtlib.
		if !errors.As(err, &e) || e.Error() != "processor 0: "+c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

func TestSizeQueries(t *testing.T) {
	type sizes struct{ total, local int }
	var mu sync.Mutex
	got := map[string][]sizes{}
	note := func(name string, q *Proc) {
		mu.Lock()
		defer mu.Unlock()
		for len(got[name]) <= q.ID() {
			got[name] = append(got[name], sizes{})
		}
		got[name][q.ID()] = sizes{q.LoopSize(), q.LoopLocalSize()}
	}
	var tsize, tlocal0, tlocal1, tcur, tundist, psize, plocal int
	runN(t, 2, func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", ext(0, 1))
		T := p.Template(nil, 1, 2, "T", ext(1, 10), ext(0, 2))
		p.Distribute(1, 3, P, []Format{Cyclic(3), Star()}, T)
		tsize, tlocal0, tlocal1, tcur = T.Size(), T.LocalSize(0), T.LocalSize(1), T.LocalSize(-1)
		U := p.Template(nil, 1, 2, "U", ext(0, 4))
		tundist = U.LocalSize(1)
		psize, plocal = P.Size(), P.LocalSize()
		// default schedule: block of the outer loop, 7 = ceil(13/2) counts
		p.PDO(1, 4, DefaultSchedule(), []Range{{Lo: 0, Hi: 12, Step: 1}, {Lo: 5, Hi: 0, Step: -2}}, func(q *Proc, it *Iter) { note("default", q) })
		// on_home over the cyclic(3) template: 1..3, 7..9 on 0; 4..6, 10 on 1
		p.PDO(1, 5, OnHome(T, LoopVar(0, 0), ConstIndex(0)), []Range{{Lo: 1, Hi: 10, Step: 1}}, func(q *Proc, it *Iter) { note("onhome", q) })
		// IndexFunc: iteration i on the owner of T(11-i, 0)
		p.PDO(1, 6, OnHome(T, IndexFunc(func(idx []int) int { return 11 - idx[0] }), ConstIndex(0)), []Range{{Lo: 1, Hi: 10, Step: 1}},
			func(q *Proc, it *Iter) { note("indexfunc", q) })
		// loop-level cyclic(2) over 9 iterations
		p.PDO(1, 7, LoopLevel(nil, Cyclic(2)), []Range{{Lo: 0, Hi: 16, Step: 2}}, func(q *Proc, it *Iter) {
			note("looplevel", q)
			// a PDO inside a body runs serially: all its iterations here
			q.PDO(1, 8, DefaultSchedule(), []Range{{Lo: 0, Hi: 4, Step: 1}}, func(r *Proc, it *Iter) { note("nested", r) })
			if q.LoopSize() != 9 {
				t.Errorf("after the nested PDO: LoopSize %d", q.LoopSize())
			}
		})
		if p.LoopSize() != 0 {
			t.Error("LoopSize after the PDO")
		}
	})
	if tsize != 30 || tlocal0 != 18 || tlocal1 != 12 || tcur != 18 || tundist != 5 || psize != 2 || plocal != 2 {
		t.Errorf("template sizes %d %d %d %d %d, arrangement %d %d", tsize, tlocal0, tlocal1, tcur, tundist, psize, plocal)
	}
	want := map[string][]sizes{
		"default":   {{39, 21}, {39, 18}},
		"onhome":    {{10, 6}, {10, 4}},
		"indexfunc": {{10, 6}, {10, 4}},
		"looplevel": {{9, 5}, {9, 4}},
		"nested":    {{5, 5}, {5, 5}},
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s: got %v, want %v", k, got[k], w)
		}
	}
}
