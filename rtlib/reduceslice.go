package rtlib

import (
	"encoding/binary"
	"unsafe"

	"github.com/svmc/svmc/rtlib/internal/stats"
)

// A reduction of a slice or an array of numbers (reduction(+: hist), as
// OpenMP reduces an array section) combines element by element: each member
// accumulates into a private copy that starts from the operator's identity,
// and the copies are folded into the variable's elements in processor
// order after the loop (between ranks, in rank order, the same on every
// rank). A histogram is the common case.

// IdentitySlice is a private copy for a reduction of like with op: a new
// slice of like's length, every element op's identity.
func IdentitySlice[T Real](like []T, op Op) []T {
	s := make([]T, len(like))
	FillIdentity(s, op)
	return s
}

// FillIdentity sets every element of s to op's identity (the private copy
// of an array: a copy of the array, then filled).
func FillIdentity[T Real](s []T, op Op) {
	var z T
	if id := Identity(z, op); id != z {
		for k := range s {
			s[k] = id
		}
	} else {
		clear(s)
	}
}

// ReduceSlice records this member's private copy part of the element-wise
// reduction of dst with op (svm_rt.SumOf, MaxOf, AndBitsOf, ...).
func ReduceSlice[T Real](it *Iter, dst, part []T, op func(a, b T) T) {
	if st := it.p.st; st != nil { // statistics: Lib-DVM's StartRedGrp
		defer st.Restore(st.Switch(stats.StartRed))
	}
	it.values = append(it.values, &slicePart[T]{dst, part, op})
}

// The bit operators of ReduceSlice (the scalar ones reduce with ReduceInto).

// AndBitsOf is & as a reduction operator.
func AndBitsOf[T Integer](a, b T) T { return a & b }

// OrBitsOf is | as a reduction operator.
func OrBitsOf[T Integer](a, b T) T { return a | b }

// XorBitsOf is ^ as a reduction operator.
func XorBitsOf[T Integer](a, b T) T { return a ^ b }

// Integer is what the bit operators take.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

type slicePart[T Real] struct {
	dst, part []T
	op        func(a, b T) T
}

func (s *slicePart[T]) fold() {
	for k := range min(len(s.dst), len(s.part)) {
		s.dst[k] = s.op(s.dst[k], s.part[k])
	}
}

func (s *slicePart[T]) foldInto(other valuePartial) {
	d := other.(*slicePart[T]).dst
	for k := range min(len(d), len(s.part)) {
		d[k] = s.op(d[k], s.part[k])
	}
}

// sameVariable reports whether the two slices are one variable's: the
// same first element (the private copy of an array is a slice of it).
func (s *slicePart[T]) sameVariable(other valuePartial) bool {
	o, ok := other.(*slicePart[T])
	return ok && len(o.dst) == len(s.dst) && (len(s.dst) == 0 || &o.dst[0] == &s.dst[0])
}

func (s *slicePart[T]) merge(other valuePartial) {
	o := other.(*slicePart[T]).part
	for k := range min(len(s.part), len(o)) {
		s.part[k] = s.op(s.part[k], o[k])
	}
}

// encode appends the length and the elements' bytes: the ranks run one
// build of the program on one kind of machine.
func (s *slicePart[T]) encode(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s.part)))
	if len(s.part) == 0 {
		return b
	}
	return append(b, unsafe.Slice((*byte)(unsafe.Pointer(&s.part[0])), len(s.part)*int(unsafe.Sizeof(s.part[0])))...)
}

func (s *slicePart[T]) acrossRanks(encs [][]byte) error {
	size := int(unsafe.Sizeof(*new(T)))
	all := make([]T, len(s.part))
	for k := range encs {
		b := encs[k]
		if len(b) < 8 {
			return errShortValue
		}
		n := binary.LittleEndian.Uint64(b)
		b = b[8:]
		if n != uint64(len(all)) || uint64(len(b)) < n*uint64(size) {
			return errShortValue
		}
		x := make([]T, n)
		if n > 0 {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), int(n)*size), b)
		}
		encs[k] = b[int(n)*size:]
		if k == 0 {
			copy(all, x)
			continue
		}
		for i := range all {
			all[i] = s.op(all[i], x[i])
		}
	}
	copy(s.part, all)
	return nil
}
