package rtlib

import (
	"reflect"
	"sync"

	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// The program's own sync.Mutex and sync.RWMutex. Go code serialises its
// updates with a mutex as often as with a critical directive, and a
// processor blocked in mu.Lock() inside a pdo looked busy: the report
// counted the wait as work. svmc compiles each mu.Lock() statement of an
// instrumented function into LockAt(site, &mu) (mu.RLock() into RLockAt),
// which takes the mutex at once when it is free, as Lock does, and only
// when another goroutine holds it finds the calling processor and records
// the wait (wait-mutex-start, wait-mutex-stop; stage 3, the LOCK request
// word): an uncontended Lock costs a TryLock through an interface.

// Mutex is what LockAt locks: *sync.Mutex, *sync.RWMutex, or a pointer to
// a struct that embeds one.
type Mutex interface {
	Lock()
	TryLock() bool
}

// RMutex is what RLockAt read-locks: *sync.RWMutex, or a pointer to a
// struct that embeds one.
type RMutex interface {
	RLock()
	TryRLock() bool
}

// LockAt locks m as m.Lock() does, recording the wait at mutex site site
// when another goroutine holds it.
func LockAt(site int, m Mutex) {
	if !m.TryLock() {
		mutexWait(site, m, m.Lock)
	}
}

// LockerAt locks l as l.Lock() does: a sync.Locker whose value is a mutex
// LockAt takes (*sync.Mutex, *sync.RWMutex, a pointer to a struct that
// embeds one) has its wait recorded as LockAt records it; any other Locker
// (an RWMutex's RLocker, the program's own type) is locked as it is.
func LockerAt(site int, l sync.Locker) {
	if m, ok := l.(Mutex); ok {
		LockAt(site, m)
		return
	}
	l.Lock()
}

// RLockAt read-locks m as m.RLock() does, recording the wait at mutex
// site site when a writer holds it.
func RLockAt(site int, m RMutex) {
	if !m.TryRLock() {
		mutexWait(site, m, m.RLock)
	}
}

// mutexWait calls lock, which blocks, between the records of the wait
// when the calling goroutine is a traced processor or lane, and counts the
// wait as synchronisation in a processor's statistics (a lock directive's
// group, seed 000).
func mutexWait(site int, m any, lock func()) {
	p := gProcs.load(getg())
	if p == nil {
		lock()
		return
	}
	tr := p.on(trace.TagWaitMutexStart)
	if tr {
		p.begin(trace.TagWaitMutexStart, p.id)
		p.buf.Int(site)
		p.buf.Int(int(reflect.ValueOf(m).Pointer()))
		p.end()
	}
	sv := p.st.Switch(stats.Sync)
	ws := p.st.Wait()
	lock()
	p.st.Restore(ws)
	p.st.Restore(sv)
	if tr && p.on(trace.TagWaitMutexStop) {
		p.begin(trace.TagWaitMutexStop, p.id)
		p.buf.Int(site)
		p.end()
	}
}
