package rtlib

import "unsafe"

// AddrOf is the address of a shared variable, for the variable-mapping
// record of a shared directive.
func AddrOf[T any](v *T) uintptr { return uintptr(unsafe.Pointer(v)) }
