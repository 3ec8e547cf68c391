package rtlib

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/trace"
)

// A fine-grained program: calls of a small function (a few dozen
// floating-point operations), as instrumented code makes them (Enter, and
// Exit deferred) and as the serial program does.

//go:noinline
func smallWork(x float64) float64 {
	for i := range 16 {
		x = x*0.999 + float64(i)
	}
	return x
}

//go:noinline
func smallInstrumented(p *Proc, x float64) float64 {
	p.Enter(2)
	defer p.Exit(2)
	for i := range 16 {
		x = x*0.999 + float64(i)
	}
	return x
}

const fineCalls = 1000

var fineSink float64

// BenchmarkFineGrainedSerial is the serial program: 1000 calls per op.
func BenchmarkFineGrainedSerial(b *testing.B) {
	x := 1.0
	for range b.N {
		for range fineCalls {
			x = smallWork(x)
		}
	}
	fineSink = x
}

// BenchmarkFineGrained is the instrumented program at stage 0 with a trace
// file (nothing traced), at stage 0 with a LOCAL request for a region the
// loop is not in (the region stack is kept: Enter applies the table), and
// at stage 1 (every call traced: two records).
func BenchmarkFineGrained(b *testing.B) {
	local, err := request.Parse("b.req", []byte("REQUEST LOCAL main.REG_NO(3): (REGION)\n"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		stage int
		req   *request.File
	}{{"stage0", 0, nil}, {"stage0-local", 0, local}, {"stage1", 1, nil}} {
		b.Run(c.name, func(b *testing.B) {
			par := Params{NProcs: 1, Stage: c.stage, Trace: io.Discard, Request: c.req, Stderr: io.Discard}
			prog := testProg()
			prog.Info = reqProg().Info
			err := Run(prog, par, func(p *Proc) {
				x := 1.0
				b.ResetTimer()
				for range b.N {
					for range fineCalls {
						x = smallInstrumented(p, x)
					}
				}
				b.StopTimer()
				fineSink = x
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkEventAppendParallel: every processor of 2 writes region records
// into its own buffer (64 KiB, handed to the writer goroutine when full);
// ns/event is per processor.
func BenchmarkEventAppendParallel(b *testing.B) {
	par := Params{NProcs: 2, Stage: 1, Trace: io.Discard, BufSize: 64 << 10, Stderr: io.Discard}
	var elapsed [2]time.Duration
	err := Run(testProg(), par, func(p *Proc) {
		b.ResetTimer()
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			t0 := time.Now()
			for range b.N {
				q.RegionStart(1, 2, trace.RegionUser)
				q.RegionStop(1, 2, trace.RegionUser)
			}
			elapsed[q.ID()] = time.Since(t0)
		})
		b.StopTimer()
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(max(elapsed[0], elapsed[1]).Nanoseconds())/float64(2*b.N), "ns/event")
	b.ReportMetric(float64(4*b.N)/max(elapsed[0], elapsed[1]).Seconds(), "events/s")
}

// BenchmarkStatsOverhead: the fine-grained PDO loop with statistics on
// (every PDO and barrier charges its time) against off.
func BenchmarkStatsOverhead(b *testing.B) {
	for _, stats := range []bool{false, true} {
		b.Run(fmt.Sprintf("stats=%v", stats), func(b *testing.B) {
			par := Params{NProcs: 2, Stats: stats, Stderr: io.Discard}
			err := Run(testProg(), par, func(p *Proc) {
				b.ResetTimer()
				for range b.N {
					p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
						for it.Next() {
						}
					})
				}
				b.StopTimer()
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
