package rtlib

import (
	"sync"
	"sync/atomic"
)

// gMap maps goroutines (getg) to their Procs: the processors of the runs,
// and the detached Procs of other goroutines. Lookups take no lock and
// allocate nothing (an open-addressing table of atomic words, replaced by a
// larger copy when it fills); stores are serialised. An entry is cleared
// by storing nil; its key stays as a tombstone that a later store of the
// same goroutine reuses.
type gMap struct {
	tab gTablePtr
	mu  sync.Mutex
}

type gTable struct {
	keys []atomic.Uintptr
	vals []procPtr
	used int // keys set (under gMap.mu)
}

func gHash(g uintptr) uintptr { return uintptr(uint64(g>>4) * 0x9E3779B97F4A7C15 >> 32) }

// load returns the Proc stored for g, or nil.
func (m *gMap) load(g uintptr) *Proc {
	t := m.tab.Load()
	if t == nil {
		return nil
	}
	mask := uintptr(len(t.keys) - 1)
	for i := gHash(g) & mask; ; i = (i + 1) & mask {
		switch t.keys[i].Load() {
		case g:
			return t.vals[i].Load()
		case 0:
			return nil
		}
	}
}

// store sets the Proc of g (nil clears it).
func (m *gMap) store(g uintptr, p *Proc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tab.Load()
	if t == nil || 2*(t.used+1) > len(t.keys) {
		n := 64
		if t != nil {
			n = 2 * len(t.keys)
		}
		nt := &gTable{keys: make([]atomic.Uintptr, n), vals: make([]procPtr, n)}
		if t != nil {
			for i := range t.keys {
				if k, v := t.keys[i].Load(), t.vals[i].Load(); k != 0 && v != nil {
					nt.put(k, v)
				}
			}
		}
		m.tab.Store(nt)
		t = nt
	}
	t.put(g, p)
}

// put sets g's slot: the value first, so that a reader that sees the key
// sees its value.
func (t *gTable) put(g uintptr, p *Proc) {
	mask := uintptr(len(t.keys) - 1)
	for i := gHash(g) & mask; ; i = (i + 1) & mask {
		switch t.keys[i].Load() {
		case g:
			t.vals[i].Store(p)
			return
		case 0:
			t.vals[i].Store(p)
			t.keys[i].Store(g)
			t.used++
			return
		}
	}
}

// gProcs is the goroutines' Procs.
var gProcs gMap

// Current returns the Proc of the calling goroutine in a few nanoseconds,
// without allocating: a processor of the running program, or the
// goroutine's own detached Proc of the active run. Wrappers of instrumented
// functions call it when they are reached through function values, method
// values and interfaces. A detached Proc records nothing, its PDOs run all
// iterations serially and its barriers return at once (each such construct
// says so once, see detachedConstruct).
func Current() *Proc {
	g := getg()
	p := gProcs.load(g)
	if p != nil && !p.detached {
		return p
	}
	r := activeRun.Load()
	if r == nil {
		r = standaloneRun()
	}
	if p != nil && p.r == r {
		return p
	}
	p = &Proc{id: 0, r: r, aps: r.aps, detached: true}
	gProcs.store(g, p)
	return p
}
