package rtlib

import (
	"fmt"
	"slices"
	"time"

	"github.com/svmc/svmc/trace"
)

// Range is one loop of a PDO nest: Lo, Lo+Step, ... up to Hi inclusive.
// Step must not be 0.
type Range struct{ Lo, Hi, Step int }

// count is the number of iterations.
func (r Range) count() int {
	switch {
	case r.Step > 0 && r.Hi >= r.Lo:
		return (r.Hi-r.Lo)/r.Step + 1
	case r.Step < 0 && r.Lo >= r.Hi:
		return (r.Lo-r.Hi)/(-r.Step) + 1
	}
	return 0
}

type schedKind uint8

const (
	sDefault schedKind = iota
	sOnHome
	sLoopLevel
)

// Schedule is the strategy of a PDO. The zero value is DefaultSchedule.
type Schedule struct {
	kind    schedKind
	t       *Template
	subs    []Subscript
	onto    *Procs
	formats []Format
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
	sub, dir int
	body     func(p *Proc, it *Iter)
	selfPlan bool // default schedule: members compute their block from aps.space
}

// PDO runs a parallel loop nest over space (outermost first). Called by the
// leader in exclusive mode, every member of the APS runs body once with an
// Iter over its own iterations; an implicit barrier ends the loop and the
// leader then runs the closures registered with Iter.Reduce, member by
// member in processor order. Events (stage filtered): trace-region-start
// (pdo) on every member; pdo-info and aps-info by the leader;
// wait-barrier-start/stop on every member; pdo-iteration-space by the
// leader; trace-region-stop on every member. Inside a PDO body, or on a
// detached Proc, the nest runs serially on the calling processor.
func (p *Proc) PDO(sub, dir int, s Schedule, space []Range, body func(p *Proc, it *Iter)) {
	if p.detached || p.inTask {
		p.serialPDO(sub, dir, space, body)
		return
	}
	p.checkAbort()
	a := p.aps
	if p.stage >= stageRegion {
		p.pushRegion(sub, dir, trace.RegionPDO)
	}
	var t0 time.Time
	if p.stage >= stageSched {
		t0 = time.Now()
	}
	p.checkSteps(sub, dir, space)
	var info pdoInfo
	selfPlan := s.kind == sDefault
	if selfPlan {
		// Every member computes its block itself: nothing to write into
		// the other members' Iters.
		info.arr = a.procs
		a.space = append(a.space[:0], space...)
		p.planDefaultShare(space)
	} else {
		info = p.plan(sub, dir, s, space)
	}
	if p.stage >= stageSched {
		p.pdoInfoRec(sub, dir, &info, float64(time.Since(t0))/1e3)
		p.begin(trace.TagAPSInfo, p.id)
		p.buf.Ints(a.pids)
		p.end()
	}
	a.pdo = pdoTask{sub: sub, dir: dir, body: body, selfPlan: selfPlan}
	if len(a.members) > 1 {
		a.dispatch(taskPDO)
	}
	p.inTask = true
	body(p, &p.it)
	p.inTask = false
	p.barrierRec(sub, dir)
	for _, m := range a.members {
		for _, f := range m.it.reduce {
			f()
		}
	}
	if p.stage >= stageSched {
		p.iterSpaceRec(sub, dir, space)
	}
	if p.stage >= stageRegion {
		p.popRegion(sub, dir, trace.RegionPDO)
	}
}

// pdoShare is a member's part of a PDO dispatched by the leader.
func (p *Proc) pdoShare(t *pdoTask) {
	sub, dir, body := t.sub, t.dir, t.body
	if p.stage >= stageRegion {
		p.pushRegion(sub, dir, trace.RegionPDO)
	}
	if t.selfPlan {
		p.planDefaultShare(p.aps.space)
	}
	p.inTask = true
	body(p, &p.it)
	p.inTask = false
	p.barrierRec(sub, dir)
	if p.stage >= stageRegion {
		p.popRegion(sub, dir, trace.RegionPDO)
	}
}

// serialPDO runs every iteration of the nest on p.
func (p *Proc) serialPDO(sub, dir int, space []Range, body func(p *Proc, it *Iter)) {
	if p.stage >= stageRegion {
		p.pushRegion(sub, dir, trace.RegionPDO)
	}
	p.checkSteps(sub, dir, space)
	it := &Iter{}
	p.resetIter(it, space)
	it.setFull(space)
	body(p, it)
	for _, f := range it.reduce {
		f()
	}
	if p.stage >= stageRegion {
		p.popRegion(sub, dir, trace.RegionPDO)
	}
}

func (p *Proc) pdoInfoRec(sub, dir int, info *pdoInfo, startup float64) {
	p.begin(trace.TagPDOInfo, p.id)
	p.buf.Int(sub)
	p.buf.Int(dir)
	p.buf.Int(info.arr.id)
	p.extentRows(info.arr.dims)
	p.buf.Ints(info.bcl)
	p.buf.Ints(info.consts)
	p.buf.Double(startup)
	p.end()
}

func (p *Proc) iterSpaceRec(sub, dir int, space []Range) {
	p.begin(trace.TagPDOIterationSpace, p.id)
	p.buf.Int(sub)
	p.buf.Int(dir)
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
	arr    *Procs
	bcl    []int
	consts []int
}

// plan computes every member's iterations into its Iter.
func (p *Proc) plan(sub, dir int, s Schedule, space []Range) pdoInfo {
	a := p.aps
	for _, m := range a.members {
		p.resetIter(&m.it, space)
	}
	key := [2]int{sub, dir}
	if e := a.plans[key]; e != nil && e.matches(s, space) {
		e.install(a, space)
		return e.info
	}
	info := pdoInfo{arr: a.procs}
	var bs *boxSet
	switch s.kind {
	case sOnHome:
		bs = p.planOnHome(sub, dir, s, space, &info)
	case sLoopLevel:
		bs = p.planLoopLevel(sub, dir, s, space, &info)
	}
	e := &planEntry{info: info, shares: make([]planShare, len(a.members))}
	for i := range a.members {
		e.shares[i].boxes = bs.boxes[i]
		if !singleBox(space, bs.boxes[i]) {
			e.shares[i].root = buildTree(bs.boxes[i], len(space))
		}
	}
	e.install(a, space)
	if bs.cacheable {
		e.key(s, space)
		if a.plans == nil {
			a.plans = map[[2]int]*planEntry{}
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
	dist    *distribution
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
	boxes [][][]ivl
	root  *snode
}

func (e *planEntry) key(s Schedule, space []Range) {
	e.kind, e.t, e.onto = s.kind, s.t, s.onto
	if s.t != nil {
		e.dist = s.t.dist
	}
	e.subs = append([]Subscript(nil), s.subs...)
	for _, f := range s.formats {
		f.vals = append([]int(nil), f.vals...)
		e.formats = append(e.formats, f)
	}
	e.space = append([]Range(nil), space...)
}

func (e *planEntry) matches(s Schedule, space []Range) bool {
	if e.kind != s.kind || e.onto != s.onto || e.t != s.t || len(e.subs) != len(s.subs) ||
		len(e.formats) != len(s.formats) || len(e.space) != len(space) {
		return false
	}
	if s.t != nil && (!s.t.defined || e.dist != s.t.dist) {
		return false
	}
	for i, sb := range s.subs {
		if o := e.subs[i]; o.kind != sb.kind || o.dim != sb.dim || o.v != sb.v || sb.kind == subFunc {
			return false
		}
	}
	for i, f := range s.formats {
		if o := e.formats[i]; o.kind != f.kind || o.k != f.k || !slices.Equal(o.vals, f.vals) {
			return false
		}
	}
	return slices.Equal(e.space, space)
}

func (e *planEntry) install(a *aps, space []Range) {
	for i, m := range a.members {
		if sh := &e.shares[i]; sh.root != nil {
			m.it.root = sh.root
		} else {
			m.it.setBoxes(space, sh.boxes)
		}
	}
}

// singleBox reports whether boxes is one box of one interval per loop.
func singleBox(space []Range, boxes [][][]ivl) bool {
	if len(boxes) != 1 || len(space) == 0 {
		return len(boxes) == 0
	}
	for _, s := range boxes[0] {
		if len(s) != 1 {
			return false
		}
	}
	return true
}

// planDefaultShare sets p's block of the outermost loop (default
// schedule): members[i] gets counts i*bs .. (i+1)*bs-1, bs = ceil(n/M).
func (p *Proc) planDefaultShare(space []Range) {
	a := p.aps
	p.resetIter(&p.it, space)
	if len(space) == 0 {
		if p == a.leader {
			p.it.root = &snode{}
		}
		return
	}
	n0 := space[0].count()
	bs := (n0 + len(a.members) - 1) / len(a.members)
	lo := p.apsIndex * bs
	p.it.setBox(space, lo, min(n0, lo+bs)-1)
}

// boxSet collects the boxes of iteration counts of each member.
type boxSet struct {
	slot      []int // member index of each pid, -1 if not a member
	boxes     [][][][]ivl
	cacheable bool // the schedule can be reused (no IndexFunc)
}

func (p *Proc) newBoxSet() *boxSet {
	a := p.aps
	bs := &boxSet{slot: make([]int, p.r.n), boxes: make([][][][]ivl, len(a.members)), cacheable: true}
	for i := range bs.slot {
		bs.slot[i] = -1
	}
	for i, m := range a.members {
		bs.slot[m.id] = i
	}
	return bs
}

// fullBox is one interval of all counts per loop.
func fullBox(space []Range) [][]ivl {
	box := make([][]ivl, len(space))
	for l, r := range space {
		box[l] = []ivl{{0, r.count() - 1}}
	}
	return box
}

func (p *Proc) planOnHome(sub, dir int, s Schedule, space []Range, info *pdoInfo) *boxSet {
	t := s.t
	switch {
	case t == nil:
		p.errorf(sub, dir, false, "on_home: no template")
	case !t.defined:
		p.errorf(sub, dir, false, "on_home(%s): the template is undefined", t)
	case t.dist == nil:
		p.errorf(sub, dir, false, "on_home(%s): the template is not distributed", t)
	case len(s.subs) != t.rank:
		p.errorf(sub, dir, false, "on_home(%s): %d subscripts for a template of rank %d", t, len(s.subs), t.rank)
	}
	d := t.dist
	info.arr = d.onto
	empty := false
	for _, r := range space {
		if r.count() == 0 {
			empty = true
		}
	}
	hasFunc := false
	for i, sb := range s.subs {
		e := t.dims[i]
		switch sb.kind {
		case subLoopVar:
			if sb.dim < 0 || sb.dim >= len(space) {
				p.errorf(sub, dir, false, "on_home(%s): subscript %d uses loop %d of a nest of %d loops", t, i+1, sb.dim, len(space))
			}
			if r := space[sb.dim]; !empty {
				last := r.Lo + (r.count()-1)*r.Step
				lo, hi := min(r.Lo, last)+sb.v, max(r.Lo, last)+sb.v
				if lo < e.Lo || hi > e.Hi {
					p.errorf(sub, dir, false, "on_home(%s): subscript %d takes the values %d..%d, outside the extent %s", t, i+1, lo, hi, e)
				}
			}
		case subConst:
			if sb.v < e.Lo || sb.v > e.Hi {
				p.errorf(sub, dir, false, "on_home(%s): subscript %d is %d, outside the extent %s", t, i+1, sb.v, e)
			}
			info.consts = append(info.consts, sb.v)
		case subFunc:
			hasFunc = true
		default:
			p.errorf(sub, dir, false, "on_home(%s): subscript %d is invalid", t, i+1)
		}
	}
	bs := p.newBoxSet()
	bs.cacheable = !hasFunc
	if empty {
		return bs
	}
	a := p.aps
	var c []int
	var seen map[string]bool
	if hasFunc {
		seen = map[string]bool{}
	}
	for l, pid := range d.onto.pids {
		slot := bs.slot[pid]
		if slot < 0 {
			continue
		}
		c = d.onto.coords(l, c)
		box := fullBox(space)
		ok := true
		key := ""
		for i, sb := range s.subs {
			m := &d.dims[i]
			if m.adim < 0 {
				continue
			}
			cc := c[m.adim]
			switch sb.kind {
			case subConst:
				ok = ok && m.coord(sb.v) == cc
			case subLoopVar:
				box[sb.dim] = intersect(box[sb.dim], toCounts(m.runs(cc, nil), space[sb.dim], sb.v))
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
		for _, m := range a.members {
			m.it.chk = &ownerCheck{d: d, t: t, subs: s.subs, pid: m.id, sub: sub, dir: dir}
		}
	}
	return bs
}

func (p *Proc) planLoopLevel(sub, dir int, s Schedule, space []Range, info *pdoInfo) *boxSet {
	a := p.aps
	onto := s.onto
	if onto == nil {
		onto = a.procs
	}
	info.arr = onto
	if onto.size == 0 {
		p.errorf(sub, dir, false, "pdo onto the empty processor arrangement %s", onto)
	}
	if len(s.formats) > len(space) {
		p.errorf(sub, dir, false, "pdo: %d loop-level formats for a nest of %d loops", len(s.formats), len(space))
	}
	if nd := countDistributed(s.formats); nd != onto.Rank() {
		p.errorf(sub, dir, false, "pdo: %d distributed loops onto %s of rank %d", nd, onto, onto.Rank())
	}
	exts := make([]Extent, len(s.formats))
	for l := range exts {
		exts[l] = Extent{0, space[l].count() - 1}
	}
	d, err := newDistribution(onto, s.formats, exts, func(l int) string {
		return fmt.Sprintf("pdo: loop %d", l+1)
	})
	if err != nil {
		p.errorf(sub, dir, false, "%v", err)
	}
	info.bcl = make([]int, len(space))
	for l := range info.bcl {
		info.bcl[l] = -1
		if l < len(s.formats) {
			switch f := s.formats[l]; f.kind {
			case fBlock:
				info.bcl[l] = 0
			case fCyclic:
				info.bcl[l] = f.k
			case fGenBlock:
				info.bcl[l] = -2
			case fIndirect:
				info.bcl[l] = -3
			}
		}
	}
	bs := p.newBoxSet()
	var c []int
	for l, pid := range onto.pids {
		slot := bs.slot[pid]
		if slot < 0 {
			continue
		}
		c = onto.coords(l, c)
		box := fullBox(space)
		ok := true
		for i := range d.dims {
			if m := &d.dims[i]; m.adim >= 0 {
				box[i] = m.runs(c[m.adim], nil)
				ok = ok && len(box[i]) > 0
			}
		}
		if ok && !emptyBox(box) {
			bs.boxes[slot] = append(bs.boxes[slot], box)
		}
	}
	return bs
}

func emptyBox(box [][]ivl) bool {
	for _, s := range box {
		if len(s) == 0 || s[0].lo > s[len(s)-1].hi {
			return true
		}
	}
	return false
}

// toCounts converts the template index intervals runs, reached by loop r
// through subscript value+off, into sorted intervals of iteration counts.
func toCounts(runs []ivl, r Range, off int) []ivl {
	n := r.count()
	var out []ivl
	for _, iv := range runs {
		a, b := iv.lo-off-r.Lo, iv.hi-off-r.Lo // value - Lo range
		var klo, khi int
		if r.Step > 0 {
			klo, khi = ceilDiv(a, r.Step), floorDiv(b, r.Step)
		} else {
			klo, khi = ceilDiv(b, r.Step), floorDiv(a, r.Step)
		}
		klo, khi = max(klo, 0), min(khi, n-1)
		if klo <= khi {
			out = append(out, ivl{klo, khi})
		}
	}
	if r.Step < 0 {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

func floorDiv(x, y int) int {
	q := x / y
	if x%y != 0 && (x < 0) != (y < 0) {
		q--
	}
	return q
}

func ceilDiv(x, y int) int { return -floorDiv(-x, y) }

// ownerCheck is the per-iteration owner test of schedules with IndexFunc
// subscripts.
type ownerCheck struct {
	d        *distribution
	t        *Template
	subs     []Subscript
	pid      int
	sub, dir int
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
		m := &c.d.dims[i]
		if v < m.lo || v >= m.lo+m.n {
			p.errorf(c.sub, c.dir, true, "on_home(%s): subscript %d is %d at iteration %v, outside the extent %s",
				c.t, i+1, v, idx, c.t.dims[i])
		}
		if m.adim >= 0 {
			l += m.coord(v) * c.d.strides[m.adim]
		}
	}
	return c.d.onto.pids[l] == c.pid
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
	root    *snode
	started bool
	done    bool
	chk     *ownerCheck
	reduce  []func()

	nodes []snode // storage of single-box trees
	segs  []sseg

	lvBuf  [4]level
	idxBuf [4]int
}

// level is the position of the walk in one loop.
type level struct {
	segs     []sseg
	si       int // current segment
	k, hi    int // current count, end of the segment
	lo, step int
}

// checkSteps rejects a loop of step 0.
func (p *Proc) checkSteps(sub, dir int, space []Range) {
	for l, r := range space {
		if r.Step == 0 {
			p.errorf(sub, dir, false, "pdo: loop %d has step 0", l+1)
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
	it.k, it.hi, it.step, it.last, it.cur = 0, 0, 0, nl-1, nil
	if nl > 0 {
		it.cur = &it.idx[nl-1]
	}
	clear(it.reduce)
	it.reduce = it.reduce[:0]
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
		if r.count() == 0 {
			it.root = nil
			return
		}
	}
	if cap(it.nodes) < nl {
		it.nodes = make([]snode, nl)
		it.segs = make([]sseg, nl)
	}
	it.nodes, it.segs = it.nodes[:nl], it.segs[:nl]
	for l := nl - 1; l >= 0; l-- {
		s := sseg{0, space[l].count() - 1, nil}
		if l == 0 {
			s.lo, s.hi = lo0, hi0
		}
		if l+1 < nl {
			s.child = &it.nodes[l+1]
		}
		it.segs[l] = s
		it.nodes[l].segs = it.segs[l : l+1]
	}
	it.root = &it.nodes[0]
}

// setFull sets all iterations of the nest.
func (it *Iter) setFull(space []Range) {
	if len(space) == 0 {
		it.root = &snode{}
		return
	}
	it.setBox(space, 0, space[0].count()-1)
}

// setBoxes sets the union of disjoint boxes.
func (it *Iter) setBoxes(space []Range, boxes [][][]ivl) {
	if len(boxes) == 0 {
		it.root = nil
		return
	}
	if singleBox(space, boxes) {
		it.setBox(space, boxes[0][0][0].lo, boxes[0][0][0].hi)
		// setBox covers every count of the inner loops; narrow them.
		if it.root != nil {
			for l := 1; l < len(space); l++ {
				it.segs[l].lo, it.segs[l].hi = boxes[0][l][0].lo, boxes[0][l][0].hi
			}
		}
		return
	}
	it.root = buildTree(boxes, len(space))
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
	if it.chk != nil {
		for it.advance() {
			if it.chk.owns(it.p, it.idx) {
				return true
			}
		}
		return false
	}
	if !it.advance() {
		return false
	}
	if it.last < 0 {
		return true // a nest of no loops: one iteration
	}
	// Hand the rest of the innermost segment to the fast path.
	L := &it.lv[it.last]
	it.k, it.hi, it.step = L.k, L.hi, L.step
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
				it.descend(l+1, L.segs[L.si].child)
			}
			return true
		}
		if L.si+1 < len(L.segs) {
			L.si++
			s := &L.segs[L.si]
			L.k, L.hi = s.lo, s.hi
			it.idx[l] = L.lo + L.k*L.step
			if l+1 < n {
				it.descend(l+1, s.child)
			}
			return true
		}
	}
	it.done = true
	return false
}

// descend positions loops l.. at the first iteration of node nd.
func (it *Iter) descend(l int, nd *snode) {
	for ; l < len(it.lv); l++ {
		L := &it.lv[l]
		L.segs, L.si = nd.segs, 0
		s := &nd.segs[0]
		L.k, L.hi = s.lo, s.hi
		it.idx[l] = L.lo + L.k*L.step
		nd = s.child
	}
}

// Index is the value of loop variable d (outermost 0) at the current
// iteration.
func (it *Iter) Index(d int) int { return it.idx[d] }

// Reduce registers combine, which folds this processor's partial result into
// the shared variable; the leader runs it after the PDO's barrier, processor
// by processor in order.
func (it *Iter) Reduce(combine func()) { it.reduce = append(it.reduce, combine) }
