package rtlib

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Critical sections, locks and atomic updates between ranks (issue 16).
// In a pdo whose processors are spread over ranks, a critical section or a
// lock orders the processors of every rank, and what a holder wrote is
// there for the next holder, as in one process:
//
//   - rank 0 manages every such lock (lockMgr): a processor that holds its
//     rank's own lock asks rank 0 for the global one and waits for the
//     grant;
//   - at the release the holder's rank publishes what it wrote into shared
//     storage since its last publication (the bytes that differ from its
//     twin, which then takes them: they are no longer the rank's own change
//     at the pdo's end). Rank 0 logs the publications in the order they
//     reach it, which is the order of the holds of each lock and of each
//     rank's publications; a grant brings the grantee every publication of
//     other ranks it has not seen, in that order, applied to its storage
//     and twin before the body runs (lazy release consistency as in
//     TreadMarks, with one manager; a grantee sees a prefix of the log);
//   - at the pdo's end every rank sends its publications with its diffs,
//     rank 0 then the log's order once every publication reached it, and
//     every rank applies the rest of the log in that order before the
//     diffs of unpublished writes;
//   - an atomic add (x += e, x++) is combined as a reduction: each rank
//     adds to its storage and twin alike and keeps the sum of its deltas
//     per element, which the others add at the pdo's end (no message per
//     update); other atomic updates (x *= e, x--) take one global lock.
//
// In a replicated region spread over ranks the same holds for the
// processors each rank runs, with one twist: processor 0's code runs on
// every rank (rankmsg.go), and its copies must read the same values to
// stay alike. They take a global lock together: rank 0 queues their hold
// once every copy asked for it, grants it to all of them at once (each
// rank brought to the same prefix of the log), lets them publish only
// once every copy's body is done, and frees the lock when every copy
// released it, each having published what it wrote (the same bytes,
// published once per rank: a later holder's publication follows them
// all). While a copy runs such a body, its rank applies no grant to its
// other processors (they wait): a grant brings what other ranks published
// meanwhile, which may hold what another copy wrote in its body already
// (published with a release of a processor beside it), and the copy
// would read it; only when the copy itself must wait for a rank-local lock
// (a lock inside its body, which such a processor may hold) are they
// applied at once (copyWaits). An atomic addition by processor 0
// there is made by each copy on its own rank and combined by none.
//
// A publication scans the whole exchanged shared storage (about 1 ms for
// 4 MB), and a grant is a round trip to rank 0: a critical section between
// ranks costs tens of microseconds at least. Critical sections, locks and
// atomics in exclusive code stay each rank's own (every rank runs
// exclusive code alike).

// Lock messages between ranks (see rankmsg.go for the others): header
// fields kind, rank, proc, epoch, key length, a publication's number, and
// in a grant 1 where it is to the copies of processor 0 together; then
// the key and, for a grant, the publications to apply, for a release the
// holder's publication.
const (
	rankLockReq   = 4
	rankLockGrant = 5
	rankLockRel   = 6
	rankLockDone  = 9  // a copy of processor 0 ran its body (to rank 0)
	rankLockGo    = 10 // every copy did: publish (from rank 0)
)

// publication is what a rank published at a release: byte runs of the
// exchanged storage (appendDiff's format), numbered per rank and pdo from
// 1.
type publication struct {
	author, seq int
	diff        []byte
}

// rankSync is a rank's side of the global locks and atomics.
type rankSync struct {
	// pub orders this rank's publications: each is numbered and sent
	// holding it, so that they reach rank 0 in the order they were made
	// (a later one holds only what changed since the earlier: applied the
	// other way round, a byte written twice would keep its first value).
	pub    sync.Mutex
	mu     sync.Mutex // the twins during a pdo; the fields below
	order  []int      // exchanged storage by address (exStores indices), at rankTwin
	seen   int        // the prefix of rank 0's log of this pdo applied here
	own    []publication
	deltas map[[2]int]*atomDelta
	epoch  atomic.Int64 // the pdo ends so far: names the pdo in messages
	mgr    lockMgr      // rank 0's
	// inBody counts the holds this rank's copy of processor 0 is in the
	// body of (nested ones included); deferred the grants to other
	// processors that came meanwhile, applied when it is 0 again.
	inBody      int
	deferred    []deferredGrant
	copyWaiting bool // the copy waits for a rank-local lock: defer none (copyWaits)
	// granted are the publications grants brought in this pdo, in the
	// order applied: a lazy page that arrives later takes them again
	// (rankpages.go). Kept only where the run has lazy pages.
	granted [][]byte
	// taken, published: the global locks this rank's processors took and
	// the bytes it published (rank-info).
	taken, published atomic.Int64
}

// deferredGrant is a grant to apply later: for processor proc, bringing
// the log's prefix seen with publications pubs.
type deferredGrant struct {
	proc, seen int
	pubs       []byte
}

// procGlobal is a processor's side: the grant it waits for and the global
// locks it holds, innermost last.
type procGlobal struct {
	gen   atomic.Uint64 // bumped by a grant
	holds [][]string
}

// globalSync reports whether p's critical sections, locks and atomics
// must order the processors of every rank: p runs a pdo share or a
// replicated region whose processors are spread over ranks.
func (p *Proc) globalSync() bool {
	return p.r.ranks != nil && (p.inTask || p.mode == replicated) && p.r.twinned && p.r.spread()
}

// copyOfZero reports whether p, synchronising globally, is one of
// processor 0's copies in a replicated region (one per rank).
func (p *Proc) copyOfZero() bool { return p.id == 0 && !p.inTask }

// exchangedAt finds the exchanged storage holding addr: its index and the
// offset; ok false where addr is in none (a rank's private variable).
func (r *run) exchangedAt(addr uintptr) (seg, off int, ok bool) {
	o := r.rsync.order
	i, _ := slices.BinarySearchFunc(o, addr, func(e int, a uintptr) int { return cmpUintptr(r.exStores[e].Addr, a) })
	for _, j := range [2]int{i, i - 1} {
		if j >= 0 && j < len(o) {
			st := r.exStores[o[j]]
			if addr >= st.Addr && addr-st.Addr < uintptr(st.Size) && r.twins[o[j]] != nil {
				return o[j], int(addr - st.Addr), true
			}
		}
	}
	return 0, 0, false
}

// rankSyncStart readies a pdo's global locks and atomics (rankTwin: the
// leader, before any member runs).
func (r *run) rankSyncStart() {
	s := &r.rsync
	s.order = s.order[:0]
	for i := range r.exStores {
		s.order = append(s.order, i)
	}
	slices.SortFunc(s.order, func(a, b int) int { return cmpUintptr(r.exStores[a].Addr, r.exStores[b].Addr) })
	s.seen, s.own = 0, s.own[:0]
	clear(s.deltas)
	s.mu.Lock()
	clear(s.granted)
	s.granted = s.granted[:0]
	s.mu.Unlock()
}

// globalAcquire takes the global locks keys (in this order) for p, which
// holds its rank's own locks of them, and applies what was published.
func (p *Proc) globalAcquire(at Site, k waitKind, keys []string) {
	r := p.r
	r.ranks.Progress() // serve the requests and releases that came (rank 0)
	for _, key := range keys {
		epoch := int(r.rsync.epoch.Load())
		g := p.gl.gen.Load()
		copies := 0
		if p.copyOfZero() {
			copies = 1
		}
		if r.rank == 0 {
			r.rsync.mgr.request(r, key, 0, p.id, epoch, copies == 1)
		} else {
			r.postsOut.Add(1)
			r.ranks.Post(0, lockMsg(rankLockReq, r.rank, p.id, epoch, key, copies, 0), nil, nil, nil)
		}
		p.awaitGrant(at, k, g)
	}
	p.gl.holds = append(p.gl.holds, keys)
	r.rsync.taken.Add(int64(len(keys)))
}

// awaitGrant waits until rank 0's answer (a grant, a go) bumps p's
// generation from g.
func (p *Proc) awaitGrant(at Site, k waitKind, g uint64) {
	for p.gl.gen.Load() == g {
		p.wpeerID = -1
		p.waitFor(k, at)
		p.remoteAwait(&p.gl.gen, g)
		p.checkAbort()
	}
}

// globalRelease publishes what this rank wrote and releases the global
// locks p took last, innermost first. A copy of processor 0 first waits
// until every copy's body is done (the hold's first key names it).
func (p *Proc) globalRelease(at Site, k waitKind) {
	r, s := p.r, &p.r.rsync
	n := len(p.gl.holds)
	keys := p.gl.holds[n-1]
	p.gl.holds = p.gl.holds[:n-1]
	if p.copyOfZero() {
		g := p.gl.gen.Load()
		if r.rank == 0 {
			s.mgr.done(r, keys[0])
		} else {
			r.postsOut.Add(1)
			r.ranks.Post(0, lockMsg(rankLockDone, r.rank, p.id, int(s.epoch.Load()), keys[0], 0, 0), nil, nil, nil)
		}
		p.awaitGrant(at, k, g)
		r.bodyDone(len(keys)) // one body of a hold granted key by key
	}
	s.pub.Lock()
	defer s.pub.Unlock()
	s.mu.Lock()
	var diff []byte
	for e, tw := range r.twins {
		if tw != nil {
			diff = appendDiff(diff, uint32(e), tw, r.exStores[e].bytes())
		}
	}
	applyEntry(diff, r.twins) // the published bytes are no longer this rank's change
	pub := publication{author: r.rank, seq: len(s.own) + 1, diff: diff}
	s.published.Add(int64(len(diff)))
	s.own = append(s.own, pub)
	epoch := int(s.epoch.Load())
	s.mu.Unlock()
	for i := len(keys) - 1; i >= 0; i-- {
		if i < len(keys)-1 {
			pub.diff = nil // the first release carries the bytes
		}
		if r.rank == 0 {
			s.mgr.release(r, keys[i], epoch, pub)
			continue
		}
		b := lockMsg(rankLockRel, r.rank, p.id, epoch, keys[i], pub.seq, len(pub.diff))
		r.postsOut.Add(1)
		r.ranks.Post(0, append(b, pub.diff...), nil, nil, nil)
	}
}

// lockMsg encodes a lock message's header and key, with room for extra
// bytes of payload. seq is a release's publication, a grant's log prefix,
// and 1 in a request from a copy of processor 0.
func lockMsg(kind, rank, proc, epoch int, key string, seq, extra int) []byte {
	b := getBuf(8*rankHeader + len(key) + extra)[:8*rankHeader]
	clear(b)
	for i, v := range []int{kind, rank, proc, epoch, len(key), seq} {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return append(b, key...)
}

// lockArrive takes a lock message from another rank (arrive).
func (r *run) lockArrive(h *[rankHeader]int64, rest []byte) error {
	kind, rank, proc, epoch, kl, seq := int(h[0]), int(h[1]), int(h[2]), int(h[3]), int(h[4]), int(h[5])
	if kl < 0 || kl > len(rest) || rank < 0 || rank >= r.ranks.Size() || proc < 0 || proc >= r.n {
		return fmt.Errorf("a lock message names rank %d, processor %d and a key of %d bytes", rank, proc, kl)
	}
	key, payload := string(rest[:kl]), rest[kl:]
	switch kind {
	case rankLockReq:
		r.rsync.mgr.request(r, key, rank, proc, epoch, seq == 1)
	case rankLockRel:
		var diff []byte // nil: a hold's later release, which carries no bytes
		if len(payload) > 0 {
			diff = slices.Clone(payload)
		}
		r.rsync.mgr.release(r, key, epoch, publication{author: rank, seq: seq, diff: diff})
	case rankLockGrant:
		return r.granted(proc, seq, payload, h[6] != 0)
	case rankLockDone:
		r.rsync.mgr.done(r, key)
	case rankLockGo:
		r.goPublish()
	}
	return nil
}

// granted applies a grant's publications and wakes the processor waiting
// for it; seen is the length of rank 0's log they bring this rank to.
// together: the grant is to the copy of processor 0 of a hold the copies
// share. While that copy is in such a body, a grant to another processor
// waits (deferred); the copy's next one applies those first.
func (r *run) granted(proc, seen int, pubs []byte, together bool) error {
	s := &r.rsync
	s.mu.Lock()
	if s.inBody > 0 && !together && !s.copyWaiting {
		s.deferred = append(s.deferred, deferredGrant{proc, seen, slices.Clone(pubs)})
		s.mu.Unlock()
		return nil
	}
	wake, err := r.applyDeferred()
	if err == nil {
		err = r.applyGrant(seen, pubs)
	}
	if together {
		s.inBody++
	}
	s.mu.Unlock()
	r.wakeGranted(append(wake, proc), nil)
	return err
}

// goPublish lets this rank's copy of processor 0 publish and release a
// hold every copy's body of is done (it then calls bodyDone).
func (r *run) goPublish() {
	r.procs[0].gl.gen.Add(1)
	r.procs[0].wakeup()
}

// bodyDone ends this rank's copy's body of a hold of n global locks (each
// granted together), and applies the grants deferred meanwhile if no
// outer hold's body goes on.
func (r *run) bodyDone(n int) {
	s := &r.rsync
	s.mu.Lock()
	s.inBody -= n
	var wake []int
	var err error
	if s.inBody <= 0 {
		s.inBody = 0
		wake, err = r.applyDeferred()
	}
	s.mu.Unlock()
	r.wakeGranted(wake, err)
}

// copyWaits marks this rank's copy of processor 0 as waiting for a
// rank-local lock (on) or done waiting: one of the processors whose
// grants are deferred may hold that lock while it waits for its grant (a
// lock inside the copy's body; deferring would deadlock), so while the
// copy waits the deferred grants are applied and none is deferred. What
// they bring may then hold what another copy wrote in its body already;
// the copy reads it only if its body reads that data after the inner
// lock and before writing it.
func (r *run) copyWaits(on bool) {
	s := &r.rsync
	s.mu.Lock()
	var wake []int
	var err error
	if on {
		s.copyWaiting = true
		wake, err = r.applyDeferred()
	} else {
		s.copyWaiting = false
	}
	s.mu.Unlock()
	r.wakeGranted(wake, err)
}

// wakeGranted wakes the processors whose grants were applied (err: one
// could not be).
func (r *run) wakeGranted(wake []int, err error) {
	if err != nil {
		r.rankFail(err)
	}
	for _, q := range wake {
		r.procs[q].gl.gen.Add(1)
		r.procs[q].wakeup()
	}
}

// applyDeferred applies the deferred grants in the order they came and
// returns their processors, to wake; s.mu is held.
func (r *run) applyDeferred() ([]int, error) {
	s := &r.rsync
	var wake []int
	for _, d := range s.deferred {
		if err := r.applyGrant(d.seen, d.pubs); err != nil {
			return wake, err
		}
		wake = append(wake, d.proc)
	}
	clear(s.deferred)
	s.deferred = s.deferred[:0]
	return wake, nil
}

// applyGrant applies a grant's publications to the storage and the twins;
// s.mu is held.
func (r *run) applyGrant(seen int, pubs []byte) error {
	s := &r.rsync
	ex := r.exBytes()
	for len(pubs) > 0 {
		if len(pubs) < 4 || 4+int(binary.LittleEndian.Uint32(pubs)) > len(pubs) {
			return fmt.Errorf("a lock grant ends inside a publication")
		}
		n := int(binary.LittleEndian.Uint32(pubs))
		applyEntry(pubs[4:4+n], ex)
		applyEntry(pubs[4:4+n], r.twins)
		if r.pages != nil {
			s.granted = append(s.granted, slices.Clone(pubs[4:4+n]))
		}
		pubs = pubs[4+n:]
	}
	s.seen = max(s.seen, seen)
	return nil
}

// applyEntryIn writes the bytes of runs in appendDiff's format that fall
// in [lo, hi) of exchanged segment e into store and twin (twin may be
// nil): a page that arrived takes again what grants brought.
func applyEntryIn(d []byte, e, lo, hi int, store, twin []byte) {
	walkEntry(d, func(seg, at int, b byte) {
		if seg == e && at >= lo && at < hi && at < len(store) {
			store[at] = b
			if twin != nil {
				twin[at] = b
			}
		}
	})
}

// exBytes is the exchanged storage as byte slices (nil where it is not
// twinned), indexed as the twins.
func (r *run) exBytes() [][]byte {
	out := make([][]byte, len(r.twins))
	for i, tw := range r.twins {
		if tw != nil {
			out[i] = r.exStores[i].bytes()
		}
	}
	return out
}

// applyEntry writes the bytes of runs in appendDiff's format into dst
// (indexed by segment) one by one: a processor of this rank may be
// writing its share beside them.
func applyEntry(d []byte, dst [][]byte) {
	walkEntry(d, func(seg, at int, b byte) {
		if seg < len(dst) && at < len(dst[seg]) {
			dst[seg][at] = b
		}
	})
}

// walkEntry calls f with each byte of runs in appendDiff's format: its
// segment, its offset there and its value.
func walkEntry(d []byte, f func(seg, at int, b byte)) {
	le := binary.LittleEndian
	for len(d) >= 12 {
		seg, off, groups := int(le.Uint32(d)), int(le.Uint32(d[4:])), int(le.Uint32(d[8:]))
		d = d[12:]
		for g := 0; g < groups && len(d) > 0; g++ {
			m := d[0]
			d = d[1:]
			for k := range 8 {
				if m&(1<<k) == 0 {
					continue
				}
				if len(d) == 0 {
					return
				}
				f(seg, off+8*g+k, d[0])
				d = d[1:]
			}
		}
	}
}

// lockMgr is rank 0's record of the global locks and of the publications
// of each pdo (by epoch), in the order they arrived.
type lockMgr struct {
	mu sync.Mutex
	// outbox holds the grants decided, in the order decided: each brings
	// the log from where the grantee's last one ended, so that two grants
	// to one rank applied the other way round would write older bytes
	// over newer. One goroutine at a time (flushing) hands them over.
	outbox   []pendingGrant
	flushing bool

	locks map[string]*globalLock
	logs  map[int][]publication
	seen  map[[2]int]int // per epoch and rank: the log's prefix it was granted
	gen   atomic.Uint64  // bumped by every publication logged
}

// globalLock is one global lock: held by holders processors (the copies
// of processor 0 hold it together), copies the copies asking for their
// next hold so far, done those whose body of this hold is done.
type globalLock struct {
	holders int
	queue   []lockWaiter
	copies  int
	done    int
}

// lockWaiter is a request; rank -1 stands for every copy of processor 0.
type lockWaiter struct{ rank, proc, epoch int }

// request queues a request for key and grants it if the lock is free. A
// copy of processor 0 (copy) is queued once every rank's copy asked: the
// hold is theirs together.
func (m *lockMgr) request(r *run, key string, rank, proc, epoch int, copy bool) {
	m.mu.Lock()
	if m.locks == nil {
		m.locks, m.logs, m.seen = map[string]*globalLock{}, map[int][]publication{}, map[[2]int]int{}
	}
	l := m.locks[key]
	if l == nil {
		l = &globalLock{}
		m.locks[key] = l
	}
	switch {
	case !copy:
		l.queue = append(l.queue, lockWaiter{rank, proc, epoch})
	case l.copies+1 < r.ranks.Size():
		l.copies++
	default:
		l.copies = 0
		l.queue = append(l.queue, lockWaiter{-1, proc, epoch})
	}
	m.outbox = append(m.outbox, m.next(r, l)...)
	m.mu.Unlock()
	m.flush(r)
}

// release logs a publication (its bytes come with the first of a hold's
// releases) and grants the next waiter.
func (m *lockMgr) release(r *run, key string, epoch int, pub publication) {
	m.mu.Lock()
	l := m.locks[key]
	if l == nil || l.holders == 0 {
		m.mu.Unlock()
		r.rankFail(fmt.Errorf("rank %d released global lock %q, which it did not hold", pub.author, key))
		return
	}
	l.holders--
	if pub.diff != nil || !slices.ContainsFunc(m.logs[epoch], func(q publication) bool { return q.author == pub.author && q.seq == pub.seq }) {
		m.logs[epoch] = append(m.logs[epoch], pub)
		m.gen.Add(1)
	}
	m.outbox = append(m.outbox, m.next(r, l)...)
	m.mu.Unlock()
	m.flush(r)
	r.procs[0].wakeup() // it may wait for the publications at the pdo's end
}

// done counts a copy of processor 0 whose body of its hold of key is
// done; once every copy's is, each is told to publish and release.
func (m *lockMgr) done(r *run, key string) {
	m.mu.Lock()
	l := m.locks[key]
	if l == nil || l.holders == 0 {
		m.mu.Unlock()
		r.rankFail(fmt.Errorf("a copy of processor 0 ended a hold of global lock %q, which it did not hold", key))
		return
	}
	l.done++
	all := l.done == r.ranks.Size()
	if all {
		l.done = 0
	}
	m.mu.Unlock()
	if !all {
		return
	}
	for k := range r.ranks.Size() {
		if k == 0 {
			r.goPublish()
			continue
		}
		r.postsOut.Add(1)
		r.ranks.Post(k, lockMsg(rankLockGo, 0, 0, 0, key, 0, 0), nil, nil, nil)
	}
}

// flush hands the grants in the outbox over in order, unless another
// goroutine does (a grant's Post may poll, and a request it takes then
// queues its grant here for that loop).
func (m *lockMgr) flush(r *run) {
	m.mu.Lock()
	if m.flushing {
		m.mu.Unlock()
		return
	}
	m.flushing = true
	for len(m.outbox) > 0 {
		g := m.outbox[0]
		m.outbox[0] = pendingGrant{}
		m.outbox = m.outbox[1:]
		m.mu.Unlock()
		r.grant(g)
		m.mu.Lock()
	}
	m.flushing = false
	m.mu.Unlock()
}

// pendingGrant is a grant decided under the manager's mutex, handed over
// after it.
type pendingGrant struct {
	w        lockWaiter
	seen     int
	pubs     []byte
	together bool // to a copy of processor 0, with the others
}

// next grants the first waiter of a free lock (every copy of processor 0
// for a hold of theirs), each with the publications of its pdo or region
// by other ranks it has not seen.
func (m *lockMgr) next(r *run, l *globalLock) []pendingGrant {
	if l.holders > 0 || len(l.queue) == 0 {
		return nil
	}
	w := l.queue[0]
	l.queue = l.queue[1:]
	ws := []lockWaiter{w}
	if w.rank < 0 {
		ws = ws[:0]
		for k := range r.ranks.Size() {
			ws = append(ws, lockWaiter{k, w.proc, w.epoch})
		}
	}
	l.holders = len(ws)
	gs := make([]pendingGrant, len(ws))
	for i, w := range ws {
		log := m.logs[w.epoch]
		k := [2]int{w.epoch, w.rank}
		var b []byte
		for _, q := range log[m.seen[k]:] {
			if q.author != w.rank && len(q.diff) > 0 {
				b = binary.LittleEndian.AppendUint32(b, uint32(len(q.diff)))
				b = append(b, q.diff...)
			}
		}
		m.seen[k] = len(log)
		gs[i] = pendingGrant{w, len(log), b, len(ws) > 1}
	}
	return gs
}

// grant hands g to its processor: here, or in a message.
func (r *run) grant(g pendingGrant) {
	if g.w.rank == 0 {
		if err := r.granted(g.w.proc, g.seen, g.pubs, g.together); err != nil {
			r.rankFail(err)
		}
		return
	}
	b := lockMsg(rankLockGrant, 0, g.w.proc, g.w.epoch, "", g.seen, len(g.pubs))
	if g.together {
		binary.LittleEndian.PutUint64(b[48:], 1)
	}
	r.postsOut.Add(1)
	r.ranks.Post(g.w.rank, append(b, g.pubs...), nil, nil, nil)
}

// logOf waits until n publications of pdo epoch reached rank 0 and
// returns their order (author and number of each); the log is then
// forgotten. p is the leader, which polls the transport meanwhile.
func (m *lockMgr) logOf(p *Proc, epoch, n int) []publication {
	for {
		g := m.gen.Load()
		m.mu.Lock()
		log := m.logs[epoch]
		if len(log) >= n {
			delete(m.logs, epoch)
			for k := range m.seen {
				if k[0] <= epoch {
					delete(m.seen, k)
				}
			}
			m.mu.Unlock()
			return log
		}
		m.mu.Unlock()
		p.remoteAwait(&m.gen, g)
	}
}

// Global lock keys: a critical section by its name, a locked variable by
// its place in the exchanged storage, the atomic updates that cannot be
// combined by one key.
func critKey(name string) string { return "c" + name }

func varKey(seg, off int) string { return "v" + strconv.Itoa(seg) + ":" + strconv.Itoa(off) }

const atomKey = "a"

// atomDelta is a rank's sum of atomic additions to one element in a pdo.
type atomDelta struct {
	kind reflect.Kind
	sum  uint64 // int64 (wrapping) or float64 bits
}

// rankAtomicAdd adds delta to *x between ranks, if x is in exchanged
// storage: to the storage and the twin alike, the sum kept for the pdo's
// end. false: x is this rank's own, or complex (which takes the global
// lock instead).
func rankAtomicAdd[T Number](p *Proc, x *T, delta T) bool {
	r, s := p.r, &p.r.rsync
	k := reflect.TypeFor[T]().Kind()
	if k == reflect.Complex64 || k == reflect.Complex128 {
		return false
	}
	seg, off, ok := r.exchangedAt(uintptr(unsafe.Pointer(x)))
	if !ok || off+int(unsafe.Sizeof(*x)) > len(r.twins[seg]) {
		return false
	}
	s.mu.Lock()
	*x += delta
	*(*T)(unsafe.Pointer(&r.twins[seg][off])) += delta
	if p.copyOfZero() { // every rank's copy adds it: none to combine
		s.mu.Unlock()
		return true
	}
	if s.deltas == nil {
		s.deltas = map[[2]int]*atomDelta{}
	}
	d := s.deltas[[2]int{seg, off}]
	if d == nil {
		d = &atomDelta{kind: k}
		s.deltas[[2]int{seg, off}] = d
	}
	d.sum = addWide(d.sum, widen(bitsOf(delta), k), k)
	s.mu.Unlock()
	return true
}

// addWide adds two widened values of kind k (float64 bits for floats,
// 64-bit integers otherwise).
func addWide(a, b uint64, k reflect.Kind) uint64 {
	if k == reflect.Float32 || k == reflect.Float64 {
		return math.Float64bits(math.Float64frombits(a) + math.Float64frombits(b))
	}
	return a + b
}

// addInto adds a widened delta of kind k to the element at b[0:size].
func addInto(b []byte, delta uint64, k reflect.Kind, size int) {
	var cur [8]byte
	copy(cur[:], b[:size])
	v := widen(binary.LittleEndian.Uint64(cur[:]), k)
	binary.LittleEndian.PutUint64(cur[:], narrow(addWide(v, delta, k), k))
	copy(b[:size], cur[:size])
}

// bitsOf is v's bytes as a uint64 (zero-extended).
func bitsOf[T any](v T) uint64 {
	var u uint64
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&u)), 8), unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v)))
	return u
}

// rankAtomicAddAt is AtomicAdd's way between ranks (false: not between
// ranks, or x is this rank's own): combined at the pdo's end, or for a
// complex number under the global lock of atomic updates. Apart, so that
// its closure stays off AtomicAdd's path.
//
//go:noinline
func rankAtomicAddAt[T Number](p *Proc, at Site, x *T, delta T) bool {
	if !p.globalSync() {
		return false
	}
	return rankAtomicAdd(p, x, delta) || rankAtomicLocked(p, at, x, func() { *x += delta })
}

// rankAtomicUpdateAt is AtomicUpdate's (see rankAtomicAddAt).
//
//go:noinline
func rankAtomicUpdateAt[T any](p *Proc, at Site, x *T, f func(T) T) bool {
	return p.globalSync() && rankAtomicLocked(p, at, x, func() { *x = f(*x) })
}

// rankAtomicLocked makes update of *x under the global lock of atomic
// updates, if x is in exchanged storage (false: it is this rank's own).
func rankAtomicLocked[T any](p *Proc, at Site, x *T, update func()) bool {
	if _, _, ok := p.r.exchangedAt(uintptr(unsafe.Pointer(x))); !ok {
		return false
	}
	p.globalAcquire(at, wAtomic, []string{atomKey})
	p.r.rsync.mu.Lock() // the twins' scan at a release reads it
	update()
	p.r.rsync.mu.Unlock()
	p.globalRelease(at, wAtomic)
	return true
}

// globalLockVars takes the global locks of the variables of a LOCK
// directive that are in exchanged storage, in the order of their places
// there (the same on every rank), and reports whether there were any.
func (p *Proc) globalLockVars(at Site, vs []LockVar) bool {
	type place struct{ seg, off int }
	var ps []place
	for _, v := range vs {
		if seg, off, ok := p.r.exchangedAt(v.Addr); ok {
			ps = append(ps, place{seg, off})
		}
	}
	if len(ps) == 0 {
		return false
	}
	slices.SortFunc(ps, func(a, b place) int {
		if a.seg != b.seg {
			return a.seg - b.seg
		}
		return a.off - b.off
	})
	keys := make([]string, len(ps))
	for i, q := range ps {
		keys[i] = varKey(q.seg, q.off)
	}
	p.globalAcquire(at, wLock, keys)
	return true
}
