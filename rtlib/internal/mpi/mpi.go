//go:build mpi && cgo

package mpi

/*
#cgo pkg-config: mpi
// The blocking calls neither keep the buffer after they return nor call
// Go: cgo may leave their arguments on the stack and skip callback
// bookkeeping.
#cgo noescape svm_send
#cgo nocallback svm_send
#cgo noescape svm_ssend
#cgo nocallback svm_ssend
#cgo noescape svm_recv
#cgo nocallback svm_recv
#cgo noescape svm_isend_now
#cgo nocallback svm_isend_now
#cgo nocallback svm_ring_next
#include <stdlib.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>

// The predefined handles are macros over library globals: cgo reaches them
// through functions.
static MPI_Comm svm_world(void) { return MPI_COMM_WORLD; }
static MPI_Datatype svm_byte(void) { return MPI_BYTE; }
static MPI_Datatype svm_double(void) { return MPI_DOUBLE; }
static MPI_Datatype svm_int64(void) { return MPI_INT64_T; }
static MPI_Datatype svm_uint64(void) { return MPI_UINT64_T; }
static MPI_Op svm_op(int k) {
	switch (k) {
	case 1: return MPI_MAX;
	case 2: return MPI_MIN;
	case 3: return MPI_PROD;
	case 4: return MPI_BAND;
	case 5: return MPI_BOR;
	case 6: return MPI_BXOR;
	}
	return MPI_SUM;
}

static int svm_level(int serialized) { return serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_FUNNELED; }
static int svm_init(int serialized, int *provided) {
	int done = 0;
	MPI_Initialized(&done);
	if (done) {
		return MPI_Query_thread(provided);
	}
	int rc = MPI_Init_thread(NULL, NULL, svm_level(serialized), provided);
	if (rc == MPI_SUCCESS) {
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); // duplicates inherit it
	}
	return rc;
}
static int svm_global_wtime(void) {
	int *v = NULL, flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
	return flag && v && *v;
}
// A completed receive's status by value: out-parameters would be Go
// variables moved to the heap, three allocations a call.
typedef struct { int rc, src, tag, count, flag; } svm_status;

static svm_status svm_done(int rc, MPI_Status *st, int flag) {
	svm_status r = {rc, 0, 0, 0, flag};
	if (rc == MPI_SUCCESS && flag) {
		r.src = st->MPI_SOURCE;
		r.tag = st->MPI_TAG;
		MPI_Get_count(st, MPI_BYTE, &r.count);
	}
	return r;
}
// Sends in one call from Go: MPI_BYTE is a macro over a library global,
// and every cgo call costs some 50 ns.
static int svm_send(MPI_Comm comm, void *buf, int n, int dest, int tag) {
	return MPI_Send(buf, n, MPI_BYTE, dest, tag, comm);
}
static int svm_ssend(MPI_Comm comm, void *buf, int n, int dest, int tag) {
	return MPI_Ssend(buf, n, MPI_BYTE, dest, tag, comm);
}
static svm_status svm_recv(MPI_Comm comm, void *buf, int n, int src, int tag) {
	MPI_Status st;
	return svm_done(MPI_Recv(buf, n, MPI_BYTE, src, tag, comm, &st), &st, 1);
}
static svm_status svm_wait(MPI_Request *r) {
	MPI_Status st;
	return svm_done(MPI_Wait(r, &st), &st, 1);
}
static svm_status svm_iprobe(MPI_Comm comm, int src, int tag) {
	MPI_Status st;
	int flag = 0;
	int rc = MPI_Iprobe(src, tag, comm, &flag, &st);
	return svm_done(rc, &st, flag);
}
static svm_status svm_test(MPI_Request *r) {
	MPI_Status st;
	int flag = 0;
	int rc = MPI_Test(r, &flag, &st);
	return svm_done(rc, &st, flag);
}
// An Isend tested at once: a small message usually leaves in the call
// (flag 1, no request to keep); otherwise req is the request in flight.
// The result comes back by value: pointers to Go memory for it were two
// more cgo pointer checks a message.
typedef struct {
	int rc, flag;
	MPI_Request req;
} svm_sent;
static svm_sent svm_isend_now(MPI_Comm comm, void *buf, int n, int dest, int tag) {
	svm_sent s = {MPI_SUCCESS, 0, MPI_REQUEST_NULL};
	s.rc = MPI_Isend(buf, n, MPI_BYTE, dest, tag, comm, &s.req);
	if (s.rc == MPI_SUCCESS) {
		MPI_Status st;
		s.rc = MPI_Test(&s.req, &s.flag, &st);
	}
	return s;
}

// A ring of receives posted in advance (Ring): slots of C memory, each
// with an MPI_Irecv from any source. MPI matches arriving messages with
// posted receives in the order they were posted, so the slots fill in
// ring order; next is the oldest. held is the slot handed to Go by the
// last svm_ring_next, posted again at the next call.
typedef struct {
	MPI_Comm comm;
	int tag, k, size, next, held;
	MPI_Request *reqs;
	char *mem;
} svm_ring;

static int svm_ring_post(svm_ring *g, int i) {
	return MPI_Irecv(g->mem + (size_t)i * g->size, g->size, MPI_BYTE, MPI_ANY_SOURCE, g->tag, g->comm, &g->reqs[i]);
}
static int svm_ring_open(MPI_Comm comm, int tag, int k, int size, svm_ring **out) {
	svm_ring *g = calloc(1, sizeof *g);
	if (g == NULL) {
		return MPI_ERR_NO_MEM;
	}
	g->comm = comm; g->tag = tag; g->k = k; g->size = size; g->held = -1;
	g->reqs = calloc(k, sizeof *g->reqs);
	g->mem = malloc((size_t)k * size);
	if (g->reqs == NULL || g->mem == NULL) {
		free(g->reqs); free(g->mem); free(g);
		return MPI_ERR_NO_MEM;
	}
	for (int i = 0; i < k; i++) {
		g->reqs[i] = MPI_REQUEST_NULL;
	}
	*out = g; // closed by the caller if a post fails
	for (int i = 0; i < k; i++) {
		int rc = svm_ring_post(g, i);
		if (rc != MPI_SUCCESS) {
			return rc;
		}
	}
	return MPI_SUCCESS;
}
typedef struct { int rc, src, count, flag; char *data; } svm_arrival;
static svm_arrival svm_ring_next(svm_ring *g, int spins, const uint64_t *w, uint64_t old, const uint64_t *busy) {
	svm_arrival a = {MPI_SUCCESS, 0, 0, 0, NULL};
	if (g->held >= 0) {
		a.rc = svm_ring_post(g, g->held);
		g->held = -1;
		if (a.rc != MPI_SUCCESS) {
			return a;
		}
	}
	MPI_Status st;
	for (int i = 0; ; i++) { // with spins 1, w and busy are not read
		a.rc = MPI_Test(&g->reqs[g->next], &a.flag, &st);
		if (a.rc != MPI_SUCCESS) {
			return a;
		}
		if (a.flag) {
			break;
		}
		if (i+1 >= spins || __atomic_load_n(w, __ATOMIC_ACQUIRE) != old || __atomic_load_n(busy, __ATOMIC_ACQUIRE) != 0) {
			return a;
		}
	}
	a.src = st.MPI_SOURCE;
	MPI_Get_count(&st, MPI_BYTE, &a.count);
	a.data = g->mem + (size_t)g->next * g->size;
	g->held = g->next;
	g->next = (g->next + 1) % g->k;
	return a;
}
static void svm_ring_close(svm_ring *g) {
	for (int i = 0; i < g->k; i++) {
		if (g->reqs[i] != MPI_REQUEST_NULL && i != g->held) {
			MPI_Cancel(&g->reqs[i]);
			MPI_Wait(&g->reqs[i], MPI_STATUS_IGNORE);
		}
	}
	free(g->reqs); free(g->mem); free(g);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Built reports whether this build has the MPI binding (build tag mpi,
// cgo enabled).
const Built = true

// AnySource and AnyTag are a receive's wildcards.
const (
	AnySource = -1
	AnyTag    = -1
)

// Comm is a communicator of every rank of the job (MPI_COMM_WORLD, or the
// runtime's duplicate of it) as seen by this rank.
type Comm struct {
	rank, size int
	comm       C.MPI_Comm
	sys        *Comm // the runtime's own traffic (System)
}

var world *Comm

// Init starts MPI (MPI_Init_thread with MPI_THREAD_FUNNELED) and locks the
// calling goroutine to its OS thread: it must make every later call. A
// second Init returns the same Comm.
func Init() (*Comm, error) {
	if world != nil {
		return world, nil
	}
	runtime.LockOSThread()
	c, err := initLevel(false)
	if err != nil {
		runtime.UnlockOSThread()
	}
	return c, err
}

// InitSerialized starts MPI with MPI_THREAD_SERIALIZED: any goroutine may
// make a call, one at a time (the caller serialises them, with a mutex).
// Unlike MPI_THREAD_MULTIPLE, which OpenMPI and MPICH users report hangs
// under, this is the level MPI libraries have long supported well, and it
// lets the goroutine that waits for a message poll for it itself.
func InitSerialized() (*Comm, error) {
	if world != nil {
		return world, nil
	}
	return initLevel(true)
}

func initLevel(serialized bool) (*Comm, error) {
	var provided C.int
	ser := C.int(0)
	if serialized {
		ser = 1
	}
	if rc := C.svm_init(ser, &provided); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Init_thread", -1, rc)
	}
	if want := C.svm_level(ser); provided < want {
		return nil, fmt.Errorf("mpi: the MPI library gives thread level %d, below the %d asked for", int(provided), int(want))
	}
	c := &Comm{comm: C.svm_world()}
	var r, s C.int
	C.MPI_Comm_rank(c.comm, &r)
	C.MPI_Comm_size(c.comm, &s)
	c.rank, c.size = int(r), int(s)
	sys := &Comm{rank: c.rank, size: c.size}
	if rc := C.MPI_Comm_dup(c.comm, &sys.comm); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_dup", -1, rc)
	}
	sys.sys, c.sys = sys, sys
	world = c
	return c, nil
}

// System is a duplicate of the communicator for the runtime's own traffic
// (clock offsets, traces, scheduling): its messages never match the
// program's, whatever their tags, as MPI's contexts guarantee.
func (c *Comm) System() *Comm { return c.sys }

// Rank is this process's rank.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks.
func (c *Comm) Size() int { return c.size }

// Finalize ends MPI; no call may follow.
func (c *Comm) Finalize() error {
	C.MPI_Comm_free(&c.sys.comm)
	if rc := C.MPI_Finalize(); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Finalize", -1, rc)
	}
	world = nil
	return nil
}

// Abort ends every rank of the job with code (MPI_Abort).
func (c *Comm) Abort(code int) { C.MPI_Abort(c.comm, C.int(code)) }

// Yield lets another process run on this core if one is waiting
// (sched_yield), as MPI's own waits do when the job has more ranks than
// cores.
func Yield() { C.sched_yield() }

// Wtime is MPI's clock in seconds.
func Wtime() float64 { return float64(C.MPI_Wtime()) }

// WtimeIsGlobal reports whether the ranks' clocks are synchronised
// (MPI_WTIME_IS_GLOBAL; OpenMPI says no).
func (c *Comm) WtimeIsGlobal() bool { return C.svm_global_wtime() != 0 }

// Offset is a rank's clock against rank 0's: Offset is its clock minus
// rank 0's at the same instant, Err bounds the estimate's error (half the
// shortest round trip it was measured with).
type Offset struct{ Offset, Err float64 }

// ClockOffsets estimates every rank's clock against rank 0's with
// Cristian's algorithm: rank 0 asks each rank for its clock rounds times,
// and the exchange with the shortest round trip gives the offset (the
// answer taken at the round trip's midpoint). Every rank must call it; each
// gets all the offsets, indexed by rank. clock is the clock to compare (the
// runtime's, in any unit; Offset is in the same). The messages go on the
// System communicator.
func (c *Comm) ClockOffsets(clock func() float64, rounds int) ([]Offset, error) {
	const tag = 1
	sys := c.sys
	rounds = max(rounds, 1)
	flat := make([]float64, 2*c.size) // offset, err per rank
	v := make([]float64, 1)
	if c.rank == 0 {
		for q := 1; q < c.size; q++ {
			best := math.Inf(1)
			for range rounds {
				t1 := clock()
				if err := Send(sys, v[:0], q, tag); err != nil {
					return nil, err
				}
				if _, err := Recv(sys, v, q, tag); err != nil {
					return nil, err
				}
				t2 := clock()
				if rtt := t2 - t1; rtt < best {
					best = rtt
					flat[2*q], flat[2*q+1] = v[0]-(t1+t2)/2, rtt/2
				}
			}
		}
	} else {
		for range rounds {
			if _, err := Recv(sys, v[:0], 0, tag); err != nil {
				return nil, err
			}
			v[0] = clock()
			if err := Send(sys, v, 0, tag); err != nil {
				return nil, err
			}
		}
	}
	if err := Bcast(sys, flat, 0); err != nil {
		return nil, err
	}
	offs := make([]Offset, c.size)
	for q := range offs {
		offs[q] = Offset{flat[2*q], flat[2*q+1]}
	}
	return offs, nil
}

// Number is what a message holds: plain values without Go pointers.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint |
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool
}

// Status is what a completed receive got.
type Status struct {
	Source, Tag int
	Bytes       int
}

// bytesOf is buf's memory and length in bytes (nil for an empty slice).
func bytesOf[T Number](buf []T) (unsafe.Pointer, C.int, error) {
	if len(buf) == 0 {
		return nil, 0, nil
	}
	var z T
	n := uintptr(len(buf)) * unsafe.Sizeof(z)
	if n > 1<<31-1 {
		return nil, 0, fmt.Errorf("mpi: a message of %d bytes exceeds MPI's count (2 GiB)", n)
	}
	return unsafe.Pointer(unsafe.SliceData(buf)), C.int(n), nil
}

// Send sends buf to rank dest with tag (MPI_Send: returns when buf may be
// reused; MPI buffers small messages).
func Send[T Number](c *Comm, buf []T, dest, tag int) error {
	return send(c, buf, dest, tag, false)
}

// Ssend is Send that returns only when the receive has started
// (MPI_Ssend).
func Ssend[T Number](c *Comm, buf []T, dest, tag int) error {
	return send(c, buf, dest, tag, true)
}

func send[T Number](c *Comm, buf []T, dest, tag int, sync bool) error {
	p, n, err := bytesOf(buf)
	if err != nil {
		return err
	}
	call, rc := "MPI_Send to rank", C.int(0)
	if sync {
		call, rc = "MPI_Ssend to rank", C.svm_ssend(c.comm, p, n, C.int(dest), C.int(tag))
	} else {
		rc = C.svm_send(c.comm, p, n, C.int(dest), C.int(tag))
	}
	if rc != C.MPI_SUCCESS {
		return mpiError(call, dest, rc)
	}
	return nil
}

// Recv receives into buf from src with tag (either may be a wildcard). A
// message longer than buf is an error (MPI_ERR_TRUNCATE).
func Recv[T Number](c *Comm, buf []T, src, tag int) (Status, error) {
	p, n, err := bytesOf(buf)
	if err != nil {
		return Status{}, err
	}
	st := C.svm_recv(c.comm, p, n, C.int(src), C.int(tag))
	if st.rc != C.MPI_SUCCESS {
		return Status{}, mpiError("MPI_Recv from rank", src, st.rc)
	}
	return status(st), nil
}

// Request is a non-blocking send or receive in progress. Its buffer stays
// pinned (a send from Slots: its slot taken) until Wait or Test completes
// it.
type Request struct {
	req *C.MPI_Request // an allocation of its own: cgo checks all of it
	pin runtime.Pinner
	// slots and slot: a send from Slots, whose slot is free again once
	// the request completes.
	slots *Slots
	slot  int
	call  string
	peer  int
	done  bool
	st    Status
}

func start[T Number](buf []T, call string, peer int, post func(p unsafe.Pointer, n C.int, r *C.MPI_Request) C.int) (*Request, error) {
	p, n, err := bytesOf(buf)
	if err != nil {
		return nil, err
	}
	r := &Request{req: new(C.MPI_Request), call: call, peer: peer}
	if p != nil {
		// MPI holds the address until the request completes: the
		// collector must not move or free it meanwhile.
		r.pin.Pin(p)
	}
	if rc := post(p, n, r.req); rc != C.MPI_SUCCESS {
		r.pin.Unpin()
		return nil, mpiError(call, peer, rc)
	}
	return r, nil
}

// Isend starts sending buf (MPI_Isend); buf must not change until the
// request completes.
func Isend[T Number](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return start(buf, "MPI_Isend to rank", dest, func(p unsafe.Pointer, n C.int, r *C.MPI_Request) C.int {
		return C.MPI_Isend(p, n, C.svm_byte(), C.int(dest), C.int(tag), c.comm, r)
	})
}

// Irecv starts receiving into buf (MPI_Irecv).
func Irecv[T Number](c *Comm, buf []T, src, tag int) (*Request, error) {
	return start(buf, "MPI_Irecv from rank", src, func(p unsafe.Pointer, n C.int, r *C.MPI_Request) C.int {
		return C.MPI_Irecv(p, n, C.svm_byte(), C.int(src), C.int(tag), c.comm, r)
	})
}

// IsendNow starts sending buf (MPI_Isend) and tests the send at once: a
// small message usually leaves in the call, which then returns a nil
// Request, with no buffer pinned or request to test later (one cgo call
// where Isend and Test make two).
func IsendNow[T Number](c *Comm, buf []T, dest, tag int) (*Request, error) {
	p, n, err := bytesOf(buf)
	if err != nil {
		return nil, err
	}
	var pin runtime.Pinner
	if p != nil {
		pin.Pin(p)
	}
	s := C.svm_isend_now(c.comm, p, n, C.int(dest), C.int(tag))
	if s.rc != C.MPI_SUCCESS {
		pin.Unpin()
		return nil, mpiError("MPI_Isend to rank", dest, s.rc)
	}
	if s.flag != 0 {
		pin.Unpin()
		return nil, nil
	}
	r := &Request{req: new(C.MPI_Request), pin: pin, call: "MPI_Isend to rank", peer: dest}
	*r.req = s.req
	return r, nil
}

// Slots are send buffers in C memory for small messages: Slots.IsendNow
// copies a message that fits into a free one and sends it from there, so
// that MPI never holds the caller's memory and nothing is pinned (pinning
// and unpinning a message's buffer, and cgo's checks of the pointers
// handed to C, took as long as MPI's Isend and Test). Slots are not safe
// for concurrent use: the caller makes its MPI calls one at a time.
type Slots struct {
	mem  unsafe.Pointer // k slots of size bytes, C memory
	size int
	free []int
}

// OpenSlots allocates k send slots of size bytes each.
func OpenSlots(k, size int) (*Slots, error) {
	if k < 1 || size < 1 || k*size > 1<<30 {
		return nil, fmt.Errorf("mpi: %d send slots of %d bytes", k, size)
	}
	mem := C.malloc(C.size_t(k * size))
	if mem == nil {
		return nil, fmt.Errorf("mpi: no memory for %d send slots of %d bytes", k, size)
	}
	s := &Slots{mem: mem, size: size, free: make([]int, 0, k)}
	for i := k - 1; i >= 0; i-- {
		s.free = append(s.free, i)
	}
	return s, nil
}

// IsendNow is the package's IsendNow for a message of bytes, sent from a
// free slot when it fits one (b may change as soon as the call returns),
// else from b itself, pinned until the request completes.
func (s *Slots) IsendNow(c *Comm, b []byte, dest, tag int) (*Request, error) {
	n := len(b)
	if n == 0 || n > s.size || len(s.free) == 0 {
		return IsendNow(c, b, dest, tag)
	}
	i := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	at := unsafe.Add(s.mem, i*s.size)
	copy(unsafe.Slice((*byte)(at), n), b)
	sent := C.svm_isend_now(c.comm, at, C.int(n), C.int(dest), C.int(tag))
	if sent.rc != C.MPI_SUCCESS || sent.flag != 0 {
		s.free = append(s.free, i)
		if sent.rc != C.MPI_SUCCESS {
			return nil, mpiError("MPI_Isend to rank", dest, sent.rc)
		}
		return nil, nil
	}
	r := &Request{req: new(C.MPI_Request), slots: s, slot: i, call: "MPI_Isend to rank", peer: dest}
	*r.req = sent.req
	return r, nil
}

// Close frees the slots; the sends from them must be complete.
func (s *Slots) Close() {
	if s.mem != nil {
		C.free(s.mem)
		s.mem, s.free = nil, nil
	}
}

// Ring is a ring of receives posted in advance from any source with one
// tag, into slots of C memory: a message that arrives goes straight into
// a slot, and Next finds it with one MPI_Test, where MPI_Iprobe and
// MPI_Recv take two calls and match the message twice. A message longer
// than a slot is an error of Next (MPI_ERR_TRUNCATE): the sender keeps
// to the size.
type Ring struct {
	g   *C.svm_ring
	tag int
}

// OpenRing posts slots receives of size bytes each with tag.
func (c *Comm) OpenRing(tag, slots, size int) (*Ring, error) {
	if slots < 1 || size < 1 || slots*size > 1<<30 {
		return nil, fmt.Errorf("mpi: a ring of %d slots of %d bytes", slots, size)
	}
	var g *C.svm_ring
	if rc := C.svm_ring_open(c.comm, C.int(tag), C.int(slots), C.int(size), &g); rc != C.MPI_SUCCESS {
		if g != nil {
			C.svm_ring_close(g)
		}
		return nil, mpiError("MPI_Irecv from rank", AnySource, rc)
	}
	return &Ring{g: g, tag: tag}, nil
}

// Next reports the oldest message that has arrived, if any: its status,
// and its bytes, which stay valid until the next call of Next or Close.
func (r *Ring) Next() (bool, Status, []byte, error) {
	return r.arrival(C.svm_ring_next(r.g, 1, nil, 0, nil))
}

// arrival is what svm_ring_next found.
func (r *Ring) arrival(a C.svm_arrival) (bool, Status, []byte, error) {
	if a.rc != C.MPI_SUCCESS {
		return false, Status{}, nil, mpiError("MPI_Irecv from rank", AnySource, a.rc)
	}
	if a.flag == 0 {
		return false, Status{}, nil, nil
	}
	st := Status{Source: int(a.src), Tag: r.tag, Bytes: int(a.count)}
	return true, st, unsafe.Slice((*byte)(unsafe.Pointer(a.data)), int(a.count)), nil
}

// Await is Next that tests for a message up to spins times inside one
// call, returning early once *w differs from old or *busy from 0: a
// goroutine waiting for a message polls without a cgo call's cost per
// poll, and still sees at once what other goroutines signal.
func (r *Ring) Await(spins int, w *atomic.Uint64, old uint64, busy *atomic.Uint64) (bool, Status, []byte, error) {
	return r.arrival(C.svm_ring_next(r.g, C.int(spins), word(w), C.uint64_t(old), word(busy)))
}

// word is the address of w's value for C, which reads it atomically
// (atomic.Uint64's value is its only field of non-zero size).
func word(w *atomic.Uint64) *C.uint64_t { return (*C.uint64_t)(unsafe.Pointer(w)) }

// Close cancels the receives still posted and frees the slots.
func (r *Ring) Close() {
	if r.g != nil {
		C.svm_ring_close(r.g)
		r.g = nil
	}
}

// Wait blocks until the request completes (MPI_Wait) and unpins its
// buffer; for a receive, the Status says what arrived.
func (r *Request) Wait() (Status, error) {
	if r.done {
		return r.st, nil
	}
	st := C.svm_wait(r.req)
	r.finish(st)
	if st.rc != C.MPI_SUCCESS {
		return Status{}, mpiError(r.call, r.peer, st.rc)
	}
	return r.st, nil
}

// Test reports whether the request has completed (MPI_Test), unpinning
// its buffer when it has.
func (r *Request) Test() (bool, Status, error) {
	if r.done {
		return true, r.st, nil
	}
	st := C.svm_test(r.req)
	if st.rc != C.MPI_SUCCESS {
		r.finish(st)
		return true, Status{}, mpiError(r.call, r.peer, st.rc)
	}
	if st.flag == 0 {
		return false, Status{}, nil
	}
	r.finish(st)
	return true, r.st, nil
}

func (r *Request) finish(st C.svm_status) {
	r.done = true
	r.st = status(st)
	r.pin.Unpin()
	if r.slots != nil {
		r.slots.free = append(r.slots.free, r.slot)
		r.slots = nil
	}
}

func status(st C.svm_status) Status {
	return Status{Source: int(st.src), Tag: int(st.tag), Bytes: int(st.count)}
}

// Barrier returns when every rank has called it (MPI_Barrier).
func (c *Comm) Barrier() error {
	if rc := C.MPI_Barrier(c.comm); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Barrier", -1, rc)
	}
	return nil
}

// Ibarrier starts a barrier (MPI_Ibarrier): the request completes when
// every rank has started it. Waiting by Test lets the caller poll for
// other traffic meanwhile.
func (c *Comm) Ibarrier() (*Request, error) {
	r := &Request{req: new(C.MPI_Request), call: "MPI_Ibarrier", peer: -1}
	if rc := C.MPI_Ibarrier(c.comm, r.req); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Ibarrier", -1, rc)
	}
	return r, nil
}

// Bcast copies root's buf into every rank's (MPI_Bcast); every rank's buf
// has the same length.
func Bcast[T Number](c *Comm, buf []T, root int) error {
	p, n, err := bytesOf(buf)
	if err != nil {
		return err
	}
	if rc := C.MPI_Bcast(p, n, C.svm_byte(), C.int(root), c.comm); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Bcast from rank", root, rc)
	}
	return nil
}

// Op is a reduction.
type Op int

const (
	Sum Op = iota
	Max
	Min
	Prod
	Band // bitwise, integers only
	Bor
	Bxor
)

// Reducible are the element types of a reduction (MPI_DOUBLE,
// MPI_INT64_T, MPI_UINT64_T).
type Reducible interface{ ~float64 | ~int64 | ~uint64 }

func datatype[T Reducible]() C.MPI_Datatype {
	var x T = 1
	if x /= 2; x != 0 { // a float: 0.5
		return C.svm_double()
	}
	if x--; x > 0 { // unsigned: 0 - 1 wrapped
		return C.svm_uint64()
	}
	return C.svm_int64()
}

// Allreduce combines every rank's in element by element with op and gives
// every rank the result in out (MPI_Allreduce); in and out have the same
// length and may be the same slice.
func Allreduce[T Reducible](c *Comm, in, out []T, op Op) error {
	if len(in) != len(out) {
		return fmt.Errorf("mpi: Allreduce of %d elements into %d", len(in), len(out))
	}
	if len(in) == 0 {
		return nil
	}
	src := unsafe.Pointer(unsafe.SliceData(in))
	if unsafe.SliceData(in) == unsafe.SliceData(out) {
		src = C.MPI_IN_PLACE
	}
	if rc := C.MPI_Allreduce(src, unsafe.Pointer(unsafe.SliceData(out)), C.int(len(in)), datatype[T](), C.svm_op(C.int(op)), c.comm); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Allreduce", -1, rc)
	}
	return nil
}

// Allgather gives every rank every rank's in, rank by rank, in out
// (MPI_Allgather); len(out) = Size × len(in).
func Allgather[T Number](c *Comm, in, out []T) error {
	if len(out) != c.size*len(in) {
		return fmt.Errorf("mpi: Allgather of %d elements from %d ranks into %d", len(in), c.size, len(out))
	}
	p, n, err := bytesOf(in)
	if err != nil || n == 0 {
		return err
	}
	if rc := C.MPI_Allgather(p, n, C.svm_byte(), unsafe.Pointer(unsafe.SliceData(out)), n, C.svm_byte(), c.comm); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Allgather", -1, rc)
	}
	return nil
}

// Iprobe reports whether a message from src with tag (wildcards allowed)
// can be received now, and its status, without receiving it.
func (c *Comm) Iprobe(src, tag int) (bool, Status, error) {
	st := C.svm_iprobe(c.comm, C.int(src), C.int(tag))
	if st.rc != C.MPI_SUCCESS {
		return false, Status{}, mpiError("MPI_Iprobe from rank", src, st.rc)
	}
	return st.flag != 0, status(st), nil
}

// Iallreduce starts Allreduce (MPI_Iallreduce): in and out (in place when
// they are one slice) stay pinned, and must not change, until the request
// completes.
func Iallreduce[T Reducible](c *Comm, in, out []T, op Op) (*Request, error) {
	if len(in) != len(out) {
		return nil, fmt.Errorf("mpi: Iallreduce of %d elements into %d", len(in), len(out))
	}
	r := &Request{req: new(C.MPI_Request), call: "MPI_Iallreduce", peer: -1, done: len(in) == 0}
	if r.done {
		return r, nil
	}
	dst := unsafe.Pointer(unsafe.SliceData(out))
	src := unsafe.Pointer(unsafe.SliceData(in))
	r.pin.Pin(dst)
	if src == dst {
		src = C.MPI_IN_PLACE
	} else {
		r.pin.Pin(src)
	}
	if rc := C.MPI_Iallreduce(src, dst, C.int(len(in)), datatype[T](), C.svm_op(C.int(op)), c.comm, r.req); rc != C.MPI_SUCCESS {
		r.pin.Unpin()
		return nil, mpiError("MPI_Iallreduce", -1, rc)
	}
	return r, nil
}

// Gathering is an Allgatherv in progress (IAllgatherv): every rank's bytes
// gathered on every rank, rank by rank, the parts' lengths exchanged
// first, then the parts.
type Gathering struct {
	c      *Comm
	in     []byte
	lens   []int64
	counts []C.int
	displs []C.int
	out    []byte
	at     []int
	req    *Request
	phase  int // 0 lengths, 1 parts, 2 done
}

// IAllgatherv starts Allgatherv (MPI_Iallgather of the lengths, then
// MPI_Iallgatherv); Test advances it. in must not change until it is done.
func IAllgatherv(c *Comm, in, buf []byte) (*Gathering, error) {
	g := &Gathering{c: c, in: in, lens: make([]int64, c.size), out: buf[:0]}
	g.lens[c.rank] = int64(len(in))
	r := &Request{req: new(C.MPI_Request), call: "MPI_Iallgather", peer: -1}
	r.pin.Pin(unsafe.Pointer(unsafe.SliceData(g.lens)))
	// In place: each rank's length is in its own slot of lens.
	if rc := C.MPI_Iallgather(C.MPI_IN_PLACE, 0, C.svm_byte(), unsafe.Pointer(unsafe.SliceData(g.lens)), 8, C.svm_byte(), c.comm, r.req); rc != C.MPI_SUCCESS {
		r.pin.Unpin()
		return nil, mpiError("MPI_Iallgather", -1, rc)
	}
	g.req = r
	return g, nil
}

// Test reports whether the gathering is done, starting its second part
// when its first is.
func (g *Gathering) Test() (bool, error) {
	for g.phase < 2 {
		done, _, err := g.req.Test()
		if err != nil || !done {
			return false, err
		}
		if g.phase == 1 {
			g.phase = 2
			break
		}
		if err := g.parts(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// parts starts the second part, the lengths known.
func (g *Gathering) parts() error {
	c := g.c
	g.at = make([]int, c.size+1)
	g.counts, g.displs = make([]C.int, c.size), make([]C.int, c.size)
	for r, n := range g.lens {
		if g.at[r]+int(n) > math.MaxInt32 {
			return fmt.Errorf("mpi: Allgatherv of %d bytes and more: over MPI's int count", g.at[r]+int(n))
		}
		g.counts[r], g.displs[r] = C.int(n), C.int(g.at[r])
		g.at[r+1] = g.at[r] + int(n)
	}
	if cap(g.out) < g.at[c.size] {
		g.out = make([]byte, g.at[c.size])
	}
	g.out = g.out[:g.at[c.size]]
	r := &Request{req: new(C.MPI_Request), call: "MPI_Iallgatherv", peer: -1}
	var send, recv unsafe.Pointer
	if len(g.in) > 0 {
		send = unsafe.Pointer(unsafe.SliceData(g.in))
		r.pin.Pin(send)
	}
	if len(g.out) > 0 {
		recv = unsafe.Pointer(unsafe.SliceData(g.out))
		r.pin.Pin(recv)
	}
	r.pin.Pin(unsafe.Pointer(unsafe.SliceData(g.counts)))
	r.pin.Pin(unsafe.Pointer(unsafe.SliceData(g.displs)))
	if rc := C.MPI_Iallgatherv(send, C.int(len(g.in)), C.svm_byte(), recv, &g.counts[0], &g.displs[0], C.svm_byte(), c.comm, r.req); rc != C.MPI_SUCCESS {
		r.pin.Unpin()
		return mpiError("MPI_Iallgatherv", -1, rc)
	}
	g.req, g.phase = r, 1
	return nil
}

// Result is the gathered parts, rank by rank, and where each begins (as
// Allgatherv's), once Test said done.
func (g *Gathering) Result() (out []byte, at []int) { return g.out, g.at }

// ErrTruncate matches (errors.Is) an error of MPI's class
// MPI_ERR_TRUNCATE: a message longer than its receive, or a collective
// the ranks called with different shapes.
var ErrTruncate = errors.New("mpi: truncated")

// callError is an MPI call's error: its message and MPI's error class.
type callError struct {
	msg   string
	class C.int
}

func (e *callError) Error() string { return e.msg }

func (e *callError) Is(target error) bool {
	return target == ErrTruncate && e.class == C.MPI_ERR_TRUNCATE
}

// mpiError is MPI's message for rc, naming the call and the peer rank
// (peer < 0: none).
func mpiError(call string, peer int, rc C.int) error {
	var buf [C.MPI_MAX_ERROR_STRING]C.char
	var n C.int
	msg := fmt.Sprintf("error %d", int(rc))
	if C.MPI_Error_string(rc, &buf[0], &n) == C.MPI_SUCCESS {
		msg = C.GoStringN(&buf[0], n)
	}
	e := &callError{class: rc}
	C.MPI_Error_class(rc, &e.class)
	switch {
	case peer >= 0:
		e.msg = fmt.Sprintf("mpi: %s %d: %s", call, peer, msg)
	case peer == AnySource && strings.HasSuffix(call, " rank"):
		e.msg = fmt.Sprintf("mpi: %s any: %s", call, msg)
	default:
		e.msg = fmt.Sprintf("mpi: %s: %s", call, msg)
	}
	return e
}
