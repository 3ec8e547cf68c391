package rtlib

import (
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// rtLock is the lock of a critical section name, of a LOCK variable or of
// an atomic-update stripe. The fast path is one compare-and-swap; a
// processor that finds it held spins briefly, then registers as a waiter and
// waits in await (bounded spin, yield, block; abortable, visible to the
// deadlock watchdog). Unlock wakes every registered waiter and they race for
// the lock (no hand-off: a descheduled waiter does not hold up the others).
type rtLock struct {
	_       [cacheLine]byte
	state   atomic.Uint32 // 1 held
	nwait   atomic.Int32  // registered waiters
	gen     atomic.Uint64 // bumped by an unlock that saw waiters
	mu      sync.Mutex    // guards waiters
	waiters []*Proc
	_       [cacheLine]byte
}

func (l *rtLock) lock(p *Proc, k waitKind, at Site) {
	if !l.state.CompareAndSwap(0, 1) {
		l.lockSlow(p, k, at)
	}
}

func (l *rtLock) lockSlow(p *Proc, k waitKind, at Site) {
	if p.r.ranks != nil && p.mode == replicated && p.copyOfZero() {
		// The holder may wait for a grant deferred until this copy's
		// body is done (ranklock.go): none is deferred while it waits.
		p.r.copyWaits(true)
		defer p.r.copyWaits(false)
	}
	if p.detached {
		// A goroutine rtlib did not start has no wake channel: yield.
		for !l.state.CompareAndSwap(0, 1) {
			runtime.Gosched()
		}
		return
	}
	for i := 0; i < p.r.spin; i++ {
		if l.state.Load() == 0 && l.state.CompareAndSwap(0, 1) {
			return
		}
	}
	l.mu.Lock()
	l.waiters = append(l.waiters, p)
	l.mu.Unlock()
	l.nwait.Add(1)
	for {
		g := l.gen.Load()
		if l.state.CompareAndSwap(0, 1) {
			break
		}
		p.waitFor(k, at)
		p.await(&l.gen, g, false)
	}
	l.nwait.Add(-1)
	l.mu.Lock()
	for i, q := range l.waiters {
		if q == p {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			break
		}
	}
	l.mu.Unlock()
}

func (l *rtLock) unlock() {
	l.state.Store(0)
	if l.nwait.Load() != 0 {
		l.gen.Add(1)
		l.mu.Lock()
		for _, q := range l.waiters {
			q.wakeup()
		}
		l.mu.Unlock()
	}
}

// lockTable holds a run's locks, created on first use and kept for the run.
type lockTable struct {
	mu     sync.Mutex
	crit   map[string]*rtLock
	vars   map[uintptr]*rtLock
	stripe *[atomStripes]rtLock
}

const atomStripes = 64

func (t *lockTable) critLock(name string) *rtLock {
	t.mu.Lock()
	defer t.mu.Unlock()
	return lockFor(&t.crit, name)
}

func (t *lockTable) varLock(addr uintptr) *rtLock {
	t.mu.Lock()
	defer t.mu.Unlock()
	return lockFor(&t.vars, addr)
}

// lockFor returns the lock of key in *m, making the map and the lock on
// first use. The caller holds the table's mutex.
func lockFor[K comparable](m *map[K]*rtLock, key K) *rtLock {
	l := (*m)[key]
	if l == nil {
		if *m == nil {
			*m = map[K]*rtLock{}
		}
		l = &rtLock{}
		(*m)[key] = l
	}
	return l
}

func (t *lockTable) atomLock(addr uintptr) *rtLock {
	t.mu.Lock()
	if t.stripe == nil {
		t.stripe = new([atomStripes]rtLock)
	}
	s := t.stripe
	t.mu.Unlock()
	return &s[(addr>>3)%atomStripes]
}

// procSync is a processor's part of the locks: what it holds, and caches of
// the run's tables so that a directive executed again takes no run-wide
// mutex.
type procSync struct {
	held   []*rtLock   // taken by LOCK directives, innermost last
	locks  []heldLock  // the LOCK directives that took them
	crit   []critEntry // critical sections entered, innermost last
	vars   []LockVar   // scratch: the variables of a LOCK directive, sorted
	rows   []int       // scratch: locking address rows
	cc     [4]critCache
	ccNext int
	vc     [16]varCache
}

// critEntry is a critical section a processor is in, and where it
// entered (its exit is written there if a panic leaves it: abandon).
type critEntry struct {
	l  *rtLock
	at Site
}

// heldLock is what one LOCK directive took, and where.
type heldLock struct {
	h  Held
	at Site
}

type critCache struct {
	name string
	l    *rtLock
}

type varCache struct {
	addr uintptr
	l    *rtLock
}

func (p *Proc) critLock(name string) *rtLock {
	s := &p.sync
	for i := range s.cc {
		if c := &s.cc[i]; c.l != nil && c.name == name {
			return c.l
		}
	}
	l := p.r.locks.critLock(name)
	s.cc[s.ccNext] = critCache{name, l}
	s.ccNext = (s.ccNext + 1) % len(s.cc)
	return l
}

func (p *Proc) varLock(addr uintptr) *rtLock {
	c := &p.sync.vc[(addr>>3)%uintptr(len(p.sync.vc))]
	if c.l != nil && c.addr == addr {
		return c.l
	}
	l := p.r.locks.varLock(addr)
	*c = varCache{addr, l}
	return l
}

// CriticalEnter enters the critical section name ("" is the unnamed one;
// one lock per name for the whole run): wait-crit-sec-start, wait until no
// other processor is inside, wait-crit-sec-stop.
func (p *Proc) CriticalEnter(sub, dir int, name string) {
	at := Site{Sub: sub, Dir: dir}
	if p.on(trace.TagWaitCritSecStart) {
		p.syncRec(trace.TagWaitCritSecStart, at)
	}
	l := p.critLock(name)
	if len(p.sync.crit) > 0 {
		p.dropStaleCrit(l, at)
	}
	sv := p.st.Switch(stats.Sync)
	ws := p.st.Wait()
	l.lock(p, wCritical, at)
	if p.r.ranks != nil && p.globalSync() {
		p.globalAcquire(at, wCritical, []string{critKey(name)})
	}
	p.st.Restore(ws)
	p.st.Restore(sv)
	p.sync.crit = append(p.sync.crit, critEntry{l, at})
	if p.on(trace.TagWaitCritSecStop) {
		p.syncRec(trace.TagWaitCritSecStop, at)
	}
}

// CriticalExit leaves the innermost critical section entered (exit-crit-sec,
// written before the section is released).
func (p *Proc) CriticalExit(sub, dir int, name string) {
	at := Site{Sub: sub, Dir: dir}
	s := &p.sync
	n := len(s.crit)
	if n == 0 {
		p.errorf(at, true, "end of critical section %q without its start", name)
	}
	if p.on(trace.TagExitCritSec) {
		p.syncRec(trace.TagExitCritSec, at)
	}
	l := s.crit[n-1].l
	s.crit[n-1] = critEntry{}
	s.crit = s.crit[:n-1]
	if p.r.ranks != nil && p.globalSync() {
		p.globalRelease(at, wCritical)
	}
	l.unlock()
}

// LockVar is the address range of a variable a LOCK directive locks.
type LockVar struct{ Addr, Size uintptr }

// VarOf is the address range of *v (a variable or an element).
func VarOf[T any](v *T) LockVar {
	return LockVar{Addr: uintptr(unsafe.Pointer(v)), Size: unsafe.Sizeof(*v)}
}

// Held is what a LOCK directive took; Unlock releases it. global: it also
// took global locks between ranks (ranklock.go).
type Held struct {
	start, n int32
	global   bool
}

// Lock takes the locks of vars: one lock per variable, identified by its
// start address (an element and its array are different variables), taken
// in address order (duplicates once), so two LOCK directives over the same
// variables cannot deadlock each other. Records: wait-lock-start with one
// "locking address" row [start_hi, start_lo, end_hi, end_lo] per variable
// in address order (end is the address of the variable's last byte; each
// address as two 32-bit halves, the low one as a two's complement int),
// then wait-lock-stop once all are taken.
func (p *Proc) Lock(sub, dir int, vars ...LockVar) Held {
	at := Site{Sub: sub, Dir: dir}
	s := &p.sync
	vs := append(s.vars[:0], vars...)
	for i := 1; i < len(vs); i++ { // insertion sort: a directive locks few variables
		for j := i; j > 0 && vs[j].Addr < vs[j-1].Addr; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
	k := 0
	for i := range vs {
		if i == 0 || vs[i].Addr != vs[k-1].Addr {
			vs[k] = vs[i]
			k++
		}
	}
	vs = vs[:k]
	s.vars = vs
	if p.on(trace.TagWaitLockStart) {
		rows := s.rows[:0]
		for _, v := range vs {
			rows = appendAddrRow(rows, v)
		}
		s.rows = rows
		p.begin(trace.TagWaitLockStart, p.id)
		p.buf.Int(at.Sub)
		p.buf.Int(at.Dir)
		p.buf.IntRows(4, rows)
		p.end()
	}
	if len(s.locks) > 0 {
		p.dropStaleLocks(at)
	}
	h := Held{start: int32(len(s.held)), n: int32(len(vs))}
	sv := p.st.Switch(stats.Sync)
	ws := p.st.Wait()
	for _, v := range vs {
		l := p.varLock(v.Addr)
		l.lock(p, wLock, at)
		s.held = append(s.held, l)
	}
	if p.r.ranks != nil && p.globalSync() {
		h.global = p.globalLockVars(at, vs)
	}
	p.st.Restore(ws)
	p.st.Restore(sv)
	if p.on(trace.TagWaitLockStop) {
		p.syncRec(trace.TagWaitLockStop, at)
	}
	s.locks = append(s.locks, heldLock{h, at})
	return h
}

// Unlock releases what Lock took (release-lock, written before the locks
// are released), and any lock taken after it and still held.
func (p *Proc) Unlock(sub, dir int, h Held) {
	at := Site{Sub: sub, Dir: dir}
	if p.on(trace.TagReleaseLock) {
		p.syncRec(trace.TagReleaseLock, at)
	}
	if h.global {
		p.globalRelease(at, wLock)
	}
	s := &p.sync
	for i := len(s.held) - 1; i >= int(h.start); i-- {
		s.held[i].unlock()
		s.held[i] = nil
	}
	s.held = s.held[:min(int(h.start), len(s.held))]
	for len(s.locks) > 0 && s.locks[len(s.locks)-1].h.start >= h.start {
		s.locks = s.locks[:len(s.locks)-1]
	}
}

// A panic that the program recovers inside a critical section or under a
// LOCK leaves it held: the generated code has no defer (it would cost every
// entry), and in the serial program there is nothing to release. The
// processor itself notices: when the same directive runs again while its
// earlier entry is still held and the function holding the directive is
// on the stack once (the frame that entered is gone: a panic unwound it —
// a recursion has it twice, and a second directive of the same section
// inside the first is a deadlock svmc reports), and at the end of its
// share of a pdo or of a section whatever it entered there and still holds
// (a critical section or LOCK of a body ends in it). Such holds end then,
// with their records at their sites. Only a directive run again while
// held pays for the look at the stack.

// dropStaleCrit ends the entry of critical section l at site at that p
// left by a panic, and every critical section it entered after it.
func (p *Proc) dropStaleCrit(l *rtLock, at Site) {
	for i, c := range p.sync.crit {
		if c.l == l && c.at == at && !reentered("CriticalEnter") {
			p.abandon(i, len(p.sync.locks))
			return
		}
	}
}

// dropStaleLocks releases what the LOCK directive at site at took when a
// panic left it, and every LOCK after it.
func (p *Proc) dropStaleLocks(at Site) {
	for k, hl := range p.sync.locks {
		if hl.at == at && !reentered("Lock") {
			p.abandon(len(p.sync.crit), k)
			return
		}
	}
}

// reentered reports whether the function that called the runtime's
// method (the user's function holding the directive) is on the stack more
// than once: a recursion, whose outer call still holds what it entered.
func reentered(method string) bool {
	pcs := make([]uintptr, 256)
	for {
		n := runtime.Callers(1, pcs)
		if n < len(pcs) || len(pcs) >= 1<<16 {
			pcs = pcs[:n]
			break
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
	frames := runtime.CallersFrames(pcs)
	user, seen := "", 0
	for {
		f, more := frames.Next()
		switch {
		case user == "" && strings.HasSuffix(f.Function, ".(*Proc)."+method):
			user = "?" // the next frame is the user's
		case user == "?":
			user, seen = f.Function, 1
		case user != "" && f.Function == user:
			seen++
		}
		if !more {
			break
		}
	}
	return seen > 1
}

// abandon leaves the critical sections and releases the locks a panic
// unwound through, down to the given depths of p.sync.crit and locks, with
// their records (written at the sites where they were taken).
func (p *Proc) abandon(crit, locks int) {
	s := &p.sync
	for len(s.crit) > crit {
		at := s.crit[len(s.crit)-1].at
		p.CriticalExit(at.Sub, at.Dir, "")
	}
	if len(s.locks) > locks {
		hl := s.locks[locks]
		p.Unlock(hl.at.Sub, hl.at.Dir, hl.h)
	}
}

func appendAddrRow(rows []int, v LockVar) []int {
	a := uint64(v.Addr)
	e := a + uint64(max(v.Size, 1)) - 1
	return append(rows, int(int32(uint32(a>>32))), int(int32(uint32(a))), int(int32(uint32(e>>32))), int(int32(uint32(e))))
}

// atomClass is how a variable is updated atomically: with hardware atomics
// on its 4 or 8 bytes, or under a stripe lock. AtomicAdd and AtomicUpdate
// choose it from the type and the alignment alone, so both agree on a
// variable.
type atomClass uint8

const (
	acLock atomClass = iota
	acInt32
	acInt64
	acFloat32
	acFloat64
	acBits64 // other 8-byte scalars (complex64)
)

func classOf[T any](x *T) atomClass {
	c := acLock
	switch any(x).(type) {
	case *int, *uint, *uintptr:
		c = acInt64
		if unsafe.Sizeof(*x) == 4 {
			c = acInt32
		}
	case *int64, *uint64:
		c = acInt64
	case *int32, *uint32:
		c = acInt32
	case *float64:
		c = acFloat64
	case *float32:
		c = acFloat32
	default:
		c = kindClass(reflect.TypeFor[T]().Kind(), unsafe.Sizeof(*x))
	}
	switch c {
	case acInt64, acFloat64, acBits64:
		if uintptr(unsafe.Pointer(x))%8 != 0 {
			return acLock
		}
	}
	return c
}

func kindClass(k reflect.Kind, size uintptr) atomClass {
	switch k {
	case reflect.Int, reflect.Uint, reflect.Uintptr, reflect.Int64, reflect.Uint64, reflect.Int32, reflect.Uint32:
		if size == 8 {
			return acInt64
		}
		return acInt32
	case reflect.Float64:
		return acFloat64
	case reflect.Float32:
		return acFloat32
	case reflect.Complex64:
		return acBits64
	}
	return acLock
}

// atomicRec writes wait-lock-start with the address row of the variable.
func (p *Proc) atomicRec(at Site, addr, size uintptr) {
	s := &p.sync
	s.rows = appendAddrRow(s.rows[:0], LockVar{addr, size})
	p.begin(trace.TagWaitLockStart, p.id)
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
	p.buf.IntRows(4, s.rows)
	p.end()
}

// AtomicAdd performs *x += delta atomically: a hardware add for integers of
// 4 and 8 bytes, a compare-and-swap loop for floats and complex64, a stripe
// lock for the others. Records: wait-lock-start with x's address row,
// wait-lock-stop (ATOMIC UPDATE, Table 1).
func AtomicAdd[T Number](p *Proc, sub, dir int, x *T, delta T) {
	at := Site{Sub: sub, Dir: dir}
	tr := p.on(trace.TagWaitLockStart)
	if tr {
		p.atomicRec(at, uintptr(unsafe.Pointer(x)), unsafe.Sizeof(*x))
	}
	ptr := unsafe.Pointer(x)
	if p.r.ranks != nil && rankAtomicAddAt(p, at, x, delta) {
		if tr && p.on(trace.TagWaitLockStop) {
			p.syncRec(trace.TagWaitLockStop, at)
		}
		return
	}
	switch classOf(x) {
	case acInt64:
		atomic.AddUint64((*uint64)(ptr), *(*uint64)(unsafe.Pointer(&delta)))
	case acInt32:
		atomic.AddUint32((*uint32)(ptr), *(*uint32)(unsafe.Pointer(&delta)))
	case acFloat64:
		d := *(*float64)(unsafe.Pointer(&delta))
		for {
			old := atomic.LoadUint64((*uint64)(ptr))
			if atomic.CompareAndSwapUint64((*uint64)(ptr), old, math.Float64bits(math.Float64frombits(old)+d)) {
				break
			}
		}
	case acFloat32:
		d := *(*float32)(unsafe.Pointer(&delta))
		for {
			old := atomic.LoadUint32((*uint32)(ptr))
			if atomic.CompareAndSwapUint32((*uint32)(ptr), old, math.Float32bits(math.Float32frombits(old)+d)) {
				break
			}
		}
	case acBits64:
		for {
			old := atomic.LoadUint64((*uint64)(ptr))
			v := *(*T)(unsafe.Pointer(&old)) + delta
			if atomic.CompareAndSwapUint64((*uint64)(ptr), old, *(*uint64)(unsafe.Pointer(&v))) {
				break
			}
		}
	default:
		l := p.r.locks.atomLock(uintptr(ptr))
		l.lock(p, wAtomic, at)
		*x += delta
		l.unlock()
	}
	if tr && p.on(trace.TagWaitLockStop) {
		p.syncRec(trace.TagWaitLockStop, at)
	}
}

// AtomicUpdate performs *x = f(*x) atomically. For numeric variables of 4
// and 8 bytes it is a compare-and-swap loop, so f may run more than once
// and must not have side effects; for other types f runs once under a
// stripe lock. Records as AtomicAdd.
func AtomicUpdate[T any](p *Proc, sub, dir int, x *T, f func(T) T) {
	at := Site{Sub: sub, Dir: dir}
	tr := p.on(trace.TagWaitLockStart)
	if tr {
		p.atomicRec(at, uintptr(unsafe.Pointer(x)), unsafe.Sizeof(*x))
	}
	ptr := unsafe.Pointer(x)
	if p.r.ranks != nil && rankAtomicUpdateAt(p, at, x, f) {
		if tr && p.on(trace.TagWaitLockStop) {
			p.syncRec(trace.TagWaitLockStop, at)
		}
		return
	}
	switch classOf(x) {
	case acInt64, acFloat64, acBits64:
		for {
			old := atomic.LoadUint64((*uint64)(ptr))
			v := f(*(*T)(unsafe.Pointer(&old)))
			if atomic.CompareAndSwapUint64((*uint64)(ptr), old, *(*uint64)(unsafe.Pointer(&v))) {
				break
			}
		}
	case acInt32, acFloat32:
		for {
			old := atomic.LoadUint32((*uint32)(ptr))
			v := f(*(*T)(unsafe.Pointer(&old)))
			if atomic.CompareAndSwapUint32((*uint32)(ptr), old, *(*uint32)(unsafe.Pointer(&v))) {
				break
			}
		}
	default:
		l := p.r.locks.atomLock(uintptr(ptr))
		l.lock(p, wAtomic, at)
		*x = f(*x)
		l.unlock()
	}
	if tr && p.on(trace.TagWaitLockStop) {
		p.syncRec(trace.TagWaitLockStop, at)
	}
}

// ProcessorID is the processor running the calling code: 0 outside a run
// (and on goroutines rtlib did not start).
func ProcessorID() int {
	if activeRun.Load() == nil {
		return 0
	}
	return Current().ID()
}

// NumProcessors is the number of processors of the run, 1 outside a run.
func NumProcessors() int {
	if r := activeRun.Load(); r != nil {
		return r.n
	}
	return 1
}
