// Package svm is the coherence protocol of svmc's shared virtual memory
// layer (seed 002 §1, §4.1; issue 15): shared variables live in segments
// divided into pages, and every processor holds each page in one of Li's
// states — invalid, a read-only copy, or the writable owner. An access
// that the state does not allow is a page fault: the protocol says which
// processor sends the page, whose copies are invalidated and whose write
// permission is reduced, and the caller (the runtime) records it as the
// kernel events of stages 4–6. The state machine is separate from how
// pages travel: in one process the pages never move (the model counts
// what a distributed machine would send); a transport between processes
// can act on the same decisions.
//
// Two consistency models:
//
//   - SC, Li's write-invalidate protocol (single writer, multiple readers):
//     a write invalidates every other copy at once, so the faults of two
//     processors writing one page depend on how their accesses interleave.
//   - RC, release consistency with write notices (TreadMarks, ArgoDSM):
//     processors write their own copies, and the writes become visible at
//     synchronisation (Sync, called at a barrier): every copy of a page
//     another processor wrote is invalidated then. Faults depend only on
//     what each processor accesses between synchronisations, so they are
//     the same on every run; false sharing costs a fault per writer per
//     interval instead of a ping-pong. RC is the default.
//
// The access check is one load and one compare on the calling processor's
// own table (Hit); the protocol runs only on a miss, under a lock of the
// page's stripe.
package svm

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Model is a consistency model.
type Model uint8

const (
	RC Model = iota // release consistency, write notices at Sync (the default)
	SC              // sequential consistency: Li's write-invalidate
)

func (m Model) String() string {
	if m == SC {
		return "SC (write-invalidate)"
	}
	return "RC (write notices at synchronisation)"
}

// Permissions of a processor on a page, as its table holds them.
const (
	NoAccess uint32 = iota // invalid
	ReadOnly               // a read-only copy (or a reduced owner)
	Writable               // may write
)

// Segment is the pages of one shared variable's storage. Segments that
// share a page (the rows of a [][]float64 are small allocations side by
// side) share its state, as they would in a kernel: the space numbers pages
// by address.
type Segment struct {
	ID       int
	Base     uintptr // address of its first page (aligned to the page size)
	Start    uintptr // address of its first byte
	Size     int     // bytes
	PageSize int
	Pages    int
	shift    uint
	index    []int32 // the space's number of each of its pages
}

// Page is the space's number of the page of addr, an address of the
// segment.
func (g *Segment) Page(addr uintptr) int { return int(g.index[(addr-g.Base)>>g.shift]) }

// Holds reports whether addr lies in one of the segment's pages.
func (g *Segment) Holds(addr uintptr) bool { return addr-g.Base < uintptr(g.Pages)<<g.shift }

// PageNumbers lists the space's numbers of the segment's pages.
func (g *Segment) PageNumbers() []int32 { return g.index }

// page is the protocol's state of one page.
type page struct {
	model    Model    // the page's protocol: the space's, or what SetModel chose
	owner    int32    // the processor that owns it (SC: the last writer)
	copies   []uint64 // processors with a read-only copy (the owner apart)
	writers  []uint64 // RC: processors that wrote it since the last Sync
	nwriters int
}

// Fault is what one fault did.
type Fault struct {
	Page  int
	Write bool
	// From is the processor that sent the page, -1 when the faulting
	// processor had the data already (it only gains write permission).
	From int
	// Reduced is the owner whose write permission became read-only
	// (SC), -1 if none.
	Reduced int
	// Invalidated are the processors whose copies were invalidated.
	Invalidated []int
}

// Space is the shared pages of one run.
type Space struct {
	model Model
	procs int
	words int
	pages []page
	// perm[p] is processor p's table of permissions by page, replaced by
	// a longer copy when a segment adds pages (under mu's write lock); the
	// access check loads the current one.
	perm    []permPtr
	mu      sync.RWMutex // the structure (pages, tables, segments): written by AddSegment, read by the protocol
	segs    []*Segment
	byAddr  map[uintptr]int32 // page address -> page number
	stripes [64]sync.Mutex
}

// New makes the space of procs processors under model.
func New(procs int, model Model) *Space {
	s := &Space{model: model, procs: procs, words: (procs + 63) / 64, perm: make([]permPtr, procs), byAddr: map[uintptr]int32{}}
	for p := range s.perm {
		s.perm[p].Store(&[]atomic.Uint32{})
	}
	return s
}

// Model is the space's consistency model.
func (s *Space) Model() Model { return s.model }

// AddSegment adds a segment of size bytes at base, in pages of pageSize
// bytes (a power of two). Its pages start owned by processor 0 (the
// program's data is made by its first processor): writable there under SC,
// read-only under RC, where a write must fault to be noticed. Not safe to
// call while processors access the space.
func (s *Space) AddSegment(base uintptr, size, pageSize int) (*Segment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pageSize <= 0 || pageSize&(pageSize-1) != 0 {
		return nil, fmt.Errorf("page size %d is not a power of two", pageSize)
	}
	// Pages are aligned to the page size, as a kernel's are.
	lo := base &^ uintptr(pageSize-1)
	n := int((base+uintptr(max(size, 1))-1-lo)/uintptr(pageSize) + 1)
	g := &Segment{ID: len(s.segs) + 1, Base: lo, Start: base, Size: size, PageSize: pageSize, Pages: n, index: make([]int32, n)}
	for uint(pageSize) > 1<<g.shift {
		g.shift++
	}
	first := len(s.pages)
	for i := range n {
		a := lo + uintptr(i*pageSize)
		if pg, ok := s.byAddr[a]; ok {
			g.index[i] = pg
			continue
		}
		g.index[i] = int32(len(s.pages))
		s.byAddr[a] = int32(len(s.pages))
		s.pages = append(s.pages, page{model: s.model, owner: 0, copies: make([]uint64, s.words), writers: make([]uint64, s.words)})
	}
	for p := range s.perm {
		old := s.table(p)
		grown := make([]atomic.Uint32, len(s.pages))
		for i := range old {
			grown[i].Store(old[i].Load())
		}
		s.perm[p].Store(&grown)
	}
	perm := Writable
	if s.model == RC {
		perm = ReadOnly
	}
	for i := first; i < len(s.pages); i++ {
		s.table(0)[i].Store(perm)
	}
	s.segs = append(s.segs, g)
	return g, nil
}

// Segments lists the segments.
func (s *Space) Segments() []*Segment {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.segs)
}

// permPtr is an atomic *[]atomic.Uint32 (a processor's permission
// table), written out instead of sync/atomic's generic Pointer: the
// compiler compiles the methods of a generic type's instances again in
// every package that reaches the type, and instrumented code reaches this
// one (rtlib's ptrs.go).
type permPtr struct{ p unsafe.Pointer }

func (a *permPtr) Load() *[]atomic.Uint32   { return (*[]atomic.Uint32)(atomic.LoadPointer(&a.p)) }
func (a *permPtr) Store(v *[]atomic.Uint32) { atomic.StorePointer(&a.p, unsafe.Pointer(v)) }

// Hit reports whether processor p may access page pg as need (ReadOnly or
// Writable) without a fault: the access check, one load of p's own table.
func (s *Space) Hit(p, pg int, need uint32) bool { return (*s.perm[p].Load())[pg].Load() >= need }

// table is processor p's current permission table.
func (s *Space) table(p int) []atomic.Uint32 { return *s.perm[p].Load() }

// Perm is processor p's permission on page pg.
func (s *Space) Perm(p, pg int) uint32 { return s.table(p)[pg].Load() }

func has(set []uint64, p int) bool { return set[p>>6]&(1<<(uint(p)&63)) != 0 }
func add(set []uint64, p int)      { set[p>>6] |= 1 << (uint(p) & 63) }
func del(set []uint64, p int)      { set[p>>6] &^= 1 << (uint(p) & 63) }

// Read runs the protocol for a read of page pg by processor p that missed:
// it fills f and reports true when it was a fault (false: another
// processor's fault gave p the page meanwhile).
func (s *Space) Read(p, pg int, f *Fault) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	mu := &s.stripes[pg&63]
	mu.Lock()
	defer mu.Unlock()
	if s.table(p)[pg].Load() >= ReadOnly {
		return false
	}
	st := &s.pages[pg]
	*f = Fault{Page: pg, From: int(st.owner), Reduced: -1}
	if st.model == SC && s.table(int(st.owner))[pg].Load() == Writable {
		// Li: the owner keeps the page, read-only while copies exist.
		s.table(int(st.owner))[pg].Store(ReadOnly)
		f.Reduced = int(st.owner)
	}
	add(st.copies, p)
	s.table(p)[pg].Store(ReadOnly)
	return true
}

// Write runs the protocol for a write of page pg by processor p that
// missed; see Read.
func (s *Space) Write(p, pg int, f *Fault) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	mu := &s.stripes[pg&63]
	mu.Lock()
	defer mu.Unlock()
	if s.table(p)[pg].Load() == Writable {
		return false
	}
	st := &s.pages[pg]
	had := s.table(p)[pg].Load() >= ReadOnly
	*f = Fault{Page: pg, Write: true, From: int(st.owner), Reduced: -1}
	if had {
		f.From = -1 // p's copy is current: it needs the permission only
	}
	if st.model == SC {
		// Li: ownership moves to the writer, every other copy goes.
		for q := 0; q < s.procs; q++ {
			if q != p && (has(st.copies, q) || int(st.owner) == q) && s.table(q)[pg].Load() != NoAccess {
				s.table(q)[pg].Store(NoAccess)
				f.Invalidated = append(f.Invalidated, q)
			}
		}
		clear(st.copies)
		st.owner = int32(p)
		s.table(p)[pg].Store(Writable)
		return true
	}
	// RC: p writes its own copy; the others learn of it at Sync.
	if !has(st.writers, p) {
		add(st.writers, p)
		st.nwriters++
	}
	if int(st.owner) != p {
		add(st.copies, p)
	}
	s.table(p)[pg].Store(Writable)
	return true
}

// Notice is a write notice applied at Sync: processor Proc's copy of Page
// was invalidated because Writers (other processors) wrote it.
type Notice struct {
	Proc, Page int
	Writers    []int
}

// Sync makes the writes since the last Sync visible (RC; under SC it only
// returns nil): for every page written, the copies of the processors that
// did not write it are invalidated, and with several writers the writers'
// copies too, but for the lowest writer's, which becomes the owner and
// holds the merged page (the others' changes sent to it as diffs). Every
// page written becomes read-only where it stays valid, so that the next
// write to it faults and is noticed. Every processor must be stopped (a
// barrier): Sync is not safe beside accesses.
func (s *Space) Sync() []Notice {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Notice
	for pg := range s.pages {
		out = s.syncPage(pg, out)
	}
	return out
}

// syncPage applies the write notices of page pg (see Sync).
func (s *Space) syncPage(pg int, out []Notice) []Notice {
	st := &s.pages[pg]
	if st.model == SC || st.nwriters == 0 {
		return out
	}
	var ws []int
	for q := 0; q < s.procs; q++ {
		if has(st.writers, q) {
			ws = append(ws, q)
		}
	}
	owner := ws[0]
	for q := 0; q < s.procs; q++ {
		if q == owner || s.table(q)[pg].Load() == NoAccess {
			continue
		}
		if !has(st.writers, q) || len(ws) > 1 {
			s.table(q)[pg].Store(NoAccess)
			out = append(out, Notice{Proc: q, Page: pg, Writers: ws})
		}
	}
	clear(st.copies)
	clear(st.writers)
	st.nwriters = 0
	st.owner = int32(owner)
	s.table(owner)[pg].Store(ReadOnly)
	return out
}

// SetModel gives the pages of g protocol m (coherence(strategy) :: a):
// RC's pending write notices of those pages are applied first, and a
// page that becomes RC loses write permission everywhere (a write must
// fault to be noticed). It returns the notices, as Sync does. The other
// processors must not access g meanwhile (the leader runs it in exclusive
// code while the members wait).
func (s *Space) SetModel(g *Segment, m Model) []Notice {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Notice
	for _, pg32 := range g.index {
		pg := int(pg32)
		mu := &s.stripes[pg&63]
		mu.Lock()
		st := &s.pages[pg]
		if st.model != m {
			out = s.syncPage(pg, out)
			if m == RC {
				for q := 0; q < s.procs; q++ {
					if s.table(q)[pg].Load() == Writable {
						s.table(q)[pg].Store(ReadOnly)
					}
				}
			}
			st.model = m
		}
		mu.Unlock()
	}
	return out
}

// Owner is the owner of page pg.
func (s *Space) Owner(pg int) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	mu := &s.stripes[pg&63]
	mu.Lock()
	defer mu.Unlock()
	return int(s.pages[pg].owner)
}

// Holding lists the pages of g that processor p owns and those it holds a
// read-only copy of (valid, owned by another processor): the page
// distributions of seed 002 (o-page-dist, c-page-dist). Under RC the owner
// of a page written since the last Sync is its owner before it.
func (s *Space) Holding(p int, g *Segment) (owned, copied []int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, pg := range g.index {
		mu := &s.stripes[pg&63]
		mu.Lock()
		owner := int(s.pages[pg].owner)
		mu.Unlock()
		switch {
		case owner == p:
			owned = append(owned, int(pg))
		case s.table(p)[pg].Load() != NoAccess:
			copied = append(copied, int(pg))
		}
	}
	return owned, copied
}

// Eviction is what Evict did.
type Eviction uint8

const (
	Evicted  Eviction = iota // the copy went
	NotACopy                 // p owns the page or holds none: nothing to page out
	Busy                     // p wrote it since the last Sync: its notice would be lost; later
)

// Evict drops processor p's read-only copy of page pg (a page-out: p
// keeps too many pages).
func (s *Space) Evict(p, pg int) Eviction {
	s.mu.RLock()
	defer s.mu.RUnlock()
	mu := &s.stripes[pg&63]
	mu.Lock()
	defer mu.Unlock()
	st := &s.pages[pg]
	switch {
	case int(st.owner) == p || s.table(p)[pg].Load() == NoAccess:
		return NotACopy
	case has(st.writers, p):
		return Busy
	}
	del(st.copies, p)
	s.table(p)[pg].Store(NoAccess)
	return Evicted
}
