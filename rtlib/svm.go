package rtlib

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/rtlib/internal/svm"
	"github.com/svmc/svmc/trace"
)

// The SVM layer's side of the runtime (issue 15). Package svm decides what
// a page fault does; this file finds the page of an access, runs the
// protocol on a miss and writes the kernel events of seed 002 §4.1 that the
// requests ask for. It is on only when some request can trace a page
// record (stage 4 and above, or an SVMInfo word): otherwise Proc.sv is nil
// and the check is one test.

// svmTags are the page records: the layer runs when a run may trace one.
var svmTags = request.MaskOfTags(trace.TagReadPageFaultSum, trace.TagWritePageFaultSum,
	trace.TagReadPageFaultServiced, trace.TagWritePageFaultServiced, trace.TagInvalidateCopy,
	trace.TagReduceAccessPermission, trace.TagPageTravel, trace.TagOPageDist, trace.TagCPageDist, trace.TagPageOut)

// R checks a read of *x, an element of a shared variable, at access site
// site (progdb Accesses) and returns x: svmc writes a read of a[i] as
// (*svm_rt.R(svm_p, 7, &a[i])).
func R[T any](p *Proc, site int, x *T) *T {
	if p.rp != nil || p.sv != nil {
		p.access(site, uintptr(unsafe.Pointer(x)), false)
	}
	return x
}

// W checks a write of *x (see R).
func W[T any](p *Proc, site int, x *T) *T {
	if p.rp != nil || p.sv != nil {
		p.access(site, uintptr(unsafe.Pointer(x)), true)
	}
	return x
}

// access is the check R and W make when one is on (kept out of them, so
// that they stay small enough to inline): between ranks with lazy pages
// the ranks' protocol (rankpages.go), whose records of stages 4–6 come
// from its real transfers; in one process the model of package svm.
func (p *Proc) access(site int, addr uintptr, write bool) {
	if c := p.rp; c != nil {
		if !c.hit(site, addr) {
			c.check(p, site, addr, write)
		}
		return
	}
	need := svm.ReadOnly
	if write {
		need = svm.Writable
	}
	p.sv.check(p, site, addr, need)
}

// Checking reports whether the access checks on p do anything: svmc runs
// an unchecked copy of a loop body when they do not.
func (p *Proc) Checking() bool { return p.sv != nil || p.rp != nil }

// svmProc is a processor's side of the layer.
type svmProc struct {
	space *svm.Space
	r     *run
	shift uint // log2 of the page size
	// cache maps the pages of the last accesses to their segments and
	// numbers, direct-mapped by a hash of the page address (arrays of the
	// same size are aligned alike: their low bits collide): a stencil
	// touches a few pages over and over (rows of a [][]T, several arrays).
	cache [16]pageEntry
	// log holds the faults since the outermost open region began, for
	// the sums and page travel of every open region at its exit
	// (svmMark in region is where the region's part starts).
	log []faultEnt
	// budget bounds the copies of other processors' pages kept (0: none);
	// held lists them, oldest first, with their segments.
	budget int
	held   []heldPage
	// busy is the time spent in the protocol since the outermost open
	// region began (svm-overhead at region exit).
	busy      float64
	busyMarks []float64 // busy at the start of each open region
	// kbytes are the bytes of page records in the processor's buffer since
	// it was last handed to the writer: the kernel's trace buffer
	// (SVM_Kernel_TraceBuf_Size) is that part of it.
	kbytes int
	// inbox holds what other processors' faults and the last Sync did to
	// this processor's pages (invalidated copies, reduced permissions):
	// the processor writes them itself, in its own stream, at its next
	// barrier or region exit.
	inbox struct {
		mu    sync.Mutex
		notes []svmNote
	}
}

// svmNote is an invalidate-copy or reduce-access-permission to write.
type svmNote struct {
	tag       trace.Tag
	seg       *svm.Segment
	addr      uintptr
	page      int
	requester int
}

// kend ends a page record: the buffer is handed to the writer when the
// page records in it reach the kernel's trace buffer size
// (kernel-trace-buffer-overflow), as it is when the whole buffer is full.
// Page records stay in the processor's buffer, in clock order with its
// other records; a buffer of their own would put them out of order.
func (s *svmProc) kend(p *Proc) {
	start := p.buf.Open()
	p.buf.End()
	p.publish()
	s.kbytes += len(p.buf.B) - start
	if len(p.buf.B) >= p.chunkLimit || s.r.kernelBuf > 0 && s.kbytes >= s.r.kernelBuf {
		p.flushFull()
	}
}

// post leaves a note for processor q.
func (r *run) post(q int, n svmNote) {
	sv := r.procs[q].sv
	sv.inbox.mu.Lock()
	sv.inbox.notes = append(sv.inbox.notes, n)
	sv.inbox.mu.Unlock()
}

type heldPage struct {
	seg *svm.Segment
	pg  int
}

type pageEntry struct {
	key uintptr // page address >> shift, + 1 (0: empty)
	seg *svm.Segment
	pg  int
}

type faultEnt struct {
	seg      int32
	from     int16 // the processor that sent the page, -1 none
	write    bool
	prefetch bool // a page prefetched: it travelled, but no fault
}

// segVar is the shared variable a segment belongs to.
type segVar struct{ sub, num int }

// check is the access check: the page of addr, one load of p's table, and
// the protocol on a miss. An address in no segment (storage made after the
// shared directive, a slice grown by append) is not checked.
func (s *svmProc) check(p *Proc, site int, addr uintptr, need uint32) {
	key := addr>>s.shift + 1
	e := &s.cache[uint64(key)*0x9E3779B97F4A7C15>>60]
	if e.key != key || !s.space.Hit(p.id, e.pg, need) {
		s.miss(p, site, e, key, addr, need)
	}
}

// miss is the check's slow path: a page not in the cache, or a fault.
func (s *svmProc) miss(p *Proc, site int, e *pageEntry, key, addr uintptr, need uint32) {
	if e.key != key {
		g := s.r.segmentAt(addr)
		if g == nil {
			return
		}
		*e = pageEntry{key: key, seg: g, pg: g.Page(addr)}
		if s.space.Hit(p.id, e.pg, need) {
			return
		}
	}
	s.fault(p, site, e.seg, e.pg, addr, need)
}

// fault runs the protocol for a miss and writes what it did.
func (s *svmProc) fault(p *Proc, site int, g *svm.Segment, pg int, addr uintptr, need uint32) {
	t0 := p.now()
	var f svm.Fault
	var faulted bool
	tag := trace.TagReadPageFaultServiced
	if need == svm.Writable {
		faulted, tag = s.space.Write(p.id, pg, &f), trace.TagWritePageFaultServiced
	} else {
		faulted = s.space.Read(p.id, pg, &f)
	}
	if !faulted {
		return
	}
	if len(p.regions) > 0 {
		s.log = append(s.log, faultEnt{seg: int32(g.ID), from: int16(f.From), write: f.Write})
	}
	if s.budget > 0 && f.From >= 0 && f.From != p.id {
		s.hold(p, g, pg)
	}
	if p.on(tag) && s.wantsHere(p, tag, g) {
		p.buf.Begin(tag, p.id, t0)
		p.buf.Int(g.ID)
		p.buf.Int(addr32(addr))
		p.buf.Int(pg)
		p.buf.Int(site)
		p.buf.Int(f.From)
		p.buf.Double(p.now())
		s.kend(p)
	}
	if f.Reduced >= 0 {
		s.r.post(f.Reduced, svmNote{trace.TagReduceAccessPermission, g, addr, pg, p.id})
	}
	for _, q := range f.Invalidated {
		s.r.post(q, svmNote{trace.TagInvalidateCopy, g, addr, pg, p.id})
	}
	s.busy += p.now() - t0
}

// hold keeps a page p received; beyond the budget the oldest copy p still
// holds is paged out (a page p owns or wrote is kept, and tried again
// later).
func (s *svmProc) hold(p *Proc, g *svm.Segment, pg int) {
	s.held = append(s.held, heldPage{g, pg})
	for i := 0; len(s.held) > s.budget && i < len(s.held)-1; {
		h := s.held[i]
		switch s.space.Evict(p.id, h.pg) {
		case svm.Busy:
			i++
			continue
		case svm.NotACopy: // owned now, or invalidated meanwhile
			s.held = slices.Delete(s.held, i, i+1)
			continue
		}
		s.held = slices.Delete(s.held, i, i+1)
		if p.on(trace.TagPageOut) && s.wantsHere(p, trace.TagPageOut, h.seg) {
			p.begin(trace.TagPageOut, p.id)
			p.buf.Int(h.seg.ID)
			p.buf.Int(h.pg)
			s.kend(p)
		}
	}
}

// drain writes the notes other processors left for p.
func (s *svmProc) drain(p *Proc) {
	s.inbox.mu.Lock()
	notes := s.inbox.notes
	s.inbox.notes = nil
	s.inbox.mu.Unlock()
	for _, n := range notes {
		if !p.on(n.tag) || !s.wantsHere(p, n.tag, n.seg) {
			continue
		}
		p.begin(n.tag, p.id)
		p.buf.Int(n.seg.ID)
		p.buf.Int(addr32(n.addr))
		p.buf.Int(n.page)
		p.buf.Int(n.requester)
		s.kend(p)
	}
}

// wantsHere applies the variable lists of the LOCAL requests of p's
// innermost region to a record of tag about segment g.
func (s *svmProc) wantsHere(p *Proc, tag trace.Tag, g *svm.Segment) bool {
	if !p.r.hasLocal || len(p.regions) == 0 {
		return true
	}
	return s.wants(p, p.regions[len(p.regions)-1].at, tag, g)
}

// wants applies the variable lists of the LOCAL requests of region at.
func (s *svmProc) wants(p *Proc, at Site, tag trace.Tag, g *svm.Segment) bool {
	if !p.r.hasLocal {
		return true
	}
	vars, restricted := p.r.req.Vars(p.reqNode(), at.Sub, p.r.regionNo(at), tag)
	if !restricted {
		return true
	}
	v := s.r.segTab.Load().vars[g.ID-1]
	return v.sub == at.Sub && slices.Contains(vars, v.num)
}

// regionStart writes the page distributions at the start of region at and
// returns where its faults will begin in the log.
func (s *svmProc) regionStart(p *Proc, at Site) int {
	s.pageDists(p, at)
	s.busyMarks = append(s.busyMarks, s.busy)
	return len(s.log)
}

// regionEnd writes the fault sums, page travel and page distributions of
// region at, whose faults begin at s.log[mark]; outermost: no region
// stays open around it.
func (s *svmProc) regionEnd(p *Proc, at Site, mark int, outermost bool) {
	s.drain(p)
	if n := len(s.busyMarks); n > 0 {
		// svm-overhead-start: the protocol's time inside the region
		// (overhead type 0: page faults).
		if d := s.busy - s.busyMarks[n-1]; d > 0 && p.on(trace.TagSVMOverhead) {
			p.begin(trace.TagSVMOverhead, p.id)
			p.buf.Double(d)
			p.buf.Int(0)
			s.kend(p)
		}
		s.busyMarks = s.busyMarks[:n-1]
	}
	sums := p.on(trace.TagReadPageFaultSum) || p.on(trace.TagWritePageFaultSum) || p.on(trace.TagPageTravel)
	if sums && mark < len(s.log) {
		type acc struct {
			rpf, wpf int
			recv     []int
		}
		per := map[int32]*acc{}
		var order []int32
		for _, e := range s.log[mark:] {
			a := per[e.seg]
			if a == nil {
				a = &acc{recv: make([]int, p.r.n)}
				per[e.seg] = a
				order = append(order, e.seg)
			}
			switch {
			case e.prefetch:
			case e.write:
				a.wpf++
			default:
				a.rpf++
			}
			if e.from >= 0 && int(e.from) != p.id {
				a.recv[e.from]++
			}
		}
		slices.Sort(order)
		segs := s.r.segList()
		for _, id := range order {
			a, g := per[id], segs[id-1]
			s.sumRec(p, at, trace.TagReadPageFaultSum, g, a.rpf)
			s.sumRec(p, at, trace.TagWritePageFaultSum, g, a.wpf)
			if p.on(trace.TagPageTravel) && slices.ContainsFunc(a.recv, func(n int) bool { return n > 0 }) && s.wants(p, at, trace.TagPageTravel, g) {
				p.begin(trace.TagPageTravel, p.id)
				p.buf.Int(g.ID)
				p.buf.Int(addr32(g.Start))
				p.buf.Int(addr32(g.Start + uintptr(g.Size)))
				p.buf.Ints(a.recv)
				s.kend(p)
			}
		}
	}
	s.pageDists(p, at)
	if outermost {
		s.log = s.log[:0]
	}
}

func (s *svmProc) sumRec(p *Proc, at Site, tag trace.Tag, g *svm.Segment, n int) {
	if n == 0 || !p.on(tag) || !s.wants(p, at, tag, g) {
		return
	}
	p.begin(tag, p.id)
	p.buf.Int(g.ID)
	p.buf.Int(addr32(g.Start))
	p.buf.Int(addr32(g.Start + uintptr(g.Size)))
	p.buf.Int(n)
	s.kend(p)
}

// pageDists writes o-page-dist and c-page-dist of every segment p holds
// pages of.
func (s *svmProc) pageDists(p *Proc, at Site) {
	o, c := p.on(trace.TagOPageDist), p.on(trace.TagCPageDist)
	if !o && !c {
		return
	}
	for _, g := range s.r.segList() {
		owned, copied := s.space.Holding(p.id, g)
		if o && len(owned) > 0 && s.wants(p, at, trace.TagOPageDist, g) {
			s.distRec(p, trace.TagOPageDist, g, owned)
		}
		if c && len(copied) > 0 && s.wants(p, at, trace.TagCPageDist, g) {
			s.distRec(p, trace.TagCPageDist, g, copied)
		}
	}
}

func (s *svmProc) distRec(p *Proc, tag trace.Tag, g *svm.Segment, pages []int) {
	p.begin(tag, p.id)
	p.buf.Int(g.ID)
	p.buf.Int(addr32(g.Start))
	p.buf.Int(addr32(g.Start + uintptr(g.Size)))
	p.buf.Int(len(pages))
	p.buf.Ints(pages)
	s.kend(p)
}

// svmSync applies the write notices at a barrier of every processor of the
// run (RC), called by the processor that saw the last arrival while the
// others wait: each processor's notices are written by itself after the
// barrier (drain). A barrier of a subset of the processors does not
// synchronise memory: the others still run.
func (a *aps) svmSync() {
	r := a.r
	if !r.svmOn || len(a.members) != r.n {
		return
	}
	for _, n := range r.svm.Sync() {
		if g := r.segmentOfPage(n.Page); g != nil {
			r.post(n.Proc, svmNote{trace.TagInvalidateCopy, g, g.Base, n.Page, n.Writers[0]})
		}
	}
}

// addr32 is the low 32 bits of an address, as the records carry them.
func addr32(a uintptr) int { return int(int32(uint32(a))) }

// segment returns the segment of a shared variable's storage, making it on
// first use (fresh). Segments are made under the run's lock; the space
// grows its page tables under its own write lock, and the access checks
// load the new tables.
func (r *run) segment(st Storage, v segVar) (g *svm.Segment, fresh bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g := r.segs[st]; g != nil {
		return g, false
	}
	g, err := r.svm.AddSegment(st.Addr, st.Size, r.pageSize)
	if err != nil {
		return nil, false // the page size was checked when the run started
	}
	if r.segs == nil {
		r.segs = map[Storage]*svm.Segment{}
	}
	r.segs[st] = g
	// Readers (the access checks) take the table without a lock: it is
	// copied, never changed.
	t := &segTable{byID: append(slices.Clone(r.segList()), g)}
	if old := r.segTab.Load(); old != nil {
		t.vars = slices.Clone(old.vars)
	}
	t.vars = append(t.vars, v)
	if old := r.segTab.Load(); old != nil {
		t.store = slices.Clone(old.store)
	}
	t.store = append(t.store, st)
	t.byAddr = slices.Clone(t.byID)
	slices.SortFunc(t.byAddr, func(x, y *svm.Segment) int { return cmpUintptr(x.Start, y.Start) })
	r.segTab.Store(t)
	return g, true
}

// segTable is the run's segments: by ID (byID[id-1], with the variable of
// each in vars[id-1]) and by address.
type segTable struct {
	byID, byAddr []*svm.Segment
	vars         []segVar
	store        []Storage // by ID: the storage, held (var-check reads it)
}

func cmpUintptr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// segList is the segments by ID (segList()[id-1]).
func (r *run) segList() []*svm.Segment {
	if t := r.segTab.Load(); t != nil {
		return t.byID
	}
	return nil
}

// segmentAt is the segment holding addr, nil if none.
func (r *run) segmentAt(addr uintptr) *svm.Segment {
	t := r.segTab.Load()
	if t == nil {
		return nil
	}
	segs := t.byAddr
	i, _ := slices.BinarySearchFunc(segs, addr, func(g *svm.Segment, a uintptr) int { return cmpUintptr(g.Start, a) })
	// segs[i-1] starts at or before addr (or segs[i] exactly at it).
	for _, j := range [2]int{i, i - 1} {
		if j >= 0 && j < len(segs) && addr-segs[j].Start < uintptr(segs[j].Size) {
			return segs[j]
		}
	}
	return nil
}

// segmentOfPage is a segment holding page pg.
func (r *run) segmentOfPage(pg int) *svm.Segment {
	for _, g := range r.segList() {
		if slices.Contains(g.PageNumbers(), int32(pg)) {
			return g
		}
	}
	return nil
}

// Coherence strategies of coherence(strategy) :: a, as the
// coherence-switch record numbers them.
const (
	CoherenceInvalidate      = 0 // Li's write-invalidate: one writer, many readers (SC)
	CoherenceMultipleWriters = 1 // writes merged at synchronisation (RC)
)

// Coherence gives the pages of each variable the protocol strategy names
// ("invalidate" or "multiple_writers"; the compiler checked it), from this
// point of the run, and writes coherence-switch per segment (stage 5).
// The variables' storage becomes segments if it is not yet. With the SVM
// layer off it only makes the segments.
func (p *Proc) Coherence(sub, dir int, strategy string, vars ...SharedVar) {
	model, code := svm.RC, CoherenceMultipleWriters
	if strategy == "invalidate" {
		model, code = svm.SC, CoherenceInvalidate
	}
	for _, v := range vars {
		for _, st := range append([]Storage{v.Store}, v.Rows...) {
			if st.Size <= 0 {
				continue
			}
			g, fresh := p.r.segment(st, segVar{sub, v.Num})
			if fresh && p.exchangeable() {
				p.r.exchange(g.ID - 1)
			}
			if g == nil || !p.r.svmOn {
				continue
			}
			t0 := p.now()
			for _, n := range p.r.svm.SetModel(g, model) {
				p.r.post(n.Proc, svmNote{trace.TagInvalidateCopy, g, g.Base, n.Page, n.Writers[0]})
			}
			if p.on(trace.TagCoherenceSwitch) {
				p.begin(trace.TagCoherenceSwitch, p.id)
				p.site(Site{sub, dir})
				p.buf.Int(g.ID)
				p.buf.Int(addr32(g.Start))
				p.buf.Int(addr32(g.Start + uintptr(g.Size)))
				p.buf.Int(code)
				p.buf.Double(p.now() - t0)
				if p.sv != nil {
					p.sv.kend(p)
				} else {
					p.end()
				}
			}
		}
	}
	if p.sv != nil {
		p.sv.drain(p)
	}
}

// Prefetch brings the pages of each part (a variable's storage or a part
// of it, prefetch a[lo:hi]) to p as read-only copies ahead of use, and
// writes prefetch per part (stage 5). The pages travel (page-travel counts
// them) but are not faults. With the SVM layer off it does nothing.
func (p *Proc) Prefetch(sub, dir int, parts ...[]Storage) {
	s := p.sv
	if s == nil {
		return
	}
	for _, part := range parts {
		for _, st := range part {
			g := p.r.segmentAt(st.Addr)
			if g == nil || st.Size <= 0 {
				continue
			}
			end := min(st.Addr+uintptr(st.Size), g.Start+uintptr(g.Size))
			for a := st.Addr &^ uintptr(g.PageSize-1); a < end; a += uintptr(g.PageSize) {
				at := max(a, g.Start)
				pg := g.Page(at)
				var f svm.Fault
				if !s.space.Hit(p.id, pg, svm.ReadOnly) && s.space.Read(p.id, pg, &f) {
					if len(p.regions) > 0 && f.From != p.id {
						s.log = append(s.log, faultEnt{seg: int32(g.ID), from: int16(f.From), prefetch: true})
					}
					if f.Reduced >= 0 {
						p.r.post(f.Reduced, svmNote{trace.TagReduceAccessPermission, g, at, pg, p.id})
					}
				}
			}
			if p.on(trace.TagPrefetch) && s.wantsHere(p, trace.TagPrefetch, g) {
				p.begin(trace.TagPrefetch, p.id)
				p.site(Site{sub, dir})
				p.buf.Int(g.ID)
				p.buf.Int(addr32(st.Addr))
				p.buf.Int(addr32(end))
				s.kend(p)
			}
		}
	}
}

// RowCheck checks the elements lo to hi−1 of row at once, for access
// site (an access svmc hoisted out of its loop in a program built for
// ranks: compiler.RowCheck). Out-of-range bounds are left to the loop,
// whose own index expressions panic as written.
func RowCheck[T any](p *Proc, site int, row []T, lo, hi int, write bool) {
	if p.rp == nil && p.sv == nil {
		return
	}
	lo, hi = max(lo, 0), min(hi, len(row))
	if lo >= hi || unsafe.Sizeof(row[0]) == 0 {
		return
	}
	first := uintptr(unsafe.Pointer(&row[lo]))
	last := uintptr(unsafe.Pointer(&row[hi-1])) + unsafe.Sizeof(row[0]) - 1
	p.accessRange(site, first, last, write)
}

// accessRange checks every page of [first, last]: the addresses a page
// apart from first, and last, meet each of them.
func (p *Proc) accessRange(site int, first, last uintptr, write bool) {
	step := uintptr(rankPageSize)
	if p.rp == nil {
		step = uintptr(p.r.pageSize)
	}
	for a := first; a <= last && a >= first; a += step {
		p.access(site, a, write)
	}
	p.access(site, last, write)
}
