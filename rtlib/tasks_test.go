package rtlib

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

// Hand-written "generated code" for parallel sections, execution modes,
// synchronisation and dynamic scheduling (testProg: subprogram 1, directive
// k on line 9+k).

// recsNamed returns the records of node (all nodes if node < 0) named name
// with subprogram sub and directive dir (dir < 0: any).
func recsNamed(recs []*trace.Record, node int, name string, sub, dir int) []*trace.Record {
	var out []*trace.Record
	for _, r := range recs {
		if r.Desc.Name != name || (node >= 0 && r.Node() != node) {
			continue
		}
		if sub >= 0 && r.Int("subprogram number") != sub {
			continue
		}
		if dir >= 0 && r.Int("directive number") != dir {
			continue
		}
		out = append(out, r)
	}
	return out
}

// regionCount counts trace-region-start and -stop of (sub, dir, typ) on node.
func regionCount(recs []*trace.Record, node, sub, dir, typ int) (starts, stops int) {
	for _, r := range recs {
		if r.Node() != node || (r.Desc.Name != "trace-region-start" && r.Desc.Name != "trace-region-stop") {
			continue
		}
		if r.Int("subprogram number") == sub && r.Int("directive number") == dir && r.Int("trace region type") == typ {
			if r.Desc.Name == "trace-region-start" {
				starts++
			} else {
				stops++
			}
		}
	}
	return
}

// coverage counts, per iteration value and per processor, who ran what.
type coverage struct {
	hits []atomic.Int32
	by   [16][]atomic.Int32 // by[pid][i]
}

func newCoverage(n int) *coverage {
	c := &coverage{hits: make([]atomic.Int32, n)}
	for i := range c.by {
		c.by[i] = make([]atomic.Int32, n)
	}
	return c
}

func (c *coverage) add(pid, i int) { c.hits[i].Add(1); c.by[pid][i].Add(1) }

// once checks every iteration ran exactly once and only on pids in allowed.
func (c *coverage) once(t *testing.T, what string, allowed []int) {
	t.Helper()
	for i := range c.hits {
		if h := c.hits[i].Load(); h != 1 {
			t.Errorf("%s: iteration %d ran %d times", what, i, h)
		}
	}
	for pid := range c.by {
		if slices.Contains(allowed, pid) {
			continue
		}
		for i := range c.by[pid] {
			if c.by[pid][i].Load() != 0 {
				t.Errorf("%s: processor %d (not in %v) ran iteration %d", what, pid, allowed, i)
				break
			}
		}
	}
}

// TestPSection: three sections on 1..4 processors: every section runs once,
// on the APS PSection forms (lowest pid leads), with section-info and
// aps-info by that leader, section regions on every member of the section's
// APS, and a pdo inside a section running on the section's processors only.
func TestPSection(t *testing.T) {
	want := map[int][][]int{ // processors of each section's APS
		1: {{0}, {0}, {0}},
		2: {{0}, {0}, {1}},
		3: {{0}, {1}, {2}},
		4: {{0}, {1}, {2, 3}},
	}
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			var ran [3]atomic.Int32
			var who [3]atomic.Int32
			cov := [3]*coverage{newCoverage(10), newCoverage(10), newCoverage(10)}
			sec := func(i int) Section {
				return Section{Dir: 2 + i, Body: func(q *Proc) {
					ran[i].Add(1)
					who[i].Store(int32(q.ID()))
					q.PDO(1, 5+i, DefaultSchedule(), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(r *Proc, it *Iter) {
						for it.Next() {
							cov[i].add(r.ID(), it.Index(0))
						}
					})
				}}
			}
			recs := traced(t, n, 3, trace.Binary, func(p *Proc) {
				for range 3 { // the child APSs are reused
					p.PSection(1, 1, []Section{sec(0), sec(1), sec(2)})
				}
			})
			checkClocks(t, recs)
			for i := range 3 {
				if ran[i].Load() != 3 {
					t.Errorf("section %d ran %d times, want 3 (once per psection)", i, ran[i].Load())
				}
				if w := int(who[i].Load()); w != want[n][i][0] {
					t.Errorf("section %d ran on processor %d, want %d", i, w, want[n][i][0])
				}
			}
			for i := range 3 {
				members := want[n][i]
				leader := members[0]
				si := recsNamed(recs, -1, "section-info", 1, 2+i)
				if len(si) != 3 {
					t.Fatalf("section %d: %d section-info records, want 3", i, len(si))
				}
				for _, r := range si {
					if r.Node() != leader || r.Int("proc arrangement id") != 0 {
						t.Errorf("section %d: section-info on node %d arrangement %d, want node %d, 0", i, r.Node(), r.Int("proc arrangement id"), leader)
					}
				}
				// aps-info of the section, then of its pdo, by the leader.
				var apsPids [][]int
				for _, r := range recsNamed(recs, leader, "aps-info", -1, -1) {
					_, v := r.IntArray("pids")
					apsPids = append(apsPids, v)
				}
				if !slices.ContainsFunc(apsPids, func(v []int) bool { return slices.Equal(v, members) }) {
					t.Errorf("section %d: leader %d wrote aps-info %v, want one with %v", i, leader, apsPids, members)
				}
				for _, m := range members {
					if s, e := regionCount(recs, m, 1, 2+i, trace.RegionSection); s != 3 || e != 3 {
						t.Errorf("section %d: node %d has %d/%d section regions, want 3/3", i, m, s, e)
					}
				}
				pi := recsNamed(recs, -1, "pdo-info", 1, 5+i)
				if len(pi) != 3 || pi[0].Node() != leader {
					t.Errorf("section %d: pdo-info %d records on node %d, want 3 on %d", i, len(pi), pi[0].Node(), leader)
				}
				var iters int
				for _, r := range recsNamed(recs, -1, "pdo-work", 1, 5+i) {
					if !slices.Contains(members, r.Node()) {
						t.Errorf("section %d: pdo-work on node %d", i, r.Node())
					}
					iters += r.Int("iterations")
				}
				if iters != 30 {
					t.Errorf("section %d: pdo-work iterations %d, want 30", i, iters)
				}
			}
			for node := range n {
				if s, e := regionCount(recs, node, 1, 1, trace.RegionPSection); s != 3 || e != 3 {
					t.Errorf("node %d: %d/%d psection regions", node, s, e)
				}
				if b := len(recsNamed(recs, node, "wait-barrier-start", 1, 1)); b != 3 {
					t.Errorf("node %d: %d psection barriers, want 3", node, b)
				}
			}
		})
	}
}

func TestPSectionCoverage(t *testing.T) {
	// The pdo inside a section runs on that section's processors only.
	for n := 1; n <= 4; n++ {
		cov := []*coverage{newCoverage(37), newCoverage(37)}
		var aps [2][]int
		runN(t, n, func(p *Proc) {
			body := func(i int) func(q *Proc) {
				return func(q *Proc) {
					aps[i] = q.aps.pids
					q.PDO(1, 4+i, Dynamic(2), []Range{{Lo: 0, Hi: 36, Step: 1}}, func(r *Proc, it *Iter) {
						for it.Next() {
							cov[i].add(r.ID(), it.Index(0))
						}
					})
				}
			}
			p.PSection(1, 1, []Section{{Dir: 2, Body: body(0)}, {Dir: 3, Body: body(1)}})
		})
		for i := range 2 {
			cov[i].once(t, fmt.Sprintf("N=%d section %d", n, i), aps[i])
		}
		if n >= 2 && (slices.Contains(aps[0], aps[1][0]) || len(aps[0])+len(aps[1]) != n) {
			t.Errorf("N=%d: section APSs %v %v", n, aps[0], aps[1])
		}
	}
}

// TestPSectionProcs: sections with processors(P) get P's processors, the
// others share the rest; overlapping sections run one after another.
func TestPSectionProcs(t *testing.T) {
	const n = 4
	var who [3][]int
	var order []string
	var mu atomic.Int32
	recs := traced(t, n, 3, trace.ASCII, func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", ext(0, 1))
		body := func(i int) func(q *Proc) {
			return func(q *Proc) {
				who[i] = q.aps.pids
				if q.ID() == 0 {
					for !mu.CompareAndSwap(0, 1) {
					}
					order = append(order, fmt.Sprint(i))
					mu.Store(0)
				}
				q.Barrier(1, 9) // every member of the section's APS
			}
		}
		p.PSection(1, 2, []Section{{Dir: 3, Procs: P, Body: body(0)}, {Dir: 4, Procs: P, Body: body(1)}, {Dir: 5, Body: body(2)}})
	})
	if !slices.Equal(who[0], []int{0, 1}) || !slices.Equal(who[1], []int{0, 1}) || !slices.Equal(who[2], []int{2, 3}) {
		t.Errorf("section APSs %v", who)
	}
	if strings.Join(order, ",") != "0,1" {
		t.Errorf("processor 0 ran its sections in order %v", order)
	}
	si := recsNamed(recs, 0, "section-info", 1, 3)
	if len(si) != 1 || si[0].Int("proc arrangement id") != 1 {
		t.Fatalf("section-info of the processors(P) section: %v", si)
	}
	if d, v := si[0].IntArray("shape of dimensions"); !slices.Equal(d, []int{1, 2}) || !slices.Equal(v, []int{0, 1}) {
		t.Errorf("section-info shape %v %v", d, v)
	}
	if si := recsNamed(recs, 2, "section-info", 1, 5); len(si) != 1 || si[0].Int("proc arrangement id") != 0 {
		t.Errorf("section-info of the third section: %v", si)
	}
	// The barrier inside a section is a barrier of its APS.
	for node := range n {
		want := 2
		if node >= 2 {
			want = 1
		}
		if b := len(recsNamed(recs, node, "wait-barrier-start", 1, 9)); b != want {
			t.Errorf("node %d: %d section barriers, want %d", node, b, want)
		}
	}
}

// TestNestedPSection: a psection inside a section splits the section's APS.
func TestNestedPSection(t *testing.T) {
	var who [4]atomic.Int32
	recs := traced(t, 4, 2, trace.Binary, func(p *Proc) {
		leaf := func(i int) Section {
			return Section{Dir: 5 + i, Body: func(q *Proc) { who[i].Store(int32(q.ID()) + 1) }}
		}
		p.PSection(1, 1, []Section{
			{Dir: 2, Body: func(q *Proc) { q.PSection(1, 3, []Section{leaf(0), leaf(1)}) }},
			{Dir: 4, Body: func(q *Proc) { q.PSection(1, 3, []Section{leaf(2), leaf(3)}) }},
		})
	})
	for i, w := range []int32{1, 2, 3, 4} {
		if who[i].Load() != w {
			t.Errorf("leaf %d ran on processor %d, want %d", i, who[i].Load()-1, w-1)
		}
	}
	for i, node := range []int{0, 1, 2, 3} {
		si := recsNamed(recs, node, "section-info", 1, 5+i)
		if len(si) != 1 {
			t.Errorf("leaf %d: section-info on node %d: %d records", i, node, len(si))
		}
	}
	_, v := recsNamed(recs, 2, "aps-info", -1, -1)[0].IntArray("pids")
	if !slices.Equal(v, []int{2, 3}) {
		t.Errorf("outer section 2: aps-info %v, want [2 3]", v)
	}
}

// TestPSectionReplicated: reached in replicated mode, only the leader forms
// the sections; the others join.
func TestPSectionReplicated(t *testing.T) {
	for n := 1; n <= 4; n++ {
		var ran [3]atomic.Int32
		runN(t, n, func(p *Proc) {
			p.Replicated(1, 1, func(q *Proc) {
				secs := make([]Section, 3)
				for i := range secs {
					secs[i] = Section{Dir: 3 + i, Body: func(*Proc) { ran[i].Add(1) }}
				}
				q.PSection(1, 2, secs)
			})
		})
		for i := range ran {
			if ran[i].Load() != 1 {
				t.Errorf("N=%d: section %d ran %d times", n, i, ran[i].Load())
			}
		}
	}
}

func TestPSectionErrors(t *testing.T) {
	err := Run(testProg(), Params{NProcs: 4, Stderr: io.Discard}, func(p *Proc) {
		P := p.Processors(nil, 1, 1, "P", ext(0, 1)) // pids 0, 1
		p.PSection(1, 2, []Section{{Dir: 3, Body: func(q *Proc) {
			q.PSection(1, 4, []Section{{Dir: 5, Procs: P, Body: func(*Proc) {}}})
		}}, {Dir: 6, Body: func(q *Proc) {
			q.PSection(1, 4, []Section{{Dir: 5, Procs: P, Body: func(*Proc) {}}}) // APS {2,3}
		}}})
	})
	var e *Error
	if !errors.As(err, &e) || e.Error() != "main.go:14:1: section processors(P(0:1)): none of its processors [0 1] is in the active processor set [2 3]" {
		t.Errorf("got %v", err)
	}
}

// TestModes: a replicated region runs on every member, a PDO in it is
// worksharing with reductions every member sees, an exclusive region runs
// on the leader only and dispatches its PDOs, regions nest.
func TestModes(t *testing.T) {
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			var reps, excl, nested, exclTop [4]atomic.Int32
			var seen [4]int
			shared := 0
			cov, covEx, covHome := newCoverage(100), newCoverage(23), newCoverage(12)
			var homeBad atomic.Int32
			recs := traced(t, n, 3, trace.Binary, func(p *Proc) {
				T := p.Template(nil, 1, 12, "T", ext(0, 11))
				p.Distribute(1, 13, nil, []Format{Cyclic(1)}, T)
				p.Replicated(1, 1, func(q *Proc) {
					reps[q.ID()].Add(1)
					q.PDO(1, 2, DefaultSchedule(), []Range{{Lo: 0, Hi: 99, Step: 1}}, func(r *Proc, it *Iter) {
						s := 0
						for it.Next() {
							cov.add(r.ID(), it.Index(0))
							s += it.Index(0)
						}
						it.Reduce(func() { shared += s })
					})
					seen[q.ID()] = shared
					q.PDO(1, 8, OnHome(T, LoopVar(0, 0)), []Range{{Lo: 0, Hi: 11, Step: 1}}, func(r *Proc, it *Iter) {
						for it.Next() {
							covHome.add(r.ID(), it.Index(0))
							if it.Index(0)%n != r.ID() {
								homeBad.Add(1)
							}
						}
					})
					q.Exclusive(1, 3, func(r *Proc) {
						excl[r.ID()].Add(1)
						r.PDO(1, 4, DefaultSchedule(), []Range{{Lo: 0, Hi: 22, Step: 1}}, func(s *Proc, it *Iter) {
							for it.Next() {
								covEx.add(s.ID(), it.Index(0))
							}
						})
						r.Replicated(1, 5, func(s *Proc) { nested[s.ID()].Add(1) })
					})
					q.Barrier(1, 6)
				})
				p.Exclusive(1, 7, func(r *Proc) { exclTop[r.ID()].Add(1) })
			})
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			cov.once(t, "replicated pdo", all)
			covEx.once(t, "pdo in exclusive", all)
			covHome.once(t, "on_home pdo in replicated", all)
			if homeBad.Load() != 0 {
				t.Errorf("%d on_home iterations off their owner", homeBad.Load())
			}
			for i := range n {
				if reps[i].Load() != 1 || nested[i].Load() != 1 {
					t.Errorf("processor %d: replicated %d, nested replicated %d, want 1, 1", i, reps[i].Load(), nested[i].Load())
				}
				if seen[i] != 4950 {
					t.Errorf("processor %d saw the reduction result %d, want 4950", i, seen[i])
				}
				want := int32(0)
				if i == 0 {
					want = 1
				}
				if excl[i].Load() != want || exclTop[i].Load() != want {
					t.Errorf("processor %d: exclusive %d, top-level exclusive %d, want %d", i, excl[i].Load(), exclTop[i].Load(), want)
				}
				for _, c := range []struct{ dir, typ int }{{1, trace.RegionReplicated}, {3, trace.RegionExclusive}, {5, trace.RegionReplicated}} {
					if s, e := regionCount(recs, i, 1, c.dir, c.typ); s != 1 || e != 1 {
						t.Errorf("node %d: %d/%d regions (1,%d)", i, s, e, c.dir)
					}
					if b := len(recsNamed(recs, i, "wait-barrier-stop", 1, c.dir)); b != 1 {
						t.Errorf("node %d: %d barriers at the end of (1,%d)", i, b, c.dir)
					}
				}
				s, _ := regionCount(recs, i, 1, 7, trace.RegionExclusive)
				if b := len(recsNamed(recs, i, "wait-barrier-start", 1, 7)); s != int(want) || b != 0 {
					t.Errorf("node %d: top-level exclusive: %d regions, %d barriers", i, s, b)
				}
			}
			if len(recsNamed(recs, -1, "pdo-info", 1, 2)) != 1 || len(recsNamed(recs, -1, "pdo-iteration-space", 1, 2)) != 1 {
				t.Errorf("replicated pdo: pdo-info and pdo-iteration-space not once")
			}
		})
	}
}

// TestReplicatedBarrier: Barrier in replicated mode is a real barrier.
func TestReplicatedBarrier(t *testing.T) {
	const n, rounds = 4, 50
	var slots [rounds][n]atomic.Int32
	var bad atomic.Int32
	runN(t, n, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			for r := range rounds {
				if (q.ID()+r)%3 == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				slots[r][q.ID()].Store(1)
				q.Barrier(1, 2)
				for i := range n {
					if slots[r][i].Load() != 1 {
						bad.Add(1)
					}
				}
			}
		})
	})
	if bad.Load() != 0 {
		t.Errorf("%d reads before the barrier's writes", bad.Load())
	}
}

// TestSplitBarrier: the k-th checkout waits for the k-th check-in of every
// member, and no longer.
func TestSplitBarrier(t *testing.T) {
	const n, rounds = 4, 30
	var in [rounds][n]atomic.Int32
	var early atomic.Int32
	recs := traced(t, n, 3, trace.Binary, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			for r := range rounds {
				if q.ID() == r%n {
					time.Sleep(100 * time.Microsecond)
				}
				in[r][q.ID()].Store(1)
				q.BarrierCheckin(1, 2)
				q.BarrierCheckout(1, 3)
				for i := range n {
					if in[r][i].Load() == 0 {
						early.Add(1)
					}
				}
			}
		})
		// From exclusive mode the idle members check in with the leader.
		p.BarrierCheckin(1, 4)
		p.BarrierCheckout(1, 5)
	})
	if early.Load() != 0 {
		t.Errorf("%d checkouts passed before a check-in of their round", early.Load())
	}
	// Check-in before the waits of the same round can pass: processor 1
	// checks in twice before waiting for round 1 (pairing by count).
	var got [2]int
	runN(t, 2, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			if q.ID() == 1 {
				q.BarrierCheckin(1, 2)
				q.BarrierCheckin(1, 2)
				q.BarrierCheckout(1, 3)
				q.BarrierCheckout(1, 3)
				got[1] = 2
				return
			}
			q.BarrierCheckin(1, 2)
			q.BarrierCheckout(1, 3)
			got[0]++
			q.BarrierCheckin(1, 2)
			q.BarrierCheckout(1, 3)
			got[0]++
		})
	})
	if got != [2]int{2, 2} {
		t.Errorf("got %v", got)
	}
	for node := range n {
		c := len(recsNamed(recs, node, "barrier-checkin", 1, 2))
		s := len(recsNamed(recs, node, "wait-bcheckout-start", 1, 3))
		e := len(recsNamed(recs, node, "wait-bcheckout-stop", 1, 3))
		if c != rounds || s != rounds || e != rounds {
			t.Errorf("node %d: %d check-ins, %d/%d checkout waits", node, c, s, e)
		}
	}
	if len(recsNamed(recs, 0, "barrier-checkin", 1, 4)) != 1 || len(recsNamed(recs, 1, "barrier-checkin", 1, 4)) != 0 {
		t.Errorf("exclusive-mode check-in records")
	}
}

type small int8

// TestSyncCounters: critical sections, locks and atomic updates keep exact
// counts under contention, and write their stage 3 records.
func TestSyncCounters(t *testing.T) {
	const n, iters, reps = 4, 3000, 500
	var crit, l1, l2, au int
	var ai int64
	var af float64
	var a32 int32
	var sm small
	var cx complex128
	var c64 complex64
	var u uint
	recs := traced(t, n, 3, trace.Binary, func(p *Proc) {
		p.PDO(1, 1, Dynamic(7), []Range{{Lo: 0, Hi: iters - 1, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
				q.CriticalEnter(1, 2, "c")
				crit++
				q.CriticalExit(1, 2, "c")
				h := q.Lock(1, 3, VarOf(&l2), VarOf(&l1), VarOf(&l2))
				l1++
				l2 += 2
				q.Unlock(1, 3, h)
				AtomicAdd(q, 1, 4, &ai, 1)
				AtomicAdd(q, 1, 5, &af, 0.5)
				AtomicUpdate(q, 1, 6, &au, func(v int) int { return v - 1 })
				AtomicAdd(q, 1, 7, &sm, 1)
				AtomicAdd(q, 1, 8, &cx, complex(1, 2))
				AtomicAdd(q, 1, 9, &a32, 3)
				AtomicUpdate(q, 1, 10, &c64, func(v complex64) complex64 { return v + 1 })
				AtomicAdd(q, 1, 14, &u, 2)
			}
		})
		p.Replicated(1, 11, func(q *Proc) {
			for range reps {
				q.CriticalEnter(1, 12, "")
				crit++
				q.CriticalExit(1, 12, "")
				AtomicUpdate(q, 1, 13, &af, func(v float64) float64 { return v + 1 })
			}
		})
	})
	if crit != iters+n*reps || l1 != iters || l2 != 2*iters || ai != iters || au != -iters || a32 != 3*iters || u != 2*iters {
		t.Errorf("crit %d l1 %d l2 %d ai %d au %d a32 %d u %d", crit, l1, l2, ai, au, a32, u)
	}
	if af != 0.5*iters+n*reps || sm != small(iters%256-256) || cx != complex(iters, 2*iters) || c64 != complex(iters, 0) {
		t.Errorf("af %v sm %d cx %v c64 %v", af, sm, cx, c64)
	}
	count := func(name string, dir int) int { return len(recsNamed(recs, -1, name, 1, dir)) }
	for _, c := range []struct {
		name   string
		dir, n int
	}{
		{"wait-crit-sec-start", 2, iters}, {"wait-crit-sec-stop", 2, iters}, {"exit-crit-sec", 2, iters},
		{"wait-crit-sec-start", 12, n * reps}, {"exit-crit-sec", 12, n * reps},
		{"wait-lock-start", 3, iters}, {"wait-lock-stop", 3, iters}, {"release-lock", 3, iters},
		{"wait-lock-start", 4, iters}, {"wait-lock-stop", 4, iters}, {"wait-lock-start", 7, iters},
		{"wait-lock-start", 13, n * reps}, {"release-lock", 4, 0},
	} {
		if got := count(c.name, c.dir); got != c.n {
			t.Errorf("%s (1,%d): %d records, want %d", c.name, c.dir, got, c.n)
		}
	}
	row := func(vars ...LockVar) []int {
		var rows []int
		for _, v := range vars {
			rows = appendAddrRow(rows, v)
		}
		return rows
	}
	lo, hi := VarOf(&l1), VarOf(&l2)
	if lo.Addr > hi.Addr {
		lo, hi = hi, lo
	}
	d, v := recsNamed(recs, -1, "wait-lock-start", 1, 3)[0].IntArray("locking address")
	if !slices.Equal(d, []int{2, 4}) || !slices.Equal(v, row(lo, hi)) {
		t.Errorf("lock rows %v %v, want [2 4] %v", d, v, row(lo, hi))
	}
	if _, v := recsNamed(recs, -1, "wait-lock-start", 1, 8)[0].IntArray("locking address"); !slices.Equal(v, row(VarOf(&cx))) {
		t.Errorf("atomic rows %v, want %v", v, row(VarOf(&cx)))
	}
	if a := uint64(VarOf(&cx).Addr); row(VarOf(&cx))[3] != int(int32(uint32(a+15))) {
		t.Errorf("end address of a complex128: %v", row(VarOf(&cx)))
	}
}

// TestLockOrder: two LOCK directives over the same variables in opposite
// orders cannot deadlock.
func TestLockOrder(t *testing.T) {
	var a, b int
	runN(t, 2, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			for range 2000 {
				var h Held
				if q.ID() == 0 {
					h = q.Lock(1, 2, VarOf(&a), VarOf(&b))
				} else {
					h = q.Lock(1, 3, VarOf(&b), VarOf(&a))
				}
				a++
				b++
				q.Unlock(1, 2, h)
			}
		})
	})
	if a != 4000 || b != 4000 {
		t.Errorf("a %d b %d", a, b)
	}
}

// TestDynamicSchedules: every strategy runs every iteration exactly once on
// 1..4 processors, in exclusive and replicated mode, for odd sizes, empty
// loops, negative steps and 2-D nests, and pdo-work counts them.
func TestDynamicSchedules(t *testing.T) {
	scheds := map[string]Schedule{
		"dynamic1": Dynamic(1), "dynamic3": Dynamic(3), "dynamic0": Dynamic(0),
		"guided1": Guided(1), "guided4": Guided(4), "affinity": Affinity(),
	}
	nests := map[string][]Range{
		"0": {{Lo: 0, Hi: -1, Step: 1}}, "1": {{Lo: 5, Hi: 5, Step: 1}}, "7": {{Lo: 0, Hi: 6, Step: 1}}, "101": {{Lo: 0, Hi: 100, Step: 1}},
		"neg": {{Lo: 40, Hi: 0, Step: -3}}, "2d": {{Lo: 0, Hi: 4, Step: 1}, {Lo: 10, Hi: -2, Step: -2}}, "3d": {{Lo: 0, Hi: 2, Step: 1}, {Lo: 0, Hi: 0, Step: 1}, {Lo: 1, Hi: 9, Step: 4}}}
	for name, s := range scheds {
		for nn, space := range nests {
			for n := 1; n <= 4; n++ {
				for _, repl := range []bool{false, true} {
					what := fmt.Sprintf("%s %s N=%d replicated=%v", name, nn, n, repl)
					total := 1
					for _, r := range space {
						total *= r.Count()
					}
					cov := newCoverage(total)
					key := func(idx ...int) int {
						k := 0
						for l, r := range space {
							k = k*r.Count() + (idx[l]-r.Lo)/r.Step
						}
						return k
					}
					body := func(q *Proc, it *Iter) {
						idx := make([]int, len(space))
						for it.Next() {
							for l := range idx {
								idx[l] = it.Index(l)
							}
							cov.add(q.ID(), key(idx...))
						}
					}
					recs := traced(t, n, 2, trace.Binary, func(p *Proc) {
						for range 2 {
							if repl {
								p.Replicated(1, 1, func(q *Proc) { q.PDO(1, 2, s, space, body) })
							} else {
								p.PDO(1, 2, s, space, body)
							}
						}
					})
					for i := range cov.hits {
						if h := cov.hits[i].Load(); h != 2 {
							t.Errorf("%s: iteration %d ran %d times in two loops", what, i, h)
						}
					}
					work := 0
					for _, r := range recsNamed(recs, -1, "pdo-work", 1, 2) {
						work += r.Int("iterations")
					}
					if work != 2*total {
						t.Errorf("%s: pdo-work counts %d iterations, want %d", what, work, 2*total)
					}
				}
			}
		}
	}
}

// TestRecordOnHome: the iterations each processor ran in a dynamic loop
// with Record(T) become T's distribution (template-dist), and a later
// OnHome(T, ...) loop runs every iteration on the same processor.
func TestRecordOnHome(t *testing.T) {
	for n := 1; n <= 4; n++ {
		const m = 50
		var first, second, third [m]atomic.Int32
		var first2, second2 [6][7]atomic.Int32
		recs := traced(t, n, 2, trace.Binary, func(p *Proc) {
			T := p.Template(nil, 1, 1, "T", ext(1, m))
			p.PDO(1, 2, Dynamic(3).Record(T), []Range{{Lo: 1, Hi: m, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					first[it.Index(0)-1].Store(int32(q.ID()))
					if q.ID() == 0 {
						time.Sleep(20 * time.Microsecond) // processor 0 takes fewer chunks
					}
				}
			})
			p.PDO(1, 3, OnHome(T, LoopVar(0, 0)), []Range{{Lo: 1, Hi: m, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					second[it.Index(0)-1].Store(int32(q.ID()))
				}
			})
			p.PDO(1, 4, OnHome(T, IndexFunc(func(idx []int) int { return m + 1 - idx[0] })), []Range{{Lo: 1, Hi: m, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					third[m-it.Index(0)].Store(int32(q.ID()))
				}
			})
			// 2-D, guided, recorded in replicated mode, used transposed.
			U := p.Template(nil, 1, 5, "U", ext(0, 5), ext(0, 6))
			p.Replicated(1, 6, func(q *Proc) {
				q.PDO(1, 7, Guided(1).Record(U), []Range{{Lo: 0, Hi: 5, Step: 1}, {Lo: 0, Hi: 6, Step: 1}}, func(r *Proc, it *Iter) {
					for it.Next() {
						first2[it.Index(0)][it.Index(1)].Store(int32(r.ID()))
					}
				})
			})
			p.PDO(1, 8, OnHome(U, LoopVar(1, 0), LoopVar(0, 0)), []Range{{Lo: 0, Hi: 6, Step: 1}, {Lo: 0, Hi: 5, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					second2[it.Index(1)][it.Index(0)].Store(int32(q.ID()))
				}
			})
		})
		for i := range m {
			if first[i].Load() != second[i].Load() || first[i].Load() != third[i].Load() {
				t.Errorf("N=%d: iteration %d on %d, then on %d, then %d", n, i+1, first[i].Load(), second[i].Load(), third[i].Load())
			}
		}
		for i := range 6 {
			for j := range 7 {
				if first2[i][j].Load() != second2[i][j].Load() {
					t.Errorf("N=%d: 2-D iteration (%d,%d) on %d, then on %d", n, i, j, first2[i][j].Load(), second2[i][j].Load())
				}
			}
		}
		// template-dist after the recorded loop: one per member, covering
		// exactly what it ran.
		var dist []*trace.Record
		seenPDO := false
		for _, r := range recs {
			if r.Desc.Name == "pdo-info" && r.Int("directive number") == 2 {
				seenPDO = true
			}
			if seenPDO && r.Desc.Name == "template-dist" && r.Int("template id") == 1 {
				dist = append(dist, r)
			}
		}
		if len(dist) != n {
			t.Fatalf("N=%d: %d template-dist records after the recorded loop, want %d", n, len(dist), n)
		}
		owned := make([]int, m)
		for i := range owned {
			owned[i] = -1
		}
		for _, r := range dist {
			d, v := r.IntArray("owned indices")
			if len(d) != 2 || d[1] != 2 {
				t.Fatalf("owned indices dims %v", d)
			}
			for k := 0; k < len(v); k += 2 {
				for x := v[k]; x <= v[k+1]; x++ {
					owned[x-1] = r.Node()
				}
			}
		}
		for i := range m {
			if owned[i] != int(first[i].Load()) {
				t.Errorf("N=%d: template-dist gives element %d to %d, the loop ran it on %d", n, i+1, owned[i], first[i].Load())
			}
		}
	}
}

func TestRecordErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		body func(p *Proc)
		want string
	}{
		{"shape", func(p *Proc) {
			T := p.Template(nil, 1, 1, "T", ext(1, 49))
			p.PDO(1, 2, Affinity().Record(T), []Range{{Lo: 1, Hi: 50, Step: 1}}, func(*Proc, *Iter) {})
		}, "main.go:11:1: template(T(1:49)): the shape of the template differs from the iteration space [50]"},
		{"static", func(p *Proc) {
			T := p.Template(nil, 1, 1, "T", ext(1, 50))
			p.PDO(1, 2, DefaultSchedule().Record(T), []Range{{Lo: 1, Hi: 50, Step: 1}}, func(*Proc, *Iter) {})
		}, "main.go:11:1: template(T(1:50)): only a dynamic strategy can be recorded"},
	} {
		err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, c.body)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
}

// TestBalance: a triangular loop (iteration i works n-i units; the work is
// sleeping, so the machine's load does not matter) is balanced by dynamic
// and affinity scheduling and not by block scheduling, as the pdo-work
// busy times show.
func TestBalance(t *testing.T) {
	const n, m = 4, 16
	unit := time.Millisecond // sleeping: timer overheads of ~0.1 ms stay small
	body := func(q *Proc, it *Iter) {
		for it.Next() {
			time.Sleep(time.Duration(m-it.Index(0)) * unit)
		}
	}
	recs := traced(t, n, 2, trace.Binary, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: m - 1, Step: 1}}, body)
		p.PDO(1, 2, Dynamic(1), []Range{{Lo: 0, Hi: m - 1, Step: 1}}, body)
		p.PDO(1, 3, Affinity(), []Range{{Lo: 0, Hi: m - 1, Step: 1}}, body)
	})
	ratio := func(dir int) float64 {
		var busy []float64
		for _, r := range recsNamed(recs, -1, "pdo-work", 1, dir) {
			busy = append(busy, r.Double("busy microseconds"))
		}
		mean := 0.0
		for _, b := range busy {
			mean += b
		}
		mean /= float64(len(busy))
		return slices.Max(busy) / mean
	}
	block, dyn, aff := ratio(1), ratio(2), ratio(3)
	t.Logf("max/mean busy: block %.2f, dynamic(1) %.2f, affinity %.2f", block, dyn, aff)
	if block < 1.5 || dyn > 1.25 || aff > 1.35 || math.IsNaN(dyn) {
		t.Errorf("max/mean busy: block %.2f (want > 1.5), dynamic(1) %.2f (want < 1.25), affinity %.2f (want < 1.35)", block, dyn, aff)
	}
}

func TestProcessorID(t *testing.T) {
	if ProcessorID() != 0 || NumProcessors() != 1 {
		t.Errorf("outside a run: %d of %d", ProcessorID(), NumProcessors())
	}
	var ids [3]atomic.Int32
	runN(t, 3, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			ids[ProcessorID()].Add(int32(NumProcessors()))
		})
	})
	for i := range ids {
		if ids[i].Load() != 3 {
			t.Errorf("processor %d: %d", i, ids[i].Load())
		}
	}
}

// TestDeadlockInProcess: Run returns the deadlock (here: a critical
// section entered twice by the leader; the other processor is idle).
func TestDeadlockInProcess(t *testing.T) {
	start := time.Now()
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard, Deadlock: 100 * time.Millisecond}, func(p *Proc) {
		p.CriticalEnter(1, 1, "a")
		p.CriticalEnter(1, 2, "a")
	})
	want := "deadlock: no processor can proceed\n  processor 0: waiting to enter the critical section (main.go:11:1)\n  processor 1: idle, waiting for work from processor 0"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 2*time.Second {
		t.Errorf("detected after %v", d)
	}
}

// TestRecursionInCritical: a function that calls itself inside its
// critical section enters it again deeper in the stack: a deadlock svmc
// reports, not a hold left by a panic (dropStaleCrit) released behind its
// back.
func TestRecursionInCritical(t *testing.T) {
	var f func(p *Proc, n int)
	f = func(p *Proc, n int) {
		p.CriticalEnter(1, 1, "a")
		if n > 0 {
			f(p, n-1)
		}
		p.CriticalExit(1, 1, "a")
	}
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard, Deadlock: 100 * time.Millisecond}, func(p *Proc) { f(p, 1) })
	want := "deadlock: no processor can proceed\n  processor 0: waiting to enter the critical section (main.go:10:1)\n  processor 1: idle, waiting for work from processor 0"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestBarrierSitesInProcess: a member at another barrier is reported, not
// let through.
func TestBarrierSitesInProcess(t *testing.T) {
	err := Run(testProg(), Params{NProcs: 3, Stderr: io.Discard}, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			if q.ID() == 1 {
				q.Barrier(1, 2)
			}
		})
	})
	want := "processors reached different barriers:\n  main.go:10:1 end of replicated region: processors 0, 2\n  main.go:11:1 barrier: processor 1"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestReplicatedOwnReductions: a function with a pdo and its own reduction
// variables that every processor of replicated code calls (as svmc
// generates it: ReduceInto, ReduceValue, ReduceSlice into the call's
// locals) returns the whole loop's result to every caller, as the call
// without svmc does; before, each caller got its own share. Members that
// reach the pdo with different loops stop the run, naming both.
func TestReplicatedOwnReductions(t *testing.T) {
	sum := func(p *Proc, n int) (int, string, []float64) {
		s, longest, hist := 0, "", make([]float64, 3)
		p.PDO(1, 2, DefaultSchedule(), []Range{{Lo: 0, Hi: n - 1, Step: 1}}, func(q *Proc, it *Iter) {
			ps, pl, ph := 0, "", make([]float64, 3)
			for it.Next() {
				i := it.Index(0)
				ps += i
				pl = max(pl, fmt.Sprint(i))
				ph[i%3]++
			}
			ReduceInto(it, &s, ps, OpAdd)
			ReduceValue(it, &longest, pl, MaxOf[string])
			ReduceSlice(it, hist, ph, SumOf[float64])
		})
		return s, longest, hist
	}
	for n := 1; n <= 4; n++ {
		var got [4]string
		runN(t, n, func(p *Proc) {
			p.Replicated(1, 1, func(q *Proc) {
				s, l, h := sum(q, 100)
				got[q.ID()] = fmt.Sprintf("%d %s %v", s, l, h)
			})
		})
		for i := range n {
			if got[i] != "4950 99 [34 33 33]" {
				t.Errorf("N=%d: processor %d's call returned %s, want 4950 99 [34 33 33]", n, i, got[i])
			}
		}
	}
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) { sum(q, 100-10*q.ID()) })
	})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "different loops: processor 0 over 0..99, processor 1 over 0..89") {
		t.Errorf("different loops: %v", err)
	}
}
