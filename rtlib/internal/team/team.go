// Package team holds the synchronisation mechanics of the runtime's team of
// processors, apart from what the processors run: how a processor sleeps
// until a word changes (with no lost wake-up) and how long it spins and
// yields first (the spin policy, adaptive yielding), and the arrival word
// of a centralised barrier that also tells whether every member arrived at
// the same site. Package rtlib builds its active processor sets, dispatch
// and barriers on them; its await keeps the spin and yield loops inline,
// where a call per wait measurably cost (3-6% on an oversubscribed
// barrier).
package team

import (
	"runtime"
	"sync/atomic"
	"time"
)

// CacheLine pads hot words onto cache lines of their own.
const CacheLine = 64

// Waiter is the sleeping side of a processor. A waker changes the word the
// waiter waits for first and then calls Wakeup; a token is sent only by
// the waker that takes the sleeping flag, so the channel (capacity 1) never
// blocks and every token is taken by the Block that set the flag.
type Waiter struct {
	_        [CacheLine]byte
	sleeping atomic.Int32
	_        [CacheLine - 4]byte
	wake     chan struct{}
}

// Init makes the zero Waiter ready to block.
func (wt *Waiter) Init() { wt.wake = make(chan struct{}, 1) }

// Block sleeps until *w differs from old and returns the new value and
// true, or returns false at once when aborting is set (the caller stops
// or calls again).
func (wt *Waiter) Block(w *atomic.Uint64, old uint64, aborting *atomic.Bool) (uint64, bool) {
	for {
		wt.sleeping.Store(1)
		if v := w.Load(); v != old || aborting.Load() {
			if !wt.sleeping.CompareAndSwap(1, 0) {
				<-wt.wake // a waker took the flag: take its token
			}
			return v, v != old
		}
		<-wt.wake
		if v := w.Load(); v != old {
			return v, true
		}
	}
}

// Wakeup wakes the waiter if it sleeps in Block.
func (wt *Waiter) Wakeup() {
	if wt.sleeping.Load() != 0 && wt.sleeping.CompareAndSwap(1, 0) {
		wt.wake <- struct{}{}
	}
}

// Pending reports whether a wake-up token is waiting to be taken (the
// waiter is about to run).
func (wt *Waiter) Pending() bool { return len(wt.wake) > 0 }

// Bounds of adaptive yielding, and the blocked time below which yielding
// longer would have paid. The bound holds the wake-up of a blocked thread
// (16-30 µs on the 2-CPU virtual machine svmc is measured on): at 20 µs a
// wait woken at once counted as long, and a team whose loops follow one
// another closely paid two wake-ups a loop.
const (
	MinYields  = 2
	MaxYields  = 256
	ShortBlock = 100 * time.Microsecond
)

// Adapt is the next number of yielding rounds of an adaptive wait that
// yielded yields times and then blocked for blocked: a short block
// doubles it (the wait would have ended while yielding), a long one halves
// it, never below least.
func Adapt(yields, least int, blocked time.Duration) int {
	if blocked < ShortBlock {
		return min(MaxYields, 2*yields)
	}
	return max(least, yields/2)
}

// BarrierSpin is the spin of a barrier's wait (and of a member's wait for
// work) when every processor has a CPU: the others are running, so the
// last arrival is usually well under a microsecond away, while a yield
// (runtime.Gosched) costs about as much and delays seeing it. 1 024 loads,
// about a microsecond: EPCC's barrier on 2 processors 459-546 -> 294-332
// ns in three interleaved rounds, libgomp's 455-480 on that machine; the locks, whose holder may be
// descheduled, keep SpinPolicy's short spin (a long one made CRITICAL
// slower, 114-118 -> 157-159 ns).
const BarrierSpin = 1024

// SpinPolicy bounds the waiting of n processors on this machine: loads
// spun and least rounds of yielding before a waiter blocks. Long spins did
// not pay in measurements on the 2-CPU machines svmc targets: while one
// processor spins, the one it waits for is often not running (more
// processors than CPUs, other programs), so the spin is a few dozen loads
// (a barrier's wait where every processor has a CPU spins BarrierSpin).
func SpinPolicy(n int) (spin, yields int) {
	if n <= runtime.GOMAXPROCS(0) {
		return 32, MinYields
	}
	return 16, 1
}

// Barrier is the arrival word of a centralised barrier of n members: each
// arrival adds 1 to the low half and the hash of its site to the high half,
// so that the last arrival sees at once whether every member arrived at
// its own site (but for a 2^-32 chance) and compares the sites themselves
// only if not. Gen counts completed barriers.
type Barrier struct {
	_       [CacheLine]byte
	Arrived atomic.Uint64
	_       [CacheLine - 8]byte
	Gen     atomic.Uint64
	_       [CacheLine - 8]byte
}

// Arrive adds an arrival with site hash h; it returns the arrival word
// after it.
func (b *Barrier) Arrive(h uint64) uint64 { return b.Arrived.Add(1 + h<<32) }

// Complete reports whether the arrival word v is the n-th arrival, and
// whether all n arrived with the same site hash h.
func Complete(v uint64, n int, h uint64) (last, sameSite bool) {
	return uint32(v) == uint32(n), uint32(v>>32) == uint32(n)*uint32(h)
}

// Release starts the next round: the arrivals are reset and the
// generation the waiters watch is bumped.
func (b *Barrier) Release() {
	b.Arrived.Store(0)
	b.Gen.Add(1)
}

// SiteHash is a 32-bit hash of a barrier site.
func SiteHash(sub, dir, kind int) uint64 {
	x := uint64(sub)*0x9E3779B97F4A7C15 ^ uint64(dir)*0xC2B2AE3D27D4EB4F ^ uint64(kind)*0x165667B19E3779F9
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	return uint64(uint32(x ^ x>>32))
}
