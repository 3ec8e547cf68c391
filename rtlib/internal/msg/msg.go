// Package msg matches messages between the processors of one run with MPI's
// rules: a receive takes the earliest message that matches its source and
// tag (either may be a wildcard), so two messages from one sender with the
// same tag never overtake each other, and receives posted earlier match
// first. It knows nothing of tracing or of how a processor sleeps: a
// request is completed by storing into its Done word and calling its
// Waker, and the caller waits on that word as it waits for anything else.
//
// Payloads are slices of any element type, their type erased into a Buf
// that carries the element type and its typed copy and clone (so that a
// send allocates nothing unless it is buffered). A standard send is buffered (its data copied,
// the sender free to go) while the sender's buffered bytes stay within the
// Net's capacity; otherwise, and for a synchronous send, the message refers
// to the sender's own slice and the sender is completed when a receive
// takes it (a rendezvous). A send that finds its receive already posted
// copies straight into the receive buffer, in either mode.
package msg

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Wildcards of a receive.
const (
	AnySource = -1
	AnyTag    = -1
)

// Contexts keep the runtime's collective traffic apart from the program's
// point-to-point messages, as MPI's communicator contexts do: a receive
// matches only messages of its own context.
const (
	PointToPoint = 0
	Collective   = 1
)

// Waker wakes the processor that waits for a request.
type Waker interface{ Wakeup() }

// Buf is a slice with its element type erased.
type Buf struct {
	Ptr  unsafe.Pointer // the first element (nil for an empty slice)
	Len  int
	Type reflect.Type // the element type
	Ops  Ops          // its typed operations
}

// Ops are the operations of one element type. The caller implements them
// on a zero-size type per element type, so that a Buf costs no
// allocation.
type Ops interface {
	// Copy copies n elements from src to dst as Go's copy does (with the
	// write barriers of pointer elements).
	Copy(dst, src unsafe.Pointer, n int)
	// Clone returns a copy of the n elements at src that the caller may
	// keep.
	Clone(src unsafe.Pointer, n int) unsafe.Pointer
}

// Msg is a message that no receive has taken yet.
type Msg struct {
	Src, Dst, Tag, Ctx int
	Kind               int    // what the sender called (collectives check it)
	Sync               bool   // the sender asked for a synchronous send
	Seq                uint64 // the sender's number of the message, from 1
	Site               int    // the sender's call site (program information)
	Data               Buf    // a copy when Buffered, else the sender's slice
	Count, Bytes       int
	Buffered           bool
	SentNs             int64 // when the send started (nanotime)
	sender             *Req  // completed when the message is taken (not Buffered)

	// A message from another process (Arrive): its bytes and its element
	// type's name instead of Data, and Hold the buffer they lie in (the
	// arriving side's, for Taken). Taken, if set, is called with the
	// message once a receive took it; after that the network holds it no
	// longer, and Taken may give it and Hold back to pools.
	Raw     []byte
	RawType string
	Hold    []byte
	Taken   func(*Msg)
}

// Req is one pending operation: a posted receive or a send waiting for its
// receive. Done goes from 0 to 1 once; the fields below it are written
// before that and read after it.
type Req struct {
	Done atomic.Uint64
	W    Waker

	// A receive: what it accepts and where the data goes.
	Src, Tag, Ctx int
	Into          Buf
	Site          int

	// The result, valid once Done is 1.
	Status Status
	Err    *MatchError
}

// Status is what a receive matched.
type Status struct {
	Source, Tag, Count int
	Kind               int    // the sender's call
	Sync               bool   // a synchronous send
	Seq                uint64 // the sender's number of the message
	SenderSite         int
	SentNs             int64
}

// MatchError is a message that its receive cannot take: a buffer too
// short or of another element type. Both sites are given, and both calls
// are completed with it.
type MatchError struct {
	Truncated              bool // else: another element type
	Src, Dst               int
	SenderSite, RecvSite   int
	Count, Cap             int
	SentType, ReceivedType string
}

func (e *MatchError) Error() string {
	if e.Truncated {
		return fmt.Sprintf("a message of %d elements from processor %d does not fit the receive buffer of %d", e.Count, e.Src, e.Cap)
	}
	return fmt.Sprintf("a message of %s from processor %d reached a receive buffer of %s", e.SentType, e.Src, e.ReceivedType)
}

// Net is the mailboxes of one run's processors.
type Net struct {
	boxes  []box
	bufCap int64
	used   []padded // buffered bytes per sender
}

type padded struct {
	n atomic.Int64
	_ [56]byte
}

type box struct {
	mu      sync.Mutex
	unexp   []*Msg // arrival order
	posted  []*Req // post order
	probers []Waker
	// Arrivals is bumped when a message is queued, for Probe.
	Arrivals atomic.Uint64
	_        [64]byte
}

// New makes the mailboxes of n processors; bufCap is the bytes each sender
// may have buffered and not yet received (0: every standard send is a
// rendezvous).
func New(n int, bufCap int64) *Net {
	return &Net{boxes: make([]box, n), bufCap: bufCap, used: make([]padded, n)}
}

// N is the number of processors.
func (nt *Net) N() int { return len(nt.boxes) }

func (r *Req) matches(m *Msg) bool {
	return r.Ctx == m.Ctx && (r.Src == AnySource || r.Src == m.Src) && (r.Tag == AnyTag || r.Tag == m.Tag)
}

// Send delivers m to processor dst. sync asks for a rendezvous even when
// the data could be buffered. When the send must wait for its receive,
// Send returns s (reset; its W is the sender's waker), whose Done the
// caller waits for; otherwise nil (the send is complete; a match error,
// if any, is returned). m is copied only when it must be queued, so a
// send that finds its receive allocates nothing.
func (nt *Net) Send(dst int, m Msg, sync bool, s *Req) (*Req, *MatchError) {
	b := &nt.boxes[dst]
	m.Dst, m.Sync = dst, sync
	b.mu.Lock()
	if i := b.firstPosted(&m); i >= 0 {
		r := b.unpost(i)
		b.mu.Unlock()
		err := deliver(r, &m, dst)
		complete(r)
		return nil, err
	}
	q := new(Msg)
	*q = m
	if !sync && nt.reserve(m.Src, m.Bytes) {
		q.Data.Ptr = m.Data.Ops.Clone(m.Data.Ptr, m.Data.Len)
		q.Buffered = true
		b.queue(q)
		b.mu.Unlock()
		return nil, nil
	}
	s.Reset()
	q.sender = s
	b.queue(q)
	b.mu.Unlock()
	return s, nil
}

// firstPosted is the index of the earliest posted receive that m
// matches, -1 if none; b.mu is held.
func (b *box) firstPosted(m *Msg) int {
	for i, r := range b.posted {
		if r.matches(m) {
			return i
		}
	}
	return -1
}

// unpost removes posted receive i and returns it; b.mu is held.
func (b *box) unpost(i int) *Req {
	r := b.posted[i]
	b.posted = append(b.posted[:i], b.posted[i+1:]...)
	return r
}

// Reset makes a completed request ready to be posted again (its waker
// stays: a completer may still be calling it).
func (r *Req) Reset() {
	r.Done.Store(0)
	r.Status = Status{}
	r.Err = nil
}

// queue appends m and wakes the probers; b.mu is held.
func (b *box) queue(m *Msg) {
	b.unexp = append(b.unexp, m)
	b.Arrivals.Add(1)
	for _, w := range b.probers {
		w.Wakeup()
	}
	b.probers = b.probers[:0]
}

// dequeue removes queued message i; b.mu is held. A receive mostly takes
// the first: in a long queue the slice then starts one further on, where
// moving the later messages up copied them all (processor 0's copy on
// another rank, behind the messages of a ping-pong fanned out to it, took
// each in time proportional to the queue: a tenth of the rank's time).
func (b *box) dequeue(i int) {
	q := b.unexp
	if len(q) > 64 {
		copy(q[1:i+1], q[:i])
		q[0] = nil
		b.unexp = q[1:]
		return
	}
	copy(q[i:], q[i+1:])
	q[len(q)-1] = nil // the queue no longer holds it
	b.unexp = q[:len(q)-1]
}

func (nt *Net) reserve(src, bytes int) bool {
	u := &nt.used[src].n
	if u.Add(int64(bytes)) <= nt.bufCap {
		return true
	}
	u.Add(-int64(bytes))
	return false
}

// Recv posts r (a receive of processor dst) or completes it at once with
// the earliest matching message. It reports whether r is complete; if not,
// the caller waits for r.Done (a send completes it).
func (nt *Net) Recv(dst int, r *Req) bool {
	b := &nt.boxes[dst]
	b.mu.Lock()
	for i, m := range b.unexp {
		if r.matches(m) {
			b.dequeue(i)
			b.mu.Unlock()
			nt.take(r, m, dst)
			return true
		}
	}
	b.posted = append(b.posted, r)
	b.mu.Unlock()
	return false
}

// take completes r with the queued message m and releases m's sender.
func (nt *Net) take(r *Req, m *Msg, dst int) {
	err := deliver(r, m, dst)
	if m.Buffered {
		nt.used[m.Src].n.Add(-int64(m.Bytes))
	}
	complete(r)
	if s := m.sender; s != nil {
		s.Err = err
		s.Status = r.Status
		complete(s)
	}
	if m.Taken != nil {
		m.Taken(m)
	}
}

// Claim removes and returns the earliest posted receive of processor dst
// that m (a message from another process, not yet queued) would match, if
// fits accepts it; the caller then puts the data into its buffer itself
// and calls Finish. nil: m goes through Arrive (no such receive, or one
// that Arrive will fail with a MatchError).
func (nt *Net) Claim(dst int, m *Msg, fits func(*Req) bool) *Req {
	b := &nt.boxes[dst]
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := b.firstPosted(m); i >= 0 && fits(b.posted[i]) {
		return b.unpost(i)
	}
	return nil
}

// Finish completes a receive that Claim returned with m, whose data the
// caller put into the receive's buffer.
func (nt *Net) Finish(r *Req, m *Msg) {
	r.Status = statusOf(m)
	complete(r)
	if m.Taken != nil {
		m.Taken(m)
	}
}

// Arrive delivers to processor dst a message that came from another
// process: m.Raw holds its bytes (the receiver's from now on) and m.RawType
// its element type's name; m.Taken, if any, is called when a receive takes
// it (a synchronous send's acknowledgement). It never waits.
func (nt *Net) Arrive(dst int, m *Msg) {
	b := &nt.boxes[dst]
	m.Dst = dst
	b.mu.Lock()
	if i := b.firstPosted(m); i >= 0 {
		r := b.unpost(i)
		b.mu.Unlock()
		nt.take(r, m, dst)
		return
	}
	b.queue(m)
	b.mu.Unlock()
}

// deliver copies m into r's buffer and fills r's status.
func deliver(r *Req, m *Msg, dst int) *MatchError {
	r.Status = statusOf(m)
	if m.Count == 0 {
		return nil
	}
	d, src := &r.Into, &m.Data
	if m.RawType != "" {
		return deliverRaw(r, m, dst)
	}
	if d.Type != src.Type || d.Len < src.Len {
		e := &MatchError{Truncated: d.Type == src.Type, Src: m.Src, Dst: dst, SenderSite: m.Site, RecvSite: r.Site, Count: m.Count, Cap: d.Len,
			SentType: "[]" + typeName(src.Type), ReceivedType: "[]" + typeName(d.Type)}
		r.Err = e
		return e
	}
	src.Ops.Copy(d.Ptr, src.Ptr, src.Len)
	return nil
}

// deliverRaw copies a message from another process into r's buffer: its
// element type must have the same name (the sender checked it holds no
// pointers) and size.
func deliverRaw(r *Req, m *Msg, dst int) *MatchError {
	d := &r.Into
	size := 0
	if d.Type != nil {
		size = int(d.Type.Size())
	}
	if typeName(d.Type) != m.RawType || d.Len < m.Count || size*m.Count != len(m.Raw) {
		e := &MatchError{Truncated: typeName(d.Type) == m.RawType, Src: m.Src, Dst: dst, SenderSite: m.Site, RecvSite: r.Site, Count: m.Count, Cap: d.Len,
			SentType: "[]" + m.RawType, ReceivedType: "[]" + typeName(d.Type)}
		r.Err = e
		return e
	}
	copy(unsafe.Slice((*byte)(d.Ptr), len(m.Raw)), m.Raw)
	return nil
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "?"
	}
	return t.String()
}

func statusOf(m *Msg) Status {
	return Status{Source: m.Src, Tag: m.Tag, Count: m.Count, Kind: m.Kind, Sync: m.Sync, Seq: m.Seq, SenderSite: m.Site, SentNs: m.SentNs}
}

func complete(r *Req) {
	r.Done.Store(1)
	if r.W != nil {
		r.W.Wakeup()
	}
}

// Cancel removes a posted receive that was not matched (a processor of a
// failing run leaves). It reports whether r was still posted.
func (nt *Net) Cancel(dst int, r *Req) bool {
	b := &nt.boxes[dst]
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, q := range b.posted {
		if q == r {
			b.posted = append(b.posted[:i], b.posted[i+1:]...)
			return true
		}
	}
	return false
}

// Probe returns the status of the earliest message for dst that matches
// src, tag and ctx, without taking it. When there is none it returns false
// and the arrival count to wait on: w is woken when a message arrives
// after this call (it is registered only then).
func (nt *Net) Probe(dst, src, tag, ctx int, w Waker) (Status, bool, uint64) {
	b := &nt.boxes[dst]
	probe := Req{Src: src, Tag: tag, Ctx: ctx}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.unexp {
		if probe.matches(m) {
			return statusOf(m), true, 0
		}
	}
	b.probers = append(b.probers, w)
	return Status{}, false, b.Arrivals.Load()
}

// ArrivalsOf is the arrival count of dst's mailbox (see Probe).
func (nt *Net) ArrivalsOf(dst int) *atomic.Uint64 { return &nt.boxes[dst].Arrivals }

// Pending describes what is left in the mailboxes: messages no receive
// took and receives no message matched, for the end of a run.
func (nt *Net) Pending() (unreceived []*Msg, unmatched map[int][]*Req) {
	unmatched = map[int][]*Req{}
	for i := range nt.boxes {
		b := &nt.boxes[i]
		b.mu.Lock()
		unreceived = append(unreceived, b.unexp...)
		if len(b.posted) > 0 {
			unmatched[i] = append([]*Req(nil), b.posted...)
		}
		b.mu.Unlock()
	}
	return unreceived, unmatched
}
