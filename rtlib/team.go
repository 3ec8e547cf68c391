package rtlib

import (
	"runtime"
	"sync/atomic"
	"time"
)

const cacheLine = 64

type taskKind int

const (
	taskNone taskKind = iota
	taskStop
	taskPDO
	taskBarrier
)

// aps is an active processor set: a leader that runs exclusive code and the
// members (leader included, members[0] == leader) that take part in its
// PDOs and barriers. Work is published in the task fields and announced by
// bumping epoch; members wait for the epoch to change.
type aps struct {
	r       *run
	leader  *Proc
	members []*Proc
	pids    []int
	procs   *Procs // the implicit 1-D arrangement of the APS (id 0)

	_     [cacheLine]byte
	epoch atomic.Uint64
	_     [cacheLine - 8]byte

	// The task, written by the leader before epoch is bumped and read by
	// the members after they saw the new epoch.
	kind  taskKind
	pdo   pdoTask
	bsub  int
	bdir  int
	space []Range // the nest of a default-schedule PDO

	plans map[[2]int]*planEntry // last schedule of each PDO directive (leader only)

	bar barrier
}

// barrier is a centralised barrier: the last of n arrivals resets the count,
// bumps the generation and wakes the sleepers.
type barrier struct {
	_       [cacheLine]byte
	arrived atomic.Int64
	_       [cacheLine - 8]byte
	gen     atomic.Uint64
	_       [cacheLine - 8]byte
}

func newAPS(r *run, members []*Proc) *aps {
	a := &aps{r: r, leader: members[0], members: members}
	a.pids = make([]int, len(members))
	for i, m := range members {
		a.pids[i] = m.id
		m.aps = a
		m.apsIndex = i
	}
	a.procs = &Procs{id: 0, name: "APS", dims: []Extent{{0, len(members) - 1}},
		sizes: []int{len(members)}, size: len(members), pids: a.pids}
	return a
}

// dispatch publishes the task in the fields set by the caller and wakes the
// members. Called by the leader only.
func (a *aps) dispatch(kind taskKind) {
	a.kind = kind
	a.epoch.Add(1)
	for _, m := range a.members[1:] {
		m.wakeup()
	}
}

// serve is the loop of a member that is not the leader: wait for a task, run
// it, until the team stops.
func (p *Proc) serve() {
	a := p.aps
	var seen uint64
	for {
		seen = p.await(&a.epoch, seen, false)
		switch a.kind {
		case taskStop:
			return
		case taskPDO:
			p.pdoShare(&a.pdo)
		case taskBarrier:
			p.barrierRec(a.bsub, a.bdir)
		}
	}
}

// wait arrives at the APS barrier and returns when all members arrived.
func (a *aps) wait(p *Proc) {
	b := &a.bar
	g := b.gen.Load()
	if b.arrived.Add(1) == int64(len(a.members)) {
		b.arrived.Store(0)
		b.gen.Store(g + 1)
		for _, m := range a.members {
			if m != p {
				m.wakeup()
			}
		}
		return
	}
	p.await(&b.gen, g, p.r.adaptive)
}

// await waits until *w differs from old and returns the new value: a short
// spin, then rounds of runtime.Gosched, then blocking on the processor's
// wake channel. A waker changes *w first and then calls wakeup. Waiting is a
// safe point: a processor of a failing run stops here.
//
// Long spins did not pay in measurements on the 2-CPU machines svmc targets:
// while one processor spins, the one it waits for is often not running (more
// processors than CPUs, other programs), so the spin is a few dozen loads.
// With adapt (barrier waits when every processor has a CPU) the number of
// yielding rounds adapts per processor: a wait that blocked but was woken
// soon after (load imbalance at the end of a PDO) doubles it, so that the
// next such wait ends without a wake-up through the scheduler; a long
// blocked wait halves it.
func (p *Proc) await(w *atomic.Uint64, old uint64, adapt bool) uint64 {
	r := p.r
	for i := 0; i < r.spin; i++ {
		if v := w.Load(); v != old {
			return v
		}
	}
	yields := r.minYields
	if adapt {
		yields = p.yields
	}
	for i := 0; i < yields; i++ {
		runtime.Gosched()
		if v := w.Load(); v != old {
			return v
		}
	}
	if adapt {
		defer p.adaptYields(time.Now())
	}
	for {
		p.checkAbort()
		p.sleeping.Store(1)
		if v := w.Load(); v != old || r.aborting.Load() {
			if !p.sleeping.CompareAndSwap(1, 0) {
				<-p.wake // a waker took the flag: take its token
			}
			if v != old {
				return v
			}
			continue // aborting: checkAbort ends the processor
		}
		<-p.wake
		if v := w.Load(); v != old {
			return v
		}
	}
}

// Bounds of the adaptive yielding of await, and the blocked time below which
// yielding longer would have paid.
const (
	minYields  = 2
	maxYields  = 256
	shortBlock = 20 * time.Microsecond
)

func (p *Proc) adaptYields(t0 time.Time) {
	if time.Since(t0) < shortBlock {
		p.yields = min(maxYields, 2*p.yields)
	} else {
		p.yields = max(p.r.minYields, p.yields/2)
	}
}

// wakeup wakes p if it sleeps in await. A token is sent only by the waker
// that flips the flag, so the channel (capacity 1) never blocks and every
// token is taken by the await that set the flag.
func (p *Proc) wakeup() {
	if p.sleeping.Load() != 0 && p.sleeping.CompareAndSwap(1, 0) {
		p.wake <- struct{}{}
	}
}
