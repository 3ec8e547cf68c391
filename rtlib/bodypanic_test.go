package rtlib_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	rt "github.com/svmc/svmc/rtlib"
)

// TestPanicInIteration: a panic in a pdo's iteration unwinds the function
// around the loop as in the serial program, on whichever processor the
// iteration ran: its deferred recover gets the value, once per processor
// that runs that function (the leader in exclusive mode, every member in
// replicated mode), after every share ended; the earliest panicking
// iteration of the serial order is the one raised, and a reduction is not
// combined.
func TestPanicInIteration(t *testing.T) {
	schedules := map[string]rt.Schedule{
		"block":      rt.DefaultSchedule(),
		"dynamic(1)": rt.Dynamic(1),
		"cyclic":     rt.LoopLevel(nil, rt.Cyclic(1)),
	}
	for name, s := range schedules {
		for _, n := range []int{1, 2, 3} {
			for _, repl := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/n=%d/replicated=%v", name, n, repl), func(t *testing.T) {
					var ran [12]atomic.Int32
					var mu sync.Mutex
					var got []any
					sum := 100
					loop := func(p *rt.Proc) {
						defer func() {
							v := recover()
							mu.Lock()
							got = append(got, v)
							mu.Unlock()
						}()
						p.PDO(1, 1, s, space(0, 11), func(q *rt.Proc, it *rt.Iter) {
							part := 0
							for it.Next() {
								i := it.Index(0)
								ran[i].Add(1)
								if i == 4 || i == 9 {
									panic(fmt.Errorf("bad item %d", i))
								}
								part += i
							}
							it.Reduce(func() { sum += part })
						})
						t.Error("the loop returned although an iteration panicked")
					}
					err := rt.Run(prog, rt.Params{NProcs: n}, func(p *rt.Proc) {
						if repl {
							p.Replicated(1, 2, loop)
						} else {
							loop(p)
						}
					})
					if err != nil {
						t.Fatalf("run: %v", err)
					}
					want := 1
					if repl {
						want = n
					}
					if len(got) != want {
						t.Fatalf("recovered %d times (%v), want %d", len(got), got, want)
					}
					for _, v := range got {
						if e, ok := v.(error); !ok || e.Error() != "bad item 4" {
							t.Errorf("recovered %v, want the error of item 4 (the first the serial loop reaches)", v)
						}
					}
					if sum != 100 {
						t.Errorf("sum = %d: a pdo that panicked combined its reduction", sum)
					}
					// Iterations up to the first panic ran once, whoever ran
					// them (a member that panicked stops its share).
					for i := range 4 {
						if k := ran[i].Load(); k != 1 {
							t.Errorf("iteration %d ran %d times", i, k)
						}
					}
				})
			}
		}
	}
}

// TestPanicInIterationUnrecovered: a panic nobody recovers ends the run
// naming the processor and line of the iteration, not where it was raised
// again.
func TestPanicInIterationUnrecovered(t *testing.T) {
	var line int
	err := rt.Run(prog, rt.Params{NProcs: 3}, func(p *rt.Proc) {
		p.PDO(1, 1, rt.DefaultSchedule(), space(0, 8), func(q *rt.Proc, it *rt.Iter) {
			for it.Next() {
				if it.Index(0) == 7 {
					line = callerLine() + 1
					panic("boom")
				}
			}
		})
	})
	var pe *rt.PanicError
	if !errors.As(err, &pe) || pe.Proc != 2 || pe.Value != "boom" || !strings.HasSuffix(pe.At, fmt.Sprintf("bodypanic_test.go:%d", line)) {
		t.Fatalf("got %v (%#v), want processor 2's panic at line %d", err, err, line)
	}
}

// TestPanicInSection: a panicking section ends, the psection ends, and the
// first panicking section in the program's order is raised after it.
func TestPanicInSection(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			var ran [3]atomic.Bool
			var got any
			err := rt.Run(prog, rt.Params{NProcs: n}, func(p *rt.Proc) {
				defer func() { got = recover() }()
				sec := func(k int, fail bool) rt.Section {
					return rt.Section{Dir: 3 + k, Body: func(q *rt.Proc) {
						ran[k].Store(true)
						if fail {
							panic(fmt.Sprint("section ", k))
						}
					}}
				}
				p.PSection(1, 2, []rt.Section{sec(0, false), sec(1, true), sec(2, true)})
			})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if got != "section 1" {
				t.Errorf("recovered %v, want section 1's panic", got)
			}
			if !ran[0].Load() || !ran[1].Load() {
				t.Errorf("sections ran: %v %v %v", ran[0].Load(), ran[1].Load(), ran[2].Load())
			}
		})
	}
}

// callerLine is the line of its call.
func callerLine() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}

// TestPanicInCritical: an iteration that panics inside a critical section
// and a LOCK leaves both, so that the other processors' iterations and
// the next loop can enter them (the run deadlocked).
func TestPanicInCritical(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		x := 0
		var got []any
		err := rt.Run(prog, rt.Params{NProcs: n}, func(p *rt.Proc) {
			count := func(bad int) {
				defer func() { got = append(got, recover()) }()
				p.PDO(1, 1, rt.DefaultSchedule(), space(0, 7), func(q *rt.Proc, it *rt.Iter) {
					for it.Next() {
						q.CriticalEnter(1, 2, "")
						h := q.Lock(1, 3, rt.VarOf(&x))
						if it.Index(0) == bad {
							panic("bad")
						}
						x++
						q.Unlock(1, 3, h)
						q.CriticalExit(1, 2, "")
					}
				})
			}
			count(3)
			x = 0
			count(-1)
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if len(got) != 2 || got[0] != "bad" || got[1] != nil || x != 8 {
			t.Errorf("n=%d: recovered %v, x = %d; want [bad <nil>], 8", n, got, x)
		}
	}
}

// TestRecoveredInCritical: a panic the program recovers inside the
// iteration, raised inside a critical section or under a LOCK (a parser
// called under the lock, its caller recovering), leaves the hold behind
// (the generated code has no defer); the processor ends it when it enters
// the section or locks the variable again, or when its share ends. Before,
// the next entry waited for ever (a deadlock at n = 1 already).
func TestRecoveredInCritical(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4} {
		for _, last := range []bool{false, true} {
			x, y := 0, 0
			bad := 0
			err := rt.Run(prog, rt.Params{NProcs: n}, func(p *rt.Proc) {
				p.PDO(1, 1, rt.DefaultSchedule(), space(0, 11), func(q *rt.Proc, it *rt.Iter) {
					b := 0
					for it.Next() {
						i := it.Index(0)
						add := func() (ok bool) {
							defer func() {
								if recover() != nil {
									ok = false
								}
							}()
							q.CriticalEnter(1, 2, "acc")
							if i%5 == 2 && !last {
								panic("bad")
							}
							x++
							q.CriticalExit(1, 2, "acc")
							h := q.Lock(1, 3, rt.VarOf(&y))
							if i%5 == 2 && last {
								panic("bad") // the share may end holding it
							}
							y++
							q.Unlock(1, 3, h)
							return true
						}
						if !add() {
							b++
						}
					}
					rt.ReduceInto(it, &bad, b, rt.OpAdd)
				})
				// Exclusive code takes them again after the pdo.
				q := p
				q.CriticalEnter(1, 4, "acc")
				x += 100
				q.CriticalExit(1, 4, "acc")
				h := q.Lock(1, 5, rt.VarOf(&y))
				y += 100
				q.Unlock(1, 5, h)
			})
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			wantX, wantY := 110, 110
			if last {
				wantX, wantY = 112, 110
			} else {
				wantX, wantY = 110, 110
			}
			if bad != 2 || x != wantX || y != wantY {
				t.Errorf("n=%d last=%v: bad %d, x %d, y %d; want 2, %d, %d", n, last, bad, x, y, wantX, wantY)
			}
		}
	}
}
