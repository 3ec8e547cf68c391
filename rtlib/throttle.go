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

// throttle is one subprogram's calls on one processor.
type throttle struct {
	calls int64   // traced calls
	us    float64 // their inclusive time
	off   bool    // throttled: no longer traced
	// after throttling: calls and inclusive time in ns
	offCalls int64
	offNs    float64
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

// throttledCallsRecs writes throttled-calls for every subprogram throttled
// on p: when p ends.
func (p *Proc) throttledCallsRecs() {
	for sub := range p.thr {
		th := &p.thr[sub]
		if th.offCalls == 0 || !p.on(trace.TagThrottledCalls) {
			continue
		}
		p.begin(trace.TagThrottledCalls, p.id)
		p.buf.Int(sub)
		p.buf.Int(int(th.offCalls))
		p.buf.Double(th.offNs / 1e3)
		p.end()
	}
}
