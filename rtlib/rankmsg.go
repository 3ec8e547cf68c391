package rtlib

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/svmc/svmc/rtlib/internal/msg"
	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// Replicated regions and messages between ranks (issue 16; see ranks.go
// for the rest). When the processors are spread over more than one rank,
// a replicated region runs each processor's code on its own rank, as an
// MPI program does, so that its work is divided, not repeated — except
// processor 0's, which runs on every rank as the exclusive code around it
// does, so that what it computes in the region (a gathered result, a
// master's bookkeeping) is there for the exclusive code after it on every
// rank:
//
//   - the members whose work is on another rank skip the body and wait at
//     its end;
//   - a message between processors of different ranks is an MPI message
//     (Post/Listen), matched on the receiving rank by the same engine as
//     one inside a rank (package msg); a synchronous send completes when
//     the receiving rank acknowledges that a receive took it. Collectives
//     are made of such messages;
//   - a message to processor 0 goes to every rank's processor 0; processor
//     0's messages to the others are sent by its copy on rank 0 (the
//     others drop theirs), so that they leave when and as the trace says
//     (processor 0's records are rank 0's). Where processor 0 receives or
//     probes from any source, rank 0 decides which message matched and tells the
//     other ranks' copies, so that every copy takes the same messages in
//     the same order;
//   - a barrier inside the region meets this rank's processors, and the
//     last of them the other ranks (MPI_Barrier);
//   - at the region's end the shared storage is made equal on every rank
//     as at a pdo's end (twins and diffs); everything else a processor
//     other than 0 wrote stays on its rank (the compiler warns of such
//     writes not under a test that the processor is 0);
//   - pdos, exclusive regions, psections and barrier check-ins inside
//     such a region are errors: they need every member on every rank.

// spread reports whether the processors are spread over more than one
// rank.
func (r *run) spread() bool { return r.ranks != nil && r.ranks.Size() > 1 }

// rankOfProc is the rank that runs processor q's own work.
func (r *run) rankOfProc(q int) int { return q / r.perRank }

// skipsRegion reports whether p skips the body of a replicated region:
// its work runs on another rank.
func (p *Proc) skipsRegion() bool { return p.r.spread() && p.idle() && p.id != 0 }

// everywhere reports whether p's code runs on every rank now: processor 0
// outside a pdo share (exclusive code and replicated regions).
func (p *Proc) everywhere() bool { return p.id == 0 && !p.inTask }

// Where a message goes between ranks (routeTo).
const (
	routeLocal  = iota // to a processor of this rank
	routeRemote        // to the rank of the receiving processor
	routeFan           // to processor 0: here and on every other rank
	routeDrop          // processor 0's copy on rank 0 sends it
)

// routeTo says where a message p sends to processor to goes.
func (p *Proc) routeTo(to int) int {
	r := p.r
	if !r.spread() || (p.mode != replicated && !p.inTask && !p.everywhere()) {
		return routeLocal
	}
	here := r.rankOfProc(to) == r.rank
	switch {
	case p.everywhere() && to == 0:
		return routeLocal
	case p.everywhere() && r.rank != 0:
		return routeDrop
	case p.everywhere() && here:
		return routeLocal
	case to == 0 && p.id != 0 && !p.inTask:
		// Processor 0 runs the region on every rank. From a pdo's
		// iteration or a section it is in the same construct, on its
		// own rank only: a copy on this rank would never take it.
		return routeFan
	case here:
		return routeLocal
	}
	return routeRemote
}

// spreadUnsupported stops the run at construct what, reached in a
// replicated region whose processors are spread over ranks.
func (p *Proc) spreadUnsupported(at Site, what string) {
	if p.mode == replicated && !p.inTask && p.r.spread() {
		p.errorf(at, true, "%s inside a replicated region cannot run under --mpi with more than one rank: the region runs only on each rank's own processors, and this construct needs every processor on every rank; put it outside the region", what)
	}
}

// Message kinds between ranks.
const (
	rankMsg    = 0 // a message of the program
	rankAck    = 1 // a receive took a synchronous send
	rankDecide = 2 // rank 0's processor 0 took a message from any source, or answered a Test
	rankStatus = 3 // a rank's watchdog to rank 0's (rankdead.go)
)

// The end of a job (endRanks).
const (
	rankEnded    = 12 // a rank's processors ended (to rank 0)
	rankAllEnded = 13 // every rank's did (from rank 0)
)

// rankHeader is the number of 8-byte fields before a message's element
// type name and data.
const rankHeader = 12

// apartMin is the size from which a message's data travels apart from its
// header, into the receive's buffer when one is posted (no copy out of a
// message). Where the send is not buffered anyway (a synchronous send, a
// standard one beyond msg_buffer) it also leaves straight from the
// sender's slice, the sender waiting until it is sent: two copies of a
// megabyte cost more than the transfer. So does a blocking standard Send,
// as MPI_Send of a large message waits: the receiving rank's transport
// takes the data as soon as its header comes (into the posted receive,
// or a buffer of its own), whatever that rank's processors are doing, so
// the sender waits for the transfer only (1 MiB ping-pong: 0.65 of C's
// bandwidth with the copy). A non-blocking send must return at once, so
// its data is copied first.
const apartMin = 64 << 10

// remotePost sends m (with buf's elements) to the rank of processor to.
// A synchronous send returns s for the sender to wait on: the receiving
// rank acknowledges it; a standard send is buffered (its bytes copied, or
// sent before it returns). With fan, m goes to every other rank (a message
// to processor 0; the sender's rank delivers it itself, and no rank
// acknowledges it).
func remotePost[T any](p *Proc, to int, m *msg.Msg, buf []T, sync, fan bool, s *msg.Req) *msg.Req {
	s, d := remoteStart(p, to, m, buf, sync, fan, s)
	d.wait()
	return s
}

// dataWait is a send whose data leaves straight from the sender's slice:
// the sender waits until every rank has it (n sends).
type dataWait struct {
	p          *Proc
	to         int
	site, kind int
	sent       atomic.Uint64
	n          uint64
}

// wait waits for the data's sends; a nil d has none.
func (d *dataWait) wait() {
	if d == nil {
		return
	}
	p := d.p
	p.wpeerID = d.to
	p.waitFor(wMsgSend, msgSite(d.site, d.kind))
	for v := d.sent.Load(); v < d.n; v = d.sent.Load() {
		p.remoteAwait(&d.sent, v)
	}
}

// remoteStart is remotePost without the wait for data sent from the
// sender's slice, which it returns: a message to processor 0 is delivered
// on the sender's rank meanwhile (a megabyte copied while it travels,
// not after).
func remoteStart[T any](p *Proc, to int, m *msg.Msg, buf []T, sync, fan bool, s *msg.Req) (*msg.Req, *dataWait) {
	t := reflect.TypeFor[T]()
	if hasPointers(t) {
		p.msgErrorf(m.Site, "a message of []%s cannot go to processor %d on another rank: its elements hold pointers (send their values as numbers, arrays or structs of them)", t, to)
	}
	r := p.r
	name, data := t.String(), bytesOf(buf)
	inline, apart := data, 0
	if len(data) >= apartMin {
		inline, apart = nil, len(data)
	}
	wait := apart > 0 && (sync || int64(len(data)) > r.msgBuf || m.Kind == trace.CallSend)
	if apart > 0 && !wait {
		data = append(getBuf(len(data))[:0], data...)
	}
	b := getBuf(8*rankHeader + len(name) + len(inline))[:0]
	syncFlag := 0
	if sync && !fan { // no rank acknowledges a message to processor 0
		syncFlag = 1
	}
	for _, v := range [rankHeader]int64{rankMsg, int64(m.Src), int64(to), int64(m.Tag), int64(m.Ctx), int64(m.Kind),
		int64(syncFlag), int64(m.Seq), int64(m.Site), int64(m.Count), int64(len(name)), int64(apart)} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = append(append(b, name...), inline...)
	dests := []int{r.rankOfProc(to)}
	if fan {
		dests = dests[:0]
		for k := range r.ranks.Size() {
			if k != r.rank {
				dests = append(dests, k)
			}
		}
	}
	var free, dataSent func() // nil: the transport gives the buffer back
	if len(dests) > 1 {
		refs := new(atomic.Int32) // the sends share b
		refs.Store(int32(len(dests)))
		free = func() {
			if refs.Add(-1) == 0 {
				putBuf(b)
			}
		}
	}
	var dw *dataWait // data sent apart from the sender's slice
	switch {
	case wait:
		dw = &dataWait{p: p, to: to, site: m.Site, kind: m.Kind, n: uint64(len(dests))}
		dataSent = func() {
			dw.sent.Add(1)
			p.wakeup()
		}
	case apart > 0 && len(dests) > 1:
		refs := new(atomic.Int32)
		refs.Store(int32(len(dests)))
		dataSent = func() {
			if refs.Add(-1) == 0 {
				putBuf(data)
			}
		}
	}
	if syncFlag != 0 {
		s.Reset()
		r.acks.Store(ackKey{m.Src, m.Seq}, s)
	}
	for _, k := range dests {
		r.postsOut.Add(1)
		var part []byte
		if apart > 0 {
			part = data
		}
		r.ranks.Post(k, b, free, part, dataSent)
		r.msgsOut.Add(1)
		r.msgBytesOut.Add(int64(len(data)))
	}
	if syncFlag != 0 {
		return s, dw
	}
	return nil, dw
}

// ackKey names a synchronous send waiting for its acknowledgement.
// ackTable is the synchronous sends to other ranks waiting for their
// acknowledgement: a map under a lock rather than a sync.Map (ptrs.go says
// why).
type ackTable struct {
	mu sync.Mutex
	m  map[ackKey]*msg.Req
}

func (t *ackTable) Store(k ackKey, s *msg.Req) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[ackKey]*msg.Req{}
	}
	t.m[k] = s
	t.mu.Unlock()
}

func (t *ackTable) LoadAndDelete(k ackKey) (*msg.Req, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[k]
	delete(t.m, k)
	return s, ok
}

type ackKey struct {
	src int
	seq uint64
}

// arrive takes a message from another rank (on the transport's
// goroutine); recvData receives its data sent apart.
func (r *run) arrive(b []byte, recvData func([]byte) error) {
	if len(b) < 8*rankHeader {
		r.rankFail(fmt.Errorf("a message of %d bytes between ranks is shorter than its header", len(b)))
		return
	}
	var h [rankHeader]int64
	for i := range h {
		h[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	if h[0] != rankStatus && h[0] != rankStdin {
		defer r.postsIn.Add(1) // once delivered
	}
	switch h[0] {
	case rankStdin:
		r.stdinArrive(&h, b[8*rankHeader:])
		putBuf(b)
		return
	case rankStatus:
		r.rankStatusIn(h, b[8*rankHeader:])
		putBuf(b)
		return
	case rankEnded, rankAllEnded:
		putBuf(b)
		r.endedIn.Add(1)
		return
	case rankDecide:
		putBuf(b)
		r.decideMu.Lock()
		r.decided = append(r.decided, h[1])
		r.decideMu.Unlock()
		r.decideGen.Add(1)
		r.procs[0].wakeup()
		return
	case rankPageReq, rankPageData:
		if err := r.pageArrive(&h, b[8*rankHeader:]); err != nil {
			r.rankFail(err)
		}
		putBuf(b)
		return
	case rankLockReq, rankLockGrant, rankLockRel, rankLockDone, rankLockGo:
		if err := r.lockArrive(&h, b[8*rankHeader:]); err != nil {
			r.rankFail(err)
		}
		putBuf(b)
		return
	case rankAck:
		putBuf(b)
		if s, ok := r.acks.LoadAndDelete(ackKey{int(h[1]), uint64(h[7])}); ok {
			s.Done.Store(1)
			s.W.Wakeup()
		}
		return
	}
	src, dst, nameLen, apart := int(h[1]), int(h[2]), int(h[10]), int(h[11])
	rest := b[8*rankHeader:]
	if dst < 0 || dst >= r.n || src < 0 || src >= r.n || nameLen > len(rest) || apart < 0 {
		r.rankFail(fmt.Errorf("a message between ranks names processors %d → %d of %d", src, dst, r.n))
		return
	}
	name := r.lastType // the same as the last message's, mostly: no copy
	if string(rest[:nameLen]) != name {
		name = string(rest[:nameLen])
		r.lastType = name
	}
	m := msgPool.Get().(*msg.Msg)
	*m = msg.Msg{Src: src, Tag: int(h[3]), Ctx: int(h[4]), Kind: int(h[5]), Sync: h[6] != 0, Seq: uint64(h[7]),
		Site: int(h[8]), Count: int(h[9]), RawType: name, Raw: rest[nameLen:], SentNs: nanotime(), Taken: r.taken}
	m.Bytes = len(m.Raw)
	if apart == 0 {
		m.Hold = b // until the receive copied the data out
		r.net.Arrive(dst, m)
		return
	}
	putBuf(b) // the header is read (the type's name copied)
	m.Bytes = apart
	fits := func(q *msg.Req) bool {
		return q.Into.Type != nil && q.Into.Type.String() == m.RawType && q.Into.Len >= m.Count && int(q.Into.Type.Size())*m.Count == apart
	}
	if q := r.net.Claim(dst, m, fits); q != nil {
		// A receive is posted: the data goes straight into its buffer.
		if err := recvData(unsafe.Slice((*byte)(q.Into.Ptr), apart)); err != nil {
			r.rankFail(err)
			return
		}
		m.Raw = nil
		r.net.Finish(q, m)
		return
	}
	data := getBuf(apart)
	if err := recvData(data); err != nil {
		r.rankFail(err)
		return
	}
	m.Raw, m.Hold = data, data
	r.net.Arrive(dst, m)
}

// msgPool holds the messages from other ranks that receives took: arrive
// allocated one, and a closure for its Taken, per message.
var msgPool = sync.Pool{New: func() any { return new(msg.Msg) }}

// msgTaken is a message from another rank's Taken (r.taken): a receive
// took m, so its buffer goes back to the pool, its sender hears of it if
// it waits (a synchronous send), and m is reused.
func (r *run) msgTaken(m *msg.Msg) {
	if m.Hold != nil {
		putBuf(m.Hold)
	}
	r.ack(m)
	*m = msg.Msg{}
	msgPool.Put(m)
}

// ack tells the sender of m, a message from another rank, that a receive
// took it, if it is a synchronous send.
func (r *run) ack(m *msg.Msg) {
	if !m.Sync {
		return
	}
	a := getBuf(8 * rankHeader)
	binary.LittleEndian.PutUint64(a, rankAck)
	binary.LittleEndian.PutUint64(a[8:], uint64(m.Src))
	binary.LittleEndian.PutUint64(a[56:], m.Seq)
	r.postsOut.Add(1)
	r.ranks.Post(r.rankOfProc(m.Src), a, nil, nil, nil)
}

// rankFail ends the run with an error of the messages between ranks.
func (r *run) rankFail(err error) {
	r.fail(&Error{Proc: -1, Msg: "messages between ranks: " + err.Error()})
}

// awaitsDecision reports whether a receive or probe of p from processor
// from waits for rank 0's decision (fromAny).
func (p *Proc) awaitsDecision(from int) bool {
	r := p.r
	return from == AnySource && r.spread() && p.everywhere() && r.rank != 0
}

// fromAny is the source a receive or probe (wait kind k) of p from
// processor from takes its message from: on a rank other than 0, processor
// 0's copy takes from any source the message rank 0's took (its decision,
// in order: the copies make the same calls in the same order).
func (p *Proc) fromAny(from, site int, k waitKind) int {
	if !p.awaitsDecision(from) {
		return from
	}
	return int(p.awaitDecision(site, k))
}

// awaitDecision takes rank 0's next decision (a source, a Test's answer,
// a clock reading), waiting for it (wait kind k) at call site site.
func (p *Proc) awaitDecision(site int, k waitKind) int64 {
	r := p.r
	for {
		g := r.decideGen.Load()
		r.decideMu.Lock()
		if len(r.decided) > 0 {
			q := r.decided[0]
			r.decided = r.decided[1:]
			r.decideMu.Unlock()
			return q
		}
		r.decideMu.Unlock()
		p.wpeerID = AnySource
		p.waitFor(k, msgSite(site, p.r.callSub(site)))
		p.remoteAwait(&r.decideGen, g)
	}
}

// decide tells the other ranks' copies of processor 0 which source rank
// 0's receive or probe from any source took (see fromAny).
func (p *Proc) decide(from, src int) {
	r := p.r
	if from != AnySource || !r.spread() || !p.everywhere() || r.rank != 0 {
		return
	}
	p.postDecision(int64(src))
}

// postDecision sends rank 0's decision v to the other ranks' copies of
// processor 0.
func (p *Proc) postDecision(v int64) {
	r := p.r
	for k := 1; k < r.ranks.Size(); k++ {
		b := getBuf(8 * rankHeader)
		binary.LittleEndian.PutUint64(b, rankDecide)
		binary.LittleEndian.PutUint64(b[8:], uint64(v))
		r.postsOut.Add(1)
		r.ranks.Post(k, b, nil, nil, nil)
	}
}

// sameTest is the answer of processor 0's Test on every rank: rank 0's.
// Each rank's copy sees messages arrive at its own time, and copies whose
// polling loops counted polls differently ran different code (x421: a pdo
// per poll, and the job hung). Rank 0's copy tells the others; a copy told
// "done" then waits for the request (a message to processor 0 comes to
// every rank; a send of another rank's copy is rank 0's to make).
func (p *Proc) sameTest(site int, done bool) bool {
	r := p.r
	if !r.spread() || !p.everywhere() {
		return done
	}
	if r.rank == 0 {
		v := int64(0)
		if done {
			v = 1
		}
		p.postDecision(v)
		return done
	}
	return p.awaitDecision(site, wDecision) != 0
}

// noAny stops processor 0 at a call from any source that rank 0 cannot
// decide for the other ranks in order (a non-blocking receive: it matches
// whenever a message comes, in no order of the calls).
func (p *Proc) noAny(from, site int, what string) {
	if from == AnySource && p.r.spread() && p.everywhere() {
		p.msgErrorf(site, "%s from any source by processor 0 cannot run under --mpi with more than one rank: processor 0 runs on every rank, and the ranks could take different messages; name the source, or use Recv", what)
	}
}

// rankRegionEnd is the leader's part of the end of a replicated region
// between ranks, after every member of this rank arrived: the shared
// storage made equal on every rank, which meets them, or else a barrier.
func (p *Proc) rankRegionEnd(at Site) {
	r := p.r
	if r.twinned {
		if err := r.rankDiffs(p); err != nil {
			p.errorf(at, false, "replicated region: shared variables between ranks: %v", err)
		}
		return
	}
	if err := p.ranksBarrier(at, wReplicatedEnd); err != nil {
		p.errorf(at, false, "the end of the replicated region between ranks: %v", err)
	}
}

// ranksBarrier is the barrier between ranks at site (at, kind), the wait
// published for the watchdog while it lasts (it polls, and counts as
// running otherwise).
func (p *Proc) ranksBarrier(at Site, kind waitKind) error {
	p.waitFor(kind, at)
	p.publishWait()
	err := p.r.ranks.Barrier()
	p.unpublishWait()
	return err
}

// rankLocal is the barrier of a rank's own processors inside a replicated
// region (rankBarrier).
type rankLocal struct {
	arrived atomic.Int32
	gen     atomic.Uint64
}

// rankBarrier is a barrier inside a replicated region whose processors are
// spread over ranks: this rank's processors meet, and the last to arrive
// meets the other ranks before it releases them.
func (p *Proc) rankBarrier(at Site, kind waitKind) {
	r := p.r
	if p.on(trace.TagWaitBarrierStart) {
		p.syncRec(trace.TagWaitBarrierStart, at)
	}
	sv := p.st.Call(stats.Sync, r.perRank)
	ws := p.st.Wait()
	b := &r.rankBar
	g := b.gen.Load()
	if b.arrived.Add(1) == int32(r.perRank+min(r.rank, 1)) { // and processor 0's copy
		b.arrived.Store(0)
		if err := p.ranksBarrier(at, kind); err != nil {
			p.errorf(at, false, "the barrier between ranks: %v", err)
		}
		b.gen.Store(g + 1)
		for q := r.rank * r.perRank; q < (r.rank+1)*r.perRank; q++ {
			if q != p.id {
				r.procs[q].wakeup()
			}
		}
		if p.id != 0 {
			r.procs[0].wakeup()
		}
	} else {
		p.waitFor(kind, at)
		p.await(&b.gen, g, r.adaptive)
	}
	p.st.Restore(ws)
	if p.on(trace.TagWaitBarrierStop) {
		p.syncRec(trace.TagWaitBarrierStop, at)
	}
	p.st.Restore(sv)
}

// remoteAwait waits until *w differs from old for what another rank
// sends: p polls the transport itself for a millisecond, as MPI_Recv polls
// inside the library (AwaitProgress), then sleeps (publishing its wait); the transport's
// background poller then delivers what comes, which wakes it.
func (p *Proc) remoteAwait(w *atomic.Uint64, old uint64) {
	net, start := p.r.ranks, nanotime()
	for i := 1; w.Load() == old; i++ {
		if net.AwaitProgress(w, old) || i%4 != 0 { // each polls up to some 3 µs
			continue
		}
		if nanotime()-start > 1e6 {
			p.publishWait()
			p.block(w, old)
			p.unpublishWait()
			return
		}
		p.checkAbort()
		if i%64 == 0 { // the runtime's other goroutines, were its Ps all busy
			runtime.Gosched()
		}
		if p.r.crowded { // a rank waiting for this core
			net.Yield()
		}
	}
}

// localRanks is the number of the job's ranks on this machine, as the
// launcher says (OpenMPI's OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's
// MPI_LOCALNRANKS), or 0 when it says nothing. A waiting processor yields
// its core between polls only when the ranks' processors may outnumber
// the cores: on as many cores, a sched_yield between the polls of a
// ping-pong was a tenth of a rank's time and one-way 2.1 µs (median of
// eight runs) instead of 1.6.
func localRanks() int {
	for _, k := range []string{"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"} {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// The buffers of messages between ranks come from pools by size class
// (powers of two from 256 bytes): a megabyte message's two buffers would
// otherwise be garbage at every send, and the collector's work and the
// zeroing of new memory halved the bandwidth.
var bufPools [32]sync.Pool

// bufClass is the pool of buffers of at least n bytes.
func bufClass(n int) int { return max(bits.Len(uint(n-1)), 8) }

// getBuf is a buffer of n bytes, its contents undefined.
func getBuf(n int) []byte {
	c := bufClass(n)
	if c >= len(bufPools) {
		return make([]byte, n)
	}
	if v := bufPools[c].Get(); v != nil {
		return unsafe.Slice((*byte)(v.(unsafe.Pointer)), 1<<c)[:n]
	}
	return make([]byte, n, 1<<c)
}

// putBuf gives b back to its pool (b's holder no longer uses it). The pool
// holds the array's address, which an interface holds without an
// allocation (a *[]byte was one per message).
func putBuf(b []byte) {
	c := bits.Len(uint(cap(b))) - 1
	if cap(b) != 1<<c || c < 8 || c >= len(bufPools) {
		return // not from a pool
	}
	bufPools[c].Put(unsafe.Pointer(unsafe.SliceData(b)))
}
