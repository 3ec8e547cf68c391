package rtlib

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
)

// Reference owners, written independently of dimMap.
func refBlock(i, lo, n, p int) int  { return (i - lo) / ((n + p - 1) / p) }
func refCyclic(i, lo, k, p int) int { return ((i - lo) / k) % p }
func refGenBlock(i, lo int, sizes []int) int {
	off := i - lo
	for c, s := range sizes {
		if off < s {
			return c
		}
		off -= s
	}
	panic("outside")
}

// colMajor is the pid of arrangement coordinates c (0-based) of an
// arrangement of the given sizes on n processors.
func colMajor(n int, sizes []int, c ...int) int {
	l, s := 0, 1
	for d, x := range c {
		l += x * s
		s *= sizes[d]
	}
	return l % n
}

type schedCase struct {
	name  string
	space []Range
	setup func(p *Proc) Schedule
	// owner is the oracle: the pid of the iteration with counts k and loop
	// values v on n processors.
	owner func(n int, k, v []int) int
}

// enumerate calls f for every iteration of space in lexicographic order.
func enumerate(space []Range, f func(k, v []int)) {
	nl := len(space)
	k, v := make([]int, nl), make([]int, nl)
	var rec func(l int)
	rec = func(l int) {
		if l == nl {
			f(k, v)
			return
		}
		for c := 0; c < space[l].Count(); c++ {
			k[l], v[l] = c, space[l].Lo+c*space[l].Step
			rec(l + 1)
		}
	}
	rec(0)
}

// check runs the pdo and compares each processor's iterations with the
// owner function's, walked one by one (Next) and a run at a time
// (NextRun, as code built for ranks walks them).
func (c schedCase) check(t *testing.T, n int) {
	t.Helper()
	want := make([][][]int, n)
	enumerate(c.space, func(k, v []int) {
		pid := c.owner(n, k, v)
		want[pid] = append(want[pid], append([]int(nil), v...))
	})
	for _, runs := range []bool{false, true} {
		got := make([][][]int, n)
		runN(t, n, func(p *Proc) {
			s := c.setup(p)
			p.PDO(1, 1, s, c.space, func(q *Proc, it *Iter) {
				add := func(last int) {
					v := make([]int, len(c.space))
					for d := range v {
						v[d] = it.Index(d)
					}
					if len(v) > 0 {
						v[len(v)-1] = last
					}
					got[q.ID()] = append(got[q.ID()], v)
				}
				if !runs {
					for it.Next() {
						add(it.Index(len(c.space) - 1))
					}
					return
				}
				for it.NextRun() {
					first, m, step := it.Run()
					for k := range m {
						add(first + k*step)
					}
				}
			})
		})
		for pid := range n {
			if !reflect.DeepEqual(got[pid], want[pid]) {
				t.Errorf("%s N=%d processor %d (runs %v):\n got %v\nwant %v", c.name, n, pid, runs, got[pid], want[pid])
			}
		}
	}
}

func ext(lo, hi int) Extent { return Extent{Lo: lo, Hi: hi} }

func TestOnHomeBlockBlockQuadrants(t *testing.T) {
	space := []Range{{Lo: 0, Hi: 9, Step: 1}, {Lo: 0, Hi: 9, Step: 1}}
	setup := func(p *Proc) Schedule {
		P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
		T := p.Template(nil, 1, 2, "T", ext(0, 9), ext(0, 9))
		p.Distribute(1, 3, P, []Format{Block(), Block()}, T)
		return OnHome(T, LoopVar(0, 0), LoopVar(1, 0))
	}
	// N=4: each processor gets its quadrant, explicitly.
	got := make([][][2]int, 4)
	runN(t, 4, func(p *Proc) {
		s := setup(p)
		p.PDO(1, 4, s, space, func(q *Proc, it *Iter) {
			for it.Next() {
				got[q.ID()] = append(got[q.ID()], [2]int{it.Index(0), it.Index(1)})
			}
		})
	})
	quad := [4][2]int{{0, 0}, {5, 0}, {0, 5}, {5, 5}} // column-major: P(0,0) P(1,0) P(0,1) P(1,1)
	for pid, q := range quad {
		var want [][2]int
		for i := q[0]; i < q[0]+5; i++ {
			for j := q[1]; j < q[1]+5; j++ {
				want = append(want, [2]int{i, j})
			}
		}
		if !reflect.DeepEqual(got[pid], want) {
			t.Errorf("processor %d: got %v, want quadrant from %v", pid, got[pid], q)
		}
	}
	// N=1..4: the arrangement wraps in column-major order.
	c := schedCase{"block,block", space, setup, func(n int, k, v []int) int {
		return colMajor(n, []int{2, 2}, refBlock(v[0], 0, 10, 2), refBlock(v[1], 0, 10, 2))
	}}
	for n := 1; n <= 4; n++ {
		c.check(t, n)
	}
}

func TestOnHomeFormats(t *testing.T) {
	indirect := []int{1, 0, 0, 1, 1, 1, 0, 1, 0, 0}
	indirect13 := []int{3, 1, 2, 2, 3, 1, 1, 1, 3, 2}
	cases := []schedCase{
		{"cyclic(2),block", []Range{{Lo: 1, Hi: 12, Step: 1}, {Lo: 0, Hi: 7, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
			T := p.Template(nil, 1, 2, "T", ext(1, 12), ext(0, 7))
			p.Distribute(1, 3, P, []Format{Cyclic(2), Block()}, T)
			return OnHome(T, LoopVar(0, 0), LoopVar(1, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2, 2}, refCyclic(v[0], 1, 2, 2), refBlock(v[1], 0, 8, 2))
		}},
		{"cyclic, step 2, offset 1", []Range{{Lo: 0, Hi: 18, Step: 2}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 2))
			T := p.Template(nil, 1, 2, "T", ext(0, 20))
			p.Distribute(1, 3, P, []Format{Cyclic(1)}, T)
			return OnHome(T, LoopVar(0, 1))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{3}, refCyclic(v[0]+1, 0, 1, 3))
		}},
		{"block, negative step", []Range{{Lo: 9, Hi: 0, Step: -1}, {Lo: 3, Hi: 1, Step: -2}}, func(p *Proc) Schedule {
			T := p.Template(nil, 1, 2, "T", ext(0, 9))
			p.Distribute(1, 3, nil, []Format{Block()}, T)
			return OnHome(T, LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return refBlock(v[0], 0, 10, n)
		}},
		{"cyclic(3), negative step", []Range{{Lo: 20, Hi: 1, Step: -3}}, func(p *Proc) Schedule {
			T := p.Template(nil, 1, 2, "T", ext(-5, 30))
			p.Distribute(1, 3, nil, []Format{Cyclic(3)}, T)
			return OnHome(T, LoopVar(0, -2))
		}, func(n int, k, v []int) int {
			return refCyclic(v[0]-2, -5, 3, n)
		}},
		{"general_block", []Range{{Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 2))
			T := p.Template(nil, 1, 2, "T", ext(0, 9))
			p.Distribute(1, 3, P, []Format{GeneralBlock([]int{3, 0, 7})}, T)
			return OnHome(T, LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{3}, refGenBlock(v[0], 0, []int{3, 0, 7}))
		}},
		{"indirect", []Range{{Lo: 0, Hi: 9, Step: 1}, {Lo: 0, Hi: 2, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1))
			T := p.Template(nil, 1, 2, "T", ext(0, 9))
			p.Distribute(1, 3, P, []Format{Indirect(indirect)}, T)
			return OnHome(T, LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2}, indirect[v[0]])
		}},
		{"indirect onto P(1:3)", []Range{{Lo: 1, Hi: 10, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(1, 3))
			T := p.Template(nil, 1, 2, "T", ext(1, 10))
			p.Distribute(1, 3, P, []Format{Indirect(indirect13)}, T)
			return OnHome(T, LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{3}, indirect13[v[0]-1]-1)
		}},
		{"*,block", []Range{{Lo: 0, Hi: 3, Step: 1}, {Lo: 0, Hi: 5, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1))
			T := p.Template(nil, 1, 2, "T", ext(0, 3), ext(0, 5))
			p.Distribute(1, 3, P, []Format{Star(), Block()}, T)
			return OnHome(T, LoopVar(0, 0), LoopVar(1, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2}, refBlock(v[1], 0, 6, 2))
		}},
		{"transposed subscripts on P(0:1,1:2)", []Range{{Lo: 0, Hi: 5, Step: 1}, {Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(1, 2))
			T := p.Template(nil, 1, 2, "T", ext(0, 9), ext(0, 5))
			p.Distribute(1, 3, P, []Format{Block(), Cyclic(2)}, T)
			return OnHome(T, LoopVar(1, 0), LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2, 2}, refBlock(v[1], 0, 10, 2), refCyclic(v[0], 0, 2, 2))
		}},
		{"diagonal T(i,i), j free", []Range{{Lo: 0, Hi: 9, Step: 1}, {Lo: 0, Hi: 2, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
			T := p.Template(nil, 1, 2, "T", ext(0, 9), ext(0, 9))
			p.Distribute(1, 3, P, []Format{Block(), Block()}, T)
			return OnHome(T, LoopVar(0, 0), LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2, 2}, refBlock(v[0], 0, 10, 2), refBlock(v[0], 0, 10, 2))
		}},
		{"const index", []Range{{Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
			T := p.Template(nil, 1, 2, "T", ext(0, 9), ext(0, 9))
			p.Distribute(1, 3, P, []Format{Block(), Block()}, T)
			return OnHome(T, LoopVar(0, 0), ConstIndex(7))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2, 2}, refBlock(v[0], 0, 10, 2), 1)
		}},
		{"index func", []Range{{Lo: 0, Hi: 9, Step: 1}, {Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
			T := p.Template(nil, 1, 2, "T", ext(0, 9), ext(0, 9))
			p.Distribute(1, 3, P, []Format{Cyclic(3), Block()}, T)
			return OnHome(T, IndexFunc(func(idx []int) int { return (idx[0] * idx[1]) % 10 }), LoopVar(1, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2, 2}, refCyclic((v[0]*v[1])%10, 0, 3, 2), refBlock(v[1], 0, 10, 2))
		}},
		{"linked", []Range{{Lo: 1, Hi: 10, Step: 1}, {Lo: 0, Hi: 5, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
			T1 := p.Template(nil, 1, 2, "T1", ext(0, 9), ext(0, 5))
			T2 := p.Template(nil, 1, 3, "T2", ext(1, 10), ext(0, 5))
			p.Distribute(1, 4, P, []Format{Cyclic(3), Block()}, T1)
			p.DistributeWith(1, 5, T1, T2)
			return OnHome(T2, LoopVar(0, 0), LoopVar(1, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2, 2}, refCyclic(v[0]-1, 0, 3, 2), refBlock(v[1], 0, 6, 2))
		}},
		{"linked follows redistribute", []Range{{Lo: 1, Hi: 10, Step: 1}}, func(p *Proc) Schedule {
			T1 := p.Template(nil, 1, 2, "T1", ext(0, 9))
			T2 := p.Template(nil, 1, 3, "T2", ext(1, 10))
			T3 := p.Template(nil, 1, 4, "T3", ext(5, 14))
			p.Distribute(1, 5, nil, []Format{Block()}, T1)
			p.DistributeWith(1, 6, T1, T2)
			p.DistributeWith(1, 7, T2, T3)
			p.Distribute(1, 8, nil, []Format{Cyclic(3)}, T1) // T2 and T3 follow
			return OnHome(T3, LoopVar(0, 4))
		}, func(n int, k, v []int) int {
			return refCyclic(v[0]-1, 0, 3, n)
		}},
		{"linked, then distributed itself", []Range{{Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			T1 := p.Template(nil, 1, 2, "T1", ext(0, 9))
			T2 := p.Template(nil, 1, 3, "T2", ext(0, 9))
			p.Distribute(1, 4, nil, []Format{Block()}, T1)
			p.DistributeWith(1, 5, T1, T2)
			p.Distribute(1, 6, nil, []Format{Cyclic(2)}, T2) // the link ends
			p.Distribute(1, 7, nil, []Format{Cyclic(1)}, T1)
			return OnHome(T2, LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return refCyclic(v[0], 0, 2, n)
		}},
		{"linked both ways: the newer link wins", []Range{{Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			T1 := p.Template(nil, 1, 2, "T1", ext(0, 9))
			T2 := p.Template(nil, 1, 3, "T2", ext(0, 9))
			p.Distribute(1, 4, nil, []Format{Block()}, T1)
			p.DistributeWith(1, 5, T1, T2)
			p.DistributeWith(1, 6, T2, T1)                   // T1 follows T2, T2 no longer T1
			p.Distribute(1, 7, nil, []Format{Cyclic(2)}, T2) // T1 follows
			return OnHome(T1, LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return refCyclic(v[0], 0, 2, n)
		}},
		{"destroy ends the link", []Range{{Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			T1 := p.CreatableTemplate(nil, 1, 2, "T1", 1)
			p.Create(T1, 1, 3, ext(0, 9))
			T2 := p.Template(nil, 1, 4, "T2", ext(0, 9))
			p.Distribute(1, 5, nil, []Format{Cyclic(2)}, T1)
			p.DistributeWith(1, 6, T1, T2)
			p.Destroy(T1, 1, 7)
			p.Create(T1, 1, 8, ext(0, 9))
			p.Distribute(1, 9, nil, []Format{Block()}, T1) // T2 keeps cyclic(2)
			return OnHome(T2, LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return refCyclic(v[0], 0, 2, n)
		}},
		{"creatable, 3 loops", []Range{{Lo: 0, Hi: 3, Step: 1}, {Lo: 0, Hi: 4, Step: 1}, {Lo: 2, Hi: 0, Step: -1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 2))
			T := p.CreatableTemplate(nil, 1, 2, "T", 2)
			p.Create(T, 1, 3, ext(0, 4), ext(0, 3))
			p.Distribute(1, 4, P, []Format{Cyclic(2), Star()}, T)
			return OnHome(T, LoopVar(1, 0), LoopVar(0, 0))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{3}, refCyclic(v[1], 0, 2, 3))
		}},
		{"default", []Range{{Lo: 0, Hi: 6, Step: 1}, {Lo: 0, Hi: 1, Step: 1}}, func(p *Proc) Schedule {
			return DefaultSchedule()
		}, func(n int, k, v []int) int {
			return k[0] / ((7 + n - 1) / n)
		}},
		{"loop-level block,cyclic(2)", []Range{{Lo: 0, Hi: 9, Step: 1}, {Lo: 10, Hi: -2, Step: -2}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1), ext(0, 1))
			return LoopLevel(P, Block(), Cyclic(2))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2, 2}, refBlock(k[0], 0, 10, 2), refCyclic(k[1], 0, 2, 2))
		}},
		{"loop-level cyclic(3) on the APS", []Range{{Lo: 5, Hi: 40, Step: 3}}, func(p *Proc) Schedule {
			return LoopLevel(nil, Cyclic(3))
		}, func(n int, k, v []int) int {
			return refCyclic(k[0], 0, 3, n)
		}},
		{"loop-level *,block, 3 loops", []Range{{Lo: 0, Hi: 2, Step: 1}, {Lo: 0, Hi: 6, Step: 1}, {Lo: 0, Hi: 1, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 2))
			return LoopLevel(P, Star(), Block())
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{3}, refBlock(k[1], 0, 7, 3))
		}},
		{"loop-level general_block", []Range{{Lo: 0, Hi: 9, Step: 1}}, func(p *Proc) Schedule {
			P := p.Processors(nil, 1, 1, "P", ext(0, 1))
			return LoopLevel(P, GeneralBlock([]int{8, 2}))
		}, func(n int, k, v []int) int {
			return colMajor(n, []int{2}, refGenBlock(k[0], 0, []int{8, 2}))
		}},
	}
	for _, c := range cases {
		for n := 1; n <= 4; n++ {
			t.Run(fmt.Sprintf("%s/N=%d", c.name, n), func(t *testing.T) { c.check(t, n) })
		}
	}
}

func TestEmptyAndTinyNests(t *testing.T) {
	for n := 1; n <= 4; n++ {
		calls := make([]int, n)
		iters := make([]int, n)
		runN(t, n, func(p *Proc) {
			for _, space := range [][]Range{{{Lo: 0, Hi: -1, Step: 1}}, {{Lo: 0, Hi: 3, Step: 1}, {Lo: 5, Hi: 4, Step: 1}}, {{Lo: 3, Hi: 3, Step: 1}}, {{Lo: 0, Hi: 0, Step: 1}, {Lo: 0, Hi: 0, Step: 1}}} {
				p.PDO(1, 1, DefaultSchedule(), space, func(q *Proc, it *Iter) {
					calls[q.ID()]++
					for it.Next() {
						iters[q.ID()]++
					}
				})
			}
			T := p.Template(nil, 1, 2, "T", ext(0, 9))
			p.Distribute(1, 3, nil, []Format{Block()}, T)
			p.PDO(1, 4, OnHome(T, LoopVar(0, 0)), []Range{{Lo: 0, Hi: -1, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					iters[q.ID()]++
				}
			})
		})
		total := 0
		for pid := range n {
			if calls[pid] != 4 {
				t.Errorf("N=%d: processor %d ran the body %d times, want 4", n, pid, calls[pid])
			}
			total += iters[pid]
		}
		if total != 2 {
			t.Errorf("N=%d: %d iterations, want 2", n, total)
		}
	}
}

// TestNestedPDO: a PDO inside a PDO body runs serially on the processor.
func TestNestedPDO(t *testing.T) {
	const n = 3
	count := make([]int, n)
	runN(t, n, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 5, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
				q.PDO(1, 2, DefaultSchedule(), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(r *Proc, in *Iter) {
					if r != q {
						t.Errorf("nested PDO on another processor")
					}
					for in.Next() {
						count[r.ID()]++
					}
				})
			}
		})
	})
	if s := count[0] + count[1] + count[2]; s != 60 {
		t.Errorf("nested iterations %v, want 60 in all", count)
	}
}

func TestZeroLoopNest(t *testing.T) {
	for n := 1; n <= 3; n++ {
		calls := make([]int, n)
		runN(t, n, func(p *Proc) {
			p.PDO(1, 1, DefaultSchedule(), nil, func(q *Proc, it *Iter) {
				for it.Next() {
					calls[q.ID()]++
				}
			})
		})
		if calls[0] != 1 {
			t.Errorf("N=%d: iterations %v, want one on the leader", n, calls)
		}
		for _, c := range calls[1:] {
			if c != 0 {
				t.Errorf("N=%d: iterations %v, want one on the leader", n, calls)
			}
		}
	}
}

// TestPlanCache: a PDO directive executed again reuses its schedule while
// the distribution, subscripts and nest are the same, and recomputes it when
// one of them changed.
func TestPlanCache(t *testing.T) {
	const n = 3
	type step struct {
		formats []Format
		space   []Range
		off     int
		owner   func(v int) int
	}
	steps := []step{
		{[]Format{Cyclic(2)}, []Range{{Lo: 0, Hi: 9, Step: 1}}, 0, func(v int) int { return refCyclic(v, 0, 2, 3) }},
		{[]Format{Cyclic(2)}, []Range{{Lo: 0, Hi: 9, Step: 1}}, 0, func(v int) int { return refCyclic(v, 0, 2, 3) }},
		{[]Format{Block()}, []Range{{Lo: 0, Hi: 9, Step: 1}}, 0, func(v int) int { return refBlock(v, 0, 12, 3) }},
		{[]Format{Block()}, []Range{{Lo: 0, Hi: 10, Step: 1}}, 0, func(v int) int { return refBlock(v, 0, 12, 3) }},
		{[]Format{Block()}, []Range{{Lo: 0, Hi: 10, Step: 1}}, 1, func(v int) int { return refBlock(v+1, 0, 12, 3) }},
		{[]Format{Indirect([]int{2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0})}, []Range{{Lo: 0, Hi: 10, Step: 1}}, 1, func(v int) int { return 2 - min(2, (v+1)/3) }},
		{[]Format{Indirect([]int{0, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0})}, []Range{{Lo: 0, Hi: 10, Step: 1}}, 1, func(v int) int {
			if v+1 == 0 {
				return 0
			}
			return 2 - min(2, (v+1)/3)
		}},
	}
	var reused []bool
	runN(t, n, func(p *Proc) {
		T := p.Template(nil, 1, 1, "T", ext(0, 11))
		for k, st := range steps {
			p.Distribute(1, 2, nil, st.formats, T)
			if k == 1 {
				// Same formats, but a new distribution: recompute. Run the
				// PDO twice to see the reuse.
				got := make([][]int, n)
				for range 2 {
					got = make([][]int, n)
					p.PDO(1, 3, OnHome(T, LoopVar(0, st.off)), st.space, func(q *Proc, it *Iter) {
						for it.Next() {
							got[q.ID()] = append(got[q.ID()], it.Index(0))
						}
					})
				}
				checkOwners(t, k, got, st.space, st.owner)
				continue
			}
			before := p.aps.plans[Site{Sub: 1, Dir: 3}]
			got := make([][]int, n)
			p.PDO(1, 3, OnHome(T, LoopVar(0, st.off)), st.space, func(q *Proc, it *Iter) {
				for it.Next() {
					got[q.ID()] = append(got[q.ID()], it.Index(0))
				}
			})
			reused = append(reused, before == p.aps.plans[Site{Sub: 1, Dir: 3}])
			checkOwners(t, k, got, st.space, st.owner)
		}
		// Same distribution object, same PDO: reused.
		before := p.aps.plans[Site{Sub: 1, Dir: 3}]
		p.PDO(1, 3, OnHome(T, LoopVar(0, 1)), []Range{{Lo: 0, Hi: 10, Step: 1}}, func(q *Proc, it *Iter) {})
		reused = append(reused, before == p.aps.plans[Site{Sub: 1, Dir: 3}])
	})
	if want := []bool{false, false, false, false, false, false, true}; !reflect.DeepEqual(reused, want) {
		t.Errorf("plan reuse %v, want %v", reused, want)
	}
}

func checkOwners(t *testing.T, k int, got [][]int, space []Range, owner func(v int) int) {
	t.Helper()
	want := make([][]int, len(got))
	for v := space[0].Lo; v <= space[0].Hi; v++ {
		want[owner(v)] = append(want[owner(v)], v)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("step %d: got %v, want %v", k, got, want)
	}
}

func TestPlanCacheLoopLevel(t *testing.T) {
	sizes := []int{2, 8}
	var got [][2][]int
	runN(t, 2, func(p *Proc) {
		for k := range 3 {
			if k == 2 {
				sizes[0], sizes[1] = 7, 3 // the same slice, changed
			}
			var g [2][]int
			p.PDO(1, 1, LoopLevel(nil, GeneralBlock(sizes)), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					g[q.ID()] = append(g[q.ID()], it.Index(0))
				}
			})
			got = append(got, g)
		}
	})
	want := [][2][]int{
		{{0, 1}, {2, 3, 4, 5, 6, 7, 8, 9}},
		{{0, 1}, {2, 3, 4, 5, 6, 7, 8, 9}},
		{{0, 1, 2, 3, 4, 5, 6}, {7, 8, 9}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestImbalance exercises the blocking and waking paths of the dispatch and
// barrier waits: processors sleep inside bodies and between PDOs.
func TestImbalance(t *testing.T) {
	for n := 2; n <= 3; n++ {
		var count [3]int
		runN(t, n, func(p *Proc) {
			for k := range 12 {
				p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 3*n - 1, Step: 1}}, func(q *Proc, it *Iter) {
					if q.ID() == k%n {
						time.Sleep(time.Duration(k%3) * 300 * time.Microsecond)
					}
					for it.Next() {
						count[q.ID()]++
					}
				})
				if k%4 == 0 {
					time.Sleep(200 * time.Microsecond) // exclusive work: members block
					p.Barrier(1, 2)
				}
			}
		})
		for pid := range n {
			if count[pid] != 12*3 {
				t.Errorf("N=%d: processor %d ran %d iterations, want 36", n, pid, count[pid])
			}
		}
	}
}

// TestNextRunDynamic: walked a run at a time, dynamic and guided chunks
// of a nest still cover every iteration once (a chunk ends inside a row:
// its run is cut there).
func TestNextRunDynamic(t *testing.T) {
	space := []Range{{Lo: 0, Hi: 6, Step: 1}, {Lo: 10, Hi: 22, Step: 3}}
	for _, s := range []Schedule{Dynamic(1), Dynamic(3), Guided(2)} {
		var mu sync.Mutex
		var got [][2]int
		runN(t, 3, func(p *Proc) {
			p.PDO(1, 1, s, space, func(q *Proc, it *Iter) {
				for it.NextRun() {
					first, m, step := it.Run()
					mu.Lock()
					for k := range m {
						got = append(got, [2]int{it.Index(0), first + k*step})
					}
					mu.Unlock()
				}
			})
		})
		var want [][2]int
		enumerate(space, func(_, v []int) { want = append(want, [2]int{v[0], v[1]}) })
		slices.SortFunc(got, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: iterations\n got %v\nwant %v", s, got, want)
		}
	}
}
