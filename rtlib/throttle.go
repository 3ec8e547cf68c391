package rtlib

import "github.com/svmc/svmc/trace"

// Throttling, as TAU does it: a subprogram whose region a processor has
// traced ThrottleCalls times with a mean inclusive time under ThrottleUs
// stops being traced on that processor (a sort's Less and Swap, accessors),
// so that tiny frequent calls do not flood the trace. trace-throttled says
// when; the calls made afterwards are counted and written as one
// throttled-calls record per subprogram when the processor ends, so the
// report still has every call and its time. A subprogram a LOCAL request
// names is never throttled.
//
// A throttled call costs a few counter updates (untracedEnter and
// untracedExit; Enter and Exit take that path when no LOCAL request can
// change the trace mask inside a region): no record, no region, and a
// clock reading for one outermost call in sampleEvery only. Its time is
// the inclusive time of the outermost untraced calls (a recursion counts
// once, and calls inside a traced call of the same subprogram, whose time
// that call has, not at all), estimated from those samples.

// throttle is one subprogram's calls on one processor.
type throttle struct {
	calls int64   // traced calls
	us    float64 // their inclusive time
	off   bool    // throttled: no longer traced
	// report: throttled where its records were traced, so its
	// throttled-calls record is written at the end whatever the trace
	// mask is then (a LOCAL request's region has closed by then)
	report bool
	// after throttling: calls, calls that were not inside another
	// untraced call of the subprogram, and their time in ns (offNs, for
	// the slow path's timed calls; sampleNs over samples for the fast one)
	offCalls   int64
	outerCalls int64
	offNs      float64
	open       int   // untraced calls open now (fast path)
	tracedOpen int   // traced calls open now: they hold the untraced ones' time
	t0         int64 // start of the sampled call, when sampling
	sampling   bool
	sampleNs   int64
	samples    int64
}

// sampleEvery: one outermost untraced call in sampleEvery is timed.
const sampleEvery = 16

// untracedEnter counts a call of a throttled subprogram that opens no
// region.
func (th *throttle) untracedEnter() {
	th.offCalls++
	th.open++
	if th.open == 1 && th.tracedOpen == 0 {
		th.outerCalls++
		if th.outerCalls%sampleEvery == 1 {
			th.t0, th.sampling = nanotime(), true
		}
	}
}

// untracedExit closes a call untracedEnter counted.
func (th *throttle) untracedExit() {
	th.open--
	if th.open == 0 && th.sampling {
		th.sampleNs += nanotime() - th.t0
		th.samples++
		th.sampling = false
	}
}

// untracedUs is the time of the untraced calls in µs: measured on the
// slow path, estimated from the samples on the fast one.
func (th *throttle) untracedUs() float64 {
	ns := th.offNs
	if th.samples > 0 {
		ns += float64(th.sampleNs) / float64(th.samples) * float64(th.outerCalls)
	}
	return ns / 1e3
}

// throttled reports whether sub is no longer traced on p.
func (p *Proc) throttled(sub int) bool {
	return uint(sub) < uint(len(p.thr)) && p.thr[sub].off
}

// tracedCall counts a traced call of sub of us µs and throttles sub when
// it qualifies.
func (p *Proc) tracedCall(sub int, us float64) {
	if uint(sub) >= uint(len(p.thr)) {
		return
	}
	th := &p.thr[sub]
	th.calls++
	th.us += us
	r := p.r
	if th.calls < r.thrCalls || th.us >= r.thrUs*float64(th.calls) || r.req.Named(sub) {
		return
	}
	th.off = true
	th.report = p.on(trace.TagThrottledCalls)
	if p.on(trace.TagTraceThrottled) {
		p.begin(trace.TagTraceThrottled, p.id)
		p.buf.Int(sub)
		p.buf.Int(int(th.calls))
		p.buf.Double(th.us / float64(th.calls))
		p.end()
	}
}

// throttledCall counts an untraced call of sub of ns nanoseconds.
func (p *Proc) throttledCall(sub int, ns float64) {
	th := &p.thr[sub]
	th.offCalls++
	th.offNs += ns
}

// enterThrottled takes the fast path of Enter for a throttled subprogram
// and reports whether it did.
func (p *Proc) enterThrottled(sub int) bool {
	if p.r.hasLocal || uint(sub) >= uint(len(p.thr)) || !p.thr[sub].off {
		return false
	}
	p.thr[sub].untracedEnter()
	return true
}

// exitThrottled takes the fast path of Exit for a call enterThrottled
// counted and reports whether it did. Calls nest, so while untraced calls
// of sub are open, the Exit is one of theirs.
func (p *Proc) exitThrottled(sub int) bool {
	if uint(sub) >= uint(len(p.thr)) || p.thr[sub].open == 0 {
		return false
	}
	p.thr[sub].untracedExit()
	return true
}

// throttledCallsRecs writes throttled-calls for every subprogram throttled
// on p: when p ends.
func (p *Proc) throttledCallsRecs() {
	for sub := range p.thr {
		th := &p.thr[sub]
		if th.offCalls == 0 || !th.report {
			continue
		}
		p.begin(trace.TagThrottledCalls, p.id)
		p.buf.Int(sub)
		p.buf.Int(int(th.offCalls))
		p.buf.Double(th.untracedUs())
		p.end()
	}
}
