package sched

import (
	"strconv"
	"strings"
)

// Extent is the index range lo:hi (inclusive) of one dimension.
type Extent struct{ Lo, Hi int }

// Size is the number of indices, 0 if Hi < Lo.
func (e Extent) Size() int {
	if e.Hi < e.Lo {
		return 0
	}
	return e.Hi - e.Lo + 1
}

func (e Extent) String() string { return strconv.Itoa(e.Lo) + ":" + strconv.Itoa(e.Hi) }

// ShapeString formats name(lo:hi,lo:hi).
func ShapeString(name string, dims []Extent) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i, d := range dims {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d.String())
	}
	b.WriteByte(')')
	return b.String()
}

// SameSizes reports whether two shapes have the same rank and extent sizes.
func SameSizes(a, b []Extent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Size() != b[i].Size() {
			return false
		}
	}
	return true
}

// Range is one loop of a PDO nest: Lo, Lo+Step, ... up to Hi inclusive.
// Step must not be 0.
type Range struct{ Lo, Hi, Step int }

// Count is the number of iterations.
func (r Range) Count() int {
	switch {
	case r.Step > 0 && r.Hi >= r.Lo:
		return (r.Hi-r.Lo)/r.Step + 1
	case r.Step < 0 && r.Lo >= r.Hi:
		return (r.Lo-r.Hi)/(-r.Step) + 1
	}
	return 0
}

// FloorDiv is x / y rounded towards minus infinity.
func FloorDiv(x, y int) int {
	q := x / y
	if x%y != 0 && (x < 0) != (y < 0) {
		q--
	}
	return q
}

// CeilDiv is x / y rounded towards plus infinity.
func CeilDiv(x, y int) int { return -FloorDiv(-x, y) }

// ToCounts converts the template index intervals runs, reached by loop r
// through subscript value+off, into sorted intervals of iteration counts.
func ToCounts(runs []Ivl, r Range, off int) []Ivl {
	n := r.Count()
	var out []Ivl
	for _, iv := range runs {
		a, b := iv.Lo-off-r.Lo, iv.Hi-off-r.Lo // value - Lo range
		var klo, khi int
		if r.Step > 0 {
			klo, khi = CeilDiv(a, r.Step), FloorDiv(b, r.Step)
		} else {
			klo, khi = CeilDiv(b, r.Step), FloorDiv(a, r.Step)
		}
		klo, khi = max(klo, 0), min(khi, n-1)
		if klo <= khi {
			out = append(out, Ivl{klo, khi})
		}
	}
	if r.Step < 0 {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// FullBox is one interval of all counts per loop.
func FullBox(space []Range) [][]Ivl {
	box := make([][]Ivl, len(space))
	for l, r := range space {
		box[l] = []Ivl{{0, r.Count() - 1}}
	}
	return box
}

// EmptyBox reports whether a box holds no iteration.
func EmptyBox(box [][]Ivl) bool {
	for _, s := range box {
		if len(s) == 0 || s[0].Lo > s[len(s)-1].Hi {
			return true
		}
	}
	return false
}

// SingleBox reports whether boxes is one box of one interval per loop.
func SingleBox(space []Range, boxes [][][]Ivl) bool {
	if len(boxes) != 1 || len(space) == 0 {
		return len(boxes) == 0
	}
	for _, s := range boxes[0] {
		if len(s) != 1 {
			return false
		}
	}
	return true
}
