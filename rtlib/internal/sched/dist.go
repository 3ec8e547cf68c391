package sched

import (
	"fmt"
	"slices"
	"sort"
)

// Grid is a processor arrangement as a distribution sees it: the extents
// of its dimensions and the processor of each element, column-major.
type Grid struct {
	ID    int // arrangement id of the run (0: the implicit one of the APS)
	Name  string
	Dims  []Extent
	Sizes []int // Dims' sizes
	Pids  []int // processor of each element, column-major
}

// NewGrid is the arrangement name(dims) whose element l lives on
// processor pid(l).
func NewGrid(id int, name string, dims []Extent, pid func(l int) int) *Grid {
	g := &Grid{ID: id, Name: name, Dims: dims, Sizes: make([]int, len(dims))}
	size := 1
	for i, d := range dims {
		g.Sizes[i] = d.Size()
		size *= g.Sizes[i]
	}
	g.Pids = make([]int, size)
	for l := range g.Pids {
		g.Pids[l] = pid(l)
	}
	return g
}

func (g *Grid) String() string { return ShapeString(g.Name, g.Dims) }

// Coords returns the 0-based coordinates of the element with column-major
// linear index l.
func (g *Grid) Coords(l int, c []int) []int {
	c = c[:0]
	for _, s := range g.Sizes {
		c = append(c, l%s)
		l /= s
	}
	return c
}

// DimMap maps the indices Lo..Lo+N-1 of one dimension (of a template, or
// the iteration counts of one loop) onto the P coordinates of arrangement
// dimension Adim (-1: not distributed).
type DimMap struct {
	Kind   FormatKind
	Lo, N  int
	Adim   int
	P      int
	Plo    int   // lowest index of the arrangement dimension
	Bs     int   // block size (block) or k (cyclic)
	Starts []int // general block: offset of block c, len P+1
	Owner  []int // indirect: 0-based coordinate of each offset
}

// NewDimMap checks format f for a dimension of extent e on arrangement
// dimension adim of g (adim -1 for `*`) and builds its map. what names the
// dimension in messages.
func NewDimMap(f Format, e Extent, g *Grid, adim int, what string) (DimMap, error) {
	return newDimMap(f, e, g, adim, func() string { return what })
}

// newDimMap is NewDimMap with the dimension's name made only for an error
// (a distribution made at every call of a function formatted it each time).
func newDimMap(f Format, e Extent, g *Grid, adim int, what func() string) (DimMap, error) {
	m := DimMap{Kind: f.kind, Lo: e.Lo, N: e.Size(), Adim: adim}
	if f.kind == KindStar {
		return m, nil
	}
	if f.kind == 0 {
		return m, fmt.Errorf("%s: invalid distribution format", what())
	}
	pe := g.Dims[adim]
	m.P, m.Plo = pe.Size(), pe.Lo
	switch f.kind {
	case KindBlock:
		m.Bs = max(1, (m.N+m.P-1)/m.P)
	case KindCyclic:
		if f.k < 1 {
			return m, fmt.Errorf("%s: cyclic(%d): the block length must be positive", what(), f.k)
		}
		m.Bs = f.k
	case KindGenBlock:
		if len(f.vals) != m.P {
			return m, fmt.Errorf("%s: general_block has %d sizes for %d processors of dimension %d of %s", what(), len(f.vals), m.P, adim+1, g)
		}
		m.Starts = make([]int, m.P+1)
		for c, s := range f.vals {
			if s < 0 {
				return m, fmt.Errorf("%s: general_block size %d is negative", what(), s)
			}
			m.Starts[c+1] = m.Starts[c] + s
		}
		if m.Starts[m.P] != m.N {
			return m, fmt.Errorf("%s: general_block sizes sum to %d, the extent %s has %d indices", what(), m.Starts[m.P], e, m.N)
		}
	case KindIndirect:
		if len(f.vals) != m.N {
			return m, fmt.Errorf("%s: indirect has %d owners for the %d indices of %s", what(), len(f.vals), m.N, e)
		}
		m.Owner = make([]int, m.N)
		for i, v := range f.vals {
			if v < pe.Lo || v > pe.Hi {
				return m, fmt.Errorf("%s: indirect owner %d of index %d is outside %s of dimension %d of %s", what(), v, e.Lo+i, pe, adim+1, g)
			}
			m.Owner[i] = v - pe.Lo
		}
	}
	return m, nil
}

// Coord is the 0-based coordinate owning index i (i within the extent).
func (m *DimMap) Coord(i int) int {
	off := i - m.Lo
	switch m.Kind {
	case KindBlock:
		return off / m.Bs
	case KindCyclic:
		return (off / m.Bs) % m.P
	case KindGenBlock:
		return sort.SearchInts(m.Starts[1:], off+1)
	case KindIndirect:
		return m.Owner[off]
	}
	return 0
}

// Runs appends the index intervals owned by coordinate c, ascending; for
// `*` the whole extent.
func (m *DimMap) Runs(c int, dst []Ivl) []Ivl {
	if m.N <= 0 {
		return dst
	}
	switch m.Kind {
	case KindStar:
		dst = append(dst, Ivl{m.Lo, m.Lo + m.N - 1})
	case KindBlock:
		if a := c * m.Bs; a < m.N {
			dst = append(dst, Ivl{m.Lo + a, m.Lo + min(m.N, a+m.Bs) - 1})
		}
	case KindCyclic:
		for a := c * m.Bs; a < m.N; a += m.P * m.Bs {
			dst = append(dst, Ivl{m.Lo + a, m.Lo + min(m.N, a+m.Bs) - 1})
		}
	case KindGenBlock:
		if a, b := m.Starts[c], m.Starts[c+1]; a < b {
			dst = append(dst, Ivl{m.Lo + a, m.Lo + b - 1})
		}
	case KindIndirect:
		for i := 0; i < m.N; {
			if m.Owner[i] != c {
				i++
				continue
			}
			j := i
			for j+1 < m.N && m.Owner[j+1] == c {
				j++
			}
			dst = append(dst, Ivl{m.Lo + i, m.Lo + j})
			i = j + 1
		}
	}
	return dst
}

// Segs is Runs as tree segments: a cyclic dimension's runs as at most two
// segments however many runs there are (the runs of full length as one
// periodic segment, then a shorter last run), so that planning a cyclic
// loop takes constant space; the other formats' runs one segment each.
func (m *DimMap) Segs(c int) []Seg {
	if m.Kind != KindCyclic {
		var out []Seg
		for _, iv := range m.Runs(c, nil) {
			out = append(out, Seg{Lo: iv.Lo, Hi: iv.Hi})
		}
		return out
	}
	a := c * m.Bs
	if m.N <= 0 || a >= m.N {
		return nil
	}
	period := m.P * m.Bs
	runs := (m.N - a + period - 1) / period
	last := a + (runs-1)*period
	full := runs
	if last+m.Bs > m.N {
		full--
	}
	var out []Seg
	if full > 0 {
		out = append(out, Seg{Lo: m.Lo + a, Hi: m.Lo + a + m.Bs - 1, Period: period, Reps: full})
	}
	if full < runs {
		out = append(out, Seg{Lo: m.Lo + last, Hi: m.Lo + m.N - 1})
	}
	return out
}

// Distribution is the distribution of a template (or of a loop nest's
// iteration counts) onto an arrangement.
type Distribution struct {
	Onto    *Grid
	Dims    []DimMap
	Strides []int     // column-major strides of the arrangement
	Rec     *Recorded // ownership decided by a dynamic schedule (Dims are then `*`)
}

// Same reports whether d and o give every element the same owner: the
// same maps onto arrangements of the same shape and processors (a
// template whose directives run again, in a function called again and
// again, is distributed anew to the same owners). A recorded
// distribution is only itself.
func (d *Distribution) Same(o *Distribution) bool {
	if d == o {
		return true
	}
	if d == nil || o == nil || d.Rec != nil || o.Rec != nil || len(d.Dims) != len(o.Dims) ||
		!slices.Equal(d.Strides, o.Strides) || !slices.Equal(d.Onto.Sizes, o.Onto.Sizes) || !slices.Equal(d.Onto.Pids, o.Onto.Pids) {
		return false
	}
	for i, m := range d.Dims {
		n := o.Dims[i]
		if m.Kind != n.Kind || m.Lo != n.Lo || m.N != n.N || m.Adim != n.Adim || m.P != n.P || m.Plo != n.Plo || m.Bs != n.Bs ||
			!slices.Equal(m.Starts, n.Starts) || !slices.Equal(m.Owner, n.Owner) {
			return false
		}
	}
	return true
}

// NewDistribution checks formats for the extents dims onto g and builds the
// maps; the k-th distributed dimension maps onto arrangement dimension k.
func NewDistribution(g *Grid, formats []Format, dims []Extent, what func(d int) string) (*Distribution, error) {
	d := &Distribution{Onto: g, Dims: make([]DimMap, len(dims))}
	k := 0
	for i, f := range formats {
		adim := -1
		if f.Distributed() {
			adim = k
			k++
		}
		m, err := newDimMap(f, dims[i], g, adim, func() string { return what(i) })
		if err != nil {
			return nil, err
		}
		d.Dims[i] = m
	}
	d.Strides = make([]int, len(g.Sizes))
	s := 1
	for i, n := range g.Sizes {
		d.Strides[i] = s
		s *= n
	}
	return d, nil
}

// With is d for templates of the shape dims (equal sizes): a linked
// distribution.
func (d *Distribution) With(dims []Extent) *Distribution {
	w := &Distribution{Onto: d.Onto, Dims: append([]DimMap(nil), d.Dims...), Strides: d.Strides, Rec: d.Rec}
	for i := range w.Dims {
		w.Dims[i].Lo = dims[i].Lo
	}
	return w
}

// OwnedBoxes appends the boxes of template indices owned by processor pid,
// each as lo_1,hi_1,...,lo_r,hi_r: for every arrangement element on pid in
// column-major order, the product of the runs of every dimension.
func (d *Distribution) OwnedBoxes(pid int, dst []int) []int {
	if d.Rec != nil {
		d.Rec.Boxes(d.Dims, pid, func(_ int, box []Ivl) {
			for _, iv := range box {
				dst = append(dst, iv.Lo, iv.Hi)
			}
		})
		return dst
	}
	g := d.Onto
	var c []int
	runs := make([][]Ivl, len(d.Dims))
	for l, q := range g.Pids {
		if q != pid {
			continue
		}
		c = g.Coords(l, c)
		empty := false
		for i := range d.Dims {
			m := &d.Dims[i]
			cc := 0
			if m.Adim >= 0 {
				cc = c[m.Adim]
			}
			runs[i] = m.Runs(cc, runs[i][:0])
			if len(runs[i]) == 0 {
				empty = true
			}
		}
		if empty {
			continue
		}
		dst = appendProduct(dst, runs, make([]int, len(runs)))
	}
	return dst
}

// appendProduct appends every combination of one interval per dimension,
// lexicographically.
func appendProduct(dst []int, runs [][]Ivl, pos []int) []int {
	for {
		for i, k := range pos {
			dst = append(dst, runs[i][k].Lo, runs[i][k].Hi)
		}
		i := len(pos) - 1
		for ; i >= 0; i-- {
			pos[i]++
			if pos[i] < len(runs[i]) {
				break
			}
			pos[i] = 0
		}
		if i < 0 {
			return dst
		}
	}
}
