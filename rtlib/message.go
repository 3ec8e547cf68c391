package rtlib

import (
	"fmt"
	"hash/crc32"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/svmc/svmc/rtlib/internal/msg"
	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// Message passing between the processors of a run, with MPI's semantics
// (DESIGN.md §3a). Processor numbers are ProcessorID numbers; a peer must
// belong to the calling processor's active processor set (APS), and
// collectives are over the APS (every processor by default, the processors
// of a section inside a psection). Buffers are slices of any element type.
//
// Matching: a receive takes the earliest message from its source with its
// tag (either may be AnySource / AnyTag), so messages of one sender with
// one tag never overtake each other. A standard Send is buffered while the
// sender's buffered bytes stay within the msg_buffer parameter (1 MiB by
// default); beyond it, and always for Ssend, the sender waits until its
// receive takes the message. A receive buffer shorter than the message,
// or of another element type, is an error naming both calls.
//
// svmc numbers every call site of these functions (the program information
// file lists them) and rewrites the call into its ...At form with the
// number, so records and messages name the call; a call that is not
// rewritten (through a function value, in a package svmc did not compile)
// has site 0 and its errors name the caller's line.
//
// In the serial build (no svmc) the program is one processor: messages to
// itself are delivered, and a call that would wait forever is an error.

// Wildcards of a receive or probe.
const (
	AnySource = msg.AnySource
	AnyTag    = msg.AnyTag
)

// Status is what a receive or probe matched: the sender, the tag and the
// number of elements.
type Status struct {
	Source, Tag, Count int
}

// The reduction operations of Reduce and Allreduce, as the API
// names them: the operators of the reduction clause. BAnd, BOr and BXor
// are for integer types; Min and Max not for complex ones.
const (
	Sum  = OpAdd
	Prod = OpMul
	Min  = OpMin
	Max  = OpMax
	BAnd = OpAnd
	BOr  = OpOr
	BXor = OpXor
)

// Call is one message-passing call site of the program (Program.Calls).
type Call struct {
	Func      string // "Send", "Recv", "Request.Wait", ...
	File      string
	Sub       int // the subprogram that holds it, 0 if none
	Line, Col int
}

// procMsg is a processor's message-passing state.
type procMsg struct {
	sent uint64 // messages sent (point to point), the last message id
	reqs int    // requests made, the last request id
	// The requests of the blocking calls (see ownReq).
	send, recv msg.Req
	rng        uint64 // perturb's state
}

// callPos is the position of call site n, or "".
func (r *run) callPos(n int) string {
	if r.prog == nil || n <= 0 || n >= len(r.prog.Calls) {
		return ""
	}
	c := &r.prog.Calls[n]
	return fmt.Sprintf("%s:%d:%d", shownFile(c.File), c.Line, c.Col)
}

// callSub is the subprogram of call site n.
func (r *run) callSub(n int) int {
	if r.prog == nil || n <= 0 || n >= len(r.prog.Calls) {
		return 0
	}
	return r.prog.Calls[n].Sub
}

// msgSite is the Site by which waits and errors name call site n (0
// unknown) of a call of kind k: Dir -n-1, and k in Sub, which positions of
// call sites do not use. callOf is its inverse.
func msgSite(n, k int) Site { return Site{Sub: k, Dir: -n - 1} }

func callOf(s Site) int { return -s.Dir - 1 }

// callerPos is the position of the program's call into this file's API,
// for a call that svmc did not number.
func callerPos() string {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, rtPkg) {
			if f.File == "" {
				return ""
			}
			return fmt.Sprintf("%s:%d", shownFile(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// msgErrorf ends the run with an error of the call at site.
func (p *Proc) msgErrorf(site int, format string, args ...any) {
	pos := p.r.callPos(site)
	if pos == "" {
		pos = callerPos()
	}
	e := &Error{Pos: pos, Proc: -1, Msg: fmt.Sprintf(format, args...)}
	if !p.detached {
		e.Proc = p.id
	}
	p.die(e)
}

// msgProc is the processor making a message-passing call.
func msgProc(site int, kind int) *Proc {
	p := Current()
	if p.detached && !p.r.standalone {
		p.msgErrorf(site, "%s called from a goroutine that is not a processor: message passing is between the processors of the run (call it from a pdo body, a replicated region or a section, or from code they call)", trace.CallKindName(kind))
	}
	if p.r.msgPerturb {
		p.perturb()
	}
	return p
}

// perturb yields a pseudo-random number of times (0 to 3) before a
// message-passing call (parameter msg_perturb), so that repeated runs
// try other interleavings of wildcard receives and buffered sends.
func (p *Proc) perturb() {
	x := p.msg.rng
	if x == 0 {
		x = uint64(nanotime()) | 1
	}
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	p.msg.rng = x
	for range x % 4 {
		runtime.Gosched()
	}
}

// checkPeer ends the run if q is not a processor of p's APS.
func (p *Proc) checkPeer(site, kind, q int, what string) {
	if slices.Contains(p.aps.pids, q) {
		return
	}
	p.msgErrorf(site, "%s: %s %d is not a processor of the active processor set (%s)", trace.CallKindName(kind), what, q, pidsText(p.aps.pids))
}

func (p *Proc) checkTag(site, kind, tag int, wild bool) {
	if tag >= 0 || wild && tag == AnyTag {
		return
	}
	p.msgErrorf(site, "%s: tag %d is negative (tags are >= 0; AnyTag only in a receive)", trace.CallKindName(kind), tag)
}

func pidsText(pids []int) string {
	if len(pids) == 1 {
		return fmt.Sprintf("processor %d", pids[0])
	}
	contiguous := pids[len(pids)-1]-pids[0] == len(pids)-1
	if contiguous {
		return fmt.Sprintf("processors %d to %d", pids[0], pids[len(pids)-1])
	}
	return fmt.Sprintf("processors %v", pids)
}

// msgAwait waits until *w differs from old: a wait of kind k at call site
// site for processor peer, visible to the deadlock watchdog, its time lost
// in the statistics.
func (p *Proc) msgAwait(w *atomic.Uint64, old uint64, k waitKind, site, peer, kind int) {
	if w.Load() != old {
		return
	}
	if p.detached {
		p.msgErrorf(site, "%s would wait forever: the serial build is one processor and nothing else can complete it", trace.CallKindName(kind))
	}
	p.wpeerID = peer
	p.waitFor(k, msgSite(site, kind))
	if p.r.spread() && (peer < 0 || p.r.rankOfProc(peer) != p.r.rank) {
		p.remoteAwait(w, old)
		return
	}
	p.await(w, old, false)
}

// callFunc names the function called at site, "the call" if unknown.
func (r *run) callFunc(site int) string {
	if r.prog != nil && site > 0 && site < len(r.prog.Calls) {
		return r.prog.Calls[site].Func
	}
	return "the call"
}

// waitFunc names the call a wait at s (msgSite) is in.
func (r *run) waitFunc(s Site) string {
	if n := callOf(s); r.prog != nil && n > 0 && n < len(r.prog.Calls) {
		return r.prog.Calls[n].Func
	}
	return trace.CallKindName(s.Sub)
}

// Typed helpers that the untyped matching engine calls.

// elemOps are the typed operations of element type T for the matching
// engine (msg.Ops): a zero-size value, so a msg.Buf allocates nothing.
type elemOps[T any] struct{}

func (elemOps[T]) Copy(dst, src unsafe.Pointer, n int) {
	copy(unsafe.Slice((*T)(dst), n), unsafe.Slice((*T)(src), n))
}

func (elemOps[T]) Clone(src unsafe.Pointer, n int) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(slices.Clone(unsafe.Slice((*T)(src), n))))
}

func bufOf[T any](buf []T) msg.Buf {
	return msg.Buf{Ptr: unsafe.Pointer(unsafe.SliceData(buf)), Len: len(buf), Type: reflect.TypeFor[T](), Ops: elemOps[T]{}}
}

func sizeOf[T any]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

func bytesOf[T any](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*sizeOf[T]())
}

// checksum is the CRC-32 of buf's bytes when checksums are on, else 0.
func checksum[T any](p *Proc, buf []T) int {
	if !p.r.msgChecksum {
		return 0
	}
	return int(int32(crc32.ChecksumIEEE(bytesOf(buf))))
}

// addrOf is buf's address range as a record writes it.
func addrOf[T any](buf []T) [4]int {
	if len(buf) == 0 {
		return [4]int{}
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	hi := lo + uintptr(len(buf)*sizeOf[T]()) - 1
	return [4]int{int(int32(lo >> 32)), int(int32(lo)), int(int32(hi >> 32)), int(int32(hi))}
}

// callRec is the content of a msg-call-start record.
type callRec struct {
	kind, site, peer, tag, group, id, req int
	elem                                  string
	count                                 int
	addr                                  [4]int
	hasAddr                               bool
	sum                                   int
	rpeer, rtag, rcount                   int
	raddr                                 [4]int
	hasRaddr                              bool
	gsize, op                             int
}

func bufRec[T any](c *callRec, p *Proc, buf []T) {
	c.elem = reflect.TypeFor[T]().String()
	c.count = len(buf)
	c.addr, c.hasAddr = addrOf(buf), buf != nil
	c.sum = checksum(p, buf)
}

func (p *Proc) callStart(c *callRec) {
	p.begin(trace.TagMsgCallStart, p.id)
	b := &p.buf
	b.Int(p.r.callSub(c.site))
	b.Int(c.site)
	b.Int(c.kind)
	b.Int(c.peer)
	b.Int(c.tag)
	b.Int(c.group)
	b.Int(c.id)
	b.Int(c.req)
	p.chars(c.elem)
	b.Int(c.count)
	addrField(b, c.addr, c.hasAddr)
	b.Int(c.sum)
	b.Int(c.rpeer)
	b.Int(c.rtag)
	b.Int(c.rcount)
	addrField(b, c.raddr, c.hasRaddr)
	b.Int(c.gsize)
	b.Int(c.op)
	p.end()
}

func addrField(b *trace.Buf, a [4]int, ok bool) {
	if !ok {
		b.Ints(nil)
		return
	}
	b.Ints(a[:])
}

// doneRec is the content of msg-call-stop and msg-request-done.
type doneRec struct {
	kind, site, req    int
	src, tag, count    int
	id, sum, completed int
}

func (p *Proc) callStop(d *doneRec) {
	p.begin(trace.TagMsgCallStop, p.id)
	b := &p.buf
	b.Int(p.r.callSub(d.site))
	b.Int(d.site)
	b.Int(d.kind)
	b.Int(d.req)
	p.doneTail(d)
	b.Int(d.completed)
	p.end()
}

func (p *Proc) requestDone(d *doneRec) {
	p.begin(trace.TagMsgRequestDone, p.id)
	b := &p.buf
	b.Int(p.r.callSub(d.site))
	b.Int(d.site)
	b.Int(d.req)
	b.Int(d.kind)
	p.doneTail(d)
	p.end()
}

// doneTail writes the fields the two records share in the same order.
func (p *Proc) doneTail(d *doneRec) {
	b := &p.buf
	b.Int(d.src)
	b.Int(d.tag)
	b.Int(d.count)
	b.Int(d.id)
	b.Int(d.sum)
}

// statClock is the clock for the dissynchronisation times of the
// statistics, 0 when they are off (a clock reading is a good part of a
// short message's cost).
func (p *Proc) statClock() int64 {
	if p.st == nil || !p.r.synchrTime {
		return 0
	}
	return nanotime()
}

// msgStats charges a message-passing call to Lib-DVM's MsgPasGrp: all of
// its time lost (seed 000 §11.1.2).
func (p *Proc) msgStats() stats.Save { return p.st.Lost(stats.MsgPas) }

// dissync adds the real dissynchronisation of a completed exchange (seed
// 000 §11.1.2): for a synchronous exchange |recv call - send call|, for a
// buffered one and a non-blocking one the send's call minus the receive's
// (or its Wait's) call when positive.
func (p *Proc) dissync(st *msg.Status, recvNs int64, sync bool) {
	if p.st == nil || st.SentNs == 0 {
		return
	}
	d := st.SentNs - recvNs
	if sync && d < 0 {
		d = -d
	}
	if d > 0 {
		p.st.Dissync(float64(d))
	}
}

// ---- point to point ----

// Send sends buf to processor to with tag (standard mode: buffered within
// msg_buffer, else it waits until its receive takes the message).
func Send[T any](to, tag int, buf []T) { SendAt(0, to, tag, buf) }

// SendAt is Send at call site site (svmc's rewriting).
func SendAt[T any](site, to, tag int, buf []T) { send(site, trace.CallSend, to, tag, buf) }

// Ssend sends buf to processor to and returns when a receive took it.
func Ssend[T any](to, tag int, buf []T) { SsendAt(0, to, tag, buf) }

// SsendAt is Ssend at call site site.
func SsendAt[T any](site, to, tag int, buf []T) { send(site, trace.CallSsend, to, tag, buf) }

func send[T any](site, kind, to, tag int, buf []T) {
	p := msgProc(site, kind)
	p.checkPeer(site, kind, to, "destination")
	p.checkTag(site, kind, tag, false)
	sv := p.msgStats()
	p.msg.sent++
	id := p.msg.sent
	if p.on(trace.TagMsgCallStart) {
		c := callRec{kind: kind, site: site, peer: to, tag: tag, id: int(id), rpeer: -1, rtag: -1}
		bufRec(&c, p, buf)
		p.callStart(&c)
	}
	s := post(p, site, kind, to, tag, msg.PointToPoint, id, buf, kind == trace.CallSsend, p.ownReq(&p.msg.send))
	if s != nil {
		p.msgAwait(&s.Done, 0, wMsgSend, site, to, kind)
		p.sendFailed(s)
	}
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, src: -1, tag: -1, count: len(buf), id: int(id), completed: 1})
	}
	p.st.Restore(sv)
}

// post hands a message to the matching engine; a non-nil result is the
// rendezvous the sender must wait for: s, the request the caller gives
// for it (a processor's own for a blocking send, a new one otherwise).
func post[T any](p *Proc, site, kind, to, tag, ctx int, id uint64, buf []T, sync bool, s *msg.Req) *msg.Req {
	m := msg.Msg{Src: p.id, Tag: tag, Ctx: ctx, Kind: kind, Seq: id, Site: site, Data: bufOf(buf), Count: len(buf),
		Bytes: len(buf) * sizeOf[T](), SentNs: p.statClock()}
	var fanned *dataWait
	switch p.routeTo(to) {
	case routeRemote:
		return remotePost(p, to, &m, buf, sync, false, s)
	case routeFan:
		_, fanned = remoteStart(p, to, &m, buf, false, true, nil)
	case routeDrop:
		return nil
	}
	s, err := p.r.net.Send(to, m, sync, s)
	if err != nil {
		p.matchError(err)
	}
	fanned.wait() // the other ranks' copies of a large message, sent meanwhile
	return s
}

// ownReq is p's request for its blocking calls, reset; reused, since a
// blocking call waits until whoever completes it is done with it.
func (p *Proc) ownReq(r *msg.Req) *msg.Req {
	if r.W == nil {
		r.W = &p.waiter // set once: a completer may read it after Done
	}
	r.Reset()
	return r
}

func (p *Proc) newReq() *msg.Req { return &msg.Req{W: &p.waiter} }

// sendFailed ends a sender whose message its receive could not take (the
// receiver reports the same error).
func (p *Proc) sendFailed(s *msg.Req) {
	if s.Err != nil {
		p.matchError(s.Err)
	}
}

// matchError ends the run with a message that its receive cannot take,
// naming both calls.
func (p *Proc) matchError(e *msg.MatchError) {
	r := p.r
	sender := r.callFunc(e.SenderSite)
	if pos := r.callPos(e.SenderSite); pos != "" {
		sender += " at " + pos
	}
	var what string
	if e.Truncated {
		what = fmt.Sprintf("a message of %d elements from processor %d (%s) does not fit the receive buffer of %d elements", e.Count, e.Src, sender, e.Cap)
	} else {
		what = fmt.Sprintf("a message of %s from processor %d (%s) reached a receive buffer of %s", e.SentType, e.Src, sender, e.ReceivedType)
	}
	pos := r.callPos(e.RecvSite)
	err := &Error{Pos: pos, Proc: e.Dst, Msg: r.callFunc(e.RecvSite) + ": " + what}
	if pos == "" && p.id == e.Dst {
		err.Pos = callerPos()
	}
	p.die(err)
}

// Recv receives into buf a message from processor from (or AnySource)
// with tag (or AnyTag) and returns what it matched.
func Recv[T any](from, tag int, buf []T) Status { return RecvAt(0, from, tag, buf) }

// RecvAt is Recv at call site site.
func RecvAt[T any](site, from, tag int, buf []T) Status {
	const kind = trace.CallRecv
	p := msgProc(site, kind)
	if from != AnySource {
		p.checkPeer(site, kind, from, "source")
	}
	p.checkTag(site, kind, tag, true)
	sv := p.msgStats()
	if p.on(trace.TagMsgCallStart) {
		c := callRec{kind: kind, site: site, peer: from, tag: tag, rpeer: -1, rtag: -1}
		bufRec(&c, p, buf)
		p.callStart(&c)
	}
	t0 := p.statClock()
	src := p.fromAny(from, site, wMsgRecv)
	r := recvReq(p.ownReq(&p.msg.recv), site, src, tag, msg.PointToPoint, buf)
	if !p.r.net.Recv(p.id, r) {
		p.msgAwait(&r.Done, 0, wMsgRecv, site, src, kind)
	}
	st := p.received(r, t0, false)
	p.decide(from, st.Source)
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, src: st.Source, tag: st.Tag, count: st.Count, id: int(r.Status.Seq),
			sum: checksum(p, buf[:min(st.Count, len(buf))]), completed: 1})
	}
	p.st.Restore(sv)
	return st
}

// recvReq fills r (p.ownReq or p.newReq) as a receive.
func recvReq[T any](r *msg.Req, site, from, tag, ctx int, buf []T) *msg.Req {
	r.Src, r.Tag, r.Ctx, r.Into, r.Site = from, tag, ctx, bufOf(buf), site
	return r
}

// received checks a completed receive and returns its status.
func (p *Proc) received(r *msg.Req, t0 int64, nowait bool) Status {
	if r.Err != nil {
		p.matchError(r.Err)
	}
	p.dissync(&r.Status, t0, !nowait && r.Status.Sync)
	return Status{Source: r.Status.Source, Tag: r.Status.Tag, Count: r.Status.Count}
}

// Request is a non-blocking send or receive (Isend, Irecv), completed by
// Wait, WaitAll or a Test that reports it complete; each request is
// completed once.
type Request struct {
	p         *Proc
	kind      int // trace.CallIsend or trace.CallIrecv
	id        int
	site      int
	peer, tag int
	count     int      // Isend: the elements sent
	seq       uint64   // Isend: the message id
	r         *msg.Req // the receive, or the rendezvous of a send; nil: complete
	sum       func() int
	t0        int64
	finished  bool
	finishPos string
}

// Isend starts sending buf to processor to with tag; the buffer must not
// change until the request completes.
func Isend[T any](to, tag int, buf []T) *Request { return IsendAt(0, to, tag, buf) }

// IsendAt is Isend at call site site.
func IsendAt[T any](site, to, tag int, buf []T) *Request {
	const kind = trace.CallIsend
	p := msgProc(site, kind)
	p.checkPeer(site, kind, to, "destination")
	p.checkTag(site, kind, tag, false)
	sv := p.msgStats()
	p.msg.sent++
	p.msg.reqs++
	q := &Request{p: p, kind: kind, id: p.msg.reqs, site: site, peer: to, tag: tag, count: len(buf), seq: p.msg.sent}
	if p.on(trace.TagMsgCallStart) {
		c := callRec{kind: kind, site: site, peer: to, tag: tag, id: int(q.seq), req: q.id, rpeer: -1, rtag: -1}
		bufRec(&c, p, buf)
		p.callStart(&c)
	}
	q.r = post(p, site, kind, to, tag, msg.PointToPoint, q.seq, buf, false, p.newReq())
	if p.r.msgChecksum {
		// The buffer as it is when the send completes: a change since
		// the Isend is seed 003's "send checksum" error.
		q.sum = func() int { return checksum(p, buf) }
	}
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, req: q.id, src: -1, tag: -1, count: len(buf), id: int(q.seq)})
	}
	p.st.Restore(sv)
	return q
}

// Irecv starts receiving into buf a message from processor from (or
// AnySource) with tag (or AnyTag).
func Irecv[T any](from, tag int, buf []T) *Request { return IrecvAt(0, from, tag, buf) }

// IrecvAt is Irecv at call site site.
func IrecvAt[T any](site, from, tag int, buf []T) *Request {
	const kind = trace.CallIrecv
	p := msgProc(site, kind)
	if from != AnySource {
		p.checkPeer(site, kind, from, "source")
	}
	p.noAny(from, site, "Irecv")
	p.checkTag(site, kind, tag, true)
	sv := p.msgStats()
	p.msg.reqs++
	q := &Request{p: p, kind: kind, id: p.msg.reqs, site: site, peer: from, tag: tag}
	if p.on(trace.TagMsgCallStart) {
		c := callRec{kind: kind, site: site, peer: from, tag: tag, req: q.id, rpeer: -1, rtag: -1}
		bufRec(&c, p, buf)
		p.callStart(&c)
	}
	r := recvReq(p.newReq(), site, from, tag, msg.PointToPoint, buf)
	p.r.net.Recv(p.id, r)
	q.r = r
	if p.r.msgChecksum {
		q.sum = func() int { return checksum(p, buf[:min(r.Status.Count, len(buf))]) }
	}
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, req: q.id, src: -1, tag: -1})
	}
	p.st.Restore(sv)
	return q
}

// Wait waits until the request completes and returns its status (for a
// send: the destination, the tag and the count).
func (q *Request) Wait() Status { return q.WaitAt(0) }

// WaitAt is Wait at call site site.
func (q *Request) WaitAt(site int) Status {
	const kind = trace.CallWait
	p := msgProc(site, kind)
	q.check(p, site, kind)
	sv := p.msgStats()
	if p.on(trace.TagMsgCallStart) {
		p.callStart(&callRec{kind: kind, site: site, peer: q.peer, tag: q.tag, req: q.id, rpeer: -1, rtag: -1})
	}
	st := q.complete(p, site, kind, true)
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, req: q.id, src: st.Source, tag: st.Tag, count: st.Count, completed: 1})
	}
	p.st.Restore(sv)
	return st
}

// Test reports whether the request has completed, and if so its status;
// a request Test reported complete is finished (Wait on it is an error).
func (q *Request) Test() (bool, Status) { return q.TestAt(0) }

// TestAt is Test at call site site.
func (q *Request) TestAt(site int) (bool, Status) {
	const kind = trace.CallTest
	p := msgProc(site, kind)
	q.check(p, site, kind)
	sv := p.msgStats()
	if p.on(trace.TagMsgCallStart) {
		p.callStart(&callRec{kind: kind, site: site, peer: q.peer, tag: q.tag, req: q.id, rpeer: -1, rtag: -1})
	}
	here := q.r == nil || q.r.Done.Load() != 0
	done := p.sameTest(site, here)
	var st Status
	if done {
		st = q.complete(p, site, kind, !here)
	}
	if p.on(trace.TagMsgCallStop) {
		d := doneRec{kind: kind, site: site, req: q.id, src: -1, tag: -1}
		if done {
			d.src, d.tag, d.count, d.completed = st.Source, st.Tag, st.Count, 1
		}
		p.callStop(&d)
	}
	p.st.Restore(sv)
	return done, st
}

// WaitAll waits for every request (nil ones are skipped) and returns
// their statuses in order.
func WaitAll(reqs ...*Request) []Status { return WaitAllAt(0, reqs...) }

// WaitAllAt is WaitAll at call site site.
func WaitAllAt(site int, reqs ...*Request) []Status {
	const kind = trace.CallWaitAll
	p := msgProc(site, kind)
	for _, q := range reqs {
		if q != nil {
			q.check(p, site, kind)
		}
	}
	sv := p.msgStats()
	if p.on(trace.TagMsgCallStart) {
		p.callStart(&callRec{kind: kind, site: site, peer: -1, tag: -1, count: len(reqs), rpeer: -1, rtag: -1})
	}
	sts := make([]Status, len(reqs))
	for i, q := range reqs {
		if q != nil {
			sts[i] = q.complete(p, site, kind, true)
		}
	}
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, src: -1, tag: -1, count: len(reqs), completed: len(reqs)})
	}
	p.st.Restore(sv)
	return sts
}

// check ends the run on a request that cannot be waited for here.
func (q *Request) check(p *Proc, site, kind int) {
	switch {
	case q == nil:
		p.msgErrorf(site, "%s of a nil request", trace.CallKindName(kind))
	case q.p != p:
		p.msgErrorf(site, "%s of a request of processor %d: a request is completed by the processor that made it", trace.CallKindName(kind), q.p.id)
	case q.finished:
		at := ""
		if q.finishPos != "" {
			at = " at " + q.finishPos
		}
		p.msgErrorf(site, "%s of a request that was already completed%s (%s made at %s): each request is completed once",
			trace.CallKindName(kind), at, trace.CallKindName(q.kind), orUnknown(p.r.callPos(q.site)))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "an unnumbered call"
	}
	return s
}

// complete waits for q (if wait) and finishes it: msg-request-done.
func (q *Request) complete(p *Proc, site, kind int, wait bool) Status {
	t0 := p.statClock()
	if q.r != nil && wait {
		k := wMsgWaitRecv
		if q.kind == trace.CallIsend {
			k = wMsgWaitSend
		}
		p.msgAwait(&q.r.Done, 0, k, site, q.peer, kind)
	}
	q.finished = true
	q.finishPos = p.r.callPos(site)
	var st Status
	var id int
	if q.kind == trace.CallIrecv {
		st = p.received(q.r, t0, true)
		id = int(q.r.Status.Seq)
	} else {
		if q.r != nil {
			p.sendFailed(q.r)
		}
		st = Status{Source: q.peer, Tag: q.tag, Count: q.count}
		id = int(q.seq)
	}
	if p.on(trace.TagMsgRequestDone) {
		d := doneRec{kind: q.kind, site: site, req: q.id, src: st.Source, tag: st.Tag, count: st.Count, id: id}
		if q.sum != nil {
			d.sum = q.sum()
		}
		p.requestDone(&d)
	}
	return st
}

// Sendrecv sends send to processor to and receives into recv a message
// from processor from, as if both were started at once.
func Sendrecv[T any](to, sendTag int, send []T, from, recvTag int, recv []T) Status {
	return SendrecvAt(0, to, sendTag, send, from, recvTag, recv)
}

// SendrecvAt is Sendrecv at call site site.
func SendrecvAt[T any](site, to, sendTag int, send []T, from, recvTag int, recv []T) Status {
	const kind = trace.CallSendrecv
	p := msgProc(site, kind)
	p.checkPeer(site, kind, to, "destination")
	p.checkTag(site, kind, sendTag, false)
	if from != AnySource {
		p.checkPeer(site, kind, from, "source")
	}
	p.checkTag(site, kind, recvTag, true)
	sv := p.msgStats()
	p.msg.sent++
	id := p.msg.sent
	if p.on(trace.TagMsgCallStart) {
		c := callRec{kind: kind, site: site, peer: to, tag: sendTag, id: int(id), rpeer: from, rtag: recvTag,
			rcount: len(recv), raddr: addrOf(recv), hasRaddr: recv != nil}
		bufRec(&c, p, send)
		p.callStart(&c)
	}
	t0 := p.statClock()
	send = unaliased(send, recv) // in place, as MPI_Sendrecv_replace
	var r *msg.Req
	if !p.awaitsDecision(from) {
		r = recvReq(p.ownReq(&p.msg.recv), site, from, recvTag, msg.PointToPoint, recv)
		p.r.net.Recv(p.id, r)
	}
	s := post(p, site, kind, to, sendTag, msg.PointToPoint, id, send, false, p.ownReq(&p.msg.send))
	if r == nil {
		// Processor 0's copy on a rank other than 0, receiving from any
		// source: its send went first (rank 0's copy sends it, and the
		// receiver may answer only after it), then the source rank 0's
		// copy took.
		src := p.fromAny(from, site, wMsgRecv)
		r = recvReq(p.ownReq(&p.msg.recv), site, src, recvTag, msg.PointToPoint, recv)
		p.r.net.Recv(p.id, r)
	}
	if s != nil {
		p.msgAwait(&s.Done, 0, wMsgSend, site, to, kind)
		p.sendFailed(s)
	}
	p.msgAwait(&r.Done, 0, wMsgRecv, site, r.Src, kind)
	st := p.received(r, t0, false)
	p.decide(from, st.Source)
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, src: st.Source, tag: st.Tag, count: st.Count, id: int(r.Status.Seq),
			sum: checksum(p, recv[:min(st.Count, len(recv))]), completed: 1})
	}
	p.st.Restore(sv)
	return st
}

// Probe waits for a message from processor from (or AnySource) with tag
// (or AnyTag) and returns its status without receiving it.
func Probe(from, tag int) Status { return ProbeAt(0, from, tag) }

// ProbeAt is Probe at call site site.
func ProbeAt(site, from, tag int) Status {
	const kind = trace.CallProbe
	p := msgProc(site, kind)
	if from != AnySource {
		p.checkPeer(site, kind, from, "source")
	}
	p.checkTag(site, kind, tag, true)
	sv := p.msgStats()
	if p.on(trace.TagMsgCallStart) {
		p.callStart(&callRec{kind: kind, site: site, peer: from, tag: tag, rpeer: -1, rtag: -1})
	}
	var ms msg.Status
	src := p.fromAny(from, site, wMsgProbe)
	for {
		st, ok, arrivals := p.r.net.Probe(p.id, src, tag, msg.PointToPoint, &p.waiter)
		if ok {
			ms = st
			break
		}
		p.msgAwait(p.r.net.ArrivalsOf(p.id), arrivals, wMsgProbe, site, src, kind)
	}
	p.decide(from, ms.Source)
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: kind, site: site, src: ms.Source, tag: ms.Tag, count: ms.Count, id: int(ms.Seq), completed: 1})
	}
	p.st.Restore(sv)
	return Status{Source: ms.Source, Tag: ms.Tag, Count: ms.Count}
}
