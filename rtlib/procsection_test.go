package rtlib

import (
	"io"
	"slices"
	"sort"
	"sync"
	"testing"
)

// TestProcsSection: a section of an arrangement holds the processors of
// the elements its subscripts select (column-major, as the arrangement
// maps them), is the same *Procs on every call, and a section put on it
// runs there while the other section takes the rest. A subscript outside
// the arrangement is an error at the section directive.
func TestProcsSection(t *testing.T) {
	var mu sync.Mutex
	ran := map[int][]int{}
	runN(t, 6, func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 2}, Extent{Lo: 0, Hi: 1}) // (i, j) on i + 3j
		col1 := p.ProcsSection(P, 1, 2, Span{Lo: 1, Hi: 2}, Span{Lo: 1, Hi: 1})
		row0 := p.ProcsSection(P, 1, 2, Span{All: true}, Span{Lo: 0, Hi: 0})
		if got := col1.Pids(); !slices.Equal(got, []int{4, 5}) {
			t.Errorf("P(1:2, 1) on %v, want [4 5]", got)
		}
		if got := row0.Pids(); !slices.Equal(got, []int{0, 1, 2}) {
			t.Errorf("P(:, 0) on %v, want [0 1 2]", got)
		}
		if again := p.ProcsSection(P, 1, 2, Span{Lo: 1, Hi: 2}, Span{Lo: 1, Hi: 1}); again != col1 {
			t.Error("the same section twice gave two arrangements")
		}
		if col1.String() != "P(1:2,1:1)" {
			t.Errorf("String %q", col1.String())
		}
		record := func(sec int) func(q *Proc) {
			return func(q *Proc) {
				q.PDO(1, 5, DefaultSchedule(), []Range{{Lo: 0, Hi: 11, Step: 1}}, func(r *Proc, it *Iter) {
					for it.Next() {
						mu.Lock()
						ran[sec] = append(ran[sec], r.ID())
						mu.Unlock()
					}
				})
			}
		}
		p.PSection(1, 3, []Section{{Dir: 4, Procs: col1, Body: record(0)}, {Dir: 4, Body: record(1)}})
	})
	for sec, want := range map[int][]int{0: {4, 5}, 1: {0, 1, 2, 3}} {
		got := ran[sec]
		sort.Ints(got)
		got = slices.Compact(got)
		if !slices.Equal(got, want) {
			t.Errorf("section %d ran on %v, want %v", sec, got, want)
		}
	}
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 1})
		p.ProcsSection(P, 1, 2, Span{Lo: 1, Hi: 2})
	})
	if want := "main.go:11:1: processors(P(...)): subscript 1:2 of dimension 1 is outside P(0:1)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
