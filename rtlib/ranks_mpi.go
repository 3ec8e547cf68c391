//go:build mpi && cgo

package rtlib

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svmc/svmc/rtlib/internal/mpi"
)

// The MPI transport of ranks.go. MPI is initialised with
// MPI_THREAD_SERIALIZED: any goroutine makes a call holding mu, one at a
// time, so that a processor waiting for a message from another rank polls
// for it itself (Progress), as MPI_Recv polls inside the library, instead
// of handing its calls to a goroutine of MPI's own (on a machine with as
// many cores as ranks that goroutine and the processor then share a core
// per rank, and a message waited about 50 µs for the two to take turns).
// A background goroutine polls every 50 µs to 1 ms while nobody waits, so
// that sends to this rank progress and the messages of processors not yet
// waiting arrive. MPI_THREAD_MULTIPLE, which OpenMPI and MPICH users
// report hangs under, is not used.

func init() { openRanks = openMPI }

type mpiRanks struct {
	comm     *mpi.Comm
	ring     *mpi.Ring  // the receives of msgTag (under mu)
	slots    *mpi.Slots // the small messages' send buffers (under mu)
	mu       sync.Mutex // held for every MPI call
	serving  sync.Map   // rank 0: loop number → *serving
	gathered []byte     // Allgather's buffer, kept from call to call

	// The program's messages between ranks (Post, Listen): posted sends
	// wait in out (under outMu) until a holder of mu starts them; sends
	// holds those in flight (under mu).
	outMu    sync.Mutex
	out      []outMsg
	posted   atomic.Uint64 // len(out), for a poller waiting in the transport
	spare    []outMsg      // out's other array (under mu)
	sends    []sending
	listen   func([]byte, func([]byte) error) // under mu
	from     int                              // the source of the message listen has (under mu)
	recvData func([]byte) error               // recvApart
	fail     func(error)
	closed   atomic.Bool   // the background poller stops
	polled   chan struct{} // closed when it did
}

// outMsg is a posted message: its destination rank, tag and bytes, and
// what to call once they are sent.
type outMsg struct {
	dest, tag int
	b         []byte
	sent      func()
}

// sending is a message in flight.
type sending struct {
	r *mpi.Request
	o outMsg
}

// msgTag is the tag of the program's messages on the world communicator
// (the runtime's own traffic is on System), msgDataTag that of their data
// sent apart, msgBigTag that of a message longer than a ring slot, which
// follows its marker.
const (
	msgTag     = 7
	msgDataTag = 8
	msgBigTag  = 9
)

// The messages on msgTag arrive in a ring of receives posted in advance
// (mpi.Ring: one MPI_Test finds a message, where MPI_Iprobe and MPI_Recv
// took two calls and matched it twice; with the sends tested in the call
// that starts them and a waiting processor polling inside MPI, the
// one-way time of a message between the iterations of a pdo on two ranks
// fell from 1.4–1.5 to 0.9–1.3 µs). A slot holds a message's header and up to
// apartMin bytes of data sent with it; a marker (markerLen bytes, shorter
// than any message's header) announces a longer message on msgBigTag.
const (
	ringSlots = 8
	ringSlot  = apartMin + 1<<10
	markerLen = 8
)

// Messages of up to sendSlot bytes are sent from sendSlots buffers of C
// memory (mpi.Slots), so that their Go buffers need no pinning: a
// ping-pong's send took 0.37 µs in IsendNow, 0.2 of it pinning the buffer
// and cgo's pointer checks.
const (
	sendSlots = 16
	sendSlot  = 4 << 10
)

func openMPI() (rankNet, error) {
	c, err := mpi.InitSerialized()
	if err != nil {
		return nil, fmt.Errorf("starting MPI: %v", err)
	}
	g, err := c.OpenRing(msgTag, ringSlots, ringSlot)
	if err != nil {
		return nil, fmt.Errorf("starting MPI: %v", err)
	}
	sl, err := mpi.OpenSlots(sendSlots, sendSlot)
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("starting MPI: %v", err)
	}
	return &mpiRanks{comm: c, ring: g, slots: sl}, nil
}

// do makes the calls of f holding mu, once the messages posted before it
// are on their way: a rank may be waiting for them to reach the same call.
func (m *mpiRanks) do(f func() error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.startOut(); err != nil {
		return err
	}
	return f()
}

// Progress polls once unless another goroutine is making a call: it starts
// the posted sends, completes those in flight and hands one arrived
// message to listen. It reports whether anything happened.
func (m *mpiRanks) Progress() bool {
	if !m.mu.TryLock() {
		return false
	}
	defer m.mu.Unlock()
	if m.listen == nil {
		return false
	}
	return m.poll()
}

// awaitSpins is how many times AwaitProgress tests for a message inside
// the library before it returns (some 3 µs).
const awaitSpins = 64

// AwaitProgress is Progress that, finding nothing, goes on testing for a
// message inside MPI until one comes, *w differs from old, another
// goroutine posts a message or awaitSpins tests found nothing.
func (m *mpiRanks) AwaitProgress(w *atomic.Uint64, old uint64) bool {
	if !m.mu.TryLock() {
		return false
	}
	defer m.mu.Unlock()
	if m.listen == nil {
		return false
	}
	return m.pollFor(awaitSpins, w, old)
}

// poll is Progress's work; mu is held.
func (m *mpiRanks) poll() bool { return m.pollFor(1, nil, 0) }

// pollFor is poll, with the test for an arrived message made as
// AwaitProgress says when spins > 1.
func (m *mpiRanks) pollFor(spins int, w *atomic.Uint64, old uint64) bool {
	did, err := m.startOut()
	if err != nil {
		m.fail(err)
		return true
	}
	keep := m.sends[:0]
	for _, s := range m.sends {
		done, _, err := s.r.Test()
		if err != nil {
			m.fail(err)
		}
		if !done {
			keep = append(keep, s)
		} else {
			s.o.done()
		}
	}
	clear(m.sends[len(keep):])
	m.sends = keep
	var ok bool
	var st mpi.Status
	var in []byte
	if spins > 1 && len(m.sends) == 0 && !did {
		ok, st, in, err = m.ring.Await(spins, w, old, &m.posted)
	} else {
		ok, st, in, err = m.ring.Next()
	}
	if err != nil {
		m.fail(err)
		return true
	}
	if !ok {
		return did
	}
	var b []byte // the receiver's: it may queue it
	if len(in) == markerLen {
		b = getBuf(int(binary.LittleEndian.Uint64(in)))
		if _, err := mpi.Recv(m.comm, b, st.Source, msgBigTag); err != nil {
			m.fail(err)
			return true
		}
	} else {
		b = append(getBuf(len(in))[:0], in...)
	}
	m.from = st.Source
	m.listen(b, m.recvData)
	// What listen posted (a lock's grant, an acknowledgement) leaves now:
	// its Post could not poll, this goroutine holding mu.
	if _, err := m.startOut(); err != nil {
		m.fail(err)
	}
	return true
}

// recvApart receives the data sent apart of the message listen is given
// (from rank m.from); mu is held. listen gets it as m.recvData, a method
// value made once: a closure was an allocation per message.
func (m *mpiRanks) recvApart(into []byte) error {
	_, err := mpi.Recv(m.comm, into, m.from, msgDataTag)
	return err
}

// startOut starts the posted sends; mu is held. A message longer than a
// slot of the receiving rank's ring goes as a marker holding its length
// and then the message itself, on msgBigTag.
func (m *mpiRanks) startOut() (bool, error) {
	m.outMu.Lock()
	out := m.out
	m.out, m.spare = m.spare, nil
	m.posted.Store(0)
	m.outMu.Unlock()
	defer func() { // the next call's, without an allocation per message
		clear(out)
		m.spare = out[:0]
	}()
	for _, o := range out {
		if o.tag == msgTag && len(o.b) > ringSlot {
			mark := binary.LittleEndian.AppendUint64(getBuf(markerLen)[:0], uint64(len(o.b)))
			if err := m.isend(outMsg{o.dest, msgTag, mark, nil}); err != nil {
				return true, err
			}
			o.tag = msgBigTag
		}
		if err := m.isend(o); err != nil {
			return true, err
		}
	}
	return len(out) > 0, nil
}

// isend starts sending o, and keeps it in sends unless it left at once
// (as a small message does).
func (m *mpiRanks) isend(o outMsg) error {
	r, err := m.slots.IsendNow(m.comm, o.b, o.dest, o.tag)
	if err != nil {
		return err
	}
	if r == nil {
		o.done()
	} else {
		m.sends = append(m.sends, sending{r, o})
	}
	return nil
}

// done is what follows o's send: its sender's callback, else its buffer
// back to the pool.
func (o outMsg) done() {
	if o.sent != nil {
		o.sent()
	} else {
		putBuf(o.b)
	}
}

func (m *mpiRanks) Listen(deliver func([]byte, func([]byte) error), fail func(error)) {
	m.mu.Lock()
	m.listen, m.fail, m.recvData = deliver, fail, m.recvApart
	m.mu.Unlock()
	m.polled = make(chan struct{})
	go func() {
		defer close(m.polled)
		// It sleeps 50 µs after traffic, twice as long after each poll
		// that found none, up to a millisecond: a rank that exchanges no
		// messages (a program of pdos) pays 1000 polls a second, and a
		// processor polls itself for its first millisecond of waiting.
		nap := 50 * time.Microsecond
		for !m.closed.Load() {
			if m.Progress() {
				nap = 50 * time.Microsecond
				continue
			}
			time.Sleep(nap)
			nap = min(2*nap, time.Millisecond)
		}
	}()
}

func (m *mpiRanks) Post(dest int, b []byte, sent func(), data []byte, dataSent func()) {
	if len(b) < 8*rankHeader && m.fail != nil { // the ring's markers are shorter
		m.fail(fmt.Errorf("svmc internal error: a message of %d bytes is shorter than its header", len(b)))
		return
	}
	m.outMu.Lock()
	m.out = append(m.out, outMsg{dest, msgTag, b, sent})
	if data != nil {
		m.out = append(m.out, outMsg{dest, msgDataTag, data, dataSent})
	}
	m.posted.Store(uint64(len(m.out)))
	m.outMu.Unlock()
	// On its way now, unless another goroutine holds MPI (it starts it):
	// the sender only starts it, without testing for arrivals, which the
	// next wait does (one MPI call less a message).
	if m.mu.TryLock() {
		if _, err := m.startOut(); err != nil && m.fail != nil {
			m.fail(err)
		}
		m.mu.Unlock()
	}
}

// Barrier is MPI_Ibarrier, waited for by polling: a rank that waits for
// the others to reach a barrier still takes their messages (one may be
// what another rank waits for before it comes, or a watchdog's report to
// rank 0).
func (m *mpiRanks) Barrier() error { return m.BarrierUnless(nil) }

func (m *mpiRanks) BarrierUnless(stop <-chan struct{}) error {
	return m.complete(m.comm.System().Ibarrier, stop, "the barrier between ranks")
}

// complete starts a non-blocking call holding mu and polls until its
// request completes (await).
func (m *mpiRanks) complete(start func() (*mpi.Request, error), stop <-chan struct{}, what string) error {
	var req *mpi.Request
	if err := m.do(func() (err error) {
		req, err = start()
		return err
	}); err != nil {
		return err
	}
	return m.await(func() (bool, error) {
		done, _, err := req.Test()
		return done, err
	}, stop, what)
}

// await polls until test (called holding mu) says a non-blocking
// collective is done, taking the other ranks' messages meanwhile: a rank
// waiting in a collective may be rank 0 serving the others' global locks
// (ranklock.go), or have a watchdog report to send. After 256 polls in a
// row that found nothing it yields the core to other processes every 64
// (ranks on fewer cores), and after 2 ms of that it sleeps between polls
// (a sleep lasts up to a millisecond here: at every pdo's end it cost
// Jacobi on 2 ranks 40%; but 63 polls between sleeps kept a rank that
// waits long, as rank 0 while two others exchange messages, at half a
// core, each poll yielding inside MPI: their one-way time 3.3–3.8 µs
// instead of 2.1–2.7), and it gives up once stop is closed.
func (m *mpiRanks) await(test func() (bool, error), stop <-chan struct{}, what string) error {
	var quiet int64 // when the polls began to find nothing
	for idle := 0; ; idle++ {
		m.mu.Lock()
		done, err := test()
		if !done && err == nil && m.listen != nil && m.poll() {
			idle = 0
		}
		m.mu.Unlock()
		if done || err != nil {
			return partedErr(err)
		}
		select {
		case <-stop:
			return fmt.Errorf("%s was given up", what)
		default:
		}
		switch {
		case idle < 256:
			if idle%64 == 63 {
				runtime.Gosched()
			}
		case idle == 256:
			quiet = time.Now().UnixNano()
		default:
			if time.Now().UnixNano()-quiet < 2e6 {
				if idle%64 == 0 {
					mpi.Yield()
				}
			} else {
				time.Sleep(20 * time.Microsecond) // a collective may wait long
			}
		}
	}
}

// partedErr explains a collective MPI found truncated: the ranks met at
// different collectives (a pdo's end on one, a psection's on another),
// which is what processor 0's copies do when they part (x428).
func partedErr(err error) error {
	if errors.Is(err, mpi.ErrTruncate) {
		return fmt.Errorf("%w: the ranks reached different meeting points (%s)", err, partedText)
	}
	return err
}

func (m *mpiRanks) Yield() { mpi.Yield() }

func (m *mpiRanks) Rank() int { return m.comm.Rank() }
func (m *mpiRanks) Size() int { return m.comm.Size() }

func (m *mpiRanks) ClockShift(clock, begin func() float64) (shift, errb float64, err error) {
	err = m.do(func() error {
		offs, err := m.comm.ClockOffsets(clock, 20)
		if err != nil {
			return err
		}
		me := m.comm.Rank()
		v := []float64{begin() - offs[me].Offset}
		all := make([]float64, m.comm.Size())
		if err := mpi.Allgather(m.comm.System(), v, all); err != nil {
			return err
		}
		shift, errb = all[me]-all[0], offs[me].Err
		return nil
	})
	return shift, errb, err
}

// loopTag is the tag of the requests, answers and ends of dynamic pdo
// seq (System communicator; MPI guarantees tags up to 32767).
func loopTag(seq int) int { return 1000 + seq%30000 }

// Requests to rank 0: [what, 0] with what askChunk or loopDone.
const (
	askChunk = 0
	loopDone = 1
)

// serving is rank 0's loop answering requests for chunks.
type serving struct {
	seq      int
	next     func() (int, int)
	stop     chan struct{}
	done     chan error
	req, ans []int64      // under mu
	pending  atomic.Int32 // the ranks that did not say they are done
}

func (m *mpiRanks) Serve(seq int, next func() (lo, hi int)) {
	if m.comm.Size() == 1 {
		return
	}
	sv := &serving{seq: seq, next: next, stop: make(chan struct{}), done: make(chan error, 1), req: make([]int64, 2), ans: make([]int64, 2)}
	sv.pending.Store(int32(m.comm.Size() - 1))
	m.serving.Store(seq, sv)
	go func() { sv.done <- m.serve(sv) }()
}

// serve answers requests for chunks of loop sv.seq until rank 0's own
// processors are done with it and every other rank said so. It polls, on
// a goroutine of its own, so that it answers while rank 0's processors
// work; it yields between polls, the core too after 64 idle ones, and
// sleeps once nothing came for 2 ms (a sleep lasts up to a millisecond
// here: when it slept after 64 idle polls, the other rank of a 2-rank
// dynamic(1) loop of 20 µs iterations got 33 chunks of 2000).
func (m *mpiRanks) serve(sv *serving) error {
	var quiet int64
	for idle := 0; ; {
		var ok bool
		err := m.do(func() (err error) {
			ok, err = m.serveOnce(sv)
			return err
		})
		if err != nil {
			return err
		}
		if ok {
			idle = 0
			continue
		}
		select {
		case <-sv.stop:
			if sv.pending.Load() == 0 {
				return nil
			}
		default:
		}
		switch idle++; {
		case idle < 64:
			runtime.Gosched()
		case idle == 64:
			quiet = time.Now().UnixNano()
		case time.Now().UnixNano()-quiet < 2e6:
			mpi.Yield()
		default:
			time.Sleep(20 * time.Microsecond)
		}
	}
}

// serveOnce answers one request for a chunk, or takes one rank's end, if
// one came (ok); mu is held.
func (m *mpiRanks) serveOnce(sv *serving) (ok bool, err error) {
	sys, tag := m.comm.System(), loopTag(sv.seq)
	got, st, err := sys.Iprobe(mpi.AnySource, tag)
	if err != nil || !got {
		return false, err
	}
	if _, err := mpi.Recv(sys, sv.req, st.Source, tag); err != nil {
		return true, err
	}
	if sv.req[0] == loopDone {
		sv.pending.Add(-1)
		return true, nil
	}
	lo, hi := sv.next()
	sv.ans[0], sv.ans[1] = int64(lo), int64(hi)
	return true, mpi.Send(sys, sv.ans, st.Source, tag)
}

// Poke answers the requests for chunks of loop seq that came, unless
// another goroutine is in MPI (rank 0's processors call it as they take
// their own chunks: on a machine with fewer cores than busy threads the
// serving goroutine may wait for a time slice).
func (m *mpiRanks) Poke(seq int) {
	v, ok := m.serving.Load(seq)
	if !ok || !m.mu.TryLock() {
		return
	}
	defer m.mu.Unlock()
	for range 4 {
		if ok, err := m.serveOnce(v.(*serving)); !ok || err != nil {
			return // an error: the serving goroutine meets it again
		}
	}
}

// Ask's request and answer are non-blocking, polled without holding mu
// between polls: the rank's other processors and its watchdog use the
// transport meanwhile.
func (m *mpiRanks) Ask(seq int) (lo, hi int, err error) {
	sys, tag := m.comm.System(), loopTag(seq)
	out, in := []int64{askChunk, 0}, make([]int64, 2)
	var sent, got *mpi.Request
	if err := m.do(func() (err error) {
		if got, err = mpi.Irecv(sys, in, 0, tag); err != nil {
			return err
		}
		sent, err = mpi.Isend(sys, out, 0, tag)
		return err
	}); err != nil {
		return 0, -1, err
	}
	err = m.await(func() (bool, error) {
		a, _, err := sent.Test()
		if err != nil {
			return true, err
		}
		b, _, err := got.Test()
		return a && b, err
	}, nil, "the request for a chunk")
	return int(in[0]), int(in[1]), err
}

func (m *mpiRanks) EndLoop(seq int) error {
	if m.comm.Size() == 1 {
		return nil
	}
	if m.comm.Rank() != 0 {
		return m.complete(func() (*mpi.Request, error) {
			return mpi.Isend(m.comm.System(), []int64{loopDone, 0}, 0, loopTag(seq))
		}, nil, "the end of a dynamic pdo")
	}
	v, ok := m.serving.LoadAndDelete(seq)
	if !ok {
		return fmt.Errorf("loop %d is not served", seq)
	}
	sv := v.(*serving)
	close(sv.stop)
	return <-sv.done
}

// Allreduce reduces each element with its op, in the class of its kind
// (float64, int64 or uint64: widen's classes), one MPI call per run of
// elements with the same class and op.
func (m *mpiRanks) Allreduce(vals []uint64, kinds []reflect.Kind, ops []Op) error {
	for i := 0; i < len(vals); {
		j := i + 1
		for j < len(vals) && class(kinds[j]) == class(kinds[i]) && ops[j] == ops[i] {
			j++
		}
		op, ok := mpiOps[ops[i]]
		if !ok || class(kinds[i]) == 'f' && op >= mpi.Band {
			return fmt.Errorf("reduction %v of %v between ranks", ops[i], kinds[i])
		}
		// Floats and signed integers travel as float64 and int64 (MPI
		// reduces them by their type); the rest as they are.
		var start func() (*mpi.Request, error)
		var back func()
		switch class(kinds[i]) {
		case 'f':
			fs := make([]float64, j-i)
			for k := range fs {
				fs[k] = math.Float64frombits(vals[i+k])
			}
			start = func() (*mpi.Request, error) { return mpi.Iallreduce(m.comm.System(), fs, fs, op) }
			back = func() {
				for k := range fs {
					vals[i+k] = math.Float64bits(fs[k])
				}
			}
		case 'i':
			is := make([]int64, j-i)
			for k := range is {
				is[k] = int64(vals[i+k])
			}
			start = func() (*mpi.Request, error) { return mpi.Iallreduce(m.comm.System(), is, is, op) }
			back = func() {
				for k := range is {
					vals[i+k] = uint64(is[k])
				}
			}
		default:
			us := vals[i:j]
			start = func() (*mpi.Request, error) { return mpi.Iallreduce(m.comm.System(), us, us, op) }
			back = func() {}
		}
		if err := m.complete(start, nil, "the reduction between ranks"); err != nil {
			return err
		}
		back()
		i = j
	}
	return nil
}

// class is the 64-bit class a kind is reduced in: 'f', 'i' or 'u'.
func class(k reflect.Kind) byte {
	switch k {
	case reflect.Float32, reflect.Float64:
		return 'f'
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return 'i'
	}
	return 'u'
}

var mpiOps = map[Op]mpi.Op{
	OpAdd: mpi.Sum, OpMul: mpi.Prod, OpMin: mpi.Min, OpMax: mpi.Max,
	OpAnd: mpi.Band, OpOr: mpi.Bor, OpXor: mpi.Bxor,
}

func (m *mpiRanks) Allgather(b []byte) ([][]byte, error) {
	var g *mpi.Gathering
	if err := m.do(func() (err error) {
		g, err = mpi.IAllgatherv(m.comm.System(), b, m.gathered)
		return err
	}); err != nil {
		return nil, err
	}
	if err := m.await(g.Test, nil, "the exchange between ranks"); err != nil {
		return nil, err
	}
	out, at := g.Result()
	m.gathered = out // its parts are applied before the next call
	all := make([][]byte, 0, m.comm.Size())
	for r := range m.comm.Size() {
		all = append(all, out[at[r]:at[r+1]])
	}
	return all, nil
}

func (m *mpiRanks) Close() error {
	if m.polled != nil {
		m.closed.Store(true)
		<-m.polled
	}
	return m.do(func() error {
		// The last sends complete before MPI ends (their receivers are
		// past their receives: a run ends after every processor did).
		for _, s := range m.sends {
			if _, err := s.r.Wait(); err != nil {
				return err
			}
		}
		m.listen = nil
		m.ring.Close()
		m.slots.Close()
		return m.comm.Finalize()
	})
}
