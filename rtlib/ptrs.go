package rtlib

import (
	"sync/atomic"
	"unsafe"
)

// Atomic pointers to the runtime's types, written out instead of
// sync/atomic's generic Pointer. Instrumented code refers to Proc and
// Iter, and the Go compiler compiles the methods of every instance of a
// generic type reachable from a type a package refers to again in that
// package: with atomic.Pointer and sync.Map fields, a main of ten lines
// compiled some 250 functions of the runtime's (120 ms instead of 20 on
// the smoke program). These cost the same: atomic.Pointer is this.

// segTabPtr is an atomic *segTable.
type segTabPtr struct{ p unsafe.Pointer }

func (a *segTabPtr) Load() *segTable   { return (*segTable)(atomic.LoadPointer(&a.p)) }
func (a *segTabPtr) Store(v *segTable) { atomic.StorePointer(&a.p, unsafe.Pointer(v)) }

// gTablePtr is an atomic *gTable.
type gTablePtr struct{ p unsafe.Pointer }

func (a *gTablePtr) Load() *gTable   { return (*gTable)(atomic.LoadPointer(&a.p)) }
func (a *gTablePtr) Store(v *gTable) { atomic.StorePointer(&a.p, unsafe.Pointer(v)) }

// procPtr is an atomic *Proc.
type procPtr struct{ p unsafe.Pointer }

func (a *procPtr) Load() *Proc   { return (*Proc)(atomic.LoadPointer(&a.p)) }
func (a *procPtr) Store(v *Proc) { atomic.StorePointer(&a.p, unsafe.Pointer(v)) }

// spansPtr is an atomic *[]pageSpan.
type spansPtr struct{ p unsafe.Pointer }

func (a *spansPtr) Load() *[]pageSpan   { return (*[]pageSpan)(atomic.LoadPointer(&a.p)) }
func (a *spansPtr) Store(v *[]pageSpan) { atomic.StorePointer(&a.p, unsafe.Pointer(v)) }

// bytesPtr is an atomic *[]byte.
type bytesPtr struct{ p unsafe.Pointer }

func (a *bytesPtr) Load() *[]byte   { return (*[]byte)(atomic.LoadPointer(&a.p)) }
func (a *bytesPtr) Store(v *[]byte) { atomic.StorePointer(&a.p, unsafe.Pointer(v)) }

// runPtr is an atomic *run.
type runPtr struct{ p unsafe.Pointer }

func (a *runPtr) Load() *run { return (*run)(atomic.LoadPointer(&a.p)) }
func (a *runPtr) Swap(v *run) *run {
	return (*run)(atomic.SwapPointer(&a.p, unsafe.Pointer(v)))
}
func (a *runPtr) CompareAndSwap(old, v *run) bool {
	return atomic.CompareAndSwapPointer(&a.p, unsafe.Pointer(old), unsafe.Pointer(v))
}
