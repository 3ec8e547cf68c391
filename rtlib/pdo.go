package rtlib

import (
	"github.com/svmc/svmc/rtlib/internal/sched"
	"github.com/svmc/svmc/rtlib/internal/stats"

	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/svmc/svmc/trace"
)

// Range is one loop of a PDO nest: Lo, Lo+Step, ... up to Hi inclusive.
// Step must not be 0.
type Range = sched.Range

type schedKind uint8

const (
	sDefault schedKind = iota
	sOnHome
	sLoopLevel
	sDynamic
)

// Schedule is the strategy of a PDO. The zero value is DefaultSchedule.
type Schedule struct {
	kind    schedKind
	t       *Template
	subs    []Subscript
	onto    *Procs
	formats []Format
	dyn     dynKind   // sDynamic: the strategy
	chunk   int       // sDynamic: chunk (Dynamic) or least chunk (Guided)
	rec     *Template // Record: the template that receives the decision
}

type subKind uint8

const (
	subLoopVar subKind = iota + 1
	subConst
	subFunc
)

// Subscript is one subscript of the template element of an on_home strategy.
type Subscript struct {
	kind subKind
	dim  int // loop (LoopVar)
	v    int // offset (LoopVar) or value (ConstIndex)
	f    func(idx []int) int
}

// OnHome is predefined scheduling: iteration idx runs on the owner of the
// template element t(subs...).
func OnHome(t *Template, subs ...Subscript) Schedule {
	return Schedule{kind: sOnHome, t: t, subs: subs}
}

// LoopVar is the subscript value-of-loop-dim + offset.
func LoopVar(dim, offset int) Subscript { return Subscript{kind: subLoopVar, dim: dim, v: offset} }

// ConstIndex is a constant subscript.
func ConstIndex(v int) Subscript { return Subscript{kind: subConst, v: v} }

// IndexFunc is any other subscript expression of the loop values idx
// (outermost first); f must not modify idx. Schedules using it check the
// owner of every candidate iteration.
func IndexFunc(f func(idx []int) int) Subscript { return Subscript{kind: subFunc, f: f} }

// LoopLevel is static loop-level scheduling: the k-th distributed loop
// (format not Star) is distributed with its format, in iteration-count
// space, over dimension k of onto (nil: the 1-D arrangement of the APS).
// Loops beyond len(formats) are not distributed.
func LoopLevel(onto *Procs, formats ...Format) Schedule {
	return Schedule{kind: sLoopLevel, onto: onto, formats: formats}
}

// DefaultSchedule is the schedule of a PDO without strategy: block on the
// outermost loop over the APS.
func DefaultSchedule() Schedule { return Schedule{} }

// pdoTask is a PDO dispatched to the members of the APS.
type pdoTask struct {
	at       Site
	body     func(p *Proc, it *Iter)
	selfPlan bool // default schedule: members compute their block from aps.space
	dyn      dynKind
	chunk    int
	total    int
	record   bool
	rec      *Template // the template that records the schedule (with record)
	repl     bool      // reached in replicated mode: the leader releases the barrier
	seq      int       // a dynamic pdo between ranks: its number (ranks.go)
}

// PDO runs a parallel loop nest over space (outermost first) on the APS.
//
// Reached by the leader in exclusive mode, the leader computes the
// schedule, dispatches the loop to the members and every member runs body
// once with an Iter over its own iterations; an implicit barrier ends the
// loop and the leader then runs the closures registered with Iter.Reduce,
// member by member in processor order. Reached in replicated mode (every
// member calls PDO), the loop is worksharing: with the default schedule and
// the dynamic ones every member sets up its own share without waiting for
// the leader (unless pdo-info is traced: its record comes first, so the
// members wait for the leader's dispatch as for the other schedules); for
// on_home and loop-level schedules the members wait for the leader's
// schedule. The barrier at the end is then released by the
// leader after it combined the reductions, so that every member sees them.
//
// Events (each guarded by p.on): trace-region-start (pdo) on every member;
// pdo-info and aps-info by the leader; pdo-work and wait-barrier-start/stop
// on every member; template-dist for a recorded schedule, and
// pdo-iteration-space by the leader; trace-region-stop on every member.
// Inside a PDO body, or on a detached Proc, the nest runs serially on the
// calling processor (region records and pdo-work only).
func (p *Proc) PDO(sub, dir int, s Schedule, space []Range, body func(p *Proc, it *Iter)) {
	at := Site{Sub: sub, Dir: dir}
	if p.detached || p.inTask {
		if p.detached {
			p.detachedConstruct(at, "pdo", "runs all its iterations on this goroutine")
		}
		p.serialPDO(at, space, body)
		return
	}
	p.checkAbort()
	p.spreadUnsupported(at, "a pdo")
	s = p.r.rankSchedule(s)
	a := p.aps
	if len(a.members) == 1 && !p.track && p.st == nil && p.r.ranks == nil && s.kind == sDefault {
		// One processor and nothing to record: the serial loop, without
		// a team's dispatch and join (x491, a dot product of 16 elements
		// called in a loop: 0.3-0.5 µs a call against 0.015 plain).
		p.serialPDO(at, space, body)
		return
	}
	repl := p.mode == replicated && len(a.members) > 1
	if repl { // a copy, compared by the leader at the end (sameSpace): the caller's nest stays on its stack
		sl := &a.slots[p.apsIndex]
		sl.space = append(sl.space[:0], space...)
	}
	// Between ranks every pdo is dispatched by its leader, which copies
	// the shared storage before any member writes it.
	if repl && (s.kind == sDefault || s.kind == sDynamic) && !p.r.infoFirst && p.r.ranks == nil {
		p.sharedPDO(at, s, space, body)
		return
	}
	if repl && p != a.leader {
		p.wpeerID = a.leader.id
		if k := p.nextTask(a, wLeader, at); k != taskPDO || a.pdo.at != at {
			p.constructMismatch(a, at, "pdo")
		}
		p.pdoShare(&a.pdo)
		return
	}
	// Between ranks the members leave the pdo's barrier after the leader
	// combined the ranks' results, as in replicated mode.
	p.leadPDO(at, s, space, body, repl || p.r.ranks != nil)
}

// leadPDO is the leader's part of a PDO it dispatches.
func (p *Proc) leadPDO(at Site, s Schedule, space []Range, body func(p *Proc, it *Iter), repl bool) {
	a := p.aps
	sv := p.st.Call(stats.MapPL, len(a.members))
	p.pushRegion(at, trace.RegionPDO)
	var start float64
	work := p.on(trace.TagPDOWork)
	if work {
		start = p.now()
	}
	var t0 time.Time
	infoOn := p.on(trace.TagPDOInfo)
	if infoOn {
		t0 = time.Now()
	}
	p.checkSteps(at, space)
	p.checkRecord(at, s, space)
	t := pdoTask{at: at, body: body, repl: repl}
	var info pdoInfo
	switch s.kind {
	case sDefault:
		// Every member computes its block itself: nothing to write into
		// the other members' Iters.
		t.selfPlan = true
		info.arr = &a.procs.g
		p.planDefaultShare(space)
	case sDynamic:
		info.arr = &a.procs.g
		t.dyn, t.chunk, t.total, t.record, t.rec = s.dyn, s.chunk, p.nestTotal(at, space), s.rec != nil, s.rec
		p.setDynamic(p.iter(), a, t.dyn, t.chunk, space, t.total, t.record)
		if p.r.ranks != nil {
			t.seq = p.r.rankLoopStart(t.dyn, t.chunk, t.total)
			p.iter().dyn.seq = t.seq
		}
	default:
		info = p.plan(at, s, space)
	}
	if infoOn {
		p.pdoInfoRec(at, &info, float64(time.Since(t0))/1e3)
	}
	if p.on(trace.TagAPSInfo) {
		p.begin(trace.TagAPSInfo, p.id)
		p.buf.Ints(loopPids(a, s))
		p.end()
	}
	a.pdo = t
	// Written only when it changed: a member read it at the last loop, so
	// a store moves its line back here and the member's next read away
	// again (a loop run again and again has the same nest).
	if !slices.Equal(a.space, space) {
		a.space = append(a.space[:0], space...)
	}
	p.r.rankTwin(at)
	if len(a.members) > 1 {
		a.dispatch(taskPDO)
	}
	p.runBody(body, space)
	p.ownDistRec(s.rec)
	if work {
		p.pdoWorkRec(at, p.iter(), start)
	}
	switch {
	case repl:
		p.gatherRec(at, wPDOEnd)
	case p.r.quickJoin:
		a.join(p, at)
	default:
		p.barrierRec(at, wPDOEnd)
	}
	p.endPDO(&t, s.rec)
	if repl {
		a.release(p)
	}
	if p.on(trace.TagPDOIterationSpace) {
		p.iterSpaceRec(at, space)
	}
	p.popRegion(at, trace.RegionPDO)
	p.st.Restore(sv)
	p.rethrow(a.caught)
}

// runBody runs p's share of a PDO over space.
func (p *Proc) runBody(body func(p *Proc, it *Iter), space []Range) {
	it := p.iter()
	if p.idle() {
		it.empty() // this share runs on rank p.id
	}
	loop := p.enterLoop(space, it)
	p.inTask = true
	us := p.st.User()
	it.caught = p.callBody(body, it)
	if it.caught != nil || len(it.partials)+len(it.values)+len(it.reduce) > 0 {
		p.aps.folds.Store(1)
	}
	p.st.Restore(us)
	p.inTask = false
	p.loop = loop
}

// endPDO is the leader's work after every member arrived at the barrier of
// a PDO: the reductions in processor order, the recorded distribution and
// the reset of the dynamic state.
func (p *Proc) endPDO(t *pdoTask, rec *Template) {
	a := p.aps
	if p.mode == replicated {
		p.sameSpace(t.at)
	}
	if p.st != nil && a.reduces() { // statistics: the fold is Lib-DVM's RedGrp
		defer p.st.Restore(p.st.Switch(stats.Red))
	}
	// A pdo whose iteration panicked combines nothing: the reduction
	// variables keep their values from before the loop, whichever shares
	// had finished.
	// The members' Iters are read only when one has something to fold
	// or a panic: reading them every time moved their lines from the
	// members' caches at every loop (folds, set before the arrivals).
	if a.folds.Load() != 0 {
		a.folds.Store(0)
		if a.caught = a.firstPanic(); a.caught == nil {
			a.combine()
		}
	} else {
		a.caught = nil
	}
	if rec != nil {
		p.recordDist(a, rec)
	}
	if t.dyn != dNone {
		a.dyn.reset(a)
	}
}

// combine folds the members' partial results into the reduction variables,
// member by member in processor order. A pdo reached in exclusive mode runs
// the leader's body on every member, so their variables are the same: each
// partial is folded once. In replicated code each member's call of the
// function holding the pdo has variables of its own (a function with a
// reduction that every processor calls): each variable then takes every
// member's partial, as the call without svmc would have added every
// iteration into it.
func (a *aps) combine() {
	if a.ownVariables() {
		for j := range a.slots[0].it.partials {
			for m := range a.slots {
				dst := a.slots[m].it.partials[j].dst
				if a.foldedBefore(m, func(it *Iter) bool { return it.partials[j].dst == dst }) {
					continue
				}
				for k := range a.slots {
					pt := a.slots[k].it.partials[j]
					pt.dst = dst
					pt.fold()
				}
			}
		}
		for j := range a.slots[0].it.values {
			for m := range a.slots {
				own := a.slots[m].it.values[j]
				if a.foldedBefore(m, func(it *Iter) bool { return it.values[j].sameVariable(own) }) {
					continue
				}
				for k := range a.slots {
					a.slots[k].it.values[j].foldInto(own)
				}
			}
		}
		for i := range a.slots {
			for _, f := range a.slots[i].it.reduce {
				f()
			}
		}
		return
	}
	for i := range a.slots {
		a.slots[i].it.combine()
	}
}

// ownVariables reports whether the members' partials go to variables of
// their own, not all to the same ones (and are alike: the same number of
// each kind).
func (a *aps) ownVariables() bool {
	first := &a.slots[0].it
	own := false
	for i := 1; i < len(a.slots); i++ {
		it := &a.slots[i].it
		if len(it.partials) != len(first.partials) || len(it.values) != len(first.values) {
			return false
		}
		for j := range it.partials {
			if it.partials[j].kind != first.partials[j].kind {
				return false
			}
			own = own || it.partials[j].dst != first.partials[j].dst
		}
		for j := range it.values {
			own = own || !it.values[j].sameVariable(first.values[j])
		}
	}
	return own
}

// foldedBefore reports whether a member before m has a variable that same
// says is m's: it took every partial already.
func (a *aps) foldedBefore(m int, same func(it *Iter) bool) bool {
	for i := range m {
		if same(&a.slots[i].it) {
			return true
		}
	}
	return false
}

// sameSpace stops the run when the members reached the pdo at of
// replicated code with different nests (a slice or bound of each
// processor's own): they share one iteration space, which would then be
// each member's own, and the shares and reductions would mix them.
func (p *Proc) sameSpace(at Site) {
	a := p.aps
	first := a.slots[0].space
	for i := 1; i < len(a.slots); i++ {
		if sp := a.slots[i].space; !slices.Equal(sp, first) {
			p.errorf(at, false, "the processors reached this pdo of replicated code with different loops: processor %d over %s, processor %d over %s; every processor of the region shares one pdo's iterations, so it must reach the pdo with the same bounds (give each processor's part of the work to the pdo's iterations, or run the loop serially in each)",
				a.pids[0], spaceText(first), a.pids[i], spaceText(sp))
		}
	}
}

// spaceText is a nest as "lo..hi (step s)" per loop.
func spaceText(space []Range) string {
	var b strings.Builder
	for k, r := range space {
		if k > 0 {
			b.WriteString(" × ")
		}
		fmt.Fprintf(&b, "%d..%d", r.Lo, r.Hi)
		if r.Step != 1 {
			fmt.Fprintf(&b, " step %d", r.Step)
		}
	}
	return b.String()
}

// reduces reports whether a member handed a partial result over.
func (a *aps) reduces() bool {
	for i := range a.slots {
		if len(a.slots[i].it.partials) > 0 {
			return true
		}
	}
	return false
}

// pdoShare is a member's part of a PDO dispatched by the leader.
func (p *Proc) pdoShare(t *pdoTask) {
	at, body, repl := t.at, t.body, t.repl
	a := p.aps
	sv := p.st.Call(stats.MapPL, len(a.members))
	p.pushRegion(at, trace.RegionPDO)
	var start float64
	work := p.on(trace.TagPDOWork)
	if work {
		start = p.now()
	}
	switch {
	case t.selfPlan:
		p.planDefaultShare(a.space)
	case t.dyn != dNone:
		p.setDynamic(p.iter(), a, t.dyn, t.chunk, a.space, t.total, t.record)
		p.iter().dyn.seq = t.seq
	}
	p.runBody(body, a.space)
	if t.record {
		p.ownDistRec(t.rec)
	}
	if work {
		p.pdoWorkRec(at, p.iter(), start)
	}
	switch {
	case repl:
		p.gatherRec(at, wPDOEnd)
	case p.r.quickJoin:
		a.arrive(p, at)
	default:
		p.barrierRec(at, wPDOEnd)
	}
	p.popRegion(at, trace.RegionPDO)
	p.st.Restore(sv)
	if repl {
		p.rethrow(a.caught)
	}
}

// sharedPDO is a PDO with a self-computed schedule (default, dynamic)
// reached in replicated mode: every member runs it without a dispatch.
func (p *Proc) sharedPDO(at Site, s Schedule, space []Range, body func(p *Proc, it *Iter)) {
	a := p.aps
	leader := p == a.leader
	sv := p.st.Call(stats.MapPL, len(a.members))
	p.pushRegion(at, trace.RegionPDO)
	var start float64
	work := p.on(trace.TagPDOWork)
	if work {
		start = p.now()
	}
	var t0 time.Time
	infoOn := leader && p.on(trace.TagPDOInfo)
	if infoOn {
		t0 = time.Now()
	}
	p.checkSteps(at, space)
	t := pdoTask{at: at, repl: true}
	if s.kind == sDynamic {
		if leader {
			p.checkRecord(at, s, space)
		}
		t.dyn = s.dyn
		p.setDynamic(p.iter(), a, s.dyn, s.chunk, space, p.nestTotal(at, space), s.rec != nil)
	} else {
		p.planDefaultShare(space)
	}
	if infoOn {
		p.pdoInfoRec(at, &pdoInfo{arr: &a.procs.g}, float64(time.Since(t0))/1e3)
	}
	if leader && p.on(trace.TagAPSInfo) {
		p.begin(trace.TagAPSInfo, p.id)
		p.buf.Ints(a.pids)
		p.end()
	}
	p.runBody(body, space)
	p.ownDistRec(s.rec)
	if work {
		p.pdoWorkRec(at, p.iter(), start)
	}
	p.gatherRec(at, wPDOEnd)
	if leader {
		p.endPDO(&t, s.rec)
		a.release(p)
		if p.on(trace.TagPDOIterationSpace) {
			p.iterSpaceRec(at, space)
		}
	}
	p.popRegion(at, trace.RegionPDO)
	p.st.Restore(sv)
	p.rethrow(a.caught)
}

// serialPDO runs every iteration of the nest on p. A recorded schedule
// records nothing here.
func (p *Proc) serialPDO(at Site, space []Range, body func(p *Proc, it *Iter)) {
	p.pushRegion(at, trace.RegionPDO)
	var start float64
	work := p.on(trace.TagPDOWork)
	if work {
		start = p.now()
	}
	p.checkSteps(at, space)
	// The Iter of each nesting level is kept: a goroutine that runs a
	// small pdo again and again (a handler, b.RunParallel) allocates none.
	if p.nSerial == len(p.serial) {
		p.serial = append(p.serial, &Iter{})
	}
	it := p.serial[p.nSerial]
	p.nSerial++
	defer p.leaveSerial(p.loop) // also when the body panics
	p.resetIter(it, space)
	it.setFull(space)
	p.enterLoop(space, it)
	body(p, it)
	it.combine()
	if work {
		p.pdoWorkRec(at, it, start)
	}
	p.popRegion(at, trace.RegionPDO)
}

// leaveSerial ends a serialPDO: its Iter is free again, the enclosing
// loop's frame is back.
func (p *Proc) leaveSerial(outer loopFrame) {
	p.nSerial--
	p.loop = outer
}

func (p *Proc) pdoInfoRec(at Site, info *pdoInfo, startup float64) {
	p.begin(trace.TagPDOInfo, p.id)
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
	p.buf.Int(info.arr.ID)
	p.extentRows(info.arr.Dims)
	p.buf.Ints(info.bcl)
	p.buf.Ints(info.consts)
	p.buf.Double(startup)
	p.end()
}

func (p *Proc) iterSpaceRec(at Site, space []Range) {
	p.begin(trace.TagPDOIterationSpace, p.id)
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
	p.buf.Int(len(space))
	p.buf.Int(9)
	for _, r := range space {
		for k := 0; k < 2; k++ {
			p.buf.Int(r.Lo)
			p.buf.Int(r.Hi)
			p.buf.Int(r.Step)
		}
		p.buf.Int(0)
		p.buf.Int(0)
		p.buf.Int(0)
	}
	p.end()
}

// pdoInfo is what pdo-info reports about a schedule.
type pdoInfo struct {
	arr    *sched.Grid
	bcl    []int
	consts []int
}

// plan computes every member's iterations into its Iter.
func (p *Proc) plan(at Site, s Schedule, space []Range) pdoInfo {
	a := p.aps
	for i, m := range a.members {
		m.resetIter(&a.slots[i].it, space)
	}
	key := at
	if e := a.plans[key]; e != nil && e.matches(s, space) {
		e.install(a, space)
		return e.info
	}
	info := pdoInfo{arr: &a.procs.g}
	var bs *boxSet
	switch s.kind {
	case sOnHome:
		bs = p.planOnHome(at, s, space, &info)
	case sLoopLevel:
		bs = p.planLoopLevel(at, s, space, &info)
	}
	e := &planEntry{info: info, shares: make([]planShare, len(a.members))}
	for i := range a.members {
		if bs.roots != nil {
			e.shares[i].root = bs.roots[i] // nil: no iterations, set by setBoxes
			continue
		}
		e.shares[i].boxes = bs.boxes[i]
		if !sched.SingleBox(space, bs.boxes[i]) {
			e.shares[i].root = sched.BuildTree(bs.boxes[i], len(space))
		}
	}
	e.install(a, space)
	if bs.cacheable {
		e.key(s, space)
		if a.plans == nil {
			a.plans = map[Site]*planEntry{}
		}
		a.plans[key] = e
	}
	return info
}

// planEntry is the schedule of a PDO directive, kept for its next execution
// with the same schedule (same template distribution or arrangement and
// formats, same subscripts, same nest). Trees are never modified once built,
// so the members' Iters share them.
type planEntry struct {
	kind    schedKind
	t       *Template
	dist    *sched.Distribution
	subs    []Subscript
	onto    *Procs
	formats []Format
	space   []Range

	info   pdoInfo
	shares []planShare
}

// planShare is one member's iterations: a single box (set without
// allocating) or the tree of several.
type planShare struct {
	boxes [][][]sched.Ivl
	root  *sched.Node
}

func (e *planEntry) key(s Schedule, space []Range) {
	e.kind, e.t, e.onto = s.kind, s.t, s.onto
	if s.t != nil {
		e.dist = s.t.dist
	}
	e.subs = append([]Subscript(nil), s.subs...)
	for _, f := range s.formats {
		e.formats = append(e.formats, f.Clone())
	}
	e.space = append([]Range(nil), space...)
}

func (e *planEntry) matches(s Schedule, space []Range) bool {
	if e.kind != s.kind || !sameArrangement(e.onto, s.onto) || (e.t == nil) != (s.t == nil) || len(e.subs) != len(s.subs) ||
		len(e.formats) != len(s.formats) || len(e.space) != len(space) {
		return false
	}
	// Another template, or the same distributed again, with the same
	// owners has the same schedule: a function whose template directives
	// run at every call planned its loops afresh each time (8 µs for an
	// on_home loop of 99 iterations).
	if s.t != nil && (!s.t.defined || !e.dist.Same(s.t.dist)) {
		return false
	}
	for i, sb := range s.subs {
		if o := e.subs[i]; o.kind != sb.kind || o.dim != sb.dim || o.v != sb.v || sb.kind == subFunc {
			return false
		}
	}
	for i, f := range s.formats {
		if !e.formats[i].Equal(f) {
			return false
		}
	}
	if !slices.Equal(e.space, space) {
		return false
	}
	// pdo-info names the arrangement of the template's distribution, or
	// the loop's.
	if s.t != nil && (e.t != s.t || e.dist != s.t.dist) {
		e.t, e.dist, e.info.arr = s.t, s.t.dist, s.t.dist.Onto
	}
	if e.onto != s.onto {
		e.onto, e.info.arr = s.onto, &s.onto.g
	}
	return true
}

// sameArrangement reports whether a and b have the same shape and
// processors (a processors directive run again makes another).
func sameArrangement(a, b *Procs) bool {
	return a == b || a != nil && b != nil && slices.Equal(a.sizes, b.sizes) && slices.Equal(a.pids, b.pids)
}

func (e *planEntry) install(a *aps, space []Range) {
	for i := range a.members {
		if sh := &e.shares[i]; sh.root != nil {
			a.slots[i].it.root = sh.root
		} else {
			a.slots[i].it.setBoxes(space, sh.boxes)
		}
	}
}

// iter is p's Iter in its current APS. The Iters live in the member slots
// of the APS, so that a leader planning a PDO never writes an Iter its
// member uses in another APS (overlapping sections).
func (p *Proc) iter() *Iter { return &p.aps.slots[p.apsIndex].it }

// planDefaultShare sets p's block of the outermost loop (default
// schedule): members[i] gets counts i*bs .. (i+1)*bs-1, bs = ceil(n/M).
func (p *Proc) planDefaultShare(space []Range) {
	a := p.aps
	it := p.iter()
	p.resetIter(it, space)
	if len(space) == 0 {
		if p == a.leader {
			it.root = &sched.Node{}
		}
		return
	}
	n0 := space[0].Count()
	bs := (n0 + len(a.members) - 1) / len(a.members)
	lo := p.apsIndex * bs
	it.setBox(space, lo, min(n0, lo+bs)-1)
}

// boxSet collects the boxes of iteration counts of each member.
type boxSet struct {
	slot      []int // member index of each pid, -1 if not a member
	boxes     [][][][]sched.Ivl
	roots     []*sched.Node // per member, instead of boxes (loopLevelChains)
	cacheable bool          // the schedule can be reused (no IndexFunc)
}

// memberOf is the member that runs the iterations owned by processor pid:
// pid's own slot, or for a processor outside the APS (a distribution onto
// more processors than a section has) member pid mod M.
func (bs *boxSet) memberOf(pid int) int {
	if s := bs.slot[pid]; s >= 0 {
		return s
	}
	return pid % len(bs.boxes)
}

func (p *Proc) newBoxSet() *boxSet {
	a := p.aps
	bs := &boxSet{slot: make([]int, p.r.n), boxes: make([][][][]sched.Ivl, len(a.members)), cacheable: true}
	for i := range bs.slot {
		bs.slot[i] = -1
	}
	for i, m := range a.members {
		bs.slot[m.id] = i
	}
	return bs
}

func (p *Proc) planOnHome(at Site, s Schedule, space []Range, info *pdoInfo) *boxSet {
	t := s.t
	switch {
	case t == nil:
		p.errorf(at, false, "on_home: no template")
	case !t.defined:
		p.errorf(at, false, "on_home(%s): the template is undefined", t)
	case t.dist == nil:
		p.errorf(at, false, "on_home(%s): the template is not distributed", t)
	case len(s.subs) != t.rank:
		p.errorf(at, false, "on_home(%s): %d subscripts for a template of rank %d", t, len(s.subs), t.rank)
	}
	d := t.dist
	info.arr = d.Onto
	empty := false
	for _, r := range space {
		if r.Count() == 0 {
			empty = true
		}
	}
	hasFunc := false
	for i, sb := range s.subs {
		e := t.dims[i]
		switch sb.kind {
		case subLoopVar:
			if sb.dim < 0 || sb.dim >= len(space) {
				p.errorf(at, false, "on_home(%s): subscript %d uses loop %d of a nest of %d loops", t, i+1, sb.dim, len(space))
			}
			if r := space[sb.dim]; !empty {
				last := r.Lo + (r.Count()-1)*r.Step
				lo, hi := min(r.Lo, last)+sb.v, max(r.Lo, last)+sb.v
				if lo < e.Lo || hi > e.Hi {
					p.errorf(at, false, "on_home(%s): subscript %d takes the values %d..%d, outside the extent %s", t, i+1, lo, hi, e)
				}
			}
		case subConst:
			if sb.v < e.Lo || sb.v > e.Hi {
				p.errorf(at, false, "on_home(%s): subscript %d is %d, outside the extent %s", t, i+1, sb.v, e)
			}
			info.consts = append(info.consts, sb.v)
		case subFunc:
			hasFunc = true
		default:
			p.errorf(at, false, "on_home(%s): subscript %d is invalid", t, i+1)
		}
	}
	bs := p.newBoxSet()
	bs.cacheable = !hasFunc
	if empty {
		return bs
	}
	var c []int
	var seen map[string]bool
	if hasFunc {
		seen = map[string]bool{}
	}
	if d.Rec != nil {
		p.planRecorded(d, s, space, bs, hasFunc)
		if hasFunc {
			p.setOwnerChecks(d, t, s, at)
		}
		return bs
	}
	for l, pid := range d.Onto.Pids {
		slot := bs.memberOf(pid)
		c = d.Onto.Coords(l, c)
		box := sched.FullBox(space)
		ok := true
		key := ""
		for i, sb := range s.subs {
			m := &d.Dims[i]
			if m.Adim < 0 {
				continue
			}
			cc := c[m.Adim]
			switch sb.kind {
			case subConst:
				ok = ok && m.Coord(sb.v) == cc
			case subLoopVar:
				box[sb.dim] = sched.Intersect(box[sb.dim], sched.ToCounts(m.Runs(cc, nil), space[sb.dim], sb.v))
				ok = ok && len(box[sb.dim]) > 0
			case subFunc:
				continue
			}
			if hasFunc {
				key += fmt.Sprint(cc, ",")
			}
		}
		if !ok {
			continue
		}
		if hasFunc {
			// Elements that differ only in coordinates fixed by IndexFunc
			// subscripts give the same relaxed box: keep one.
			if seen[fmt.Sprint(slot, ":", key)] {
				continue
			}
			seen[fmt.Sprint(slot, ":", key)] = true
		}
		bs.boxes[slot] = append(bs.boxes[slot], box)
	}
	if hasFunc {
		p.setOwnerChecks(d, t, s, at)
	}
	return bs
}

// setOwnerChecks gives every member's Iter the owner test of an IndexFunc
// schedule.
func (p *Proc) setOwnerChecks(d *sched.Distribution, t *Template, s Schedule, at Site) {
	a := p.aps
	slot := make([]int, p.r.n)
	for i := range slot {
		slot[i] = -1
	}
	for i, m := range a.members {
		slot[m.id] = i
	}
	for i := range a.members {
		a.slots[i].it.chk = &ownerCheck{d: d, t: t, subs: s.subs, me: i, slot: slot, m: len(a.members), at: at,
			tidx: make([]int, t.rank)}
	}
}

// planRecorded computes the members' boxes of an on_home schedule over a
// template whose distribution a dynamic schedule recorded. With IndexFunc
// subscripts every member gets the whole nest, filtered by the owner test.
func (p *Proc) planRecorded(d *sched.Distribution, s Schedule, space []Range, bs *boxSet, hasFunc bool) {
	if hasFunc {
		for i := range bs.boxes {
			bs.boxes[i] = append(bs.boxes[i], sched.FullBox(space))
		}
		return
	}
	var one [1]sched.Ivl
	d.Rec.Boxes(d.Dims, -1, func(pid int, tb []sched.Ivl) {
		box := sched.FullBox(space)
		for i, sb := range s.subs {
			switch sb.kind {
			case subConst:
				if sb.v < tb[i].Lo || sb.v > tb[i].Hi {
					return
				}
			case subLoopVar:
				one[0] = tb[i]
				box[sb.dim] = sched.Intersect(box[sb.dim], sched.ToCounts(one[:], space[sb.dim], sb.v))
				if len(box[sb.dim]) == 0 {
					return
				}
			}
		}
		slot := bs.memberOf(pid)
		bs.boxes[slot] = append(bs.boxes[slot], box)
	})
}

func (p *Proc) planLoopLevel(at Site, s Schedule, space []Range, info *pdoInfo) *boxSet {
	a := p.aps
	onto := s.onto
	if onto == nil {
		onto = a.procs
	}
	info.arr = &onto.g
	if onto.size == 0 {
		p.errorf(at, false, "pdo onto the empty processor arrangement %s", onto)
	}
	if len(s.formats) > len(space) {
		p.errorf(at, false, "pdo: %d loop-level formats for a nest of %d loops", len(s.formats), len(space))
	}
	if nd := sched.CountDistributed(s.formats); nd != onto.Rank() {
		p.errorf(at, false, "pdo: %d distributed loops onto %s of rank %d", nd, onto, onto.Rank())
	}
	exts := make([]Extent, len(s.formats))
	for l := range exts {
		exts[l] = Extent{Lo: 0, Hi: space[l].Count() - 1}
	}
	d, err := sched.NewDistribution(&onto.g, s.formats, exts, func(l int) string {
		return fmt.Sprintf("pdo: loop %d", l+1)
	})
	if err != nil {
		p.errorf(at, false, "%v", err)
	}
	info.bcl = make([]int, len(space))
	for l := range info.bcl {
		info.bcl[l] = -1
		if l < len(s.formats) {
			info.bcl[l] = s.formats[l].BlockCyclicLength()
		}
	}
	bs := p.newBoxSet()
	if bs.roots = loopLevelChains(bs, onto, d, space); bs.roots != nil {
		return bs
	}
	var c []int
	for l, pid := range onto.pids {
		slot := bs.memberOf(pid)
		c = onto.g.Coords(l, c)
		box := sched.FullBox(space)
		ok := true
		for i := range d.Dims {
			if m := &d.Dims[i]; m.Adim >= 0 {
				box[i] = m.Runs(c[m.Adim], nil)
				ok = ok && len(box[i]) > 0
			}
		}
		if ok && !sched.EmptyBox(box) {
			bs.boxes[slot] = append(bs.boxes[slot], box)
		}
	}
	return bs
}

// loopLevelChains is the loop-level plan as one chain of segments per
// member when the schedule has a cyclic loop and no member runs two
// elements of the arrangement: a cyclic loop's runs are then periodic
// segments, so the plan takes constant space (a cyclic pdo over 5 M
// iterations held 1.25 M intervals per processor). nil: use boxes.
func loopLevelChains(bs *boxSet, onto *Procs, d *sched.Distribution, space []Range) []*sched.Node {
	cyclic := false
	for i := range d.Dims {
		cyclic = cyclic || d.Dims[i].Kind == sched.KindCyclic && d.Dims[i].Adim >= 0
	}
	if !cyclic {
		return nil
	}
	roots := make([]*sched.Node, len(bs.boxes))
	var c []int
	for l, pid := range onto.pids {
		slot := bs.memberOf(pid)
		if roots[slot] != nil {
			return nil // two elements on one member: their union needs boxes
		}
		c = onto.g.Coords(l, c)
		box := make([][]sched.Seg, len(space))
		empty := false
		for i, r := range space {
			if i < len(d.Dims) && d.Dims[i].Adim >= 0 {
				box[i] = d.Dims[i].Segs(c[d.Dims[i].Adim])
			} else if n := r.Count(); n > 0 {
				box[i] = []sched.Seg{{Lo: 0, Hi: n - 1}}
			}
			empty = empty || len(box[i]) == 0
		}
		if !empty {
			roots[slot] = sched.Chain(box)
		}
	}
	return roots
}

// ownerCheck is the per-iteration owner test of schedules with IndexFunc
// subscripts.
type ownerCheck struct {
	d    *sched.Distribution
	t    *Template
	subs []Subscript
	me   int   // member index of the Iter's processor
	slot []int // member index of each pid, -1 outside the APS
	m    int   // members of the APS
	at   Site
	tidx []int // template indices (recorded distributions)
}

func (c *ownerCheck) owns(p *Proc, idx []int) bool {
	l := 0
	for i, sb := range c.subs {
		var v int
		switch sb.kind {
		case subLoopVar:
			v = idx[sb.dim] + sb.v
		case subConst:
			v = sb.v
		case subFunc:
			v = sb.f(idx)
		}
		m := &c.d.Dims[i]
		if v < m.Lo || v >= m.Lo+m.N {
			p.errorf(c.at, true, "on_home(%s): subscript %d is %d at iteration %v, outside the extent %s",
				c.t, i+1, v, idx, c.t.dims[i])
		}
		c.tidx[i] = v
		if m.Adim >= 0 {
			l += m.Coord(v) * c.d.Strides[m.Adim]
		}
	}
	pid := 0
	if c.d.Rec != nil {
		if pid = c.d.Rec.Owner(c.d.Rec.Number(c.d.Dims, c.tidx)); pid < 0 {
			return false // not run by the recorded loop: nobody owns it
		}
	} else {
		pid = c.d.Onto.Pids[l]
	}
	if s := c.slot[pid]; s >= 0 {
		return s == c.me
	}
	return pid%c.m == c.me
}

// Iter walks one processor's iterations of a PDO nest in lexicographic
// order.
type Iter struct {
	// Fast path of Next: the current and the last count of the segment of
	// the innermost loop being walked, its step and its index.
	k, hi, step, last int
	cur               *int // &idx[last]

	p       *Proc
	lv      []level
	idx     []int
	root    *sched.Node
	started bool
	done    bool
	chk     *ownerCheck
	reduce  []func()
	// partials are the member's ReduceInto results, folded in with its
	// closures (reduce) in the order they were registered.
	partials []partial
	values   []valuePartial // ReduceValue's, folded after partials
	ran      int            // iterations handed out so far (pdo-work)
	caught   *bodyPanic     // the panic that ended this share (bodypanic.go)

	// Dynamic schedules: the chunk being walked, linear numbers linPos..
	// linEnd, and where chunks come from.
	lin            bool
	linPos, linEnd int
	dyn            dynIter

	nodes []sched.Node // storage of single-box trees
	segs  []sched.Seg

	lvBuf  [4]level
	idxBuf [4]int

	space    []Range // the nest, for LoopSize (enterLoop)
	spaceBuf [4]Range
}

// level is the position of the walk in one loop.
type level struct {
	segs     []sched.Seg
	si       int // current segment
	rep      int // current repetition of a periodic segment
	k, hi    int // current count, end of the segment
	lo, step int
	n        int // iterations of the loop (dynamic schedules)
}

// checkSteps rejects a loop of step 0.
func (p *Proc) checkSteps(at Site, space []Range) {
	for l, r := range space {
		if r.Step == 0 {
			p.errorf(at, false, "pdo: loop %d has step 0", l+1)
		}
	}
}

// resetIter prepares it for a new nest (steps checked).
func (p *Proc) resetIter(it *Iter, space []Range) {
	it.p = p
	nl := len(space)
	if cap(it.lv) < nl {
		// The storage of small nests lives in the Iter, that is in the
		// Proc: separate small allocations of two processors could share a
		// cache line, and idx is written at every iteration.
		if nl <= len(it.lvBuf) {
			it.lv, it.idx = it.lvBuf[:], it.idxBuf[:]
		} else {
			it.lv, it.idx = make([]level, nl), make([]int, nl)
		}
	}
	it.lv, it.idx = it.lv[:nl], it.idx[:nl]
	for l, r := range space {
		it.lv[l] = level{lo: r.Lo, step: r.Step}
	}
	it.root, it.started, it.done, it.chk = nil, false, false, nil
	it.ran, it.lin, it.dyn = 0, false, dynIter{}
	it.k, it.hi, it.step, it.last, it.cur = 0, 0, 0, nl-1, nil
	if nl > 0 {
		it.cur = &it.idx[nl-1]
	}
	clear(it.reduce)
	it.reduce = it.reduce[:0]
	it.partials = it.partials[:0]
	clear(it.values)
	it.values = it.values[:0]
}

// setBox sets the iterations to counts lo0..hi0 of the outermost loop times
// all counts of the others, without allocating when it can.
func (it *Iter) setBox(space []Range, lo0, hi0 int) {
	nl := len(space)
	if hi0 < lo0 {
		it.root = nil
		return
	}
	for _, r := range space[1:] {
		if r.Count() == 0 {
			it.root = nil
			return
		}
	}
	if cap(it.nodes) < nl {
		it.nodes = make([]sched.Node, nl)
		it.segs = make([]sched.Seg, nl)
	}
	it.nodes, it.segs = it.nodes[:nl], it.segs[:nl]
	for l := nl - 1; l >= 0; l-- {
		s := sched.Seg{Lo: 0, Hi: space[l].Count() - 1, Child: nil}
		if l == 0 {
			s.Lo, s.Hi = lo0, hi0
		}
		if l+1 < nl {
			s.Child = &it.nodes[l+1]
		}
		it.segs[l] = s
		it.nodes[l].Segs = it.segs[l : l+1]
	}
	it.root = &it.nodes[0]
}

// setFull sets all iterations of the nest.
func (it *Iter) setFull(space []Range) {
	if len(space) == 0 {
		it.root = &sched.Node{}
		return
	}
	it.setBox(space, 0, space[0].Count()-1)
}

// setBoxes sets the union of disjoint boxes.
func (it *Iter) setBoxes(space []Range, boxes [][][]sched.Ivl) {
	if len(boxes) == 0 {
		it.root = nil
		return
	}
	if sched.SingleBox(space, boxes) {
		it.setBox(space, boxes[0][0][0].Lo, boxes[0][0][0].Hi)
		// setBox covers every count of the inner loops; narrow them.
		if it.root != nil {
			for l := 1; l < len(space); l++ {
				it.segs[l].Lo, it.segs[l].Hi = boxes[0][l][0].Lo, boxes[0][l][0].Hi
			}
		}
		return
	}
	it.root = sched.BuildTree(boxes, len(space))
}

// Next advances to this processor's next iteration and reports whether there
// is one. The common step, within a segment of the innermost loop, is
// inlined into the caller.
func (it *Iter) Next() bool {
	if it.k < it.hi {
		it.k++
		*it.cur += it.step
		return true
	}
	return it.next()
}

// next is Next beyond the fast path: the next segment or outer iteration,
// and the owner check of IndexFunc schedules.
func (it *Iter) next() bool {
	if it.lin {
		return it.nextLin()
	}
	if it.chk != nil {
		for it.advance() {
			if it.chk.owns(it.p, it.idx) {
				it.ran++
				return true
			}
		}
		return false
	}
	if !it.advance() {
		return false
	}
	if it.last < 0 {
		it.ran++
		return true // a nest of no loops: one iteration
	}
	// Hand the rest of the innermost segment to the fast path.
	L := &it.lv[it.last]
	it.k, it.hi, it.step = L.k, L.hi, L.step
	it.ran += L.hi - L.k + 1
	L.k = L.hi
	return true
}

func (it *Iter) advance() bool {
	if !it.started {
		it.started = true
		if it.root == nil {
			it.done = true
			return false
		}
		it.descend(0, it.root)
		return true
	}
	if it.done {
		return false
	}
	n := len(it.lv)
	for l := n - 1; l >= 0; l-- {
		L := &it.lv[l]
		if L.k < L.hi {
			L.k++
			it.idx[l] += L.step
			if l+1 < n {
				it.descend(l+1, L.segs[L.si].Child)
			}
			return true
		}
		if s := &L.segs[L.si]; L.rep+1 < s.Reps {
			L.rep++
			L.k, L.hi = s.Lo+L.rep*s.Period, s.Hi+L.rep*s.Period
			it.idx[l] = L.lo + L.k*L.step
			if l+1 < n {
				it.descend(l+1, s.Child)
			}
			return true
		}
		if L.si+1 < len(L.segs) {
			L.si++
			L.rep = 0
			s := &L.segs[L.si]
			L.k, L.hi = s.Lo, s.Hi
			it.idx[l] = L.lo + L.k*L.step
			if l+1 < n {
				it.descend(l+1, s.Child)
			}
			return true
		}
	}
	it.done = true
	return false
}

// descend positions loops l.. at the first iteration of node nd.
func (it *Iter) descend(l int, nd *sched.Node) {
	for ; l < len(it.lv); l++ {
		L := &it.lv[l]
		L.segs, L.si, L.rep = nd.Segs, 0, 0
		s := &nd.Segs[0]
		L.k, L.hi = s.Lo, s.Hi
		it.idx[l] = L.lo + L.k*L.step
		nd = s.Child
	}
}

// NextRun advances to the next run of the task's iterations: those that
// differ only in the innermost loop's index, which Run gives (code built
// for ranks walks a run itself, the rows it reads checked once: see
// compiler.RowCheck). It and Next are not mixed in one task.
func (it *Iter) NextRun() bool {
	it.k, it.hi = 0, 0
	return it.next()
}

// Run is the current run: the innermost index's first value, the number
// of iterations and the step between them (one iteration where the
// schedule hands them out one by one).
func (it *Iter) Run() (first, n, step int) {
	if it.last < 0 {
		return 0, 1, 1
	}
	first, n, step = it.idx[it.last], it.hi-it.k+1, it.step
	it.k = it.hi
	return first, n, step
}

// Index is the value of loop variable d (outermost 0) at the current
// iteration.
func (it *Iter) Index(d int) int { return it.idx[d] }

// Reduce registers combine, which folds this processor's partial result into
// the shared variable; the leader runs it after the PDO's barrier, processor
// by processor in order.
func (it *Iter) Reduce(combine func()) { it.reduce = append(it.reduce, combine) }

// combine folds the member's results into the shared variables.
func (it *Iter) combine() {
	for i := range it.partials {
		it.partials[i].fold()
	}
	for _, v := range it.values {
		v.fold()
	}
	for _, f := range it.reduce {
		f()
	}
}

// loopPids are the processors a pdo runs on, as aps-info lists them: the
// APS, or with processors(Q) the members of the APS that Q holds (the
// others only wait at the loop's barrier).
func loopPids(a *aps, s Schedule) []int {
	if s.kind != sLoopLevel || s.onto == nil {
		return a.pids
	}
	var pids []int
	for _, pid := range a.pids {
		if slices.Contains(s.onto.pids, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
