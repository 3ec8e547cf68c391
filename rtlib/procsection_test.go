package rtlib

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/svmc/svmc/trace"
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

// TestCyclicSegments: cyclic loop-level schedules walk periodic segments:
// in a 2-D nest cyclic(2) x cyclic(1) on a 2x2 arrangement every iteration
// runs once, on the processor that owns it, in lexicographic order on
// each processor, with the counts pdo-work reports; the same with a block
// dimension beside a cyclic one and with a partial last run.
func TestCyclicSegments(t *testing.T) {
	for _, c := range []struct {
		name    string
		formats []Format
		owner   func(i, j int) int // pid of iteration (i, j)
	}{
		{"cyclic2,cyclic1", []Format{Cyclic(2), Cyclic(1)}, func(i, j int) int { return (i/2)%2 + 2*(j%2) }},
		{"block,cyclic3", []Format{Block(), Cyclic(3)}, func(i, j int) int { return i/4 + 2*((j/3)%2) }},
	} {
		var mu sync.Mutex
		seen := map[[2]int]int{}
		order := map[int][][2]int{}
		runN(t, 4, func(p *Proc) {
			P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 1}, Extent{Lo: 0, Hi: 1})
			p.PDO(1, 2, LoopLevel(P, c.formats...), []Range{{Lo: 0, Hi: 6, Step: 1}, {Lo: 10, Hi: 0, Step: -2}}, func(q *Proc, it *Iter) {
				for it.Next() {
					i, j := it.Index(0), (10-it.Index(1))/2
					mu.Lock()
					seen[[2]int{i, j}]++
					if pid := c.owner(i, j); pid != q.ID() {
						t.Errorf("%s: (%d, %d) ran on %d, owner %d", c.name, i, j, q.ID(), pid)
					}
					order[q.ID()] = append(order[q.ID()], [2]int{i, j})
					mu.Unlock()
				}
			})
		})
		if len(seen) != 7*6 {
			t.Errorf("%s: %d iterations ran, want 42", c.name, len(seen))
		}
		for k, n := range seen {
			if n != 1 {
				t.Errorf("%s: %v ran %d times", c.name, k, n)
			}
		}
		for pid, o := range order {
			if !slices.IsSortedFunc(o, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) }) {
				t.Errorf("%s: processor %d walked %v", c.name, pid, o)
			}
		}
	}
}

// TestDispatchRecorded: pdo-work of a self-scheduled pdo says how many
// chunks each processor fetched (its share plus the fetch that found none
// left) and the time fetching took; a static pdo fetches none.
func TestDispatchRecorded(t *testing.T) {
	recs := traced(t, 2, 3, trace.Binary, func(p *Proc) {
		p.PDO(1, 1, Dynamic(10), []Range{{Lo: 0, Hi: 9999, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
			}
		})
		p.PDO(1, 2, DefaultSchedule(), []Range{{Lo: 0, Hi: 9999, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
			}
		})
	})
	chunks := map[int]int{}
	var dispatch float64
	for _, r := range recs {
		if r.Desc.Tag != trace.TagPDOWork {
			continue
		}
		chunks[r.Int("directive number")] += r.Int("chunks")
		if r.Int("directive number") == 1 {
			dispatch += r.Double("dispatch microseconds")
		} else if d := r.Double("dispatch microseconds"); d != 0 {
			t.Errorf("a static pdo reports %v µs of fetching", d)
		}
	}
	if chunks[1] != 1000+2 || chunks[2] != 0 {
		t.Errorf("chunks %v, want 1002 for dynamic(10) over 10000 on 2 processors and 0 for block", chunks)
	}
	if dispatch <= 0 {
		t.Errorf("dispatch %v µs", dispatch)
	}
}

// TestAPSInfoOfProcessorsClause: a pdo with processors(Q) runs on Q's
// processors of the APS, and its aps-info lists those, not the whole APS
// (the others only wait at its barrier).
func TestAPSInfoOfProcessorsClause(t *testing.T) {
	recs := traced(t, 4, 3, trace.Binary, func(p *Proc) {
		Q := p.Processors(nil, 1, 1, "Q", Extent{Lo: 0, Hi: 1})
		p.PDO(1, 2, LoopLevel(Q, Block()), []Range{{Lo: 0, Hi: 7, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
			}
		})
		p.PDO(1, 3, DefaultSchedule(), []Range{{Lo: 0, Hi: 7, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
			}
		})
	})
	var got [][]int
	for _, r := range recs {
		if r.Desc.Tag == trace.TagAPSInfo {
			_, pids := r.IntArray("pids")
			got = append(got, pids)
		}
	}
	if len(got) != 2 || !slices.Equal(got[0], []int{0, 1}) || !slices.Equal(got[1], []int{0, 1, 2, 3}) {
		t.Errorf("aps-info %v, want [0 1] for processors(Q) and [0 1 2 3] for the APS", got)
	}
}

// TestObjectSizes: Lib-DVM §10 per dimension. A 10 x 6 template
// distributed (block, cyclic(2)) on a 2 x 2 arrangement: processor 3
// (coordinates 1, 1) owns rows 5..9 and columns 2..3, so local sizes 5
// and 2 (10 elements); a 2-D loop of 4 x 3 iterations scheduled block
// over its outer loop on 4 processors: each runs 1 x 3.
func TestObjectSizes(t *testing.T) {
	got := map[string][]int{}
	var mu sync.Mutex
	runN(t, 4, func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 1}, Extent{Lo: 0, Hi: 1})
		T := p.Template(nil, 1, 2, "T", Extent{Lo: 0, Hi: 9}, Extent{Lo: 0, Hi: 5})
		p.Distribute(1, 3, P, []Format{Block(), Cyclic(2)}, T)
		p.Replicated(1, 4, func(q *Proc) {
			mu.Lock()
			got[fmt.Sprint("T", q.ID())] = []int{GetObjectSize(T, 0), GetObjectSize(T, 1), GetObjectSize(T, 2), GetObjectSize(T, 3),
				GetObjectLocSize(T, 0), GetObjectLocSize(T, 1), GetObjectLocSize(T, 2), GetObjectSize(P, 2), GetObjectLocSize(P, 0)}
			mu.Unlock()
		})
		p.PDO(1, 5, DefaultSchedule(), []Range{{Lo: 0, Hi: 3, Step: 1}, {Lo: 10, Hi: 0, Step: -5}}, func(q *Proc, it *Iter) {
			mu.Lock()
			got[fmt.Sprint("L", q.ID())] = []int{GetObjectSize(nil, 0), GetObjectSize(nil, 1), GetObjectSize(nil, 2),
				GetObjectLocSize(nil, 0), GetObjectLocSize(nil, 1), GetObjectLocSize(nil, 2)}
			mu.Unlock()
			for it.Next() {
			}
		})
	})
	if want := []int{60, 10, 6, 0, 10, 5, 2, 2, 4}; !slices.Equal(got["T3"], want) {
		t.Errorf("template on processor 3: %v, want %v", got["T3"], want)
	}
	if want := []int{12, 4, 3, 3, 1, 3}; !slices.Equal(got["L0"], want) {
		t.Errorf("loop on processor 0: %v, want %v", got["L0"], want)
	}
	if GetObjectSize("no object", 1) != 0 {
		t.Error("an object of another type has a size")
	}
}

// TestRecordedDistOrder: a pdo that records its schedule in a template
// writes template-dist as seed 002's Table 1 lists it: at the end of the
// PDO, before its barrier, each processor its own part (its node, the
// iterations it ran); before, the leader wrote all of them after the
// barrier.
func TestRecordedDistOrder(t *testing.T) {
	iters := make([]int, 3)
	recs := traced(t, 3, 3, trace.Binary, func(p *Proc) {
		T := p.Template(nil, 1, 1, "T", Extent{Lo: 0, Hi: 29})
		p.PDO(1, 2, Dynamic(2).Record(T), []Range{{Lo: 0, Hi: 29, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
				iters[q.ID()]++
			}
		})
	})
	for node, rs := range byNode(recs) {
		dist, wait := -1, -1
		owned := 0
		for i, r := range rs {
			switch r.Desc.Tag {
			case trace.TagTemplateDist:
				dist = i
				if r.Node() != node {
					t.Errorf("node %d's stream holds the template-dist of node %d", node, r.Node())
				}
				_, flat := r.IntArray("owned indices")
				for k := 0; k+1 < len(flat); k += 2 {
					owned += flat[k+1] - flat[k] + 1
				}
			case trace.TagWaitBarrierStart:
				if r.Int("directive number") == 2 && wait < 0 {
					wait = i
				}
			}
		}
		if dist < 0 || wait < 0 || dist > wait {
			t.Errorf("node %d: template-dist at %d, wait-barrier-start at %d; want it first", node, dist, wait)
		}
		if owned != iters[node] {
			t.Errorf("node %d: template-dist owns %d elements, it ran %d iterations", node, owned, iters[node])
		}
	}
}
