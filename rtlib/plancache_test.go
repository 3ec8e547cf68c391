package rtlib

import (
	"io"
	"slices"
	"testing"
)

// A function whose template directives run at every call distributes a
// new template each time: a pdo on it keeps its schedule while the owners
// are the same (the plan is not computed again, and pdo-info names the new
// arrangement), and plans afresh when they differ.
func TestPlanSameOwners(t *testing.T) {
	type call struct {
		entry *planEntry
		iters [2][]int // the first index of each iteration, per processor
		arrOK bool
	}
	var calls []call
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
		for k := range 4 {
			P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 1}, Extent{Lo: 0, Hi: 1})
			T := p.Template(nil, 1, 2, "T", Extent{Lo: 0, Hi: 99}, Extent{Lo: 0, Hi: 99})
			f := Cyclic(4)
			if k == 3 {
				f = Block() // other owners
			}
			p.Distribute(1, 3, P, []Format{f, Block()}, T)
			var c call
			p.PDO(1, 4, OnHome(T, LoopVar(0, 0), LoopVar(1, 0)), []Range{{Lo: 0, Hi: 99, Step: 1}, {Lo: 0, Hi: 99, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					if it.Index(1) == 0 {
						c.iters[q.id] = append(c.iters[q.id], it.Index(0))
					}
				}
			})
			c.entry = p.aps.plans[Site{Sub: 1, Dir: 4}]
			c.arrOK = c.entry != nil && c.entry.info.arr == T.dist.Onto
			calls = append(calls, c)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range calls {
		if c.entry == nil || !c.arrOK {
			t.Fatalf("call %d: no plan kept, or its pdo-info names another arrangement", k)
		}
		for q := range 2 {
			slices.Sort(c.iters[q])
		}
	}
	if calls[1].entry != calls[0].entry || calls[2].entry != calls[0].entry {
		t.Error("the same owners planned again")
	}
	if calls[3].entry == calls[0].entry {
		t.Error("a block distribution took the cyclic one's plan")
	}
	for k := 1; k < 3; k++ {
		if !slices.Equal(calls[k].iters[0], calls[0].iters[0]) || !slices.Equal(calls[k].iters[1], calls[0].iters[1]) {
			t.Errorf("call %d ran other rows: %v, first %v", k, calls[k].iters, calls[0].iters)
		}
	}
	if slices.Equal(calls[3].iters[0], calls[0].iters[0]) {
		t.Errorf("block rows %v are cyclic(4)'s", calls[3].iters[0])
	}
}

// Loop-level scheduling onto an arrangement declared again at every call
// keeps its schedule too.
func TestPlanSameArrangement(t *testing.T) {
	var entries []*planEntry
	var rows [3][]int
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
		for k := range 3 {
			P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 1})
			if k == 2 {
				P = p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 2}) // three elements: other shares
			}
			p.PDO(1, 4, LoopLevel(P, Cyclic(2)), []Range{{Lo: 0, Hi: 11, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					if q.id == 0 {
						rows[k] = append(rows[k], it.Index(0))
					}
				}
			})
			e := p.aps.plans[Site{Sub: 1, Dir: 4}]
			if e == nil || e.info.arr != &P.g {
				t.Errorf("call %d: no plan kept, or its pdo-info names another arrangement", k)
			}
			entries = append(entries, e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if entries[1] != entries[0] || entries[2] == entries[0] {
		t.Errorf("plans %p %p %p: want the first kept once, then a new one", entries[0], entries[1], entries[2])
	}
	if !slices.Equal(rows[0], rows[1]) || slices.Equal(rows[0], rows[2]) {
		t.Errorf("processor 0's iterations %v", rows)
	}
}
