package rtlib

import (
	"math"

	"github.com/svmc/svmc/trace"
)

// What recording a trace costs the program. The report's times include the
// runtime's own work of tracing, which the trace cannot show: a traced
// run of x514 (a recursive insert called 1.3 million times) took 0.98 s
// against 0.56–0.68 s untraced while the report said "tracing 15 ms" (its
// buffer flushes only). So a traced run measures, when it starts, what a
// traced call and a call that takes a throttled subprogram's entry cost on
// a processor of its own (calibrate), and each processor writes, when it
// ends, a trace-overhead record of type trace.OverheadRecording: its
// records and those calls at those costs. It is an estimate, a low one for
// call-heavy code: the calibration runs in a warm cache, and the calls a
// throttled subprogram's gate lets through and the instrumented form of a
// recursive function that runs in place of its plain clone while tracing
// are not counted.

// recordingCost is the cost of recording in ns: a record, and a call of a
// throttled subprogram that took the traced entry (timed). A call its gate
// lets through costs a decrement, which a loop of such calls measured at
// 4 ns but a recursive function's body hides (BenchmarkOrdinary's fib: 21
// million gated calls, estimated at 85 ms, in a traced run 28 ms slower
// than untraced in all): it is not counted.
//
// sample is what timing a throttled subprogram's call measures of an empty
// one (the entry's work between its two clock readings): each sample is
// that much less (untracedExit), or the sort's Less, sampled at 37 ns a
// call, was said to take 87 ms of a sort that took 41 ms in all.
type recordingCost struct {
	record, timed float64
	sample        int64
}

// calibrationCalls is how many calls each measurement of calibrate makes.
const calibrationCalls = 256

// calibrate measures the recording costs with the run's mask for
// processor 0, on a processor of its own whose records go nowhere: the
// best of five rounds of traced calls of main's subprogram (two records
// each), of calls that take the entry of a subprogram throttled, and of
// what timing those calls measured of their empty body (sample).
func (r *run) calibrate() recordingCost {
	sub := r.prog.Main
	if sub < 0 || sub >= len(r.prog.Subs) || len(r.procs) == 0 || !r.procs[0].track {
		return recordingCost{}
	}
	// No chunk is ever full: its records must not reach the writer.
	p := &Proc{id: 0, r: r, track: true, mask: r.procs[0].mask, gate: make([]int32, len(r.prog.Subs)), chunkLimit: math.MaxInt}
	p.tr.noPub = true
	// A traced call's entry calls the body again, which checks the gate
	// once more (Trace): so does this one.
	noop := func(p *Proc) { p.Trace(sub) }
	best := func(f func()) float64 {
		ns := int64(-1)
		for range 5 {
			t0 := nanotime()
			f()
			if d := nanotime() - t0; ns < 0 || d < ns {
				ns = d
			}
			p.buf.Reset()
		}
		return float64(ns) / calibrationCalls
	}
	calls := func() { // as generated code calls a function (Proc.Trace)
		for range calibrationCalls {
			if p.Trace(sub) {
				Entry0_0(p, sub, noop)
			}
		}
	}
	// No throttle while the records are measured: with a low
	// throttle_calls the calls stopped being traced within the rounds.
	c := recordingCost{record: best(calls) / 2}
	if r.thrCalls <= 0 {
		return c
	}
	p.thr = make([]throttle, len(r.prog.Subs))
	// A throttled call is timed on the gate's path unless a LOCAL
	// request adds records on entering its subprogram (localAt): measure
	// on a subprogram without one where there is such, as most are
	// (noop's check follows sub).
	for s := 1; s < len(r.prog.Subs); s++ {
		if !p.localAt(s) {
			sub = s
			break
		}
	}
	th := &p.thr[sub]
	th.off, th.recursive = true, true // every call takes the entry and is timed, as a recursion's outermost ones
	c.timed = best(calls)
	if p.localAt(sub) {
		return c
	}
	c.sample = -1
	for range 5 {
		th.sampleNs, th.samples = 0, 0
		calls()
		if ns := th.sampleNs / max(th.samples, 1); c.sample < 0 || ns < c.sample {
			c.sample = ns
		}
	}
	return c
}

// recordingRec writes p's estimated recording time since the last one (a
// lane's goroutine ends with one, the lane's next goroutine counts anew);
// throttledCallsRecs comes after it.
func (p *Proc) recordingRec() {
	c := p.r.recCost
	if c.record == 0 || !p.on(trace.TagTraceOverhead) {
		return
	}
	recs := p.tr.nrec + int64(p.buf.Records())
	ns := float64(recs-p.tr.nrecAt) * c.record
	p.tr.nrecAt = recs
	for sub := range p.thr { // counted since throttledCallsRecs, which follows, cleared them
		ns += float64(p.thr[sub].offCalls) * c.timed
	}
	p.begin(trace.TagTraceOverhead, p.id)
	p.buf.Double(ns / 1e3)
	p.buf.Int(trace.OverheadRecording)
	p.end()
}
