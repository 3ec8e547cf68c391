package rtlib

import (
	"runtime"
	"sync/atomic"
)

const cacheLine = 64

// minSpin is the spin bound a processor returns to after a wait that ended
// while it yielded.
const minSpin = 16

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
	kind taskKind
	pdo  pdoTask
	bsub int
	bdir int

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
		seen = p.await(&a.epoch, seen)
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
	p.await(&b.gen, g)
}

// await waits until *w differs from old and returns the new value: bounded
// spinning, then bounded yielding, then blocking on the processor's wake
// channel. A waker changes *w first and then calls wakeup. Waiting is a safe
// point: a processor of a failing run stops here.
//
// The spin bound adapts per processor: a spin that saw the change raises it
// (up to r.maxSpin), a spin that ran out halves it. On an idle machine the
// waits of a fork/join are short and spinning wins; when the CPUs are busy
// (more processors than CPUs, or other programs) spins keep failing and the
// bound drops to a few loads, so waiters yield and block instead.
func (p *Proc) await(w *atomic.Uint64, old uint64) uint64 {
	r := p.r
	limit := p.spinLimit
	for i := 0; i < limit; i++ {
		if v := w.Load(); v != old {
			if limit < r.maxSpin {
				p.spinLimit = min(r.maxSpin, limit+limit/4+8)
			}
			return v
		}
	}
	p.spinLimit = limit / 2
	for i := 0; i < r.yields; i++ {
		runtime.Gosched()
		if v := w.Load(); v != old {
			p.spinLimit = max(p.spinLimit, minSpin)
			return v
		}
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

// wakeup wakes p if it sleeps in await. A token is sent only by the waker
// that flips the flag, so the channel (capacity 1) never blocks and every
// token is taken by the await that set the flag.
func (p *Proc) wakeup() {
	if p.sleeping.Load() != 0 && p.sleeping.CompareAndSwap(1, 0) {
		p.wake <- struct{}{}
	}
}
