package rtlib

import (
	"math"
	"sync"

	"github.com/svmc/svmc/rtlib/internal/sched"

	"fmt"
	"sync/atomic"

	"github.com/svmc/svmc/trace"

	"github.com/svmc/svmc/rtlib/internal/stats"
)

// Dynamic scheduling. The iterations of the nest are numbered 0..total-1 in
// lexicographic order (row-major over the iteration counts, outermost loop
// first) and handed out in chunks of consecutive numbers; a chunk is walked
// in lexicographic order like any share.

type dynKind uint8

const (
	dNone dynKind = iota
	dDynamic
	dGuided
	dAffinity
)

// Dynamic is self-scheduling: members take chunks of chunk iterations (<= 0:
// 1) from a counter shared by the APS (one atomic add per chunk).
func Dynamic(chunk int) Schedule {
	return Schedule{kind: sDynamic, dyn: dDynamic, chunk: max(chunk, 1)}
}

// Guided is guided self-scheduling: a member takes max(remaining/M, min)
// iterations (at least 1) for an APS of M members.
func Guided(min int) Schedule {
	return Schedule{kind: sDynamic, dyn: dGuided, chunk: max(min, 1)}
}

// Affinity is affinity scheduling: every member has a queue, initially its
// block of the iterations (block size ceil(total/M)), and takes
// ceil(remaining/M) iterations from its front at a time; a member whose queue
// is empty steals the back half of the largest remaining queue and goes on
// from it. A nest of more than 2^31-1 iterations is self-scheduled instead.
func Affinity() Schedule { return Schedule{kind: sDynamic, dyn: dAffinity, chunk: 1} }

// Record makes the schedule semi-dynamic: at the end of the PDO the
// iterations each processor ran become t's distribution, iteration counts
// (c_1, ..., c_r) owning the template element (lo_1+c_1, ..., lo_r+c_r).
// t must have the shape of the iteration space. The distribution is written
// as template-dist (one record per member of the APS) and used by later
// OnHome(t, ...) schedules. Only dynamic strategies can be recorded.
func (s Schedule) Record(t *Template) Schedule {
	s.rec = t
	return s
}

// dynShared is the state the members of an APS share in a dynamic PDO: the
// counter of the next iteration number (Dynamic, Guided); the affinity
// queues live in the member slots. The leader resets it after the PDO's
// barrier, before the next dispatch or release.
type dynShared struct {
	_    [cacheLine]byte
	next atomic.Int64
	_    [cacheLine - 8]byte
}

const qUninit = ^uint64(0) // affinity queue not yet set to its member's block

func (d *dynShared) reset(a *aps) {
	d.next.Store(0)
	for i := range a.slots {
		a.slots[i].queue.Store(qUninit)
	}
}

func qpack(lo, end int) uint64       { return uint64(uint32(lo)) | uint64(uint32(end))<<32 }
func qunpack(w uint64) (lo, end int) { return int(uint32(w)), int(uint32(w >> 32)) }

// dynIter is the dynamic part of an Iter.
type dynIter struct {
	kind   dynKind
	a      *aps
	me, m  int // member index, members
	chunk  int
	total  int
	record bool

	// Chunk fetches and the time they take, timed for 1 in dispatchSample
	// (a clock reading per fetch would cost more than a fetch), only when
	// pdo-work is traced: counting cost dynamic(1) ~20% at stage 0.
	count          bool
	grabs, samples int
	sampleNs       int64

	seq int // a pdo between ranks: its number; rank 0 hands out the chunks
}

// dispatchSample: one fetch in this many is timed.
const dispatchSample = 64

// dispatchUs estimates the time p spent fetching chunks, in µs.
func (d *dynIter) dispatchUs() float64 {
	if d.samples == 0 {
		return 0
	}
	return float64(d.sampleNs) / float64(d.samples) * float64(d.grabs) / 1e3
}

// nestTotal is the number of iterations of the nest (1 for no loops).
func (p *Proc) nestTotal(at Site, space []Range) int {
	t := 1
	for _, r := range space {
		n := r.Count()
		if n != 0 && t > math.MaxInt/n {
			p.errorf(at, false, "pdo: the nest has more than %d iterations", math.MaxInt)
		}
		t *= n
	}
	return t
}

// setDynamic prepares it to walk the chunks p takes in a dynamic PDO of
// APS a over space (steps checked).
func (p *Proc) setDynamic(it *Iter, a *aps, kind dynKind, chunk int, space []Range, total int, record bool) {
	p.resetIter(it, space)
	it.lin = true
	it.linPos, it.linEnd = 0, -1
	for l, r := range space {
		it.lv[l].n = r.Count()
	}
	if kind == dAffinity && total > 1<<31-1 {
		kind, chunk = dDynamic, max(1, total/(64*len(a.members)))
	}
	it.dyn = dynIter{kind: kind, a: a, me: p.apsIndex, m: len(a.members), chunk: chunk, total: total, record: record,
		count: p.on(trace.TagPDOWork)}
	if record {
		s := &a.slots[p.apsIndex]
		s.log = s.log[:0]
	}
}

// nextLin is Next for a dynamic share: the rest of the current chunk, or a
// new chunk.
func (it *Iter) nextLin() bool {
	if it.done {
		return false
	}
	for it.linPos > it.linEnd {
		if !it.grab() {
			it.done = true
			return false
		}
	}
	pos := it.linPos
	nl := len(it.lv)
	if nl == 0 {
		it.linPos++
		it.ran++
		return true
	}
	q := pos
	for l := nl - 1; l >= 0; l-- {
		L := &it.lv[l]
		c := q % L.n
		q /= L.n
		it.idx[l] = L.lo + c*L.step
	}
	last := &it.lv[nl-1]
	c := pos % last.n
	end := min(last.n-1, c+(it.linEnd-pos))
	it.k, it.hi, it.step = c, end, last.step
	it.linPos = pos + end - c + 1
	it.ran += end - c + 1
	return true
}

// grab takes the next chunk into linPos..linEnd; false when no iteration is
// left. It is a safe point. It counts the fetches and times a sample.
func (it *Iter) grab() bool {
	if st := it.p.st; st != nil { // statistics: Lib-DVM's DoPLGrp
		sv := st.Switch(stats.DoPL)
		ok := it.sampled()
		st.Restore(sv)
		return ok
	}
	return it.sampled()
}

// sampled is grab's work: the fetch, timed one in dispatchSample.
func (it *Iter) sampled() bool {
	d := &it.dyn
	if !d.count {
		return it.fetch()
	}
	d.grabs++
	if d.grabs%dispatchSample != 0 { // the 64th, 128th, ...: a short loop pays no clock reading
		return it.fetch()
	}
	t0 := nanotime()
	ok := it.fetch()
	// A fetch takes some 100 ns; a sample far longer was descheduled in
	// the middle (a loaded machine) and would be extrapolated to every
	// fetch: it counts as maxSampleNs.
	d.sampleNs += min(max(0, nanotime()-t0-clockCost()), maxSampleNs)
	d.samples++
	return ok
}

// maxSampleNs bounds one timed fetch.
const maxSampleNs = 10_000

// clockCost is what reading the clock twice adds to a timed interval
// (the least of a few empty intervals), taken out of the timed fetches.
var clockCost = sync.OnceValue(func() int64 {
	least := int64(math.MaxInt64)
	for range 64 {
		t0 := nanotime()
		least = min(least, nanotime()-t0)
	}
	return least
})

// fetch is grab's work.
func (it *Iter) fetch() bool {
	d := &it.dyn
	p := it.p
	p.checkAbort()
	var lo, hi int
	switch {
	case d.seq != 0:
		if lo, hi = it.rankFetch(d.seq); hi < lo {
			return false
		}
	case d.kind == dDynamic:
		c := int64(d.chunk)
		s := d.a.dyn.next.Add(c) - c
		if s >= int64(d.total) {
			return false
		}
		lo, hi = int(s), min(int(s)+d.chunk, d.total)-1
	case d.kind == dGuided:
		for {
			s := d.a.dyn.next.Load()
			if s >= int64(d.total) {
				return false
			}
			rem := d.total - int(s)
			c := min(rem, max(rem/d.m, d.chunk))
			if d.a.dyn.next.CompareAndSwap(s, s+int64(c)) {
				lo, hi = int(s), int(s)+c-1
				break
			}
		}
	case d.kind == dAffinity:
		var ok bool
		if lo, hi, ok = d.affinity(); !ok {
			return false
		}
	default:
		return false
	}
	it.linPos, it.linEnd = lo, hi
	if d.record {
		s := &d.a.slots[d.me]
		s.log = append(s.log, sched.Ivl{Lo: lo, Hi: hi})
	}
	return true
}

// block is member i's initial affinity queue.
func (d *dynIter) block(i int) (lo, end int) {
	bs := (d.total + d.m - 1) / d.m
	lo = min(i*bs, d.total)
	return lo, min(lo+bs, d.total)
}

func (d *dynIter) queueOf(w uint64, i int) (lo, end int) {
	if w == qUninit {
		return d.block(i)
	}
	return qunpack(w)
}

// affinity takes a chunk from the member's own queue, stealing the back
// half of the largest queue when its own is empty. Queue words change only
// by compare-and-swap; a non-empty (lo, end) never comes back once lo was
// handed out, so a stale compare-and-swap cannot succeed.
func (d *dynIter) affinity() (lo, hi int, ok bool) {
	q := &d.a.slots[d.me].queue
	for {
		w := q.Load()
		lo, end := d.queueOf(w, d.me)
		if lo < end {
			c := (end - lo + d.m - 1) / d.m
			if q.CompareAndSwap(w, qpack(lo+c, end)) {
				return lo, lo + c - 1, true
			}
			continue
		}
		v, vw, best := -1, uint64(0), 0
		for j := range d.a.slots {
			if j == d.me {
				continue
			}
			w := d.a.slots[j].queue.Load()
			if l, e := d.queueOf(w, j); e-l > best {
				v, vw, best = j, w, e-l
			}
		}
		if v < 0 {
			return 0, 0, false
		}
		l, e := d.queueOf(vw, v)
		mid := l + (e-l)/2
		if d.a.slots[v].queue.CompareAndSwap(vw, qpack(l, mid)) {
			q.Store(qpack(mid, e))
		}
	}
}

// checkRecord checks that t can record a PDO over space.
func (p *Proc) checkRecord(at Site, s Schedule, space []Range) {
	t := s.rec
	if t == nil {
		return
	}
	if s.kind != sDynamic {
		p.errorf(at, false, "template(%s): only a dynamic strategy can be recorded", t)
	}
	if !t.defined {
		p.errorf(at, false, "template(%s): the template is undefined", t)
	}
	ok := t.rank == len(space)
	for i := 0; ok && i < t.rank; i++ {
		ok = t.dims[i].Size() == space[i].Count()
	}
	if !ok {
		counts := make([]int, len(space))
		for i, r := range space {
			counts[i] = r.Count()
		}
		p.errorf(at, false, "template(%s): the shape of the template differs from the iteration space %v", t, counts)
	}
}

// recordDist gives t the distribution the members of a decided: the chunks
// in their logs. Called by the leader after the PDO's barrier; each member
// wrote the template-dist of its own part before it (ownDistRec).
func (p *Proc) recordDist(a *aps, t *Template) {
	var runs []sched.RecRun
	for i := range a.slots {
		for _, c := range a.slots[i].log {
			runs = append(runs, sched.RecRun{Lo: c.Lo, Hi: c.Hi, Pid: a.pids[i]})
		}
	}
	t.dist = sched.NewRecorded(&a.procs.g, t.dims, runs)
}

// ownDistRec writes the template-dist of the calling member's part of a
// pdo that records its schedule in rec: as seed 002's Table 1 has it, at
// the end of the PDO before its barrier, every processor its own local
// elements (the chunks it ran, as boxes of rec).
func (p *Proc) ownDistRec(rec *Template) {
	if rec == nil || !p.mapOn(trace.TagTemplateDist) {
		return
	}
	a := p.aps
	var runs []sched.RecRun
	for _, c := range a.slots[p.apsIndex].log {
		runs = append(runs, sched.RecRun{Lo: c.Lo, Hi: c.Hi, Pid: p.id})
	}
	boxes := sched.NewRecorded(&a.procs.g, rec.dims, runs).OwnedBoxes(p.id, nil)
	p.begin(trace.TagTemplateDist, p.id)
	p.buf.Int(rec.id)
	p.buf.IntRows(2*rec.rank, boxes)
	p.end()
}

func (s Schedule) String() string {
	switch s.kind {
	case sDynamic:
		switch s.dyn {
		case dDynamic:
			return fmt.Sprintf("dynamic(%d)", s.chunk)
		case dGuided:
			return fmt.Sprintf("guided(%d)", s.chunk)
		case dAffinity:
			return "affinity"
		}
	case sOnHome:
		return "on_home"
	case sLoopLevel:
		return "loop-level"
	}
	return "default"
}

// pdoWorkRec writes pdo-work: the iterations p ran in the PDO, the time
// from start (its region start) until now (its arrival at the barrier),
// and under self-scheduling the chunks it fetched and the estimated time
// the fetching took (part of the busy time).
func (p *Proc) pdoWorkRec(at Site, it *Iter, start float64) {
	now := p.now()
	p.buf.Begin(trace.TagPDOWork, p.id, now)
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
	p.buf.Int(it.ran)
	p.buf.Double(now - start)
	p.buf.Int(it.dyn.grabs)
	p.buf.Double(min(it.dyn.dispatchUs(), now-start)) // fetching is part of the busy time
	p.end()
}
