package rtlib

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

// benchRun runs body on processor 0 of n processors, timing only body.
// benchActiveWait, when set by a benchmark, is Params.ActiveWait of the
// runs benchRun makes (wait_policy active).
var benchActiveWait time.Duration

func benchRun(b *testing.B, n, stage int, body func(p *Proc)) {
	par := Params{NProcs: n, Stderr: io.Discard, ActiveWait: benchActiveWait}
	if stage > 0 {
		par.Stage, par.Trace = stage, io.Discard
	}
	err := Run(testProg(), par, func(p *Proc) {
		b.ResetTimer()
		body(p)
		b.StopTimer()
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPDOForkJoin: an empty PDO (dispatch to the team, one iteration
// each, implicit barrier) against its baseline below.
func BenchmarkPDOForkJoin(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			space := []Range{{Lo: 0, Hi: n - 1, Step: 1}}
			body := func(q *Proc, it *Iter) {
				for it.Next() {
				}
			}
			benchRun(b, n, 0, func(p *Proc) {
				for range b.N {
					p.PDO(1, 1, DefaultSchedule(), space, body)
				}
			})
		})
	}
}

// BenchmarkPDOCloseLoops: PDOs of 8 192 iterations (about 5 µs of work
// for each of 2 processors) one after another with gapUs of serial code
// between them, under the default wait policy: where a member blocks
// between loops each loop waits for its thread's wake-up; adaptive
// yielding keeps it running while the gaps are short (compare
// wait=active).
func BenchmarkPDOCloseLoops(b *testing.B) {
	a := make([]float64, 8192)
	space := []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}
	body := func(q *Proc, it *Iter) {
		for it.Next() {
			i := it.Index(0)
			a[i] = a[i]*0.5 + 1
		}
	}
	for _, gapUs := range []int{0, 20, 200} {
		for _, active := range []time.Duration{0, time.Millisecond} {
			name := fmt.Sprintf("gap=%dus", gapUs)
			if active > 0 {
				name += "/wait=active"
			}
			b.Run(name, func(b *testing.B) {
				benchActiveWait = active
				defer func() { benchActiveWait = 0 }()
				benchRun(b, 2, 0, func(p *Proc) {
					for range b.N {
						p.PDO(1, 1, DefaultSchedule(), space, body)
						for end := time.Now().Add(time.Duration(gapUs) * time.Microsecond); time.Now().Before(end); {
						}
					}
				})
			})
		}
	}
}

// BenchmarkForkJoinGoroutines is the baseline of BenchmarkPDOForkJoin: N
// new goroutines and a sync.WaitGroup per fork/join.
func BenchmarkForkJoinGoroutines(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var wg sync.WaitGroup
			for range b.N {
				wg.Add(n)
				for range n {
					go wg.Done()
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkBarrier: barriers of all members inside a PDO body.
func BenchmarkBarrier(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			benchRun(b, n, 0, func(p *Proc) {
				p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: n - 1, Step: 1}}, func(q *Proc, it *Iter) {
					for range b.N {
						q.Barrier(1, 2)
					}
				})
			})
		})
	}
}

// BenchmarkBarrierCond is the baseline of BenchmarkBarrier: a barrier on
// sync.Mutex and sync.Cond.
func BenchmarkBarrierCond(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var mu sync.Mutex
			cond := sync.NewCond(&mu)
			arrived, gen := 0, 0
			wait := func() {
				mu.Lock()
				g := gen
				if arrived++; arrived == n {
					arrived, gen = 0, gen+1
					cond.Broadcast()
				} else {
					for g == gen {
						cond.Wait()
					}
				}
				mu.Unlock()
			}
			var wg sync.WaitGroup
			wg.Add(n)
			for range n {
				go func() {
					defer wg.Done()
					for range b.N {
						wait()
					}
				}()
			}
			wg.Wait()
		})
	}
}

// BenchmarkEventAppend: one stage 1 region record (start or stop) with its
// time stamp, buffer flushes to io.Discard included. An op is a start and a
// stop; ns/event is the cost of one record.
func BenchmarkEventAppend(b *testing.B) {
	benchRun(b, 1, 1, func(p *Proc) {
		start := time.Now()
		for range b.N {
			p.RegionStart(1, 2, trace.RegionUser)
			p.RegionStop(1, 2, trace.RegionUser)
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(2*b.N), "ns/event")
	})
}

// BenchmarkEventAppendNoWrite: as BenchmarkEventAppend, but the full buffer
// is dropped instead of written, leaving out the trace.Writer's cost (which
// checks every record of a buffer it writes).
func BenchmarkEventAppendNoWrite(b *testing.B) {
	benchRun(b, 1, 1, func(p *Proc) {
		p.chunkLimit = math.MaxInt
		start := time.Now()
		for range b.N {
			p.RegionStart(1, 2, trace.RegionUser)
			p.RegionStop(1, 2, trace.RegionUser)
			if len(p.buf.B) >= 1<<20 {
				p.buf.Reset()
			}
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(2*b.N), "ns/event")
	})
}

// BenchmarkEventAppendStage0: the same calls without tracing.
func BenchmarkEventAppendStage0(b *testing.B) {
	benchRun(b, 1, 0, func(p *Proc) {
		for range b.N {
			p.RegionStart(1, 2, trace.RegionUser)
			p.RegionStop(1, 2, trace.RegionUser)
		}
	})
}

// BenchmarkEventAppendBaseline: the same bytes appended to a plain buffer
// with a time stamp from time.Since, two records per op.
func BenchmarkEventAppendBaseline(b *testing.B) {
	t0 := time.Now()
	buf := make([]byte, 0, 1<<20)
	le := binary.LittleEndian
	rec := func(tag uint32) {
		buf = le.AppendUint32(buf, 28)
		buf = le.AppendUint32(buf, 3)
		buf = le.AppendUint32(buf, tag)
		buf = le.AppendUint32(buf, 0)
		buf = le.AppendUint64(buf, math.Float64bits(float64(time.Since(t0))/1e3))
		buf = le.AppendUint32(buf, 1)
		buf = le.AppendUint32(buf, 2)
		buf = le.AppendUint32(buf, 7)
		if len(buf) >= 1<<20 {
			buf = buf[:0]
		}
	}
	for range b.N {
		rec(1301)
		rec(1302)
	}
}

// BenchmarkPDOStage0: a PDO of 10000 iterations with a sum reduction at
// stage 0, against the serial loop below.
func BenchmarkPDOStage0(b *testing.B) {
	const iters = 10000
	a := make([]float64, iters)
	for i := range a {
		a[i] = float64(i)
	}
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var sum float64
			benchRun(b, n, 0, func(p *Proc) {
				for range b.N {
					sum = 0
					p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: iters - 1, Step: 1}}, func(q *Proc, it *Iter) {
						local := Identity(sum, OpAdd)
						for it.Next() {
							local += a[it.Index(0)]
						}
						// Generated code hands the partial result over in a
						// fresh variable, so that local stays in a register.
						part := local
						it.Reduce(func() { sum += part })
					})
				}
			})
			if sum != iters*(iters-1)/2 {
				b.Fatal(sum)
			}
		})
	}
}

// BenchmarkSerialLoop is the baseline of BenchmarkPDOStage0.
func BenchmarkSerialLoop(b *testing.B) {
	const iters = 10000
	a := make([]float64, iters)
	for i := range a {
		a[i] = float64(i)
	}
	var sum float64
	for range b.N {
		sum = 0
		for i := 0; i <= iters-1; i++ {
			sum += a[i]
		}
	}
	if sum != iters*(iters-1)/2 {
		b.Fatal(sum)
	}
}

// BenchmarkPDOOnHome: an on_home PDO over T(100,100) distributed
// (cyclic(4), block) onto P(2,2), empty body, N=2 (each processor owns two
// arrangement elements). The schedule is computed once and reused.
func BenchmarkPDOOnHome(b *testing.B) {
	benchRun(b, 2, 0, func(p *Proc) {
		s, space := onHomeSetup(p)
		b.ResetTimer()
		for range b.N {
			p.PDO(1, 4, s, space, func(q *Proc, it *Iter) {})
		}
	})
}

// BenchmarkScheduleOnHome: computing that schedule afresh (what the first
// execution of the PDO pays, reported as its startup time in pdo-info).
func BenchmarkScheduleOnHome(b *testing.B) {
	benchRun(b, 2, 0, func(p *Proc) {
		s, space := onHomeSetup(p)
		b.ResetTimer()
		for range b.N {
			clear(p.aps.plans)
			p.plan(Site{Sub: 1, Dir: 4}, s, space)
		}
	})
}

// BenchmarkPDOOnHomeNewTemplate: the PDO of BenchmarkPDOOnHome in a
// function whose directives declare and distribute its template at every
// call, as ordinary Go puts them: the same owners keep the schedule, so
// the call costs the directives and the PDO, not a new plan
// (BenchmarkScheduleOnHome).
func BenchmarkPDOOnHomeNewTemplate(b *testing.B) {
	benchRun(b, 2, 0, func(p *Proc) {
		for range b.N {
			s, space := onHomeSetup(p)
			p.PDO(1, 4, s, space, func(q *Proc, it *Iter) {})
		}
	})
}

func onHomeSetup(p *Proc) (Schedule, []Range) {
	P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 1}, Extent{Lo: 0, Hi: 1})
	T := p.Template(nil, 1, 2, "T", Extent{Lo: 0, Hi: 99}, Extent{Lo: 0, Hi: 99})
	p.Distribute(1, 3, P, []Format{Cyclic(4), Block()}, T)
	return OnHome(T, LoopVar(0, 0), LoopVar(1, 0)), []Range{{Lo: 0, Hi: 99, Step: 1}, {Lo: 0, Hi: 99, Step: 1}}
}

// BenchmarkCurrent is the lookup a wrapper of an instrumented function
// makes when it is called through a function value, a method value or an
// interface: on a processor, and on a goroutine the program started.
func BenchmarkCurrent(b *testing.B) {
	b.Run("processor", func(b *testing.B) {
		Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
			for i := 0; i < b.N; i++ {
				if Current() != p {
					b.Fatal("wrong processor")
				}
			}
		})
	})
	b.Run("goroutine", func(b *testing.B) {
		Run(testProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				q := Current()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if Current() != q {
						b.Error("the goroutine's detached Proc changed")
						return
					}
				}
			}()
			<-done
		})
	})
}

// BenchmarkCyclicPlan: planning and running a cyclic loop-level pdo of 5 M
// iterations on 4 processors, against block, side by side: the plan of a
// cyclic loop takes constant space (B/op), as block's does.
func BenchmarkCyclicPlan(b *testing.B) {
	const n = 5_000_000
	for _, c := range []struct {
		name string
		f    Format
	}{{"block", Block()}, {"cyclic", Cyclic(1)}, {"cyclic3", Cyclic(3)}} {
		b.Run(c.name, func(b *testing.B) {
			benchRun(b, 4, 0, func(p *Proc) {
				space := []Range{{Lo: 0, Hi: n - 1, Step: 1}}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					clear(p.aps.plans)
					p.PDO(1, 4, LoopLevel(nil, c.f), space, func(q *Proc, it *Iter) {
						for it.Next() {
						}
					})
				}
			})
		})
	}
}

// BenchmarkMeasure: a measured interval opened and closed (MeasureStart
// keeps its call stack for a later report of an unfinished interval, and
// resolves it only then).
func BenchmarkMeasure(b *testing.B) {
	benchRun(b, 1, 0, func(p *Proc) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			p.MeasureStart("x")
			p.MeasureFinish("x")
		}
	})
}

// BenchmarkGoStatement: what svmc's rewriting of go statements adds to
// starting a goroutine, side by side: plain "go f(x)", a function literal
// with "defer Recover(pos)" first, "go Guard1(f, pos)(x)" (a closure) and
// "go Guard(f, pos)(x)" (a reflect call) for function values.
func BenchmarkGoStatement(b *testing.B) {
	var wg sync.WaitGroup
	f := func(x int) { wg.Done() }
	b.Run("plain", func(b *testing.B) {
		for i := range b.N {
			wg.Add(1)
			go f(i)
			wg.Wait()
		}
	})
	b.Run("literal+Recover", func(b *testing.B) {
		for i := range b.N {
			wg.Add(1)
			go func(x int) {
				defer Recover("b.go:1:1")
				f(x)
			}(i)
			wg.Wait()
		}
	})
	b.Run("Guard1", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			wg.Add(1)
			go Guard1(f, "b.go:1:1")(i)
			wg.Wait()
		}
	})
	b.Run("Guard", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			wg.Add(1)
			go Guard(f, "b.go:1:1")(i)
			wg.Wait()
		}
	})
	// A go statement of a traced processor: its goroutine gets a lane
	// (lanes.go), opened and closed with a record each; the run's trace
	// goes to io.Discard.
	b.Run("Guard1+lane", func(b *testing.B) {
		b.ReportAllocs()
		err := Run(testProg(), Params{NProcs: 1, Stage: 1, Trace: io.Discard, Stderr: io.Discard}, func(p *Proc) {
			b.ResetTimer()
			for i := range b.N {
				wg.Add(1)
				go Guard1(f, "b.go:1:1")(i)
				wg.Wait()
			}
			b.StopTimer()
		})
		if err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkDetachedPDO: a pdo of 64 iterations reached from the program's
// own goroutines (b.RunParallel in svmc test, an HTTP handler), which runs
// serially on each goroutine's detached Proc, against the plain loop.
func BenchmarkDetachedPDO(b *testing.B) {
	a := make([]float64, 64)
	for _, form := range []string{"plain", "pdo"} {
		b.Run(form, func(b *testing.B) {
			benchRun(b, 2, 0, func(*Proc) {
				b.RunParallel(func(pb *testing.PB) {
					p := Current()
					for pb.Next() {
						if form == "plain" {
							s := 0.0
							for i := range a {
								s += a[i]
							}
							_ = s
							continue
						}
						p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}, func(q *Proc, it *Iter) {
							s := 0.0
							for it.Next() {
								s += a[it.Index(0)]
							}
							_ = s
						})
					}
				})
			})
		})
	}
}
