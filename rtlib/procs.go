package rtlib

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/svmc/svmc/trace"
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

// shapeString formats name(lo:hi,lo:hi).
func shapeString(name string, dims []Extent) string {
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

// sameSizes reports whether two shapes have the same rank and extent sizes.
func sameSizes(a, b []Extent) bool {
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

// Procs is a processor arrangement. Its elements, in column-major order,
// live on processors L mod N.
type Procs struct {
	id    int
	name  string
	dims  []Extent
	sizes []int
	size  int
	pids  []int // pid of each element, column-major
}

// Rank is the number of dimensions.
func (a *Procs) Rank() int { return len(a.dims) }

// Extent is the index range of dimension d.
func (a *Procs) Extent(d int) Extent { return a.dims[d] }

// Size is the number of elements.
func (a *Procs) Size() int { return a.size }

// Pids returns the processor of each element in column-major order.
func (a *Procs) Pids() []int { return append([]int(nil), a.pids...) }

// ID is the arrangement id of the run (0 for the implicit arrangement of
// the APS).
func (a *Procs) ID() int { return a.id }

// Name is the arrangement's name.
func (a *Procs) Name() string { return a.name }

func (a *Procs) String() string { return shapeString(a.name, a.dims) }

// Processors declares a processor arrangement (or, with prev non-nil, an
// arrangement passed in: prev is returned, its shape must match) and writes
// proc-arrangement.
func (p *Proc) Processors(prev *Procs, sub, dir int, name string, dims ...Extent) *Procs {
	defer p.statRestore(p.statSwitch(grpDistr))
	if prev != nil {
		if !sameSizes(prev.dims, dims) {
			p.errorf(sub, dir, false, "processor arrangement %s does not match the shape of the argument %s",
				shapeString(name, dims), prev)
		}
		p.procArrangementRec(prev, sub, dir)
		return prev
	}
	a := &Procs{id: int(p.r.nextProcs.Add(1)), name: name, dims: append([]Extent(nil), dims...)}
	a.size = 1
	a.sizes = make([]int, len(dims))
	for i, d := range dims {
		a.sizes[i] = d.Size()
		a.size *= a.sizes[i]
	}
	n := p.r.n
	a.pids = make([]int, a.size)
	for l := range a.pids {
		a.pids[l] = l % n
	}
	if a.size > n {
		p.r.info(sub, dir, fmt.Sprintf("processor arrangement %s has %d elements for %d processors; mapped in column-major order, wrapping",
			a, a.size, n))
	}
	p.procArrangementRec(a, sub, dir)
	return a
}

func (p *Proc) procArrangementRec(a *Procs, sub, dir int) {
	if !p.on(trace.TagProcArrangement) || !p.isLeader() {
		return
	}
	p.begin(trace.TagProcArrangement, p.id)
	p.buf.Int(a.id)
	p.buf.Int(sub)
	p.buf.Int(dir)
	p.buf.Int(len(a.dims))
	p.extentRows(a.dims)
	p.buf.Ints(a.pids)
	p.end()
}

// extentRows appends a [rank][2] array of lo, hi.
func (p *Proc) extentRows(dims []Extent) {
	p.buf.Int(len(dims))
	p.buf.Int(2)
	for _, d := range dims {
		p.buf.Int(d.Lo)
		p.buf.Int(d.Hi)
	}
}

// coords returns the 0-based coordinates of the element with column-major
// linear index l.
func (a *Procs) coords(l int, c []int) []int {
	c = c[:0]
	for _, s := range a.sizes {
		c = append(c, l%s)
		l /= s
	}
	return c
}
