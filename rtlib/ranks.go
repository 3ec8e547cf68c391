package rtlib

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/svmc/svmc/trace"
)

// The processors as the ranks of an MPI job (issue 16; the transport is
// ranks_mpi.go, built with the tag mpi). Every rank runs the whole team
// in-process, as one process does, so that every construct keeps its one
// shape; what differs is whose work is real:
//
//   - exclusive code runs on every rank with the same inputs (processor 0
//     of each rank runs it), and user output comes from rank 0 only;
//   - a pdo's share of processor k runs on rank k only (rank k/K with K
//     processors per rank): the other members of a rank get no iterations
//     (their reductions hand over identities);
//     under a dynamic strategy rank 0 holds the loop's counter and hands
//     out the chunks (a rank's processor asks it; affinity runs as
//     guided(1));
//   - at a pdo's end the leader of every rank combines the reductions
//     across ranks (MPI_Allreduce), and sends what its processor wrote
//     into shared variables to the others: each rank copies the shared
//     storage before the pdo (its twin) and at the end sends the bytes
//     that differ, which the others apply (release consistency at the
//     pdo's barrier, multiple writers with twins and diffs as in Munin and
//     TreadMarks, byte-exact so that writers of neighbouring elements do
//     not overwrite each other);
//   - a replicated region runs each processor on its own rank, its
//     messages between ranks over MPI (rankmsg.go);
//   - everything else is private to a rank.

// rankNet is the transport between ranks. Every rank calls the collective
// methods in the same order (they are made at the same constructs of the
// same program).
type rankNet interface {
	Rank() int
	Size() int
	// Allreduce combines vals element by element across ranks in place;
	// kinds and ops say how (one of each per element).
	Allreduce(vals []uint64, kinds []reflect.Kind, ops []Op) error
	// Allgather gives every rank every rank's bytes, in rank order. It and
	// Allreduce take the other ranks' messages while they wait (a rank
	// whose processors are done may be rank 0, serving global locks).
	Allgather(b []byte) ([][]byte, error)
	// A dynamic pdo between ranks: rank 0 holds the counter. Serve starts
	// answering the other ranks' requests for chunks of loop seq with
	// next (rank 0; it returns at once); Ask asks rank 0 for one (the
	// others; hi < lo: none left); EndLoop ends loop seq once this rank's
	// processors took their last chunk: the others tell rank 0, which
	// answers until all have.
	Serve(seq int, next func() (lo, hi int))
	// Poke answers what requests for chunks of loop seq came, if the
	// transport is free (rank 0's processors, as they take theirs).
	Poke(seq int)
	Ask(seq int) (lo, hi int, err error)
	EndLoop(seq int) error
	// ClockShift estimates this rank's clock (µs) against rank 0's, then
	// calls begin, which starts the run's clock (or, at the end, leaves it)
	// and returns its start on clock, and returns what to add to this
	// rank's run clock to get rank 0's and the error bound of the
	// estimate.
	ClockShift(clock, begin func() float64) (shift, errb float64, err error)
	// Barrier returns when every rank called it; BarrierUnless too, or
	// with an error once stop is closed.
	Barrier() error
	BarrierUnless(stop <-chan struct{}) error
	// Progress polls the transport once, unless another goroutine is in
	// it: posted messages leave, arrived ones are delivered. It reports
	// whether anything happened.
	Progress() bool
	// AwaitProgress is Progress for a goroutine that waits until *w
	// differs from old: finding nothing, it may go on polling inside the
	// transport for a few microseconds (until a message comes, *w
	// changes or another goroutine posts one).
	AwaitProgress(w *atomic.Uint64, old uint64) bool
	// Yield lets another process have this core if one waits for it (more
	// ranks than cores: a rank polling for another's message must not hold
	// the core that rank needs).
	Yield()
	// Post sends one of the program's messages (encoded by rankmsg.go) to
	// rank dest and returns at once: the transport owns b until it is
	// sent; then, with sent nil, it gives b back to the pool (putBuf),
	// else it calls sent. data, if not nil, is the message's data sent
	// apart, right after b (one call, so that the headers and the data
	// of two senders of a rank cannot interleave differently), handled
	// once sent as b is with dataSent.
	Post(dest int, b []byte, sent func(), data []byte, dataSent func())
	// Listen starts handing the messages the other ranks post to deliver,
	// each in a slice of its own from the pool (getBuf); deliver must not
	// wait, except to receive a message's data sent apart into a slice of
	// its choice (recvData, called at most once, before it returns).
	// fail reports a transport's error.
	Listen(deliver func(b []byte, recvData func(into []byte) error), fail func(error))
	// Close ends the transport at a normal end (a rank that ends in error
	// exits without it: mpirun then stops the job).
	Close() error
}

// openRanks opens the transport built into this program (nil: none).
var openRanks func() (rankNet, error)

// rankOf is the rank of this process, -1 outside an MPI job.
func rankOf(net rankNet) int {
	if net == nil {
		return -1
	}
	return net.Rank()
}

// idle reports whether p's pdo shares run on another rank.
func (p *Proc) idle() bool { return p.r.ranks != nil && p.id/p.r.perRank != p.r.rank }

// empty takes every iteration away from it.
func (it *Iter) empty() {
	it.root, it.lin, it.chk = nil, false, nil
	it.k, it.hi = 0, 0
}

// rankSchedule is the schedule a pdo runs with between ranks: affinity
// (queues in one process's memory) as guided(1).
func (r *run) rankSchedule(s Schedule) Schedule {
	if r.ranks != nil && s.kind == sDynamic && s.dyn == dAffinity {
		s.dyn, s.chunk = dGuided, 1
	}
	return s
}

// rankLoop is rank 0's counter of a dynamic pdo between ranks (linear
// iteration numbers, as dynShared's).
// loopTable is rank 0's counters of the dynamic pdos between ranks that
// run, by number: a map under a lock rather than a sync.Map (ptrs.go says
// why).
type loopTable struct {
	mu sync.RWMutex
	m  map[int]*rankLoop
}

func (t *loopTable) Store(seq int, l *rankLoop) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[int]*rankLoop{}
	}
	t.m[seq] = l
	t.mu.Unlock()
}

func (t *loopTable) Load(seq int) *rankLoop {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[seq]
}

func (t *loopTable) Delete(seq int) {
	t.mu.Lock()
	delete(t.m, seq)
	t.mu.Unlock()
}

type rankLoop struct {
	mu                     sync.Mutex
	next, total, chunk, ms int
	guided                 bool
}

// take is the next chunk, hi < lo when none is left.
func (l *rankLoop) take() (lo, hi int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rem := l.total - l.next
	if rem <= 0 {
		return 0, -1
	}
	c := min(rem, l.chunk)
	if l.guided {
		c = min(rem, max(rem/l.ms, l.chunk))
	}
	lo = l.next
	l.next += c
	return lo, lo + c - 1
}

// rankLoopStart numbers a dynamic pdo between ranks (the same number on
// every rank: they reach the same pdos in the same order) and on rank 0
// starts answering the other ranks' requests for its chunks.
func (r *run) rankLoopStart(kind dynKind, chunk, total int) int {
	seq := int(r.loopSeq.Add(1))
	if r.rank == 0 {
		l := &rankLoop{total: total, chunk: chunk, ms: r.n, guided: kind == dGuided}
		r.loops.Store(seq, l)
		r.ranks.Serve(seq, l.take)
	}
	return seq
}

// rankFetch takes the next chunk of loop seq for it: from rank 0's counter,
// through MPI on the other ranks.
func (it *Iter) rankFetch(seq int) (lo, hi int) {
	r := it.p.r
	if r.rank == 0 {
		l := r.loops.Load(seq)
		r.ranks.Poke(seq)
		return l.take()
	}
	// The wait is published: a rank 0 that never reaches the loop (its
	// copy of processor 0 went another way) leaves this rank blocked, and
	// the watchdogs must see it so (the corpus's sections under --mpi hung).
	p := it.p
	p.waitFor(wChunk, it.dyn.a.pdo.at)
	p.publishWait()
	lo, hi, err := r.ranks.Ask(seq)
	p.unpublishWait()
	if err != nil {
		it.p.errorf(it.dyn.a.pdo.at, true, "pdo: the next chunk from rank 0: %v", err)
	}
	return lo, hi
}

// rankTwin copies the shared storage before a pdo or replicated region
// at (its leader calls it before any member runs).
func (r *run) rankTwin(at Site) {
	if r.ranks == nil || r.ranks.Size() == 1 {
		return // nobody to send changes to
	}
	t := r.segTab.Load()
	if t == nil {
		return
	}
	r.mu.Lock()
	r.exStores = r.exStores[:0]
	for _, i := range r.exchanged {
		r.exStores = append(r.exStores, t.store[i])
	}
	r.mu.Unlock()
	for len(r.twins) < len(r.exStores) {
		r.twins = append(r.twins, nil)
	}
	r.twins = r.twins[:len(r.exStores)]
	for i, st := range r.exStores {
		if !st.pointers && st.Size > 0 {
			r.twins[i] = append(r.twins[i][:0], st.bytes()...) // the last pdo's buffer
		}
	}
	r.pagesStart(t, at)
	r.twinned = true
	r.rankSyncStart()
}

// exchangeable reports whether a segment p makes now is made alike on
// every rank, in the same order, so that the ranks can name it by its
// place in that order: made in exclusive code (which every rank runs: the
// program's, processor 0's, or a section's, its leader's, the sections of
// a rank taking turns). Segments made in a pdo's share (on one rank only)
// or by goroutines (in no fixed order) stay each rank's own.
func (p *Proc) exchangeable() bool {
	return p.r.ranks != nil && p.mode == exclusive && !p.inTask && !p.detached
}

// exchange adds the segment with index i of the segment table to those
// the ranks exchange at the ends of pdos.
func (r *run) exchange(i int) {
	r.mu.Lock()
	r.exchanged = append(r.exchanged, i)
	r.mu.Unlock()
}

// rankGather is the leader's part, between ranks, of a leader-release
// barrier after every member of this rank arrived: at a pdo's end
// (rankEnd) and at a replicated region's (rankRegionEnd).
func (p *Proc) rankGather(at Site, kind waitKind) {
	// The leader waits for the other ranks here: its wait is published,
	// so that a deadlock on another rank is found (the collectives take
	// messages, the watchdog's report among them, while they wait).
	p.waitFor(kind, at)
	p.publishWait()
	defer p.unpublishWait()
	switch kind {
	case wPDOEnd:
		p.rankEnd(p.aps, &p.aps.pdo)
	case wReplicatedEnd:
		p.rankRegionEnd(at)
	case wPSectionEnd:
		if err := p.r.ranks.Barrier(); err != nil {
			p.errorf(at, false, "the end of the psection between ranks: %v", err)
		}
	}
}

// rankEnd is the leader's part of a pdo's end between ranks, after every
// local member arrived: the reductions combined across ranks, then the
// shared storage made equal on every rank.
func (p *Proc) rankEnd(a *aps, t *pdoTask) {
	r, at := p.r, t.at
	if t.seq != 0 {
		if err := r.ranks.EndLoop(t.seq); err != nil {
			p.errorf(at, false, "pdo: the end of its chunks between ranks: %v", err)
		}
		r.loops.Delete(t.seq)
	}
	twinned := r.twinned
	met, err := r.rankReduce(a)
	if err != nil {
		p.errorf(at, false, "pdo: %v", err)
	}
	if err := r.rankDiffs(p); err != nil {
		p.errorf(at, false, "pdo: shared variables between ranks: %v", err)
	}
	if !met && !twinned {
		// Nothing to combine: the ranks still meet, so that the pdo's end
		// is the barrier of all its processors it is in one process (the
		// code after it runs after every iteration, and the trace's
		// barrier is one: rank 0 went on while rank 1 computed).
		if err := r.ranks.Barrier(); err != nil {
			p.errorf(at, false, "pdo: its end between ranks: %v", err)
		}
	}
}

// rankReduce combines the members' partial results across ranks: the
// partials of this rank's processors, folded into the first one's (where
// none is a member, any member's: identities), are reduced with the other
// ranks' and stand for all of them; the other members' are dropped. It
// reports whether the ranks met (there was something to combine).
func (r *run) rankReduce(a *aps) (bool, error) {
	mine := -1
	for i, m := range a.members {
		if m.idle() {
			continue
		}
		if mine < 0 {
			mine = i
			continue
		}
		for j := range a.slots[i].it.partials {
			pt := a.slots[i].it.partials[j]
			pt.dst = unsafe.Pointer(&a.slots[mine].it.partials[j].bits)
			pt.fold()
		}
		for j, v := range a.slots[i].it.values {
			a.slots[mine].it.values[j].merge(v)
		}
	}
	mine = max(mine, 0)
	parts := a.slots[mine].it.partials
	if len(a.slots[mine].it.reduce) > 0 {
		return false, fmt.Errorf("a reduction registered with Iter.Reduce cannot be combined between ranks: hand its value over with ReduceValue")
	}
	met, err := r.rankValues(a, mine)
	if err != nil {
		return met, err
	}
	n := len(parts)
	if n == 0 {
		return met, nil
	}
	vals, kinds, ops := make([]uint64, n), make([]reflect.Kind, n), make([]Op, n)
	for j, pt := range parts {
		vals[j], kinds[j], ops[j] = widen(pt.bits, pt.kind), pt.kind, pt.op
	}
	if err := r.ranks.Allreduce(vals, kinds, ops); err != nil {
		return true, err
	}
	for j := range parts {
		parts[j].bits = narrow(vals[j], kinds[j])
	}
	for i := range a.slots {
		if i != mine {
			a.slots[i].it.partials = a.slots[i].it.partials[:0]
		}
	}
	return true, nil
}

// rankValues combines the ReduceValue partials of this rank (member mine's,
// into which the others' were merged) with the other ranks' (one
// Allgather), and drops the other members'. It reports whether the ranks
// met.
func (r *run) rankValues(a *aps, mine int) (bool, error) {
	vals := a.slots[mine].it.values
	if len(vals) == 0 {
		return false, nil
	}
	var out []byte
	for _, v := range vals {
		out = v.encode(out)
	}
	all, err := r.ranks.Allgather(out)
	if err != nil {
		return true, err
	}
	encs := slices.Clone(all) // (the values are decoded before the next Allgather)
	for _, v := range vals {
		if err := v.acrossRanks(encs); err != nil {
			return true, err
		}
	}
	for i := range a.slots {
		if i != mine {
			clear(a.slots[i].it.values)
			a.slots[i].it.values = a.slots[i].it.values[:0]
		}
	}
	return true, nil
}

// widen makes a partial's bits a 64-bit value of its class: signed
// integers sign-extended, float32 as float64, the rest as they are.
func widen(bits uint64, k reflect.Kind) uint64 {
	switch k {
	case reflect.Int8:
		return uint64(int64(int8(bits)))
	case reflect.Int16:
		return uint64(int64(int16(bits)))
	case reflect.Int32:
		return uint64(int64(int32(bits)))
	case reflect.Uint8:
		return uint64(uint8(bits))
	case reflect.Uint16:
		return uint64(uint16(bits))
	case reflect.Uint32:
		return uint64(uint32(bits))
	case reflect.Float32:
		return math.Float64bits(float64(math.Float32frombits(uint32(bits))))
	}
	return bits
}

// narrow is widen's inverse: a combined value back into a partial's bits
// (integers wrap as Go's arithmetic does).
func narrow(v uint64, k reflect.Kind) uint64 {
	if k == reflect.Float32 {
		return uint64(math.Float32bits(float32(math.Float64frombits(v))))
	}
	return v
}

// rankDiffs sends the bytes of shared storage this rank changed since
// rankTwin to the others and applies theirs, rank by rank: first what the
// ranks published at the releases of global locks (in the order of rank
// 0's log) and their atomic additions (ranklock.go), then the rest. p is
// the leader.
func (r *run) rankDiffs(p *Proc) error {
	t := r.segTab.Load()
	if r.ranks == nil || t == nil || !r.twinned {
		return nil
	}
	r.twinned = false
	s := &r.rsync
	defer s.epoch.Add(1)
	defer func() { // the homes have them all now (applyLog)
		s.mu.Lock()
		clear(s.granted)
		s.granted = s.granted[:0]
		s.mu.Unlock()
	}()
	le := binary.LittleEndian
	out := le.AppendUint32(r.diffOut[:0], uint32(len(s.own)))
	for _, q := range s.own {
		out = le.AppendUint32(out, uint32(q.seq))
		out = le.AppendUint32(out, uint32(len(q.diff)))
		out = append(out, q.diff...)
	}
	out = le.AppendUint32(out, uint32(len(s.deltas)))
	for k, d := range s.deltas {
		out = le.AppendUint32(out, uint32(k[0]))
		out = le.AppendUint32(out, uint32(k[1]))
		out = le.AppendUint32(out, uint32(d.kind))
		out = le.AppendUint64(out, d.sum)
	}
	out = r.lazyDiffs(out)
	for e, tw := range r.twins {
		if tw == nil || r.lazySeg(e) {
			continue
		}
		out = appendDiff(out, uint32(e), tw, r.exStores[e].bytes())
	}
	r.diffOut = out
	r.exchanges++
	r.sent += int64(len(out))
	// (A rank's processors may still wait for global locks from rank 0:
	// the Allgather takes messages while it waits.)
	all, err := r.ranks.Allgather(out)
	if err != nil {
		return err
	}
	total := 0
	for _, d := range all {
		total += countPubs(d)
	}
	if total > 0 { // the log's order comes in a second Allgather, which reuses its buffer
		for k := range all {
			all[k] = slices.Clone(all[k])
		}
	}
	// Each rank's publications and atomic additions, its lazy pages'
	// writes, then its diff.
	pubs := map[[2]int][]byte{}
	diffs := make([][]byte, len(all))
	var lazy []lazyEntry
	for k, d := range all {
		rest, err := r.takeSynced(k, d, pubs)
		if err == nil {
			lazy, diffs[k], err = r.pages.readLazy(k, rest, lazy)
		}
		if err != nil {
			return fmt.Errorf("from rank %d: %v", k, err)
		}
	}
	if total > 0 {
		if err := r.applyLog(p, pubs, total); err != nil {
			return err
		}
	}
	conflictErr := func(c *conflict, k int) error {
		r.mu.Lock()
		v, name := t.vars[r.exchanged[c.seg]], "?"
		r.mu.Unlock()
		if v.sub > 0 && v.sub < len(r.prog.Subs) {
			name = r.prog.Subs[v.sub].Name
		}
		return fmt.Errorf("ranks %d and %d both changed byte %d of shared variable %d of %s, to different values outside critical sections, locks and atomic updates; combine such updates with a reduction, or make them under a critical section", min(k, r.rank), max(k, r.rank), c.off, v.num, name)
	}
	for k, d := range diffs {
		if k == r.rank {
			continue
		}
		c, err := applyDiff(d, r.exStores, r.twins)
		if err != nil {
			return fmt.Errorf("from rank %d: %v", k, err)
		}
		if c != nil {
			return conflictErr(c, k)
		}
	}
	// Pages written for the first time by several ranks: the diffs of
	// those that are not the lowest go to it in a second round.
	if second, need, err := r.firstWrites(lazy); err != nil {
		return err
	} else if need {
		all, err := r.ranks.Allgather(second)
		if err != nil {
			return err
		}
		r.sent += int64(len(second))
		for k, d := range all {
			if lazy, _, err = r.pages.readLazy(k, d, lazy); err != nil {
				return fmt.Errorf("from rank %d: %v", k, err)
			}
		}
	}
	c, k, err := r.applyLazy(lazy)
	if err != nil {
		return fmt.Errorf("from rank %d: %v", k, err)
	}
	if c != nil {
		return conflictErr(c, k)
	}
	return nil
}

// countPubs is the number of publications in a rank's contribution.
func countPubs(d []byte) int {
	if len(d) < 4 {
		return 0
	}
	return int(binary.LittleEndian.Uint32(d))
}

// takeSynced reads rank k's publications (into pubs, by author and
// number) and atomic additions from its contribution d, adds those of
// other ranks here, and returns the rest: its diff.
func (r *run) takeSynced(k int, d []byte, pubs map[[2]int][]byte) ([]byte, error) {
	le := binary.LittleEndian
	short := fmt.Errorf("its exchange ends early")
	if len(d) < 4 {
		return nil, short
	}
	n := int(le.Uint32(d))
	d = d[4:]
	for range n {
		if len(d) < 8 || 8+int(le.Uint32(d[4:])) > len(d) {
			return nil, short
		}
		seq, l := int(le.Uint32(d)), int(le.Uint32(d[4:]))
		pubs[[2]int{k, seq}] = d[8 : 8+l]
		d = d[8+l:]
	}
	if len(d) < 4 {
		return nil, short
	}
	n = int(le.Uint32(d))
	d = d[4:]
	for range n {
		if len(d) < 20 {
			return nil, short
		}
		seg, off, kind, sum := int(le.Uint32(d)), int(le.Uint32(d[4:])), reflect.Kind(le.Uint32(d[8:])), le.Uint64(d[12:])
		d = d[20:]
		if k == r.rank {
			continue // added here already
		}
		size := kindSize(kind)
		if seg >= len(r.twins) || r.twins[seg] == nil || size == 0 || off+size > len(r.twins[seg]) {
			return nil, fmt.Errorf("an atomic addition at %d of segment %d does not fit (the ranks' shared variables differ)", off, seg+1)
		}
		addInto(r.exStores[seg].bytes()[off:], sum, kind, size)
		addInto(r.twins[seg][off:], sum, kind, size)
	}
	return d, nil
}

// applyLog applies the publications of other ranks this rank has not
// seen, in the order of rank 0's log of this pdo (rank 0 sends it once all
// total reached it).
func (r *run) applyLog(p *Proc, pubs map[[2]int][]byte, total int) error {
	s, le := &r.rsync, binary.LittleEndian
	var order []byte
	if r.rank == 0 {
		for _, q := range s.mgr.logOf(p, int(s.epoch.Load()), total) {
			order = le.AppendUint32(order, uint32(q.author))
			order = le.AppendUint32(order, uint32(q.seq))
		}
	}
	all, err := r.ranks.Allgather(order)
	if err != nil {
		return err
	}
	order = all[0]
	if len(order) != 8*total {
		return fmt.Errorf("rank 0 logged %d publications of %d", len(order)/8, total)
	}
	ex := r.exBytes()
	for i := s.seen; i < total; i++ {
		author, seq := int(le.Uint32(order[8*i:])), int(le.Uint32(order[8*i+4:]))
		if author == r.rank {
			continue
		}
		d, ok := pubs[[2]int{author, seq}]
		if !ok {
			return fmt.Errorf("publication %d of rank %d is missing", seq, author)
		}
		applyEntry(d, ex)
		applyEntry(d, r.twins)
	}
	return nil
}

// kindSize is the size of a numeric kind (0: none).
func kindSize(k reflect.Kind) int {
	switch k {
	case reflect.Int8, reflect.Uint8:
		return 1
	case reflect.Int16, reflect.Uint16:
		return 2
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		return 4
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		return int(unsafe.Sizeof(0))
	case reflect.Int64, reflect.Uint64, reflect.Float64:
		return 8
	}
	return 0
}

// appendDiff appends where now differs from twin, byte-exact, as runs of
// 8-byte groups: a run is segment, byte offset and number of groups
// (little-endian uint32s), then per group a mask of the bytes that changed
// and those bytes. Unchanged stretches are skipped 64 bytes at a time.
// Byte-exact: a rank sends no byte it did not change, so that neighbouring
// elements written by two ranks both survive.
func appendDiff(out []byte, seg uint32, twin, now []byte) []byte {
	n := min(len(twin), len(now))
	le := binary.LittleEndian
	for i := 0; i < n; {
		if i+64 <= n && bytes.Equal(twin[i:i+64], now[i:i+64]) {
			i += 64
			continue
		}
		if i+8 <= n && le.Uint64(twin[i:]) == le.Uint64(now[i:]) {
			i += 8
			continue
		}
		hdr, start, groups := len(out), i, 0
		out = append(out, make([]byte, 12)...)
		for ; i+8 <= n; i += 8 {
			w := le.Uint64(now[i:])
			x := le.Uint64(twin[i:]) ^ w
			if x == 0 {
				break
			}
			m := changedBytes(x)
			out = append(out, m)
			if tz := bits.TrailingZeros8(m); (m>>tz)&(m>>tz+1) == 0 {
				// One stretch of bytes: appended as a word, cut to size.
				k := len(out) + bits.OnesCount8(m)
				out = le.AppendUint64(out, w>>(8*tz))[:k]
			} else {
				for ; m != 0; m &= m - 1 {
					out = append(out, byte(w>>(8*bits.TrailingZeros8(m))))
				}
			}
			groups++
		}
		if i < n && i+8 > n { // the storage's last, partial group
			var m byte
			for k := i; k < n; k++ {
				if twin[k] != now[k] {
					m |= 1 << (k - i)
				}
			}
			if m != 0 {
				out = append(out, m)
				for k := i; k < n; k++ {
					if m&(1<<(k-i)) != 0 {
						out = append(out, now[k])
					}
				}
				groups++
			}
			i = n
		}
		if groups == 0 { // a partial group that had not changed
			out = out[:hdr]
			continue
		}
		le.PutUint32(out[hdr:], seg)
		le.PutUint32(out[hdr+4:], uint32(start))
		le.PutUint32(out[hdr+8:], uint32(groups))
	}
	return out
}

// byteMasks[m] has byte k all ones where bit k of m is set.
var byteMasks = func() (t [256]uint64) {
	for m := range t {
		for k := range 8 {
			if m&(1<<k) != 0 {
				t[m] |= 0xff << (8 * k)
			}
		}
	}
	return t
}()

// changedBytes is the mask of the nonzero bytes of x (bit k: byte k).
func changedBytes(x uint64) byte {
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	nz := (((x & lo7) + lo7) | x) & hi // the high bit of every nonzero byte
	return byte(((nz >> 7) * 0x0102040810204080) >> 56)
}

// conflict is a byte of shared storage that two ranks changed to
// different values in one pdo.
type conflict struct{ seg, off int }

// applyDiff writes another rank's runs into the storage they name. A byte
// this rank changed too (it differs from its twin), to another value, is a
// conflict: it is returned, and the rest is not applied (processors of
// two ranks writing one element with no critical section, lock or atomic
// update between them: ranklock.go publishes what those order).
func applyDiff(d []byte, store []Storage, twins [][]byte) (*conflict, error) {
	short := func(what string) error { return fmt.Errorf("a diff ends inside %s", what) }
	for len(d) > 0 {
		if len(d) < 12 {
			return nil, short("a run's header")
		}
		seg := int(binary.LittleEndian.Uint32(d))
		off := int(binary.LittleEndian.Uint32(d[4:]))
		groups := int(binary.LittleEndian.Uint32(d[8:]))
		d = d[12:]
		if seg >= len(twins) || off+8*groups > store[seg].Size+7 {
			return nil, fmt.Errorf("a run of %d groups at %d of segment %d does not fit (the ranks' shared variables differ)", groups, off, seg+1)
		}
		dst, tw := store[seg].bytes(), twins[seg]
		for g := range groups {
			if len(d) == 0 {
				return nil, short("a run")
			}
			m, base := d[0], off+8*g
			d = d[1:]
			if cnt := bits.OnesCount8(m); base+8 <= len(dst) && base+8 <= len(tw) && len(d) >= cnt {
				// A whole word: merge with word operations.
				var in uint64
				switch tz := bits.TrailingZeros8(m); {
				case len(d) >= 8 && (m>>tz)&(m>>tz+1) == 0:
					// One stretch of bytes (a float whose high bytes did
					// not change): the packed bytes shifted into place.
					in = binary.LittleEndian.Uint64(d) << (8 * tz)
				default:
					for k, j := 0, 0; k < 8; k++ {
						if m&(1<<k) != 0 {
							in |= uint64(d[j]) << (8 * k)
							j++
						}
					}
				}
				old, was := binary.LittleEndian.Uint64(dst[base:]), binary.LittleEndian.Uint64(tw[base:])
				if old != was { // this rank changed the word too
					if c := changedBytes(old^was) & changedBytes(old^in) & m; c != 0 {
						return &conflict{seg, base + bits.TrailingZeros8(c)}, nil
					}
				}
				mask := byteMasks[m]
				binary.LittleEndian.PutUint64(dst[base:], old&^mask|in&mask)
				d = d[cnt:]
				continue
			}
			for k := range 8 { // the storage's last, partial word
				if m&(1<<k) == 0 {
					continue
				}
				at := base + k
				if len(d) == 0 || at >= len(dst) {
					return nil, short("a group")
				}
				if at < len(tw) && tw[at] != dst[at] && dst[at] != d[0] {
					return &conflict{seg, at}, nil
				}
				dst[at] = d[0]
				d = d[1:]
			}
		}
	}
	return nil, nil
}

// bytes is the storage as bytes.
func (st Storage) bytes() []byte {
	if st.ptr == nil || st.Size <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(st.ptr), st.Size)
}

// hasPointers reports whether a value of type t holds pointers: such
// storage cannot travel between processes.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.String, reflect.UnsafePointer:
		return true
	}
	return false
}

// endClocks measures this rank's clock against rank 0's again at the run's
// normal end, for the merge to take out the drift between the start and
// here. Every rank that ends normally comes here; it waits for the others
// at a barrier, given up when the run is told to hurry (another rank
// failed: mpirun stops this one), and the rank-info then has the start's
// shift only.
func (r *run) endClocks() {
	if r.ranks.Size() == 1 {
		return
	}
	if err := r.ranks.BarrierUnless(r.hurry); err != nil {
		return
	}
	clock := func() float64 { return float64(nanotime()) / 1e3 }
	start := func() float64 { return float64(r.startNano) / 1e3 }
	if s, e, err := r.ranks.ClockShift(clock, start); err == nil {
		r.endShift, r.endErr, r.endMeasured = s, e, true
	}
}

// rankInfoRec is the rank-info record of this rank's trace.
func (r *run) rankInfoRec(b *trace.Buf, clock float64) {
	b.Begin(trace.TagRankInfo, r.rank*r.perRank, clock)
	b.Int(r.rank)
	b.Int(r.ranks.Size())
	b.Int(r.perRank)
	b.Double(r.shift)
	b.Double(r.shiftErr)
	b.Int(r.exchanges)
	b.Double(float64(r.sent))
	b.Int(int(r.msgsOut.Load()))
	b.Double(float64(r.msgBytesOut.Load()))
	if r.endMeasured {
		b.Double(r.endShift)
		b.Double(r.endErr)
	} else {
		b.Double(0)
		b.Double(-1) // not measured
	}
	b.Int(int(r.rsync.taken.Load()))
	b.Double(float64(r.rsync.published.Load()))
	if rp := r.pages; rp != nil {
		b.Int(int(rp.fetched.Load()))
		b.Double(float64(rp.fetchedBytes.Load()))
		b.Int(int(rp.served.Load()))
		b.Int(int(rp.synced.Load()))
		b.Int(int(rp.prefetched.Load()))
	} else {
		b.Int(0)
		b.Double(0)
		b.Int(0)
		b.Int(0)
		b.Int(0)
	}
	b.End()
}
