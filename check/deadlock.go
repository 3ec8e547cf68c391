package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svmc/svmc/trace"
)

// blockedOn is what a processor still waits for at the end of a run that
// stopped: its call (or svmc wait) and the processors that could end it.
type blockedOn struct {
	proc    int
	c       *call     // the message call, or nil
	w       *syncWait // svmc's own wait, or nil
	targets []int
	any     bool // any one of targets would do (a wildcard receive)
}

// isBlocked is the wait of processor p at the end, nil if none.
func (a *analyser) isBlocked(p int) *blockedOn {
	if p < 0 || p >= len(a.procs) {
		return nil
	}
	ps := a.procs[p]
	b := &blockedOn{proc: p}
	switch {
	case ps.open != nil:
		c := ps.open
		b.c = c
		switch c.kind {
		case trace.CallRecv, trace.CallProbe:
			b.targets, b.any = a.peers(c.peer, p)
		case trace.CallSend, trace.CallSsend:
			b.targets = []int{c.peer}
		case trace.CallSendrecv:
			b.targets, b.any = a.peers(c.rpeer, p)
			if !b.any {
				b.targets = append(b.targets, c.peer)
			}
		case trace.CallWait, trace.CallTest:
			if q := ps.reqs[c.req]; q != nil {
				b.targets, b.any = a.peers(q.peer, p)
			}
		case trace.CallWaitAll:
			for _, q := range sortedReqs(ps.reqs) {
				t, _ := a.peers(q.peer, p)
				b.targets = append(b.targets, t...)
			}
		default:
			if trace.IsCollective(c.kind) {
				in := map[int]bool{}
				for _, m := range a.colls[[2]int{c.group, c.id}] {
					in[m.proc] = true
				}
				for q := range a.procs {
					if !in[q] {
						b.targets = append(b.targets, q)
					}
				}
			}
		}
	case ps.waiting != nil:
		w := ps.waiting
		b.w = w
		switch w.tag {
		case trace.TagWaitLockStart, trace.TagWaitCritSecStart:
			key := w.key
			for q, qs := range a.procs {
				for _, h := range qs.held {
					if h.key == key && q != p {
						b.targets = append(b.targets, q)
					}
				}
			}
		default: // a barrier: the processors not at it
			for q, qs := range a.procs {
				if q != p && (qs.waiting == nil || qs.waiting.sub != w.sub || qs.waiting.dir != w.dir) {
					b.targets = append(b.targets, q)
				}
			}
		}
	default:
		return nil
	}
	return b
}

// peers are the processors a receive from src can hear from.
func (a *analyser) peers(src, self int) ([]int, bool) {
	if src >= 0 {
		return []int{src}, false
	}
	var out []int
	for q := range a.procs {
		if q != self {
			out = append(out, q)
		}
	}
	return out, true
}

// inMessageCall reports whether processor q is blocked in a message call.
func (a *analyser) inMessageCall(q int) bool {
	return q >= 0 && q < len(a.procs) && a.procs[q].open != nil
}

// blocked diagnoses the processors still waiting at the end of a stopped
// run: receives that no send can match (nonpaired recv), waits for
// processors that ended (real hang-up) and cycles of waits (real
// deadlock).
func (a *analyser) blocked(explained map[*call]bool) {
	var bs []*blockedOn
	byProc := map[int]*blockedOn{}
	for p := range a.procs {
		if b := a.isBlocked(p); b != nil {
			if b.c != nil && explained[b.c] {
				continue
			}
			bs = append(bs, b)
			byProc[p] = b
		}
	}
	// Receives that a message already sent would have matched but for
	// its tag or source; receives whose source sends nothing any more.
	for _, b := range bs {
		c := b.c
		if c == nil || explained[c] {
			continue
		}
		src, tag, ok := a.receiveOf(c)
		if !ok {
			continue
		}
		if w := a.tookIt(c.proc, src, tag); w != nil {
			f, l := a.pos(w.site)
			a.report(&Diagnosis{Class: RealHangup, Processors: []int{c.proc, src}, File: f, Line: l,
				Message: fmt.Sprintf("the wildcard receive at %s took processor %d's message, and the receive at %s (from %d only) now waits for one that never comes: a message race",
					a.where(w.site), src, a.where(c.site), src),
				Calls: []string{a.describe(w.c), a.describe(c)}})
			explained[c] = true
			// The message the wildcard left is the same cause.
			for _, s := range a.sends {
				if s.peer == c.proc && s.proc != src && (w.tag < 0 || w.tag == s.tag) {
					explained[s] = true
				}
			}
			continue
		}
		if s := a.mismatch(c.proc, src, tag); s != nil {
			f, l := a.pos(c.site)
			// Which half of the match failed is the fix: x543's ring
			// received from the next processor, the message came from
			// the previous one, with the tag asked for.
			differs := fmt.Sprintf("processor %d sent it a message with tag %d at %s instead, never received: a receive with tag %d (or rtlib.AnyTag) would take it", s.proc, s.tag, a.where(s.site), s.tag)
			if src >= 0 && src != s.proc {
				differs = fmt.Sprintf("processor %d sent it one with tag %d at %s, never received: a receive from processor %d (or rtlib.AnySource) would take it", s.proc, s.tag, a.where(s.site), s.proc)
			}
			a.report(&Diagnosis{Class: NonpairedRecv, Processors: []int{c.proc, s.proc}, File: f, Line: l,
				Message: fmt.Sprintf("the receive at %s (from %s, tag %s) has no matching send: %s",
					a.where(c.site), peerText(src), tagText(tag), differs),
				Calls: []string{a.describe(c), a.describe(s)}})
			explained[c], explained[s] = true, true
			continue
		}
		if src >= 0 && !a.inMessageCall(src) && a.finishedWork(src) {
			f, l := a.pos(c.site)
			what := "has ended"
			if ob := a.isBlocked(src); ob != nil && ob.w != nil {
				what = "has finished its part (it waits at the " + a.waitName(ob.w) + ", " + a.dirWhere(ob.w.sub, ob.w.dir) + ") without sending it"
			}
			a.report(&Diagnosis{Class: RealHangup, Processors: []int{c.proc, src}, File: f, Line: l,
				Message: fmt.Sprintf("the receive at %s waits for ever for a message from processor %d, which %s", a.where(c.site), src, what),
				Calls:   []string{a.describe(c)}})
			explained[c] = true
		}
	}
	// Waits for processors that ended: hang-ups.
	for _, b := range bs {
		if b.c != nil && explained[b.c] {
			continue
		}
		allEnded := len(b.targets) > 0
		for _, q := range b.targets {
			if _, blocked := byProc[q]; blocked || !a.proc(q).ended {
				allEnded = false
			}
		}
		if allEnded {
			f, l := a.blockPos(b)
			a.report(&Diagnosis{Class: RealHangup, Processors: []int{b.proc}, File: f, Line: l,
				Message: fmt.Sprintf("processor %d waits %s for processor(s) %v, which ended", b.proc, a.blockText(b), b.targets),
				Calls:   a.blockCalls([]*blockedOn{b})})
			if b.c != nil {
				explained[b.c] = true
			}
			b.targets = nil
		}
	}
	// Cycles among the rest.
	consequence := func(b *blockedOn) bool {
		// It waits for a processor whose wait is diagnosed already: the
		// same cause.
		for _, q := range b.targets {
			if y := byProc[q]; y != nil && y.c != nil && explained[y.c] {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	for _, b := range bs {
		if b.c != nil && explained[b.c] {
			continue
		}
		cyc := a.cycleFrom(b, byProc, explained)
		if len(cyc) == 0 {
			continue
		}
		var ps []int
		for _, x := range cyc {
			ps = append(ps, x.proc)
		}
		slices.Sort(ps)
		key := fmt.Sprint(ps)
		if seen[key] {
			continue
		}
		seen[key] = true
		// The line to change: the message call of the lowest processor in
		// the cycle (a barrier or lock wait only when there is none).
		lead := cyc[0]
		for _, x := range cyc {
			if x.c != nil && (lead.c == nil || x.proc < lead.proc) || x.c == nil && lead.c == nil && x.proc < lead.proc {
				lead = x
			}
		}
		f, l := a.blockPos(lead)
		var parts []string
		for _, x := range cyc {
			parts = append(parts, fmt.Sprintf("processor %d %s", x.proc, a.blockText(x)))
		}
		a.report(&Diagnosis{Class: RealDeadlock, Processors: ps, File: f, Line: l,
			Message: "a cycle of waits: " + strings.Join(parts, "; "), Calls: a.blockCalls(cyc)})
		for _, x := range cyc {
			if x.c != nil {
				explained[x.c] = true
			}
		}
	}
	// Message waits left: hang-ups, unless another diagnosis is their cause.
	for _, b := range bs {
		if b.c == nil || explained[b.c] || consequence(b) {
			continue
		}
		f, l := a.blockPos(b)
		a.report(&Diagnosis{Class: RealHangup, Processors: []int{b.proc}, File: f, Line: l,
			Message: fmt.Sprintf("processor %d waits for ever %s", b.proc, a.blockText(b)), Calls: a.blockCalls([]*blockedOn{b})})
		explained[b.c] = true
	}
}

// finishedWork reports whether processor q is done with its part of the
// construct: ended, or waiting at the implicit barrier that ends it.
func (a *analyser) finishedWork(q int) bool {
	ps := a.proc(q)
	if ps.ended {
		return true
	}
	if w := ps.waiting; w != nil && w.tag == trace.TagWaitBarrierStart {
		if s := a.prog.Sub(w.sub); s != nil {
			if d := s.Directive(w.dir); d != nil {
				return d.ImplicitBarrier
			}
		}
	}
	return false
}

// waitName names an svmc wait for messages.
func (a *analyser) waitName(w *syncWait) string {
	if w.tag == trace.TagWaitBarrierStart {
		if s := a.prog.Sub(w.sub); s != nil {
			if d := s.Directive(w.dir); d != nil && d.ImplicitBarrier {
				return "end of the " + d.Kind
			}
		}
		return "barrier"
	}
	return trace.Lookup(w.tag).Name
}

// tookIt is an earlier wildcard receive of processor dst that took a
// message of src a blocked receive from src with tag could have taken.
func (a *analyser) tookIt(dst, src, tag int) *wildcard {
	if src < 0 {
		return nil
	}
	ws := a.proc(dst).wild
	for i := len(ws) - 1; i >= 0; i-- {
		if w := &ws[i]; w.src == src && (tag < 0 || w.c.mtag == tag) {
			return w
		}
	}
	return nil
}

// receiveOf is the source and tag a blocked call waits to receive from.
func (a *analyser) receiveOf(c *call) (src, tag int, ok bool) {
	switch c.kind {
	case trace.CallRecv, trace.CallProbe:
		return c.peer, c.tag, true
	case trace.CallSendrecv:
		return c.rpeer, c.rtag, true
	case trace.CallWait:
		if q := a.procs[c.proc].reqs[c.req]; q != nil && q.kind == trace.CallIrecv {
			return q.peer, q.tag, true
		}
	}
	return 0, 0, false
}

// mismatch is an unreceived send to processor dst that a receive from src
// with tag would take but for one of the two.
func (a *analyser) mismatch(dst, src, tag int) *call {
	var best *call
	for _, s := range a.sends {
		if s.peer != dst || s.received {
			continue
		}
		srcOK := src < 0 || src == s.proc
		tagOK := tag < 0 || tag == s.tag
		if srcOK != tagOK && (best == nil || s.proc < best.proc || s.proc == best.proc && s.seq < best.seq) {
			best = s
		}
	}
	return best
}

// cycleFrom finds a cycle of waits through b among the blocked
// processors: a path that follows, from each, a target that is blocked
// too and comes back.
func (a *analyser) cycleFrom(b *blockedOn, byProc map[int]*blockedOn, explained map[*call]bool) []*blockedOn {
	var path []*blockedOn
	on := map[int]int{}
	var walk func(x *blockedOn) []*blockedOn
	visited := map[int]bool{}
	walk = func(x *blockedOn) []*blockedOn {
		if i, ok := on[x.proc]; ok {
			return slices.Clone(path[i:])
		}
		if visited[x.proc] {
			return nil
		}
		visited[x.proc] = true
		on[x.proc] = len(path)
		path = append(path, x)
		for _, q := range x.targets {
			y := byProc[q]
			if y == nil || y.c != nil && explained[y.c] {
				continue
			}
			if c := walk(y); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		delete(on, x.proc)
		return nil
	}
	return walk(b)
}

func (a *analyser) blockPos(b *blockedOn) (string, int) {
	if b.c != nil {
		return a.pos(b.c.site)
	}
	if s := a.prog.Sub(b.w.sub); s != nil {
		if d := s.Directive(b.w.dir); d != nil {
			return d.Pos.File, d.Pos.Line
		}
	}
	return "", 0
}

func (a *analyser) blockText(b *blockedOn) string {
	if b.c != nil {
		t := fmt.Sprintf("in %s at %s", trace.CallKindName(b.c.kind), a.where(b.c.site))
		if len(b.targets) > 0 {
			t += fmt.Sprintf(" waits for %v", b.targets)
		}
		return t
	}
	return fmt.Sprintf("waits (%s) at %s for %v", trace.Lookup(b.w.tag).Name, a.dirWhere(b.w.sub, b.w.dir), b.targets)
}

func (a *analyser) blockCalls(bs []*blockedOn) []string {
	var out []string
	for _, b := range bs {
		if b.c != nil {
			out = append(out, a.describe(b.c))
		} else {
			out = append(out, fmt.Sprintf("processor %d: %s at %s", b.proc, trace.Lookup(b.w.tag).Name, a.dirWhere(b.w.sub, b.w.dir)))
		}
	}
	return out
}

// potentialDeadlocks looks for a cycle among the blocking operations when
// standard sends wait for their receives: the run completed only because
// those sends were buffered.
func (a *analyser) potentialDeadlocks() {
	n := len(a.ops)
	color := make([]uint8, n) // 0 new, 1 on the stack, 2 done
	parent := make([]int32, n)
	type frame struct {
		node int32
		next int // next dependency to visit: -1 prev, then deps
	}
	for start := range a.ops {
		if color[start] != 0 {
			continue
		}
		stack := []frame{{int32(start), -1}}
		color[start] = 1
		parent[start] = -1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			nd := &a.ops[f.node]
			var dep int32 = -1
			if f.next == -1 {
				dep = nd.prev
				f.next = 0
			} else if f.next < len(nd.deps) {
				dep = nd.deps[f.next]
				f.next++
			} else {
				color[f.node] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			if dep < 0 {
				continue
			}
			switch color[dep] {
			case 0:
				color[dep] = 1
				parent[dep] = f.node
				stack = append(stack, frame{dep, -1})
			case 1:
				// A cycle: dep ... f.node on the stack.
				var cyc []int32
				for i := len(stack) - 1; i >= 0; i-- {
					cyc = append(cyc, stack[i].node)
					if stack[i].node == dep {
						break
					}
				}
				if a.reportPotential(cyc) {
					return
				}
			}
		}
	}
}

// reportPotential reports a cycle of blocking operations that involves a
// standard send; it reports whether it did.
func (a *analyser) reportPotential(cyc []int32) bool {
	var sends []*opNode
	procs := map[int]bool{}
	for _, i := range cyc {
		nd := &a.ops[i]
		procs[int(nd.proc)] = true
		if nd.syncDep {
			sends = append(sends, nd)
		}
	}
	if len(sends) == 0 || len(procs) < 2 {
		return false
	}
	slices.SortFunc(sends, func(x, y *opNode) int { return int(x.proc - y.proc) })
	var ps []int
	for p := range procs {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	var parts, calls []string
	for _, s := range sends {
		parts = append(parts, fmt.Sprintf("processor %d's Send at %s", s.proc, a.where(int(s.site))))
		calls = append(calls, fmt.Sprintf("processor %d: Send at %s", s.proc, a.where(int(s.site))))
	}
	f, l := a.pos(int(sends[0].site))
	a.report(&Diagnosis{Class: PotentialDeadlk, Processors: ps, File: f, Line: l,
		Message: strings.Join(parts, " and ") + " each wait for a receive that is posted after another of them: the run completed only because standard sends were buffered; with less buffering (msg_buffer 0) it deadlocks. Post the receives first (Irecv), or use Sendrecv",
		Calls:   calls})
	return true
}

// lockCycles reports lock-order cycles between processors (held A, then
// asked for B on one; held B, then asked for A on another): a deadlock
// that did not happen this time.
func (a *analyser) lockCycles() {
	for k, e := range a.lockOrd {
		back, ok := a.lockOrd[[2]string{k[1], k[0]}]
		if !ok || back.proc == e.proc || k[0] > k[1] {
			continue
		}
		file, line := "", 0
		where := a.dirWhere(e.dir[0], e.dir[1])
		if s := a.prog.Sub(e.dir[0]); s != nil {
			if d := s.Directive(e.dir[1]); d != nil {
				file, line = d.Pos.File, d.Pos.Line
			}
		}
		ps := []int{min(e.proc, back.proc), max(e.proc, back.proc)}
		a.report(&Diagnosis{Class: PotentialDeadlk, Processors: ps, File: file, Line: line,
			Message: fmt.Sprintf("lock order: processor %d held %s and asked for %s at %s; processor %d held %s and asked for %s at %s: run at the same time they deadlock. Take the locks in one order",
				e.proc, k[0], k[1], where, back.proc, k[1], k[0], a.dirWhere(back.dir[0], back.dir[1]))})
	}
}

// mutexDeadlock diagnoses a deadlocked run whose processors or goroutines
// still waited for sync mutexes of the program: for different mutexes,
// each waiter likely holds one another waits for (locked in different
// orders: a real deadlock); all for one, no one unlocks it (a real
// hang-up: the holder returned, broke off or panicked without Unlock).
func (a *analyser) mutexDeadlock() {
	var waiters []int
	mutexes := map[int32]bool{}
	for q, ps := range a.procs {
		if ps.mutex != nil {
			waiters = append(waiters, q)
			mutexes[ps.mutex.addr] = true
		}
	}
	if len(waiters) == 0 {
		return
	}
	var procs []int
	var calls []string
	for _, q := range waiters {
		ps := a.procs[q]
		p := q
		if ps.lane {
			p = ps.owner
		}
		if !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
		calls = append(calls, fmt.Sprintf("%s: %s (mutex %#x)", a.waiter(q), a.mutexWhere(ps.mutex.site), uint32(ps.mutex.addr)))
	}
	first := a.procs[waiters[0]].mutex.site
	var f string
	var l int
	if m := a.prog.MutexSite(first); m != nil {
		f, l = m.Pos.File, m.Pos.Line
	}
	if len(mutexes) > 1 {
		a.report(&Diagnosis{Class: RealDeadlock, Processors: procs, File: f, Line: l,
			Message: fmt.Sprintf("%d waits for %d different sync mutexes lasted until the run deadlocked: each waiter likely holds a mutex another waits for, the mutexes locked in different orders (one goroutine locks a then b, another b then a); lock them in one order everywhere (by an id or index of the data they guard), or hold one at a time",
				len(waiters), len(mutexes)),
			Calls: calls})
		return
	}
	a.report(&Diagnosis{Class: RealHangup, Processors: procs, File: f, Line: l,
		Message: fmt.Sprintf("%d waits for one sync mutex (%s) lasted until the run deadlocked: no one unlocks it (a path that locked it returned, continued, broke off or panicked without Unlock: write defer mu.Unlock() right after mu.Lock())",
			len(waiters), a.mutexWhere(first)),
		Calls: calls})
}

// waiter names stream q: a processor, or a goroutine one started.
func (a *analyser) waiter(q int) string {
	ps := a.procs[q]
	if !ps.lane {
		return fmt.Sprintf("processor %d", q)
	}
	return fmt.Sprintf("the goroutine of processor %d started at %s", ps.owner, ps.started)
}

// mutexWhere is a mutex site's lock method and position.
func (a *analyser) mutexWhere(site int) string {
	if m := a.prog.MutexSite(site); m != nil {
		return m.Func + " at " + m.Pos.String()
	}
	return fmt.Sprintf("mutex site %d", site)
}
