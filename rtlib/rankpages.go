package rtlib

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/svmc/svmc/trace"
)

// Home-based lazy pages between ranks (issue 16), for the shared
// variables the compiler found fully checked (progdb Var.Checked: every
// access of their storage is an access check). The eager exchange of
// ranks.go sends every changed byte to every rank at each pdo's end; for
// these variables a rank instead keeps what it needs, as HLRC does:
//
//   - every page (4 KiB of a segment, counted from its first byte, so that
//     the ranks name it alike) gets a home: the lowest rank that wrote it
//     in the first pdo that changed it (first touch; until then every rank
//     takes every rank's changes, as eagerly);
//   - at a pdo's end a rank sends, for each page it changed, a write notice,
//     with its diff (against the twin) only where the page's home is
//     another rank; the home applies the diffs (a byte two ranks changed
//     to different values stops the run, as eagerly); every rank that is
//     neither the home nor the page's only writer marks its copy invalid;
//   - an access check in a pdo or a replicated region that finds its page
//     invalid fetches the page from the home (a request and a reply
//     between ranks, served by the home's transport while its processors
//     work), into the storage and the twin (the fetched bytes are not this
//     rank's change);
//   - the global locks of critical sections and locks (ranklock.go) keep
//     their lazy release consistency: a grant brings the publications of
//     other ranks, written into this rank's storage whatever its pages'
//     state, and a page that arrives from its home later in the pdo takes
//     them again (the home may not have them yet), in the log's order;
//     at the pdo's end every rank, the homes among them, applies the
//     rest of the log before the diffs;
//   - exclusive code runs on every rank alike, and a home may be further
//     on in it than a rank that fetches: there, a page any rank holds
//     invalid ("stale") faults on every rank at the same access, and the
//     ranks bring all stale pages up to date together (one Allgather of
//     the homes' pages) — exclusive code sees the last pdo's end, as it
//     would in one process.
//
// So in a stencil only the pages next to another rank's share travel,
// once each, instead of every rank's whole share to every rank.
// Variables that are not fully checked (ranged over, sorted by a library,
// taken into another variable, updated by an atomic directive) and
// storage holding pointers stay eager.

// Page messages between ranks (see rankmsg.go, ranklock.go for the
// others): header fields kind, rank, proc, exchanged segment, page; a
// reply then the page's bytes.
const (
	rankPageReq  = 7
	rankPageData = 8
)

const (
	rankPageShift = 12
	rankPageSize  = 1 << rankPageShift
)

// rankPages is a rank's side of the lazy pages.
type rankPages struct {
	r  *run
	mu sync.Mutex // the segments' states; waiters
	// segs are the lazy segments by exchanged index (nil: eager).
	segs []*lazySeg
	// spans are the exchanged segments by address, for the checks
	// (replaced whole at each pdo's start).
	spans spansPtr
	// parallel: a pdo or replicated region runs (rankTwin to the exchange
	// at its end).
	parallel bool
	gen      atomic.Uint64 // bumped when a page arrives
	waiters  []*Proc
	// done counts the exchanges applied here; a request made after more
	// (its rank is in the next pdo, this one still applies the last
	// exchange) waits in deferred until this rank has applied as many.
	done     int
	deferred []pageReq
	// at is the construct running (pagesStart to the exchange); faulted
	// the pages fetched in it, history those of each construct's last two
	// runs: prefetched at its next start where stale (a stencil fetches
	// the same halo every iteration; one whose grids are swapped, a, b =
	// b, a, fetches one grid's halo and the other's in turn), so that they
	// travel while the processors compute.
	at         Site
	faulted    []pageKey
	history    map[Site]*[2][]pageKey
	prefetched atomic.Int64
	// syncs counts each variable's syncStale calls in this serial phase
	// (cleared when a pdo or region starts).
	syncs map[segVar]int
	// fetched, fetchedBytes, served: pages this rank fetched, their
	// bytes, pages it sent as a home; synced: the stale pages made
	// current together in exclusive code (rank-info).
	fetched, fetchedBytes, served, synced atomic.Int64
}

// pageKey names a page of a lazy segment.
type pageKey struct{ e, pg int }

// pageReq is a request for a page from another rank.
type pageReq struct{ rank, proc, e, pg int }

// lazySeg is one exchanged segment kept in lazy pages.
type lazySeg struct {
	v     segVar // the shared variable it holds
	store Storage
	e     int // exchanged index (twins, exStores)
	id    int // the segment table's ID (trace records)
	pages int
	home  []int16 // -1: not written in a pdo yet
	// valid: this rank's copy is current; stale: some rank's is not (the
	// same on every rank); pending: a fetch is on its way.
	valid, stale, pending []bool
	// perm is what the access check lets pass without the protocol: 1
	// where valid (in a pdo or region) or valid and not stale (in
	// exclusive code).
	perm []uint32
}

// pageSpan is an exchanged segment's address range, with its lazy
// segment (nil: eager, nothing to check).
type pageSpan struct {
	lo   uintptr
	size uintptr
	g    *lazySeg
}

// pageCache is a processor's side: per access site, the span of its last
// check (an access site walks one row, one segment, for many checks in a
// row: a stencil's four reads of three rows each hit their own entry).
type pageCache struct {
	pg    *rankPages
	sites []pageSpan // indexed by access number
}

// hit is the access check's fast path between ranks (inlined into
// Proc.access): the span of the site's last check holds addr, and its page
// is current (or its segment eager).
func (c *pageCache) hit(site int, addr uintptr) bool {
	if uint(site) < uint(len(c.sites)) {
		s := &c.sites[site]
		if addr-s.lo < s.size {
			return s.g == nil || atomic.LoadUint32(&s.g.perm[(addr-s.lo)>>rankPageShift]) != 0
		}
	}
	return false
}

// check is the rest of the access check: the span of addr found for the
// site, and the protocol on a fault.
func (c *pageCache) check(p *Proc, site int, addr uintptr, write bool) {
	if uint(site) >= uint(len(c.sites)) {
		return // not an access of the program information (a test's)
	}
	s := &c.sites[site]
	if addr-s.lo >= s.size && !c.find(addr, s) {
		return
	}
	if g := s.g; g != nil {
		pg := int((addr - s.lo) >> rankPageShift)
		if atomic.LoadUint32(&g.perm[pg]) == 0 {
			c.pg.fault(p, site, g, pg, addr, write)
		}
	}
}

// find puts the span holding addr into s; false where addr is in no
// exchanged segment.
func (c *pageCache) find(addr uintptr, s *pageSpan) bool {
	sp := c.pg.spans.Load()
	if sp == nil {
		return false
	}
	spans := *sp
	i, _ := slices.BinarySearchFunc(spans, addr, func(x pageSpan, a uintptr) int { return cmpUintptr(x.lo, a) })
	for _, j := range [2]int{i, i - 1} {
		if j >= 0 && j < len(spans) && addr-spans[j].lo < spans[j].size {
			*s = spans[j]
			return true
		}
	}
	return false
}

// startPages makes the lazy pages of a run whose processors are the ranks
// of an MPI job, from the program information's fully checked variables.
func (r *run) startPages() {
	if r.ranks == nil || r.ranks.Size() < 2 {
		return
	}
	info, err := r.progInfo()
	if err != nil {
		return // every variable eager
	}
	r.accessSites = len(info.Accesses) + 1
	r.accessPoss = make([]string, r.accessSites)
	for _, a := range info.Accesses {
		if a.Num > 0 && a.Num < len(r.accessPoss) {
			r.accessPoss[a.Num] = fmt.Sprintf("%s:%d:%d", shownFile(a.Pos.File), a.Pos.Line, a.Pos.Col)
		}
	}
	for _, s := range info.Subprograms {
		for _, v := range s.Shared {
			if v.Checked {
				if r.lazyVars == nil {
					r.lazyVars = map[segVar]bool{}
				}
				r.lazyVars[segVar{s.Num, v.Num}] = true
			}
		}
	}
	if r.lazyVars != nil && !r.eagerPages {
		r.pages = &rankPages{r: r}
	}
}

// accessPos is where access site is written ("" if not known), for an
// error the protocol meets at it.
func (r *run) accessPos(site int) string {
	if site > 0 && site < len(r.accessPoss) {
		return r.accessPoss[site]
	}
	return ""
}

// lazySeg reports whether exchanged segment e is kept in lazy pages.
func (r *run) lazySeg(e int) bool {
	return r.pages != nil && e < len(r.pages.segs) && r.pages.segs[e] != nil
}

// pagesStart readies the lazy pages for a pdo or replicated region
// (rankTwin, the leader, before any member runs): new exchanged segments
// of fully checked variables become lazy (every copy current), and the
// checks let every valid page pass.
func (r *run) pagesStart(t *segTable, at Site) {
	rp := r.pages
	if rp == nil {
		return
	}
	rp.mu.Lock()
	var reqs [][]byte
	var homes []int
	defer func() {
		rp.mu.Unlock()
		for i, b := range reqs {
			r.postsOut.Add(1)
			r.ranks.Post(homes[i], b, nil, nil, nil)
		}
	}()
	spans := make([]pageSpan, 0, len(r.exStores))
	for e, st := range r.exStores {
		for len(rp.segs) <= e {
			rp.segs = append(rp.segs, nil)
		}
		if rp.segs[e] == nil && !st.pointers && st.Size > 0 && r.lazyVars[t.vars[r.exchanged[e]]] {
			n := (st.Size + rankPageSize - 1) >> rankPageShift
			g := &lazySeg{v: t.vars[r.exchanged[e]], store: st, e: e, id: r.exchanged[e] + 1, pages: n, home: make([]int16, n),
				valid: make([]bool, n), stale: make([]bool, n), pending: make([]bool, n), perm: make([]uint32, n)}
			for i := range n {
				g.home[i], g.valid[i] = -1, true
			}
			rp.segs[e] = g
		}
		if st.Size > 0 {
			spans = append(spans, pageSpan{lo: st.Addr, size: uintptr(st.Size), g: rp.segs[e]})
		}
	}
	slices.SortFunc(spans, func(a, b pageSpan) int { return cmpUintptr(a.lo, b.lo) })
	rp.spans.Store(&spans)
	rp.parallel = true
	clear(rp.syncs)
	rp.setPerms()
	rp.at, rp.faulted = at, rp.faulted[:0]
	if h := rp.history[at]; h != nil {
		for _, k := range slices.Concat(h[0], h[1]) {
			g := rp.segs[k.e]
			if !g.valid[k.pg] && !g.pending[k.pg] && g.home[k.pg] >= 0 {
				g.pending[k.pg] = true
				reqs, homes = append(reqs, rp.request(g, k.pg, r.rank*r.perRank)), append(homes, int(g.home[k.pg]))
				rp.faulted = append(rp.faulted, k)
				rp.prefetched.Add(1)
			}
		}
	}
}

// request is a request for page pg of g on behalf of processor proc
// (rp.mu held; the caller posts it without).
func (rp *rankPages) request(g *lazySeg, pg, proc int) []byte {
	b := getBuf(8 * rankHeader)
	clear(b)
	for i, v := range []int{rankPageReq, rp.r.rank, proc, g.e, pg, rp.done} {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// setPerms writes every page's permission for the phase (rp.mu held).
func (rp *rankPages) setPerms() {
	for _, g := range rp.segs {
		if g == nil {
			continue
		}
		for i := range g.pages {
			ok := g.valid[i] && (rp.parallel || !g.stale[i])
			atomic.StoreUint32(&g.perm[i], b2u(ok))
		}
	}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// fault is a check's miss: in exclusive code, processor 0 (which every
// rank runs alike) brings every stale page up to date with the other
// ranks; elsewhere a processor fetches its page from the home.
func (rp *rankPages) fault(p *Proc, site int, g *lazySeg, pg int, addr uintptr, write bool) {
	t0 := p.now()
	rp.mu.Lock()
	parallel, valid := rp.parallel, g.valid[pg]
	rp.mu.Unlock()
	from := -1
	switch {
	case !parallel && p.exchangeable():
		if err := rp.syncStale(g, pg); err != nil {
			p.die(&Error{Pos: p.r.accessPos(site), Proc: -1, Msg: fmt.Sprintf("shared variables between ranks: %v", err)})
		}
	case valid:
		return // current here, stale elsewhere: no concern of this processor's
	default:
		from = rp.fetch(p, g, pg)
	}
	rp.record(p, site, g, addr, write, from, t0)
}

// record writes a page fault the protocol serviced (stages 4–6: the kernel
// events come from real transfers here) and logs it for the regions'
// sums; from is the processor of the page's home, -1 when the ranks
// synchronised their stale pages.
func (rp *rankPages) record(p *Proc, site int, g *lazySeg, addr uintptr, write bool, from int, t0 float64) {
	s := p.sv
	if s == nil {
		return
	}
	if len(p.regions) > 0 {
		s.log = append(s.log, faultEnt{seg: int32(g.id), from: int16(from), write: write})
	}
	tag := trace.TagReadPageFaultServiced
	if write {
		tag = trace.TagWritePageFaultServiced
	}
	if !p.on(tag) {
		return
	}
	seg := rp.r.segmentAt(addr)
	if seg == nil || !s.wantsHere(p, tag, seg) {
		return
	}
	p.buf.Begin(tag, p.id, t0)
	p.buf.Int(seg.ID)
	p.buf.Int(addr32(addr))
	p.buf.Int(seg.Page(addr))
	p.buf.Int(site)
	p.buf.Int(from)
	p.buf.Double(p.now())
	s.kend(p)
	s.busy += p.now() - t0
}

// fetch asks page pg's home for it and waits until it arrived (or another
// processor's fetch brought it); it returns the home's first processor.
func (rp *rankPages) fetch(p *Proc, g *lazySeg, pg int) int {
	r := rp.r
	rp.mu.Lock()
	home := int(g.home[pg])
	if g.valid[pg] {
		rp.mu.Unlock()
		return home * r.perRank
	}
	var req []byte
	if !g.pending[pg] {
		g.pending[pg] = true
		req = rp.request(g, pg, p.id)
		rp.faulted = append(rp.faulted, pageKey{g.e, pg})
	}
	rp.waiters = append(rp.waiters, p)
	rp.mu.Unlock()
	if req != nil {
		// Posted without rp.mu: Post may poll, and the poll deliver a page
		// message that takes it.
		r.postsOut.Add(1)
		r.ranks.Post(home, req, nil, nil, nil)
	}
	for {
		old := rp.gen.Load()
		rp.mu.Lock()
		ok := g.valid[pg]
		if ok {
			if i := slices.Index(rp.waiters, p); i >= 0 {
				rp.waiters = slices.Delete(rp.waiters, i, i+1)
			}
		}
		rp.mu.Unlock()
		if ok {
			return home * r.perRank
		}
		p.wpeerID = home * r.perRank
		p.waitFor(wPage, Site{})
		p.remoteAwait(&rp.gen, old)
		p.checkAbort()
	}
}

// pageArrive takes a page message from another rank (arrive, on the
// transport's goroutine: it must not wait).
func (r *run) pageArrive(h *[rankHeader]int64, rest []byte) error {
	rp := r.pages
	kind, rank, proc, e, pg, epoch := int(h[0]), int(h[1]), int(h[2]), int(h[3]), int(h[4]), int(h[5])
	if rp == nil || rank < 0 || rank >= r.ranks.Size() || proc < 0 || proc >= r.n {
		return fmt.Errorf("a page message names rank %d and processor %d, or this rank keeps no lazy pages", rank, proc)
	}
	rp.mu.Lock()
	var reply []byte
	defer func() {
		rp.mu.Unlock()
		if reply != nil {
			r.postsOut.Add(1)
			r.ranks.Post(rank, reply, nil, nil, nil)
		}
	}()
	if e < 0 || e >= len(rp.segs) || rp.segs[e] == nil || pg < 0 || pg >= rp.segs[e].pages {
		return fmt.Errorf("rank %d names page %d of exchanged segment %d, which this rank does not keep lazily (the ranks' shared variables differ)", rank, pg, e+1)
	}
	g := rp.segs[e]
	lo := pg << rankPageShift
	store := g.store.bytes()
	hi := min(lo+rankPageSize, len(store))
	switch kind {
	case rankPageReq:
		q := pageReq{rank, proc, e, pg}
		if epoch > rp.done {
			rp.deferred = append(rp.deferred, q)
			return nil
		}
		reply = rp.reply(q)
	case rankPageData:
		if len(rest) != hi-lo {
			return fmt.Errorf("page %d of exchanged segment %d came with %d bytes, not %d", pg, e+1, len(rest), hi-lo)
		}
		var twin []byte
		if e < len(r.twins) && r.twins[e] != nil && r.twinned {
			twin = r.twins[e]
		}
		r.rsync.mu.Lock() // a grant may be applying publications
		copy(store[lo:hi], rest)
		if twin != nil {
			copy(twin[lo:hi], rest)
		}
		for _, d := range r.rsync.granted {
			applyEntryIn(d, e, lo, hi, store, twin)
		}
		r.rsync.mu.Unlock()
		g.valid[pg], g.pending[pg] = true, false
		atomic.StoreUint32(&g.perm[pg], b2u(rp.parallel || !g.stale[pg]))
		rp.fetched.Add(1)
		rp.fetchedBytes.Add(int64(hi - lo))
		rp.gen.Add(1)
		for _, q := range rp.waiters {
			q.wakeup()
		}
	default:
		return fmt.Errorf("a page message of kind %d", kind)
	}
	return nil
}

// reply is the message that sends page q.pg of lazy segment q.e to the
// rank that asked (rp.mu held; the caller posts it without). The page as it is here: the bytes another rank may read were last
// written before its pdo began (a race-free program writes none that
// another rank reads in the same pdo), and nobody wrote it in exclusive
// code since the last exchange (that makes it current everywhere first).
func (rp *rankPages) reply(q pageReq) []byte {
	r := rp.r
	store := rp.segs[q.e].store.bytes()
	lo := q.pg << rankPageShift
	hi := min(lo+rankPageSize, len(store))
	b := getBuf(8*rankHeader + hi - lo)
	clear(b[:8*rankHeader])
	for i, v := range []int{rankPageData, r.rank, q.proc, q.e, q.pg} {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	copy(b[8*rankHeader:], store[lo:hi])
	rp.served.Add(1)
	return b
}

// lazyDiffs appends this rank's part of the exchange for its lazy
// segments (rankDiffs): per page it changed since the twin, the exchanged
// index, the page and the page's diff; where this rank is the page's home
// a write notice alone, and notices of consecutive pages (the next page of
// the segment, or the first of the next lazy segment: a [][]T's rows) as
// one run — a rank that rewrites its share of a grid sends one entry.
func (r *run) lazyDiffs(out []byte) []byte {
	rp := r.pages
	le := binary.LittleEndian
	at := len(out)
	out = le.AppendUint32(out, 0)
	if rp == nil {
		return out
	}
	n := 0
	runAt, prevE, prevPg := -1, -1, -1 // the open run of notices and its last page
	for e, g := range rp.segs {
		if g == nil || e >= len(r.twins) || r.twins[e] == nil {
			continue
		}
		tw, now := r.twins[e], g.store.bytes()
		for pg := range g.pages {
			lo := pg << rankPageShift
			hi := min(lo+rankPageSize, len(now))
			if string(tw[lo:hi]) == string(now[lo:hi]) {
				continue
			}
			if h := int(g.home[pg]); h == r.rank || h < 0 {
				// A notice alone: this rank is the home, or the page has
				// none yet (its writers' lowest becomes it, and the others'
				// diffs follow in a second round: firstWrites).
				if runAt >= 0 && rp.follows(prevE, prevPg, e, pg) {
					le.PutUint32(out[runAt+12:], le.Uint32(out[runAt+12:])+1)
				} else {
					runAt = len(out)
					out = le.AppendUint32(out, uint32(e))
					out = le.AppendUint32(out, uint32(pg))
					out = le.AppendUint32(out, noticeRun)
					out = le.AppendUint32(out, 1) // pages in the run
					n++
				}
				prevE, prevPg = e, pg
				continue
			}
			runAt = -1
			out = appendPageDiff(out, e, pg, tw, now)
			n++
		}
	}
	le.PutUint32(out[at:], uint32(n))
	return out
}

// appendPageDiff appends the entry of page pg of exchanged segment e: its
// number, the length of its diff against the twin tw and the diff, with
// offsets in the segment.
func appendPageDiff(out []byte, e, pg int, tw, now []byte) []byte {
	le := binary.LittleEndian
	lo := pg << rankPageShift
	hi := min(lo+rankPageSize, len(now))
	out = le.AppendUint32(out, uint32(e))
	out = le.AppendUint32(out, uint32(pg))
	lenAt := len(out)
	out = le.AppendUint32(out, 0)
	start := len(out)
	out = appendDiff(out, uint32(e), tw[lo:hi], now[lo:hi])
	shiftRuns(out[start:], lo)
	le.PutUint32(out[lenAt:], uint32(len(out)-start))
	return out
}

// noticeRun marks an entry of write notices (in place of a diff's length):
// the word after it is the number of consecutive pages
// (rankPages.follows) from the one the entry names.
const noticeRun = 0xFFFFFFFF

// follows reports whether page pg of lazy segment e comes right after page
// prevPg of lazy segment prevE in the order every rank walks them.
func (rp *rankPages) follows(prevE, prevPg, e, pg int) bool {
	if e == prevE {
		return pg == prevPg+1
	}
	if pg != 0 || prevPg != rp.segs[prevE].pages-1 {
		return false
	}
	for k := prevE + 1; k < e; k++ {
		if rp.segs[k] != nil {
			return false // a lazy segment between them
		}
	}
	return true
}

// shiftRuns adds by to the offsets of the runs in d (appendDiff's format).
func shiftRuns(d []byte, by int) {
	le := binary.LittleEndian
	for len(d) >= 12 {
		le.PutUint32(d[4:], le.Uint32(d[4:])+uint32(by))
		groups := int(le.Uint32(d[8:]))
		d = d[12:]
		for range groups {
			d = d[1+popcount8(d[0]):]
		}
	}
}

func popcount8(b byte) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// lazyEntry is one rank's write of one page in a pdo.
type lazyEntry struct {
	rank, e, pg int
	diff        []byte
}

// readLazy reads rank k's lazy part from its contribution d (runs of
// notices spelled out page by page) and returns the rest.
func (rp *rankPages) readLazy(k int, d []byte, into []lazyEntry) ([]lazyEntry, []byte, error) {
	le := binary.LittleEndian
	short := fmt.Errorf("its write notices end early")
	if len(d) < 4 {
		return into, nil, short
	}
	n := int(le.Uint32(d))
	d = d[4:]
	for range n {
		if len(d) < 12 {
			return into, nil, short
		}
		e, pg, l := int(le.Uint32(d)), int(le.Uint32(d[4:])), le.Uint32(d[8:])
		if l == noticeRun {
			if len(d) < 16 || rp == nil {
				return into, nil, short
			}
			run := int(le.Uint32(d[12:]))
			for range run {
				if e < 0 || e >= len(rp.segs) || rp.segs[e] == nil {
					return into, nil, fmt.Errorf("a run of write notices passes the lazy segments (the ranks' shared variables differ)")
				}
				into = append(into, lazyEntry{rank: k, e: e, pg: pg})
				if pg++; pg == rp.segs[e].pages {
					for e, pg = e+1, 0; e < len(rp.segs) && rp.segs[e] == nil; e++ {
					}
				}
			}
			d = d[16:]
			continue
		}
		if 12+int(l) > len(d) {
			return into, nil, short
		}
		into = append(into, lazyEntry{rank: k, e: e, pg: pg, diff: d[12 : 12+l]})
		d = d[12+int(l):]
	}
	return into, d, nil
}

// applyLazy applies every rank's page writes of a pdo, in rank order:
// a page with no home yet is updated everywhere and gets the lowest
// writer as its home; a page with one is updated at its home, and every
// other rank but its only writer marks its copy invalid. It returns a
// conflict as applyDiff does, with the rank whose diff met it. The pages'
// states end the same on every rank but valid.
func (r *run) applyLazy(entries []lazyEntry) (*conflict, int, error) {
	rp := r.pages
	if rp == nil {
		return nil, 0, nil
	}
	rp.mu.Lock()
	var replies [][]byte
	var to []int
	defer func() {
		rp.mu.Unlock()
		for i, b := range replies {
			r.postsOut.Add(1)
			r.ranks.Post(to[i], b, nil, nil, nil)
		}
	}()
	writers, err := rp.writers(entries)
	if err != nil {
		return nil, 0, err
	}
	for k, ws := range writers { // a page written for the first time: its home
		if g := rp.segs[k.e]; g.home[k.pg] < 0 {
			g.home[k.pg] = int16(slices.Min(ws))
		}
	}
	for _, w := range entries {
		g := rp.segs[w.e]
		if w.rank == r.rank || int(g.home[w.pg]) != r.rank || len(w.diff) == 0 {
			continue // ours, another home's to apply, or a notice
		}
		if c, err := applyDiff(w.diff, r.exStores, r.twins); c != nil || err != nil {
			return c, w.rank, err
		}
	}
	size := r.ranks.Size()
	for k, ws := range writers {
		g := rp.segs[k.e]
		h := int(g.home[k.pg])
		only := -1
		if len(ws) == 1 {
			only = ws[0]
		}
		g.valid[k.pg] = r.rank == h || r.rank == only
		stale := false
		for q := range size {
			if q != h && q != only {
				stale = true
			}
		}
		g.stale[k.pg] = stale
	}
	rp.parallel = false
	rp.setPerms()
	if rp.history == nil {
		rp.history = map[Site]*[2][]pageKey{}
	}
	h := rp.history[rp.at]
	if h == nil {
		h = new([2][]pageKey)
		rp.history[rp.at] = h
	}
	h[0], h[1] = append(h[1][:0], rp.faulted...), h[0] // the older run's slice is reused
	rp.done++
	for _, q := range rp.deferred {
		replies, to = append(replies, rp.reply(q)), append(to, q.rank)
	}
	rp.deferred = rp.deferred[:0]
	return nil, 0, nil
}

// writers are the ranks that wrote each page of entries, lowest first,
// each once (a page may come as a notice and, from a second round, as a
// diff).
func (rp *rankPages) writers(entries []lazyEntry) (map[pageKey][]int, error) {
	out := map[pageKey][]int{}
	for _, w := range entries {
		if w.e < 0 || w.e >= len(rp.segs) || rp.segs[w.e] == nil || w.pg < 0 || w.pg >= rp.segs[w.e].pages {
			return nil, fmt.Errorf("rank %d wrote page %d of exchanged segment %d, which this rank does not keep lazily (the ranks' shared variables differ)", w.rank, w.pg, w.e+1)
		}
		k := pageKey{w.e, w.pg}
		if ws := out[k]; !slices.Contains(ws, w.rank) {
			out[k] = append(ws, w.rank)
		}
	}
	for _, ws := range out {
		slices.Sort(ws)
	}
	return out, nil
}

// firstWrites is this rank's part of the exchange's second round: the
// diffs of the pages without a home that it wrote beside a lower rank
// (which becomes the home and applies them), in lazyDiffs' format; need
// says whether any rank has such a page (the same answer on every rank,
// from the first round's notices).
func (r *run) firstWrites(entries []lazyEntry) (out []byte, need bool, err error) {
	rp := r.pages
	if rp == nil {
		return nil, false, nil
	}
	writers, err := rp.writers(entries)
	if err != nil {
		return nil, false, err
	}
	le := binary.LittleEndian
	out = le.AppendUint32(nil, 0)
	n := 0
	for k, ws := range writers {
		g := rp.segs[k.e]
		if g.home[k.pg] >= 0 || len(ws) < 2 {
			continue
		}
		need = true
		if ws[0] == r.rank || !slices.Contains(ws, r.rank) {
			continue
		}
		out = appendPageDiff(out, k.e, k.pg, r.twins[k.e], g.store.bytes())
		n++
	}
	le.PutUint32(out, uint32(n))
	return out, need, nil
}

// syncStale brings stale pages of the variable of page pg of g up to date
// on every rank (processor 0 in exclusive code, on every rank at the same
// access): each home sends its pages in one Allgather. The k-th time in
// one serial phase a variable faults, the 2^k stale pages from pg on in
// the variable's order (its segments', then their pages') are brought:
// a print of one element moves a page, a scan of the whole variable
// log2(its stale pages) collectives. Every rank picks the same pages (the
// stale pages, their homes and the faulting access are alike on all).
func (rp *rankPages) syncStale(g0 *lazySeg, pg0 int) error {
	r, v := rp.r, g0.v
	le := binary.LittleEndian
	var out []byte
	rp.mu.Lock()
	if rp.syncs == nil {
		rp.syncs = map[segVar]int{}
	}
	want := 1 << min(rp.syncs[v], 30)
	rp.syncs[v]++
	var picked []pageKey
	for _, g := range rp.segs {
		if g == nil || g.v != v || g.e < g0.e {
			continue
		}
		for pg := range g.pages {
			if len(picked) < want && g.stale[pg] && (g.e > g0.e || pg >= pg0) {
				picked = append(picked, pageKey{g.e, pg})
			}
		}
	}
	for _, k := range picked {
		g := rp.segs[k.e]
		if int(g.home[k.pg]) != r.rank {
			continue
		}
		store := g.store.bytes()
		lo := k.pg << rankPageShift
		hi := min(lo+rankPageSize, len(store))
		out = le.AppendUint32(out, uint32(g.e))
		out = le.AppendUint32(out, uint32(k.pg))
		out = append(out, store[lo:hi]...)
	}
	rp.mu.Unlock()
	all, err := r.ranks.Allgather(out)
	if err != nil {
		return err
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for k, d := range all {
		for len(d) >= 8 {
			e, pg := int(le.Uint32(d)), int(le.Uint32(d[4:]))
			if e >= len(rp.segs) || rp.segs[e] == nil || pg >= rp.segs[e].pages {
				return fmt.Errorf("rank %d sent page %d of exchanged segment %d, which this rank does not keep lazily", k, pg, e+1)
			}
			g := rp.segs[e]
			store := g.store.bytes()
			lo := pg << rankPageShift
			hi := min(lo+rankPageSize, len(store))
			if len(d) < 8+hi-lo {
				return fmt.Errorf("rank %d's stale pages end early", k)
			}
			if g.v != v {
				return fmt.Errorf("rank %d sent a stale page of another variable than this rank synchronises", k)
			}
			if k != r.rank {
				copy(store[lo:hi], d[8:8+hi-lo])
				rp.fetchedBytes.Add(int64(hi - lo))
			}
			d = d[8+hi-lo:]
			g.valid[pg], g.stale[pg] = true, false
			rp.synced.Add(1)
		}
	}
	for _, k := range picked {
		if g := rp.segs[k.e]; g.stale[k.pg] {
			return fmt.Errorf("page %d of exchanged segment %d stayed stale: its home (rank %d) did not send it", k.pg, g.e+1, g.home[k.pg])
		}
	}
	rp.setPerms()
	return nil
}
