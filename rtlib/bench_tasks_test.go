package rtlib

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// EPCC-style overhead benchmarks (syncbench/schedbench): every repetition
// runs a construct around a small fixed delay (delay(delayLen), about 0.1 µs
// of dependent floating-point work); the reference is the delay alone on one
// processor. The metric overhead-ns/op is ns/op minus the reference: the
// time the construct adds to one repetition. One repetition is
//
//	PDO_*       one parallel loop of N iterations (one delay per member)
//	PSECTION    one parallel section of N sections (one delay each)
//	REDUCTION   one default-schedule PDO of N iterations with a + reduction
//	BARRIER     every member: delay, barrier (inside one replicated region)
//	CRITICAL    one critical section around the delay; the members take
//	LOCK        turns (N*reps/N sections in all), so the sections are serial
//	ATOMIC      every member: delay, one atomic add to a shared counter
//
// each with tracing off (stage 0) and at stage 3 (binary trace to
// io.Discard), for N = 2 and 4 (the machines svmc targets have 2 CPUs: N=4
// is oversubscribed). The Go* benchmarks are the plain-Go baselines: a new
// goroutine per member and a sync.WaitGroup per fork/join, sync.Mutex,
// sync/atomic, a sync.Cond barrier and a channel barrier.
//
//	go test ./rtlib -run '^$' -bench 'EPCC' -benchtime 200ms -count 3

const delayLen = 60

var delaySink float64

//go:noinline
func delay(n int) {
	a := 1.0
	for i := 0; i < n; i++ {
		a = a*1.0000001 + 0.5
	}
	if a < 0 {
		delaySink = a
	}
}

// refNs is the time of delay(delayLen), measured once.
var refNs = sync.OnceValue(func() float64 {
	const reps = 200000
	best := 1e9
	for range 5 {
		t0 := time.Now()
		for range reps {
			delay(delayLen)
		}
		best = min(best, float64(time.Since(t0))/reps)
	}
	return best
})

// epcc runs body (which runs reps repetitions on processor 0's Run) on n
// processors at stage and reports the overhead per repetition.
func epcc(b *testing.B, n, stage int, body func(p *Proc, reps int)) {
	ref := refNs()
	var el time.Duration
	b.ReportAllocs()
	benchRun(b, n, stage, func(p *Proc) {
		t0 := time.Now()
		body(p, b.N)
		el = time.Since(t0)
	})
	b.ReportMetric(float64(el)/float64(b.N)-ref, "overhead-ns/op")
}

func epccCases(b *testing.B, f func(b *testing.B, n, stage int)) {
	for _, n := range []int{2, 4} {
		for _, stage := range []int{0, 3} {
			b.Run(fmt.Sprintf("N=%d/stage=%d", n, stage), func(b *testing.B) { f(b, n, stage) })
		}
	}
	// wait_policy active (OpenMP's OMP_WAIT_POLICY=active; libgomp spins
	// before it sleeps by default too).
	b.Run("N=2/stage=0/wait=active", func(b *testing.B) {
		benchActiveWait = time.Millisecond
		defer func() { benchActiveWait = 0 }()
		f(b, 2, 0)
	})
}

func delayBody(q *Proc, it *Iter) {
	for it.Next() {
		delay(delayLen)
	}
}

func epccPDO(b *testing.B, sched func(p *Proc) Schedule) {
	epccCases(b, func(b *testing.B, n, stage int) {
		epcc(b, n, stage, func(p *Proc, reps int) {
			s := sched(p)
			space := []Range{{Lo: 0, Hi: n - 1, Step: 1}}
			for range reps {
				p.PDO(1, 1, s, space, delayBody)
			}
		})
	})
}

func BenchmarkEPCC_PDO_default(b *testing.B) {
	epccPDO(b, func(*Proc) Schedule { return DefaultSchedule() })
}

func BenchmarkEPCC_PDO_onhome(b *testing.B) {
	epccPDO(b, func(p *Proc) Schedule {
		T := p.Template(nil, 1, 2, "T", Extent{Lo: 0, Hi: p.NProcs() - 1})
		p.Distribute(1, 3, nil, []Format{Block()}, T)
		return OnHome(T, LoopVar(0, 0))
	})
}

func BenchmarkEPCC_PDO_dynamic1(b *testing.B) {
	epccPDO(b, func(*Proc) Schedule { return Dynamic(1) })
}

func BenchmarkEPCC_PDO_guided(b *testing.B) {
	epccPDO(b, func(*Proc) Schedule { return Guided(1) })
}

func BenchmarkEPCC_PDO_affinity(b *testing.B) {
	epccPDO(b, func(*Proc) Schedule { return Affinity() })
}

func BenchmarkEPCC_REDUCTION(b *testing.B) {
	epccCases(b, func(b *testing.B, n, stage int) {
		var sum int
		epcc(b, n, stage, func(p *Proc, reps int) {
			space := []Range{{Lo: 0, Hi: n - 1, Step: 1}}
			for range reps {
				// The code svmc generates for reduction(+: sum).
				p.PDO(1, 1, DefaultSchedule(), space, func(q *Proc, it *Iter) {
					red := Identity(sum, OpAdd)
					for it.Next() {
						delay(delayLen)
						red++
					}
					ReduceInto(it, &sum, red, OpAdd)
				})
			}
		})
		if sum != n*b.N {
			b.Fatalf("sum %d, want %d", sum, n*b.N)
		}
	})
}

func BenchmarkEPCC_PSECTION(b *testing.B) {
	epccCases(b, func(b *testing.B, n, stage int) {
		epcc(b, n, stage, func(p *Proc, reps int) {
			secs := make([]Section, n)
			for i := range secs {
				secs[i] = Section{Dir: 2 + i, Body: func(*Proc) { delay(delayLen) }}
			}
			for range reps {
				p.PSection(1, 1, secs)
			}
		})
	})
}

func BenchmarkEPCC_BARRIER(b *testing.B) {
	epccCases(b, func(b *testing.B, n, stage int) {
		epcc(b, n, stage, func(p *Proc, reps int) {
			p.Replicated(1, 1, func(q *Proc) {
				for range reps {
					delay(delayLen)
					q.Barrier(1, 2)
				}
			})
		})
	})
}

// turns runs f reps times in all, spread over the members of a replicated
// region.
func turns(p *Proc, reps int, f func(q *Proc)) {
	p.Replicated(1, 1, func(q *Proc) {
		k := reps / q.NProcs()
		if q.ID() < reps%q.NProcs() {
			k++
		}
		for range k {
			f(q)
		}
	})
}

func BenchmarkEPCC_CRITICAL(b *testing.B) {
	epccCases(b, func(b *testing.B, n, stage int) {
		epcc(b, n, stage, func(p *Proc, reps int) {
			turns(p, reps, func(q *Proc) {
				q.CriticalEnter(1, 2, "")
				delay(delayLen)
				q.CriticalExit(1, 2, "")
			})
		})
	})
}

func BenchmarkEPCC_LOCK(b *testing.B) {
	epccCases(b, func(b *testing.B, n, stage int) {
		var x int
		epcc(b, n, stage, func(p *Proc, reps int) {
			turns(p, reps, func(q *Proc) {
				h := q.Lock(1, 2, VarOf(&x))
				delay(delayLen)
				x++
				q.Unlock(1, 2, h)
			})
		})
		if x != b.N {
			b.Fatalf("x %d", x)
		}
	})
}

func BenchmarkEPCC_ATOMIC(b *testing.B) {
	epccCases(b, func(b *testing.B, n, stage int) {
		var x int
		epcc(b, n, stage, func(p *Proc, reps int) {
			p.Replicated(1, 1, func(q *Proc) {
				for range reps {
					delay(delayLen)
					AtomicAdd(q, 1, 2, &x, 1)
				}
			})
		})
		if x != n*b.N {
			b.Fatalf("x %d", x)
		}
	})
}

// Plain-Go baselines, same repetitions and delay.

func goCases(b *testing.B, f func(b *testing.B, n int)) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			t0 := time.Now()
			f(b, n)
			b.ReportMetric(float64(time.Since(t0))/float64(b.N)-refNs(), "overhead-ns/op")
		})
	}
}

// BenchmarkEPCC_GoForkJoin: n new goroutines and a WaitGroup per loop.
func BenchmarkEPCC_GoForkJoin(b *testing.B) {
	goCases(b, func(b *testing.B, n int) {
		var wg sync.WaitGroup
		for range b.N {
			wg.Add(n)
			for range n {
				go func() {
					delay(delayLen)
					wg.Done()
				}()
			}
			wg.Wait()
		}
	})
}

// goTeam runs f on n goroutines started once (the persistent goTeam of the
// baselines) and waits for them.
func goTeam(n int, f func(id int)) {
	var wg sync.WaitGroup
	wg.Add(n)
	for id := range n {
		go func() {
			defer wg.Done()
			f(id)
		}()
	}
	wg.Wait()
}

func BenchmarkEPCC_GoMutex(b *testing.B) {
	goCases(b, func(b *testing.B, n int) {
		var mu sync.Mutex
		x := 0
		goTeam(n, func(id int) {
			k := b.N / n
			if id < b.N%n {
				k++
			}
			for range k {
				mu.Lock()
				delay(delayLen)
				x++
				mu.Unlock()
			}
		})
	})
}

func BenchmarkEPCC_GoAtomic(b *testing.B) {
	goCases(b, func(b *testing.B, n int) {
		var x atomic.Int64
		goTeam(n, func(int) {
			for range b.N {
				delay(delayLen)
				x.Add(1)
			}
		})
	})
}

// condBarrier is a barrier on sync.Cond.
type condBarrier struct {
	mu   sync.Mutex
	c    *sync.Cond
	n    int
	cnt  int
	gen  int
	_pad [cacheLine]byte
}

func (cb *condBarrier) wait() {
	cb.mu.Lock()
	g := cb.gen
	if cb.cnt++; cb.cnt == cb.n {
		cb.cnt = 0
		cb.gen++
		cb.c.Broadcast()
	} else {
		for g == cb.gen {
			cb.c.Wait()
		}
	}
	cb.mu.Unlock()
}

func BenchmarkEPCC_GoCondBarrier(b *testing.B) {
	goCases(b, func(b *testing.B, n int) {
		cb := &condBarrier{n: n}
		cb.c = sync.NewCond(&cb.mu)
		goTeam(n, func(int) {
			for range b.N {
				delay(delayLen)
				cb.wait()
			}
		})
	})
}

// BenchmarkEPCC_GoChanBarrier: a barrier of channels, a coordinator
// goroutine collecting arrivals and releasing everyone.
func BenchmarkEPCC_GoChanBarrier(b *testing.B) {
	goCases(b, func(b *testing.B, n int) {
		arrive := make(chan struct{}, n)
		release := make([]chan struct{}, n)
		for i := range release {
			release[i] = make(chan struct{}, 1)
		}
		done := make(chan struct{})
		go func() {
			for range b.N {
				for range n {
					<-arrive
				}
				for _, r := range release {
					r <- struct{}{}
				}
			}
			close(done)
		}()
		goTeam(n, func(id int) {
			for range b.N {
				delay(delayLen)
				arrive <- struct{}{}
				<-release[id]
			}
		})
		<-done
	})
}

// benchSink keeps a benchmark's result alive.
var benchSink float64

// BenchmarkPDOOneProcessor: a pdo of 16 iterations with a reduction, as
// svmc generates it, called again and again on one processor at stage 0
// (x491's dot product): the serial loop (serialPDO), not a team's
// dispatch and join. plain is the same loop without the runtime.
func BenchmarkPDOOneProcessor(b *testing.B) {
	a := make([]float64, 16)
	for i := range a {
		a[i] = float64(i % 7)
	}
	b.Run("plain", func(b *testing.B) {
		sum := 0.0
		for b.Loop() {
			s := 0.0
			for i := range a {
				s += a[i] * a[i]
			}
			sum += s
		}
		benchSink = sum
	})
	b.Run("pdo", func(b *testing.B) {
		b.ReportAllocs()
		benchRun(b, 1, 0, func(p *Proc) {
			space := []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}
			sum := 0.0
			for range b.N {
				s := 0.0
				p.PDO(1, 1, DefaultSchedule(), space, func(p *Proc, it *Iter) {
					red := Identity(s, OpAdd)
					for it.NextRun() {
						first, n, step := it.Run()
						for i, k := first, n; k > 0; i, k = i+step, k-1 {
							red += a[i] * a[i]
						}
					}
					ReduceInto(it, &s, red, OpAdd)
				})
				sum += s
			}
			benchSink = sum
		})
	})
}
