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
// Once throttled, most calls do not even take the traced entry (Trace):
// gate[sub] lets gateEvery-1 calls in gateEvery run as at stage 0 (a
// decrement and a branch); the one that takes the entry counts them. The
// time of the untraced calls is their inclusive time outside any traced
// call of the subprogram (a traced call holds the time of the calls inside
// it, and a recursion counts once):
//
//   - a subprogram whose traced calls never ran inside one another: the
//     calls that take the entry are timed, and their mean stands for every
//     call (a sample that ran far longer than the traced calls' mean, as
//     a preempted one does, counts as capNs, since it stands for
//     gateEvery calls);
//   - a recursive one: every outermost call takes the entry (the gate is
//     emptied whenever none is open) and is timed; the calls inside run
//     through the gate. A sample of nested calls could not tell which of
//     them are outermost.
//
// Where a LOCAL request adds records on entering the subprogram (by its
// name, or through *), every call takes the entry, and its time is
// measured: the mask inside the call must be the one the request gives.
// A LOCAL request on anything else leaves the gate as it is (a narrowed
// request for one loop made every throttled call of a sort take the
// entry, ten times the untraced run).

// throttle is one subprogram's calls on one processor.
type throttle struct {
	calls int64   // traced calls
	us    float64 // their inclusive time
	off   bool    // throttled: no longer traced
	// report: throttled where its records were traced, so its
	// throttled-calls record is written at the end whatever the trace
	// mask is then (a LOCAL request's region has closed by then)
	report bool
	// recursive: a traced call began inside another one
	recursive bool
	// after throttling: calls that took the entry, those that were not
	// inside another untraced call of the subprogram, and the time of the
	// slow path's calls (offNs, measured) and of the timed ones (sampleNs
	// over samples)
	offCalls   int64
	outerCalls int64
	offNs      float64
	open       int   // untraced calls open now (entered through the entry)
	tracedOpen int   // traced calls open now: they hold the untraced ones' time
	t0         int64 // start of the timed call
	sampling   bool
	sampleNs   int64
	samples    int64
	capNs      int64 // the longest a sample counts: 100 times the traced calls' mean
	// armed: the calls the gate lets skip the entry since it was last
	// armed; fastCalls: those that did, before that
	armed     int32
	fastCalls int64
}

// gateEvery: one call in gateEvery of a throttled subprogram takes the
// traced entry.
const gateEvery = 256

// gated accounts for a call of sub that took the traced entry because its
// gate ran out (Trace): the calls the gate let through before it are
// throttled calls, and the gate is armed again for the calls after this
// one. One more is added for the check the body makes when the entry
// calls it.
func (p *Proc) gated(sub int) {
	var n int32
	if uint(sub) < uint(len(p.thr)) {
		th := &p.thr[sub]
		th.fastCalls += int64(th.armed)
		if th.off && !p.localAt(sub) {
			n = gateEvery - 1
		}
		th.armed = n
	}
	p.gate[sub] = n + 1
}

// fastLeft adds the calls the gate of sub let through since it was last
// armed to its throttled calls and empties the gate: the next call takes
// the entry.
func (p *Proc) fastLeft(sub int) {
	th := &p.thr[sub]
	if g := p.gate[sub]; g >= 0 && g <= th.armed {
		th.fastCalls += int64(th.armed - g)
	}
	th.armed, p.gate[sub] = 0, 0
}

// untracedEnter counts a call of a throttled subprogram that took the
// entry and opens no region.
func (p *Proc) untracedEnter(sub int) {
	th := &p.thr[sub]
	th.offCalls++
	th.open++
	if th.open == 1 && th.tracedOpen == 0 {
		th.outerCalls++
		th.t0, th.sampling = nanotime(), true
	} else if th.open > 1 {
		th.recursive = true // a recursion the traced calls did not show: from now on
	}
}

// untracedExit closes a call untracedEnter counted.
func (p *Proc) untracedExit(sub int) {
	th := &p.thr[sub]
	th.open--
	if th.open > 0 {
		return
	}
	if th.sampling {
		ns := max(nanotime()-th.t0-p.r.recCost.sample, 0)
		if !th.recursive {
			ns = min(ns, th.capNs)
		}
		th.sampleNs += ns
		th.samples++
		th.sampling = false
	}
	if th.recursive {
		p.fastLeft(sub) // the next call is outermost: it takes the entry
	}
}

// untracedUs is the time of the untraced calls in µs: measured on the
// slow path and for a recursive subprogram's outermost calls, estimated
// from the samples otherwise (every call is outermost then).
func (th *throttle) untracedUs() float64 {
	ns := th.offNs
	switch {
	case th.recursive:
		ns += float64(th.sampleNs)
	case th.samples > 0:
		ns += float64(th.sampleNs) / float64(th.samples) * float64(th.outerCalls+th.fastCalls)
	}
	return ns / 1e3
}

// localAt reports whether a LOCAL request adds records on p on entering
// subprogram sub itself (its region 0).
func (p *Proc) localAt(sub int) bool {
	return p.r.hasLocal && p.r.req.Enter(p.reqNode(), sub, 0, 0) != 0
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
	th.capNs = max(int64(100*th.us/float64(th.calls)*1e3), 1000)
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
	if uint(sub) >= uint(len(p.thr)) || !p.thr[sub].off || p.localAt(sub) {
		return false
	}
	p.untracedEnter(sub)
	return true
}

// exitThrottled takes the fast path of Exit for a call enterThrottled
// counted and reports whether it did. Calls nest, so while untraced calls
// of sub are open, the Exit is one of theirs.
func (p *Proc) exitThrottled(sub int) bool {
	if uint(sub) >= uint(len(p.thr)) || p.thr[sub].open == 0 {
		return false
	}
	p.untracedExit(sub)
	return true
}

// throttledCallsRecs writes throttled-calls for every subprogram throttled
// on p and clears their counts: when p ends, and when a lane's goroutine
// ends (the lane's next goroutine counts anew, its throttling kept).
func (p *Proc) throttledCallsRecs() {
	for sub := range p.thr {
		p.fastLeft(sub)
		th := &p.thr[sub]
		if th.offCalls+th.fastCalls > 0 && th.report {
			p.begin(trace.TagThrottledCalls, p.id)
			p.buf.Int(sub)
			p.buf.Int(int(th.offCalls + th.fastCalls))
			p.buf.Double(th.untracedUs())
			p.end()
		}
		th.offCalls, th.fastCalls, th.outerCalls, th.offNs, th.sampleNs, th.samples = 0, 0, 0, 0, 0, 0
	}
}
