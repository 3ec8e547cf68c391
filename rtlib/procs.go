package rtlib

import (
	"github.com/svmc/svmc/rtlib/internal/sched"
	"github.com/svmc/svmc/rtlib/internal/stats"

	"fmt"

	"github.com/svmc/svmc/trace"
)

// Extent is the index range lo:hi (inclusive) of one dimension.
type Extent = sched.Extent

// Procs is a processor arrangement. Its elements, in column-major order,
// live on processors L mod N.
type Procs struct {
	id    int
	name  string
	dims  []Extent
	sizes []int
	size  int
	pids  []int      // pid of each element, column-major
	g     sched.Grid // the arrangement as distributions see it (sharing the slices)
}

// newProcs is the arrangement name(dims) whose element l lives on
// processor pid(l).
func newProcs(id int, name string, dims []Extent, pid func(l int) int) *Procs {
	g := sched.NewGrid(id, name, dims, pid)
	return &Procs{id: id, name: name, dims: g.Dims, sizes: g.Sizes, size: len(g.Pids), pids: g.Pids, g: *g}
}

// The queries of a nil *Procs answer as for one processor: in the serial
// build (go run without svmc) no processors directive runs, so an
// arrangement variable stays nil, and its queries must not fail.

// Rank is the number of dimensions.
func (a *Procs) Rank() int {
	if a == nil {
		return 1
	}
	return len(a.dims)
}

// Extent is the index range of dimension d.
func (a *Procs) Extent(d int) Extent {
	if a == nil {
		return Extent{Lo: 0, Hi: 0}
	}
	return a.dims[d]
}

// Size is the number of elements.
func (a *Procs) Size() int {
	if a == nil {
		return 1
	}
	return a.size
}

// Pids returns the processor of each element in column-major order.
func (a *Procs) Pids() []int {
	if a == nil {
		return []int{0}
	}
	return append([]int(nil), a.pids...)
}

// ID is the arrangement id of the run (0 for the implicit arrangement of
// the APS).
func (a *Procs) ID() int {
	if a == nil {
		return 0
	}
	return a.id
}

// Name is the arrangement's name.
func (a *Procs) Name() string {
	if a == nil {
		return ""
	}
	return a.name
}

func (a *Procs) String() string {
	if a == nil {
		return "<nil arrangement>"
	}
	return sched.ShapeString(a.name, a.dims)
}

// Processors declares a processor arrangement (or, with prev non-nil, an
// arrangement passed in: prev is returned, its shape must match) and writes
// proc-arrangement.
func (p *Proc) Processors(prev *Procs, sub, dir int, name string, dims ...Extent) *Procs {
	at := Site{Sub: sub, Dir: dir}
	defer p.st.Restore(p.st.Switch(stats.Distr))
	if prev != nil {
		if !sched.SameSizes(prev.dims, dims) {
			p.errorf(at, false, "processor arrangement %s does not match the shape of the argument %s",
				sched.ShapeString(name, dims), prev)
		}
		p.procArrangementRec(prev, at)
		return prev
	}
	n := p.r.n
	for d, e := range dims {
		// An extent of nprocs() is known at run time only (nprocs()/2
		// is 0 on one processor).
		if e.Hi < e.Lo {
			p.errorf(at, false, "processor arrangement %s: dimension %d has no processors (%d:%d) with %d processors in the run",
				name, d+1, e.Lo, e.Hi, n)
		}
	}
	a := newProcs(int(p.r.nextProcs.Add(1)), name, append([]Extent(nil), dims...), func(l int) int { return l % n })
	if a.size > n {
		p.r.info(at, "processor arrangement %s has %d elements for %d processors; mapped in column-major order, wrapping",
			a, a.size, n)
	}
	p.procArrangementRec(a, at)
	return a
}

func (p *Proc) procArrangementRec(a *Procs, at Site) {
	if !p.mapOn(trace.TagProcArrangement) || !p.isLeader() {
		return
	}
	p.begin(trace.TagProcArrangement, p.id)
	p.buf.Int(a.id)
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
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

// Span is one subscript of an arrangement section: Lo:Hi, an index (Lo ==
// Hi), or All for the whole dimension.
type Span struct {
	Lo, Hi int
	All    bool
}

// ProcsSection is the section a(spans...) of an arrangement, as `section
// processors(P(2:3))` names it: an arrangement of the elements of a the
// subscripts select, on the same processors, so that a section of the
// program can be put on chosen processors. A subscript outside a's bounds
// is a user error at directive (sub, dir). The same section of the same
// arrangement is the same *Procs on every call (its proc-arrangement
// record is written once).
func (p *Proc) ProcsSection(a *Procs, sub, dir int, spans ...Span) *Procs {
	at := Site{Sub: sub, Dir: dir}
	if a == nil {
		return nil // the serial build's arrangement: no placement
	}
	if len(spans) != len(a.dims) {
		p.errorf(at, false, "processors(%s(...)): %d subscripts for an arrangement of %d dimensions", a.name, len(spans), len(a.dims))
	}
	dims := make([]Extent, len(spans))
	for d, s := range spans {
		e := a.dims[d]
		if s.All {
			s.Lo, s.Hi = e.Lo, e.Hi
		}
		if s.Lo > s.Hi || s.Lo < e.Lo || s.Hi > e.Hi {
			p.errorf(at, false, "processors(%s(...)): subscript %d:%d of dimension %d is outside %s", a.name, s.Lo, s.Hi, d+1, a)
		}
		dims[d] = Extent{Lo: s.Lo, Hi: s.Hi}
	}
	key := fmt.Sprint(a.id, dims)
	r := p.r
	r.mu.Lock()
	if s := r.sections[key]; s != nil {
		r.mu.Unlock()
		return s
	}
	// Element l of the section (column-major) is the element of a with the
	// same subscripts; a's element k lives on a.pids[k].
	s := newProcs(int(r.nextProcs.Add(1)), a.name, dims, func(l int) int {
		k, stride := 0, 1
		for d, e := range dims {
			n := e.Hi - e.Lo + 1
			k += (l%n + e.Lo - a.dims[d].Lo) * stride
			l /= n
			stride *= a.dims[d].Hi - a.dims[d].Lo + 1
		}
		return a.pids[k]
	})
	if r.sections == nil {
		r.sections = map[string]*Procs{}
	}
	r.sections[key] = s
	r.mu.Unlock()
	p.procArrangementRec(s, at) // outside mu: a flush may wait for the writer, which takes mu on an error
	return s
}
