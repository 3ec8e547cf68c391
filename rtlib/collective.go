package rtlib

import (
	"reflect"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/svmc/svmc/rtlib/internal/msg"
	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// Collective operations over the calling processor's APS. Every member
// must call the same collectives in the same order; each call is one
// instance, numbered per APS (the "message id" of its records, with the
// APS id as "group"). They run over point-to-point messages of their own
// context, linear through the root (or the APS leader), and a member
// combines contributions in member order, so a reduction gives the same
// bits on every run with the same processors. A member that finds another
// collective's message where it expected its own stops the run naming both
// calls.

// apsIDs numbers the APSs of the process (their "group" in records).
var apsIDs atomic.Int64

// collSlot counts one member's collectives in an APS; each member writes
// only its own slot.
type collSlot struct {
	n uint64
	_ [cacheLine - 8]byte
}

// coll is one collective call in progress on one member.
type coll struct {
	p          *Proc
	a          *aps
	site, kind int
	seq        uint64
	me         int // member index
	sv         stats.Save
	sends      []*msg.Req // rendezvous sends still to complete
	sendTo     []int
}

func collBegin(site, kind int) *coll {
	p := msgProc(site, kind)
	a := p.aps
	if p.mode == exclusive && !p.inTask && !p.detached && len(a.pids) > 1 {
		// Only the leader runs exclusive code: the other members would
		// never arrive.
		p.msgErrorf(site, "%s is a collective of the active processor set (%s), but in exclusive mode only its leader, processor %d, runs this code: call it where every member runs, in a replicated region",
			trace.CallKindName(kind), pidsText(a.pids), a.leaderID)
	}
	me := p.apsIndex
	a.coll[me].n++
	c := &coll{p: p, a: a, site: site, kind: kind, seq: a.coll[me].n, me: me}
	c.sv = p.msgStats()
	return c
}

// rootIndex checks that root is a member and returns its index.
func (c *coll) rootIndex(root int) int {
	for i, q := range c.a.pids {
		if q == root {
			return i
		}
	}
	c.p.msgErrorf(c.site, "%s: root %d is not a processor of the active processor set (%s)", trace.CallKindName(c.kind), root, pidsText(c.a.pids))
	return -1
}

// tag is the tag of the instance's messages. The phases of one instance
// (a reduction to the leader, then its broadcast) go in opposite
// directions, so they share it; a member still in another collective finds
// that collective's message under the same tag and says so.
func (c *coll) tag(phase int) int { return int(c.seq & 0x7fffffff) }

func collSend[T any](c *coll, member, phase int, buf []T) {
	to := c.a.pids[member]
	if s := post(c.p, c.site, c.kind, to, c.tag(phase), msg.Collective, c.seq, buf, false, c.p.newReq()); s != nil {
		c.sends = append(c.sends, s)
		c.sendTo = append(c.sendTo, to)
	}
}

func collRecv[T any](c *coll, member, phase int, buf []T) *msg.Req {
	r := recvReq(c.p.newReq(), c.site, c.a.pids[member], c.tag(phase), msg.Collective, buf)
	c.p.r.net.Recv(c.p.id, r)
	return r
}

// wait completes a receive of the collective and checks that the sender
// was in the same collective.
func (c *coll) wait(r *msg.Req) msg.Status {
	p := c.p
	p.msgAwait(&r.Done, 0, wMsgColl, c.site, r.Src, c.kind)
	if r.Status.Kind != c.kind && r.Status.Kind != 0 {
		p.msgErrorf(c.site, "processors called different collectives: processor %d called %s (%s) where processor %d called %s (instance %d of the active processor set)",
			r.Status.Source, trace.CallKindName(r.Status.Kind), orUnknown(p.r.callPos(r.Status.SenderSite)),
			p.id, trace.CallKindName(c.kind), c.seq)
	}
	if r.Err != nil {
		p.matchError(r.Err)
	}
	return r.Status
}

// finish waits for the rendezvous sends and writes msg-call-stop.
func (c *coll) finish(count int) {
	p := c.p
	for i, s := range c.sends {
		p.msgAwait(&s.Done, 0, wMsgColl, c.site, c.sendTo[i], c.kind)
		p.sendFailed(s)
	}
	if p.on(trace.TagMsgCallStop) {
		p.callStop(&doneRec{kind: c.kind, site: c.site, src: -1, tag: -1, count: count, id: int(c.seq), completed: 1})
	}
	p.st.Restore(c.sv)
}

func collStart[T any](c *coll, root int, send, recv []T) { collStartOp(c, root, -1, send, recv) }

// collStartOp writes msg-call-start of a collective with its reduction op
// (-1: none).
func collStartOp[T any](c *coll, root int, op Op, send, recv []T) {
	p := c.p
	if !p.on(trace.TagMsgCallStart) {
		return
	}
	r := callRec{kind: c.kind, site: c.site, peer: root, tag: -1, group: c.a.id, id: int(c.seq), rpeer: -1, rtag: -1,
		rcount: len(recv), raddr: addrOf(recv), hasRaddr: recv != nil, gsize: len(c.a.pids), op: int(op) + 1}
	bufRec(&r, p, send)
	p.callStart(&r)
}

// Bcast sends buf of processor root to every member of the APS, into
// their buf.
func Bcast[T any](root int, buf []T) { BcastAt(0, root, buf) }

// BcastAt is Bcast at call site site.
func BcastAt[T any](site, root int, buf []T) {
	c := collBegin(site, trace.CallBcast)
	ri := c.rootIndex(root)
	collStart(c, root, buf, []T(nil))
	bcast(c, ri, 0, buf)
	c.finish(len(buf))
}

func bcast[T any](c *coll, ri, phase int, buf []T) {
	if c.me == ri {
		for i := range c.a.pids {
			if i != ri {
				collSend(c, i, phase, buf)
			}
		}
		return
	}
	c.wait(collRecv(c, ri, phase, buf))
}

// Reduce combines the send buffers of every member element by element
// with op, into recv of processor root (recv is not used elsewhere).
// send and recv may be one slice (the result replaces the contribution),
// as in every call of two buffers (unaliased), though svmc check reports
// it, since MPI forbids overlapping buffers.
func Reduce[T Number](root int, op Op, send, recv []T) { ReduceAt(0, root, op, send, recv) }

// ReduceAt is Reduce at call site site.
func ReduceAt[T Number](site, root int, op Op, send, recv []T) {
	c := collBegin(site, trace.CallReduce)
	ri := c.rootIndex(root)
	checkOp[T](c, op)
	collStartOp(c, root, op, send, recv)
	reduce(c, ri, 0, op, send, recv)
	c.finish(len(send))
}

// Allreduce is Reduce whose result every member receives in recv.
func Allreduce[T Number](op Op, send, recv []T) { AllreduceAt(0, op, send, recv) }

// AllreduceAt is Allreduce at call site site.
func AllreduceAt[T Number](site int, op Op, send, recv []T) {
	c := collBegin(site, trace.CallAllreduce)
	checkOp[T](c, op)
	collStartOp(c, -1, op, send, recv)
	c.needLen(len(recv), len(send), "receive buffer")
	reduce(c, 0, 0, op, send, recv)
	bcast(c, 0, 1, recv[:len(send)])
	c.finish(len(send))
}

func (c *coll) needLen(n, want int, what string) {
	if n < want {
		c.p.msgErrorf(c.site, "%s: the %s has %d elements, it needs %d", trace.CallKindName(c.kind), what, n, want)
	}
}

func checkOp[T Number](c *coll, op Op) {
	if op < OpAdd || op > OpXor {
		c.p.msgErrorf(c.site, "%s: %v is not a reduction operation (Sum, Prod, Min, Max, BAnd, BOr, BXor)", trace.CallKindName(c.kind), op)
	}
	k := reflect.TypeFor[T]().Kind()
	switch {
	case op >= OpMin && (k == reflect.Complex64 || k == reflect.Complex128):
		c.p.msgErrorf(c.site, "%s: %v is not defined for %v (only Sum and Prod are)", trace.CallKindName(c.kind), opName(op), reflect.TypeFor[T]())
	case op >= OpAnd && (k == reflect.Float32 || k == reflect.Float64):
		c.p.msgErrorf(c.site, "%s: %v needs an integer element type, not %v", trace.CallKindName(c.kind), opName(op), reflect.TypeFor[T]())
	}
}

// opName is the name by which the message-passing API calls op.
func opName(op Op) string {
	if op >= OpAdd && op <= OpXor {
		return [...]string{"Sum", "Prod", "Min", "Max", "BAnd", "BOr", "BXor"}[op]
	}
	return op.String()
}

// reduce combines into recv at member ri, in member order.
func reduce[T Number](c *coll, ri, phase int, op Op, send, recv []T) {
	n := len(c.a.pids)
	if c.me != ri {
		collSend(c, ri, phase, send)
		return
	}
	c.needLen(len(recv), len(send), "receive buffer at the root")
	parts := make([][]T, n)
	reqs := make([]*msg.Req, n)
	for i := range n {
		if i != ri {
			parts[i] = make([]T, len(send))
			reqs[i] = collRecv(c, i, phase, parts[i])
		}
	}
	// In place, the result, begun with member 0's part, would overwrite
	// this one's before it is added.
	parts[ri] = unaliased(send, recv[:len(send)])
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if st := c.wait(r); st.Count != len(send) {
			c.p.msgErrorf(c.site, "%s: processor %d contributed %d elements, processor %d %d", trace.CallKindName(c.kind), st.Source, st.Count, c.p.id, len(send))
		}
	}
	acc := recv[:len(send)]
	copy(acc, parts[0])
	for i := 1; i < n; i++ {
		combine(op, acc, parts[i])
	}
}

// unaliased returns send, or a copy of it where it shares memory with
// recv, so that a call in place (Sendrecv(…, buf, …, buf), Alltoall(buf,
// buf), a root's Gather into the buffer its part is in) gives what
// separate buffers give, as MPI_Sendrecv_replace and MPI_IN_PLACE do,
// instead of sending what a receive has already overwritten. svmc check
// still reports the overlap (seed 003): MPI forbids it.
func unaliased[T any](send, recv []T) []T {
	if overlap(send, recv) {
		return slices.Clone(send)
	}
	return send
}

// overlap reports whether a and b share memory.
func overlap[T any](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	size := unsafe.Sizeof(a[0])
	alo, blo := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return alo < blo+uintptr(len(b))*size && blo < alo+uintptr(len(a))*size
}

// combine folds x into acc element by element. + and * work on every
// Number; the others go through the reduction clause's fold, on types of
// at most 8 bytes (checkOp refused complex ones).
func combine[T Number](op Op, acc, x []T) {
	switch op {
	case OpAdd:
		for j := range acc {
			acc[j] += x[j]
		}
	case OpMul:
		for j := range acc {
			acc[j] *= x[j]
		}
	default:
		kind := reflect.TypeFor[T]().Kind()
		for j := range acc {
			pt := partial{dst: unsafe.Pointer(&acc[j]), op: op, kind: kind}
			*(*T)(unsafe.Pointer(&pt.bits)) = x[j]
			pt.fold()
		}
	}
}

// Gather collects the send buffers of the members, in member order, into
// recv of processor root (len(send) elements each).
func Gather[T any](root int, send, recv []T) { GatherAt(0, root, send, recv) }

// GatherAt is Gather at call site site.
func GatherAt[T any](site, root int, send, recv []T) {
	c := collBegin(site, trace.CallGather)
	ri := c.rootIndex(root)
	collStart(c, root, send, recv)
	gather(c, ri, 0, send, recv)
	c.finish(len(send))
}

func gather[T any](c *coll, ri, phase int, send, recv []T) {
	n, k := len(c.a.pids), len(send)
	if c.me != ri {
		collSend(c, ri, phase, send)
		return
	}
	c.needLen(len(recv), n*k, "receive buffer at the root")
	send = unaliased(send, recv)
	reqs := make([]*msg.Req, n)
	for i := range n {
		if i != ri {
			reqs[i] = collRecv(c, i, phase, recv[i*k:(i+1)*k])
		}
	}
	copy(recv[ri*k:], send)
	for _, r := range reqs {
		if r != nil {
			if st := c.wait(r); st.Count != k {
				c.p.msgErrorf(c.site, "%s: processor %d contributed %d elements, processor %d %d", trace.CallKindName(c.kind), st.Source, st.Count, c.p.id, k)
			}
		}
	}
}

// Scatter splits send of processor root into as many equal parts as the
// APS has members and gives member i part i, in its recv.
func Scatter[T any](root int, send, recv []T) { ScatterAt(0, root, send, recv) }

// ScatterAt is Scatter at call site site.
func ScatterAt[T any](site, root int, send, recv []T) {
	c := collBegin(site, trace.CallScatter)
	ri := c.rootIndex(root)
	collStart(c, root, send, recv)
	n := len(c.a.pids)
	if c.me == ri {
		if len(send)%n != 0 {
			c.p.msgErrorf(c.site, "Scatter: the send buffer has %d elements, not a multiple of the %d processors", len(send), n)
		}
		k := len(send) / n
		c.needLen(len(recv), k, "receive buffer")
		send = unaliased(send, recv)
		for i := range n {
			if i != ri {
				collSend(c, i, 0, send[i*k:(i+1)*k])
			}
		}
		copy(recv, send[ri*k:(ri+1)*k])
	} else {
		c.wait(collRecv(c, ri, 0, recv))
	}
	c.finish(len(recv))
}

// Allgather is Gather whose result every member receives in recv.
func Allgather[T any](send, recv []T) { AllgatherAt(0, send, recv) }

// AllgatherAt is Allgather at call site site.
func AllgatherAt[T any](site int, send, recv []T) {
	c := collBegin(site, trace.CallAllgather)
	collStart(c, -1, send, recv)
	n, k := len(c.a.pids), len(send)
	c.needLen(len(recv), n*k, "receive buffer")
	gather(c, 0, 0, send, recv)
	bcast(c, 0, 1, recv[:n*k])
	c.finish(len(send))
}

// Alltoall sends part j of send (len(send)/n elements, n members) to
// member j, which receives it as part i of its recv, i being the sender.
func Alltoall[T any](send, recv []T) { AlltoallAt(0, send, recv) }

// AlltoallAt is Alltoall at call site site.
func AlltoallAt[T any](site int, send, recv []T) {
	c := collBegin(site, trace.CallAlltoall)
	collStart(c, -1, send, recv)
	n := len(c.a.pids)
	if len(send)%n != 0 {
		c.p.msgErrorf(c.site, "Alltoall: the send buffer has %d elements, not a multiple of the %d processors", len(send), n)
	}
	k := len(send) / n
	c.needLen(len(recv), n*k, "receive buffer")
	send = unaliased(send, recv)
	reqs := make([]*msg.Req, n)
	for i := range n {
		if i != c.me {
			reqs[i] = collRecv(c, i, 0, recv[i*k:(i+1)*k])
		}
	}
	for i := range n {
		if i != c.me {
			collSend(c, i, 0, send[i*k:(i+1)*k])
		}
	}
	copy(recv[c.me*k:], send[c.me*k:(c.me+1)*k])
	for _, r := range reqs {
		if r != nil {
			c.wait(r)
		}
	}
	c.finish(len(send))
}

// Barrier returns on each member of the APS once every member called it.
func Barrier() { BarrierAt(0) }

// BarrierAt is Barrier at call site site.
func BarrierAt(site int) {
	c := collBegin(site, trace.CallBarrier)
	collStart(c, -1, []struct{}(nil), []struct{}(nil))
	var none []struct{}
	if c.me == 0 {
		for i := 1; i < len(c.a.pids); i++ {
			c.wait(collRecv(c, i, 0, none))
		}
	} else {
		collSend(c, 0, 0, none)
	}
	bcast(c, 0, 1, none)
	c.finish(0)
}
