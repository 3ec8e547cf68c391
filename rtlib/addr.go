package rtlib

import (
	"reflect"
	"unsafe"
)

// AddrOf is the address of a shared variable, for the variable-mapping
// record of a shared directive.
func AddrOf[T any](v *T) uintptr { return uintptr(unsafe.Pointer(v)) }

// Storage is the memory of a shared variable: the address of its first
// element and its size in bytes.
type Storage struct {
	Addr uintptr
	Size int
	// ptr is Addr as a pointer: it keeps the storage alive for the run's
	// segment table and lets var-check read it.
	ptr unsafe.Pointer
	// pointers: the elements hold pointers, which cannot travel between
	// the ranks of an MPI job.
	pointers bool
}

// StorageOf is the storage of the elements of s (svmc passes an array as
// a[:]; of a slice of slices, the slice headers). Its argument escapes, so
// that a shared array is allocated on the heap where it stays put: a
// goroutine's stack moves when it grows, and with it the pages.
func StorageOf[T any](s []T) Storage {
	if storageEscapes {
		storageSink = s
	}
	if len(s) == 0 {
		return Storage{}
	}
	var z T
	ptr := unsafe.Pointer(unsafe.SliceData(s))
	return Storage{Addr: uintptr(ptr), Size: len(s) * int(unsafe.Sizeof(z)), ptr: ptr, pointers: hasPointers(reflect.TypeFor[T]())}
}

// RowsOf is the storage of each row of a slice of slices (a shared
// [][]float64 keeps its elements in one allocation per row).
func RowsOf[T any](s [][]T) []Storage {
	out := make([]Storage, 0, len(s))
	for _, row := range s {
		if st := StorageOf(row); st.Size > 0 {
			out = append(out, st)
		}
	}
	return out
}

// storageSink and storageEscapes make StorageOf's argument escape (the
// store never happens; escape analysis cannot tell).
var (
	storageSink    any
	storageEscapes bool
)
