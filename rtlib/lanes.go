package rtlib

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/trace"
)

// Goroutine lanes. A goroutine that a processor's code starts belongs to
// that processor. While the processor traces anything, the goroutine gets
// a lane of its own for the trace: node id N + k, k the processor's lane
// not in use by another of its goroutines (so a lane holds one goroutine
// at a time and a processor has as many lanes as it had goroutines alive
// at once). The lane opens with goroutine-start (the processor, the
// goroutine's number in the run, the go statement) and closes with
// goroutine-end; the regions of the instrumented functions the goroutine
// runs lie between, traced as the processor traces them (its request
// mask when the go statement ran, LOCAL requests of the processor). The
// tools count a lane's time as its processor's. Its constructs behave as
// on a detached Proc (see Current): a pdo runs serially on the goroutine,
// a barrier returns at once.
//
// svmc rewrites every go statement (codegen/goroutines.go): GoLane runs
// with the statement, in the starting goroutine; GoEnter and GoRecover
// first thing in the new one. Without a trace, GoLane returns nil after
// one lookup and the two do nothing more than Recover.

// maxLanes bounds the lanes of a run; the goroutines beyond run untraced
// (said once).
const maxLanes = trace.MaxLanes

// laneSet is the run's lanes (under mu; not the run's mutex, which the
// writer may take while a lane hands it a full buffer). A lane is a Proc
// kept for the run: when its goroutine returns it waits in its
// processor's free list, its buffer with it, for the next goroutine.
type laneSet struct {
	mu     sync.Mutex
	all    []*Proc         // every lane, by id − N; finish seals them
	free   map[int][]*Proc // per processor, its lanes not in use
	seq    int             // goroutines given a lane
	closed bool            // the run is ending: no new lanes
	full   bool            // maxLanes was reached (said)
	// untraced counts per processor the goroutines that got no lane
	// (goroutines-untraced after the run).
	untraced map[int]int
}

// hurried reports whether a second signal asked the run to end at once.
func (r *run) hurried() bool {
	select {
	case <-r.hurry:
		return true
	default:
		return false
	}
}

// inUse is the number of lanes a goroutine holds (under mu).
func (ls *laneSet) inUse() int {
	n := len(ls.all)
	for _, f := range ls.free {
		n -= len(f)
	}
	return n
}

// GoLane returns the lane of the goroutine the calling code is about to
// start, or nil when the goroutine gets none (no trace, the caller is no
// processor of the run or traces nothing). Between ranks, or with a file
// of output per processor, an untraced goroutine gets an untraced one that
// holds only where it prints: as the code that started it (a goroutine of
// processor 0's copy of exclusive code on another rank prints nowhere, one
// of processor 1 into processor 1's file).
//
// Any other goroutine a processor starts gets the processor's starter: a
// Proc that only says who started it, so that a panic in it names the
// processor (GoRecover) at no cost but the lookup GoLane makes anyway.
func GoLane() *Proc {
	r := activeRun.Load()
	if r == nil {
		return nil
	}
	if r.w != nil {
		if parent := r.tracedParent(); parent != nil {
			return r.newLane(ticketOf(parent))
		}
	}
	parent := gProcs.load(getg())
	if parent == nil || parent.r != r {
		return nil
	}
	if r.w == nil && (r.ranks != nil || r.outEach) {
		l := &Proc{id: parent.id, r: r, aps: r.aps, detached: true}
		l.out = laneOutOf(parent)
		return l
	}
	return parent.starter()
}

// starter is the Proc GoLane gives the untraced goroutines processor p
// starts: made once, it holds p's number and nothing else (GoEnter and
// GoRecover pass over it). Only p's own goroutine calls it.
func (p *Proc) starter() *Proc {
	if p.detached {
		return nil
	}
	if p.startTag == nil {
		p.startTag = &Proc{id: p.id, r: p.r, detached: true, tagOnly: true}
	}
	return p.startTag
}

// startedBy is the processor that started the goroutine of GoLane's l, or
// -1 when unknown.
func (l *Proc) startedBy() int {
	switch {
	case l == nil:
		return -1
	case l.lane:
		return l.owner
	}
	return l.id
}

// tracedParent is the processor or lane of r that runs on the calling
// goroutine and is traced, whose goroutines get lanes; nil if none.
func (r *run) tracedParent() *Proc {
	parent := gProcs.load(getg())
	if parent == nil || parent.r != r || !parent.track || parent.detached && !parent.lane {
		return nil
	}
	return parent
}

// laneTicket is what a lane takes from the code that starts its
// goroutine: the processor it belongs to, the request mask in force and
// where it prints.
type laneTicket struct {
	r     *run
	owner int
	mask  request.Mask
	out   procOut
	l     *Proc // untraced: the Proc GoLane gave (nil: none)
}

func ticketOf(parent *Proc) laneTicket {
	t := laneTicket{r: parent.r, owner: parent.id, mask: parent.mask}
	if parent.lane {
		t.owner = parent.owner
	}
	t.out = laneOutOf(parent)
	return t
}

// takeTicket is GoLane for a function that a call runs on a goroutine of
// its own later, or maybe never (time.AfterFunc, context.AfterFunc, an
// errgroup's TryGo): the calling code's part is taken now and the lane
// only when the function runs (laneTicket.lane), so that a timer stopped
// before it fired holds none: every timeout a program sets and stops
// would keep a lane until the run's 1024 were gone.
func takeTicket() laneTicket {
	r := activeRun.Load()
	if r == nil || r.w == nil {
		return laneTicket{l: GoLane()}
	}
	if parent := r.tracedParent(); parent != nil {
		return ticketOf(parent)
	}
	return laneTicket{}
}

// lane is the lane of the goroutine that runs now what the ticket's code
// started, or nil.
func (t laneTicket) lane() *Proc {
	if t.r == nil || t.r != activeRun.Load() {
		return t.l
	}
	return t.r.newLane(t)
}

func (r *run) newLane(t laneTicket) *Proc {
	owner := t.owner
	ls := &r.lanes
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.closed {
		return nil
	}
	var l *Proc
	if f := ls.free[owner]; len(f) > 0 {
		l = f[len(f)-1]
		ls.free[owner] = f[:len(f)-1]
	} else {
		if len(ls.all) >= maxLanes {
			if !ls.full && r.infoOn("goroutines") {
				fmt.Fprintf(r.stderr, "svmc: more than %d goroutines of the processors at once: the others run untraced\n", maxLanes)
			}
			ls.full = true
			if ls.untraced == nil {
				ls.untraced = map[int]int{}
			}
			ls.untraced[owner]++
			return nil
		}
		l = &Proc{id: r.n + len(ls.all), owner: owner, lane: true, detached: true, r: r, aps: r.aps, track: true}
		if r.pages != nil {
			l.rp = &pageCache{pg: r.pages, sites: make([]pageSpan, r.accessSites)}
		}
		if r.thrCalls > 0 {
			l.thr = make([]throttle, len(r.prog.Subs)) // the lane's own counts, kept across its goroutines
		}
		l.gate = make([]int32, len(r.prog.Subs))
		l.initChunks(r.bufLimit)
		ls.all = append(ls.all, l)
		if ls.free == nil {
			ls.free = map[int][]*Proc{}
		}
	}
	ls.seq++
	l.mask, l.gseq, l.out = t.mask, ls.seq, t.out
	return l
}

// GoEnter makes l the Proc of the calling goroutine and opens its lane. It
// is called first in the goroutine, after GoRecover was deferred; a nil
// lane does nothing.
func (l *Proc) GoEnter(started string) {
	if l == nil || l.tagOnly {
		return
	}
	gProcs.store(getg(), l)
	if !l.lane {
		return // untraced (GoLane)
	}
	l.begin(trace.TagGoroutineStart, l.id)
	l.buf.Int(l.owner)
	l.buf.Int(l.gseq)
	l.chars(started)
	l.end()
}

// GoRecover is deferred first in a goroutine the program started at
// started: it closes the goroutine's lane (its records go to the trace)
// and, after a panic, ends the run as Recover does.
func GoRecover(l *Proc, started string) {
	v := recover()
	if l != nil && l.lane {
		l.laneEnd()
	} else if l != nil && !l.tagOnly {
		gProcs.store(getg(), nil)
	}
	if v != nil {
		goPanicked(v, started, l.startedBy())
	}
}

// laneEnd closes the lane: the regions still open end here and
// goroutine-end is written; the lane, its records in its buffer, is free
// for the processor's next goroutine.
func (l *Proc) laneEnd() {
	l.closeRegionsAbove(0)
	l.recordingRec()
	l.throttledCallsRecs()
	l.begin(trace.TagGoroutineEnd, l.id)
	l.end()
	gProcs.store(getg(), nil)
	ls := &l.r.lanes
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !ls.closed {
		ls.free[l.owner] = append(ls.free[l.owner], l)
	}
}

// laneGrace is how long the end of a run waits for goroutines that are
// ending with it: a goroutine often tells main it is done (wg.Done, a
// channel send) in a deferred call that runs before the one that closes
// its lane, so main may end the run while the goroutine is a moment from
// writing its goroutine-end and the calls it made after throttling.
const laneGrace = 50 * time.Millisecond

// sealLanes stops the lanes at the end of the run and returns what they
// published (finish writes it after the processors' records), once every
// goroutine has closed its lane or laneGrace has passed; a goroutine still
// running then keeps what it wrote up to here (its throttled calls, which
// it writes at its end, are lost).
func (r *run) sealLanes() []sealedBuf {
	ls := &r.lanes
	deadline := time.Now().Add(laneGrace)
	ls.mu.Lock()
	for ls.inUse() > 0 && time.Now().Before(deadline) && !r.hurried() {
		ls.mu.Unlock()
		time.Sleep(100 * time.Microsecond)
		ls.mu.Lock()
	}
	ls.closed = true
	all := ls.all
	ls.mu.Unlock()
	var bufs []sealedBuf
	for _, l := range all {
		if b, ok := l.seal(r.stopWait, r.hurry); ok && len(b) > 0 {
			bufs = append(bufs, sealedBuf{l, b})
		}
	}
	return bufs
}

// untracedRecs writes a goroutines-untraced record per processor whose
// goroutines ran without a lane, for the record after the run.
func (r *run) untracedRecs(b *trace.Buf, clock float64) {
	ls := &r.lanes
	ls.mu.Lock()
	defer ls.mu.Unlock()
	owners := make([]int, 0, len(ls.untraced))
	for p := range ls.untraced {
		owners = append(owners, p)
	}
	slices.Sort(owners)
	node := 0 // the tail's records are the first processor's
	if r.ranks != nil {
		node = r.rank * r.perRank
	}
	for _, p := range owners {
		b.Begin(trace.TagGoroutinesUntraced, node, clock)
		b.Int(p)
		b.Int(ls.untraced[p])
		b.End()
	}
}
