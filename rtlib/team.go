package rtlib

import (
	"runtime"

	"github.com/svmc/svmc/rtlib/internal/sched"
	"github.com/svmc/svmc/rtlib/internal/team"

	"sync/atomic"
	"time"
)

const cacheLine = team.CacheLine

type taskKind int

const (
	taskNone taskKind = iota
	taskStop
	taskPDO
	taskBarrier
	taskReplicated // run a.rep in replicated mode, then the implicit barrier
	taskPSection   // take part in a.psec
	taskLeave      // leave the serve loop of this APS (end of an exclusive region, of a section)
)

// execMode is the execution mode of a processor: in exclusive mode only the
// APS leader runs user code, in replicated mode every member does.
type execMode uint8

const (
	exclusive execMode = iota
	replicated
)

// aps is an active processor set: a leader that runs exclusive code and the
// members (leader included, members[0] == leader, ascending pids) that take
// part in its PDOs, barriers, replicated regions and parallel sections. Work
// is published in the task fields and announced by bumping epoch; members
// wait for the epoch to change. A section forms a child APS (parent set); the
// members of the child serve it until its leader dissolves it (taskLeave),
// then they go back to the parent.
type aps struct {
	id       int // the "group" of collective records
	r        *run
	parent   *aps
	leader   *Proc
	leaderID int // leader.id, read by the members without touching the leader's Proc
	members  []*Proc
	pids     []int
	procs    *Procs     // the implicit 1-D arrangement of the APS (id 0)
	coll     []collSlot // per member: collectives called (collective.go)
	slots    []memberSlot

	_     [cacheLine]byte
	epoch atomic.Uint64
	_     [cacheLine - 8]byte

	// The task, written by the leader before epoch is bumped and read by
	// the members after they saw the new epoch. Every task ends with a
	// barrier of all members (or the members leave), so the leader never
	// overwrites a task a member still reads.
	kind  taskKind
	pdo   pdoTask
	bat   Site    // a barrier's site
	space []Range // the nest of a PDO whose members compute their share
	rep   repTask
	psec  psecTask
	// caught is the panic of the last pdo's iterations, raised again after
	// it (bodypanic.go): written by the leader before it releases the
	// members, read by them after.
	caught *bodyPanic

	// pending counts the dispatches since the leader last completed a
	// barrier of the APS (leader only). While it is 0 every member has
	// taken every task; otherwise a task may still be open (a replicated
	// region in which the leader dispatches again) and the leader waits
	// for the members' acknowledgements before it writes the next one.
	pending int

	plans map[Site]*planEntry // last schedule of each PDO directive (leader only)
	kids  map[kidKey]*aps     // child APSs of sections, reused (leader only)
	secScratch

	// bar is a centralised barrier (team.Barrier): the last of n arrivals
	// resets the count, bumps the generation and wakes the sleepers. In its
	// leader-release form (gather/release) the leader waits for the n
	// arrivals, does its work and then releases the others.
	bar  team.Barrier
	dyn  dynShared
	ckin splitBarrier

	_ [cacheLine]byte
	// folds is set by a member whose share of a pdo left partial results
	// or a panic (runBody), before it arrives at the loop's barrier; the
	// leader reads the members' Iters only then (endPDO) and resets it.
	folds atomic.Uint32
	_     [cacheLine - 4]byte

	ackWait atomic.Uint32 // the leader waits for acknowledgements (read by every member per task)
	_       [cacheLine - 4]byte
	ackGen  atomic.Uint64 // bumped by an acknowledgement the leader waits for
	_       [cacheLine - 8]byte
}

// memberSlot is the per-member state of an APS; each slot has cache lines
// of its own.
type memberSlot struct {
	seen   uint64        // last epoch this member consumed (the member only)
	ack    atomic.Uint64 // = seen, once the member no longer reads the task fields
	rep    repTask       // the replicated region the member runs (copied before acknowledging)
	site   site          // barrier site of the member's latest arrival (written before arriving)
	arrive int64         // clock of that arrival (IsTimeVariation only)
	queue  atomic.Uint64 // affinity queue (dynamic.go)
	ckin   atomic.Uint64 // split-barrier check-ins
	ckWait atomic.Uint32 // waiting at a checkout
	ckout  uint64        // split-barrier checkouts (the member, or the leader while the member is idle)
	log    []sched.Ivl   // Record: the linear chunks this member ran in the current PDO
	it     Iter          // the member's share of the current PDO
	space  []Range       // a copy of the nest this member reached a pdo of replicated code with
	_      [cacheLine]byte
}

// site is where a member arrived at a barrier.
type site struct {
	at   Site
	kind waitKind
}

func newAPS(r *run, members []*Proc) *aps {
	a := &aps{id: int(apsIDs.Add(1)), r: r, leader: members[0], leaderID: members[0].id, members: members}
	a.coll = make([]collSlot, len(members))
	a.pids = make([]int, len(members))
	a.slots = make([]memberSlot, len(members))
	for i, m := range members {
		a.pids[i] = m.id
		m.aps = a
		m.apsIndex = i
	}
	a.procs = newProcs(0, "APS", []Extent{{Lo: 0, Hi: len(members) - 1}}, func(l int) int { return a.pids[l] })
	a.dyn.reset(a)
	return a
}

// newChild forms the APS of members (ascending pids, all members of a)
// without moving them into it yet.
func (a *aps) newChild(members []*Proc) *aps {
	c := &aps{id: int(apsIDs.Add(1)), r: a.r, parent: a, leader: members[0], leaderID: members[0].id, members: members}
	c.coll = make([]collSlot, len(members))
	c.pids = make([]int, len(members))
	c.slots = make([]memberSlot, len(members))
	for i, m := range members {
		c.pids[i] = m.id
	}
	c.procs = newProcs(0, "APS", []Extent{{Lo: 0, Hi: len(members) - 1}}, func(l int) int { return c.pids[l] })
	c.dyn.reset(c)
	return c
}

// index is the position of pid among the members, -1 if it is none.
func (a *aps) index(pid int) int {
	for i, q := range a.pids {
		if q == pid {
			return i
		}
	}
	return -1
}

// ready returns when the leader may write the task fields: at once unless
// a dispatched task may still be unread by a member (see pending).
func (a *aps) ready() {
	if a.pending == 0 || len(a.members) == 1 {
		return
	}
	e := a.epoch.Load()
	if a.acked(e) {
		return
	}
	p := a.leader
	a.ackWait.Store(1)
	for {
		g := a.ackGen.Load()
		if a.acked(e) {
			break
		}
		p.waitFor(wAck, Site{})
		p.await(&a.ackGen, g, false)
	}
	a.ackWait.Store(0)
}

func (a *aps) acked(e uint64) bool {
	for i := 1; i < len(a.slots); i++ {
		if a.slots[i].ack.Load() != e {
			return false
		}
	}
	return true
}

// dispatch publishes the task in the fields set by the caller (after
// ready) and wakes the members. Called by the leader only.
func (a *aps) dispatch(kind taskKind) {
	a.ready()
	a.pending++
	if kind != taskLeave && kind != taskStop {
		a.leader.snapCtx() // trace requests of the leader's regions (tracing.go)
	}
	a.kind = kind
	a.epoch.Add(1)
	for _, m := range a.members[1:] {
		m.wakeup()
	}
}

// serve is the loop of a member that is not the leader of its APS: wait for
// a task, run it, until the team stops.
func (p *Proc) serve() { p.serveAPS(p.aps) }

// serveAPS runs the tasks the leader of a dispatches until a task tells the
// member to leave (taskStop, taskLeave), and returns that task's kind. The
// member is in exclusive mode while it waits.
func (p *Proc) serveAPS(a *aps) taskKind {
	mode := p.mode
	p.mode = exclusive
	defer func() { p.mode = mode }()
	for {
		is := p.st.Idle()
		k := p.nextTask(a, wIdle, Site{Sub: a.leaderID})
		p.st.Restore(is)
		if k == taskStop || k == taskLeave {
			return k
		}
		mask := p.adoptCtx(a.leader)
		switch k {
		case taskPDO:
			p.pdoShare(&a.pdo)
		case taskBarrier:
			p.barrierRec(a.bat, wBarrier)
		case taskReplicated:
			p.replicatedShare(&a.slots[p.apsIndex].rep)
		case taskPSection:
			p.psectionShare(&a.psec)
		}
		p.mask = mask
	}
}

// nextTask waits for the next task the leader of a dispatches and returns
// its kind. While blocked the processor is shown as waiting with kind k at
// (at) (for wIdle, sub is the leader).
func (p *Proc) nextTask(a *aps, k waitKind, at Site) taskKind {
	s := &a.slots[p.apsIndex]
	p.waitFor(k, at)
	// Adaptive as a barrier's wait: a member woken soon after it blocked
	// (loops one after another with little serial code between them)
	// yields longer the next time, so that the next loop finds it running
	// instead of paying a wake-up of its thread at every loop (16 µs on
	// this machine, as long as a small loop).
	s.seen = p.await(&a.epoch, s.seen, p.r.adaptive)
	kind := a.kind
	if kind == taskReplicated {
		s.rep = a.rep
	}
	s.ack.Store(s.seen)
	if a.ackWait.Load() != 0 {
		a.ackGen.Add(1)
		a.leader.wakeup()
	}
	return kind
}

// wait arrives at the APS barrier at site (at, kind) and returns when
// all members arrived. The sites of all arrivals must agree: each arrival
// adds 1 to the low half of the arrival word and the hash of its site to
// the high half, so the last arrival sees at once whether all hashes are
// its own (then the sites agree, but for a 2^-32 chance) and compares the
// sites themselves only if not.
func (a *aps) wait(p *Proc, at Site, kind waitKind) {
	st := site{at, kind}
	a.slots[p.apsIndex].site = st
	if a.r.timeVar {
		a.slots[p.apsIndex].arrive = nanotime()
	}
	b := &a.bar
	g := b.Gen.Load()
	h := st.hash()
	if last, same := team.Complete(b.Arrive(h), len(a.members), h); last {
		if !same {
			a.checkSites(p)
		}
		if a.r.timeVar {
			a.timeVariation(p)
		}
		a.svmSync()
		b.Arrived.Store(0)
		b.Gen.Store(g + 1)
		for _, m := range a.members {
			if m != p {
				m.wakeup()
			}
		}
	} else {
		p.waitFor(kind, at)
		p.await(&b.Gen, g, p.r.adaptive)
	}
	if p == a.leader {
		a.pending = 0
	}
}

// gather is the first half of a leader-release barrier: a member arrives and
// waits for the leader's release; the leader returns when every member
// arrived, does its work and then calls release.
func (a *aps) gather(p *Proc, at Site, kind waitKind) {
	st := site{at, kind}
	a.slots[p.apsIndex].site = st
	if a.r.timeVar {
		a.slots[p.apsIndex].arrive = nanotime()
	}
	h := st.hash()
	p.waitFor(kind, at)
	if p == a.leader {
		a.allArrived(p, h, false)
		return
	}
	g := a.bar.Gen.Load()
	a.arriveHash(h)
	p.await(&a.bar.Gen, g, p.r.adaptive)
}

// allArrived is the leader's arrival at a leader-release barrier: it
// returns when every member arrived (with site hash h).
func (a *aps) allArrived(p *Proc, h uint64, adapt bool) {
	b := &a.bar
	n := len(a.members)
	v := b.Arrive(h)
	for {
		last, same := team.Complete(v, n, h)
		if last {
			if !same {
				a.checkSites(p)
			}
			if a.r.timeVar {
				a.timeVariation(p)
			}
			a.svmSync()
			break
		}
		v = p.await(&b.Arrived, v, adapt)
	}
	a.pending = 0
}

// arriveHash is a member's arrival at a leader-release barrier; the last
// one wakes the leader.
func (a *aps) arriveHash(h uint64) {
	if last, _ := team.Complete(a.bar.Arrive(h), len(a.members), h); last {
		a.leader.wakeup()
	}
}

// join and arrive end a pdo dispatched in exclusive mode when nothing
// observes how long a member waits there (run.quickJoin: no trace, no
// statistics, no SVM layer, one process): the leader waits for every
// arrival, a member arrives and goes back to wait for the next task. A
// member waits for the leader's next dispatch anyway; waiting for a
// release first cost a cache-line transfer in the leader's path at every
// loop (the member's store of the generation the leader waited on).
func (a *aps) join(p *Proc, at Site) {
	st := site{at, wPDOEnd}
	a.slots[p.apsIndex].site = st
	p.waitFor(wPDOEnd, at)
	a.allArrived(p, st.hash(), p.r.adaptive)
	a.bar.Arrived.Store(0) // no member arrives again before the next dispatch
}

// arrive is a member's part of join.
func (a *aps) arrive(p *Proc, at Site) {
	st := site{at, wPDOEnd}
	a.slots[p.apsIndex].site = st
	a.arriveHash(st.hash())
}

// timeVariation charges one barrier instance to the statistics of p, the
// processor that saw every member arrive (IsTimeVariation): the spread of
// the arrivals and what the members lost waiting for the last one. Every
// member wrote its arrival before arriving, and none leaves before p
// returns.
func (a *aps) timeVariation(p *Proc) {
	first, last := a.slots[0].arrive, a.slots[0].arrive
	for i := range a.slots {
		first, last = min(first, a.slots[i].arrive), max(last, a.slots[i].arrive)
	}
	var sum int64
	for i := range a.slots {
		sum += last - a.slots[i].arrive
	}
	p.st.Collective(float64(last-first), float64(sum))
}

// release ends the barrier begun by gather. Called by the leader.
func (a *aps) release(p *Proc) {
	a.bar.Release()
	for _, m := range a.members[1:] {
		m.wakeup()
	}
}

// hash is a 32-bit hash of the site.
func (s site) hash() uint64 { return team.SiteHash(s.at.Sub, s.at.Dir, int(s.kind)) }

// checkSites stops the run if the members arrived at different barriers.
// Called by the processor that saw the last arrival.
func (a *aps) checkSites(p *Proc) {
	s0 := a.slots[0].site
	for i := 1; i < len(a.slots); i++ {
		if a.slots[i].site != s0 {
			p.die(a.siteError())
		}
	}
}

// await waits until *w differs from old and returns the new value: a short
// spin, then rounds of runtime.Gosched, then blocking on the processor's
// wake channel (team.Waiter). The loops stay here, inline: a call per wait
// measurably cost. A waker changes *w first and then
// calls wakeup. Waiting is a safe point: a processor of a failing run stops
// here. While blocked, the processor publishes what it waits for (set by
// waitFor) for the deadlock watchdog.
//
// With adapt (barrier waits when every processor has a CPU) the spin is
// longer (team.BarrierSpin) and the number of
// yielding rounds adapts per processor (team.Adapt): a wait that blocked
// but was woken soon after (load imbalance at the end of a PDO) doubles
// it, so that the next such wait ends without a wake-up through the
// scheduler; a long blocked wait halves it.
func (p *Proc) await(w *atomic.Uint64, old uint64, adapt bool) uint64 {
	r := p.r
	yields, spin := r.minYields, r.spin
	if adapt {
		yields, spin = p.yields, team.BarrierSpin
	}
	for i := 0; i < spin; i++ {
		if v := w.Load(); v != old {
			return v
		}
	}
	if wait := p.spinWait(); wait > 0 {
		// Active: spin instead of yielding (spinFor says why).
		if v, ok := p.spinFor(w, old, wait); ok {
			return v
		}
		yields = 0
	}
	for i := 0; i < yields; i++ {
		runtime.Gosched()
		if v := w.Load(); v != old {
			return v
		}
	}
	var t0 time.Time
	if adapt {
		t0 = time.Now()
	}
	p.publishWait()
	v := p.block(w, old)
	p.unpublishWait()
	if adapt {
		p.yields = team.Adapt(p.yields, r.minYields, time.Since(t0))
	}
	return v
}

// lockedWait is how long a processor whose goroutine is locked to its
// thread spins before it blocks when the wait policy sets no spin of its
// own (passive): processor 0 on
// the main goroutine of a program that locked it (runtime.LockOSThread in
// init or main; Main). A locked goroutine's thread sleeps while it blocks,
// and the goroutine runs again only on that thread, which its waker must
// wake: x593, 20 000 pdos on 2 processors, took 360-510 ms with passive
// waits against 125-139 ms unlocked.
const lockedWait = time.Millisecond

// spinWait is how long await spins before it yields or blocks: the wait
// policy's, or lockedWait on a locked goroutine (asked each time: the
// program may lock or unlock it at any point).
func (p *Proc) spinWait() time.Duration {
	if d := p.r.activeWait; d > 0 || !lockedOSThread() {
		return d
	}
	return lockedWait
}

// spinFor spins until *w differs from old or d has passed (wait_policy
// active); ok is false when it passed. It spins rather than yields: a
// goroutine that yields (runtime.Gosched) lets its thread find nothing to
// do and sleep, and waking a sleeping thread is what is slow where idle
// CPUs sleep (measured on this 2-CPU virtual machine: a change seen by a
// spinning goroutine in 0.7 µs at the median and 3.5 µs at the 99th
// percentile; by one that yields even once in 4096 loads, 25.7 µs at the
// 90th and 2.9 ms at the 99th). It gives up when the processors outnumber
// the Go scheduler's Ps (a program that set runtime.GOMAXPROCS(1), x567:
// a spinner held the only P the leader needed, 0.75-1.8 s against 50 ms
// with passive waits).
func (p *Proc) spinFor(w *atomic.Uint64, old uint64, d time.Duration) (uint64, bool) {
	end := time.Now().Add(d)
	for i := 1; ; i++ {
		if v := w.Load(); v != old {
			return v, true
		}
		if i%1024 == 0 && (time.Now().After(end) || p.r.aborting.Load() || runtime.GOMAXPROCS(0) < p.r.n) {
			return 0, false
		}
	}
}

// block sleeps until *w differs from old; a processor of a failing run
// stops here.
func (p *Proc) block(w *atomic.Uint64, old uint64) uint64 {
	p.blocks++
	for {
		p.checkAbort()
		if v, ok := p.waiter.Block(w, old, &p.r.aborting); ok {
			return v
		}
	}
}

// wakeup wakes p if it sleeps in await.
func (p *Proc) wakeup() { p.waiter.Wakeup() }

// enter moves p into APS a (a section's APS) and returns what to restore
// with leave.
func (p *Proc) enter(a *aps) (prev *aps, prevIndex int) {
	prev, prevIndex = p.aps, p.apsIndex
	p.aps, p.apsIndex = a, a.index(p.id)
	return
}

func (p *Proc) leave(prev *aps, prevIndex int) { p.aps, p.apsIndex = prev, prevIndex }
