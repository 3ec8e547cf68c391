package sched

import (
	"slices"
	"strconv"
)

// FormatKind is the kind of a distribution format.
type FormatKind uint8

const (
	KindBlock FormatKind = iota + 1
	KindCyclic
	KindGenBlock
	KindIndirect
	KindStar
)

// Format is the distribution format of one dimension. The zero Format is
// invalid.
type Format struct {
	kind FormatKind
	k    int
	vals []int
}

// Block is BLOCK: blocks of ceil(n/p) consecutive indices.
func Block() Format { return Format{kind: KindBlock} }

// Cyclic is CYCLIC(k): blocks of k indices dealt round robin; Cyclic(1) is
// CYCLIC.
func Cyclic(k int) Format { return Format{kind: KindCyclic, k: k} }

// GeneralBlock is GENERAL_BLOCK(sizes): one block per processor of the
// dimension, of the given sizes.
func GeneralBlock(sizes []int) Format { return Format{kind: KindGenBlock, vals: sizes} }

// Indirect is INDIRECT(owner): owner[i] is the index, in the processor
// dimension, of the owner of the i-th index of the dimension.
func Indirect(owner []int) Format { return Format{kind: KindIndirect, vals: owner} }

// Star is `*`: the dimension is not distributed.
func Star() Format { return Format{kind: KindStar} }

// Kind is the format's kind.
func (f Format) Kind() FormatKind { return f.kind }

func (f Format) String() string {
	switch f.kind {
	case KindBlock:
		return "block"
	case KindCyclic:
		if f.k == 1 {
			return "cyclic"
		}
		return "cyclic(" + strconv.Itoa(f.k) + ")"
	case KindGenBlock:
		return "general_block"
	case KindIndirect:
		return "indirect"
	case KindStar:
		return "*"
	}
	return "invalid format"
}

// Distributed reports whether the format maps the dimension onto a
// processor dimension.
func (f Format) Distributed() bool { return f.kind != KindStar }

// BlockCyclicLength is the format as pdo-info's "block cyclic length"
// writes it: 0 block, k for cyclic(k), -2 general_block, -3 indirect, -1
// not distributed.
func (f Format) BlockCyclicLength() int {
	switch f.kind {
	case KindBlock:
		return 0
	case KindCyclic:
		return f.k
	case KindGenBlock:
		return -2
	case KindIndirect:
		return -3
	}
	return -1
}

// Equal reports whether two formats are the same, their values included.
func (f Format) Equal(g Format) bool {
	return f.kind == g.kind && f.k == g.k && slices.Equal(f.vals, g.vals)
}

// Clone is f with a copy of its values, which the caller may change.
func (f Format) Clone() Format {
	f.vals = slices.Clone(f.vals)
	return f
}

// CountDistributed counts the formats that are not `*`.
func CountDistributed(formats []Format) int {
	n := 0
	for _, f := range formats {
		if f.Distributed() {
			n++
		}
	}
	return n
}
