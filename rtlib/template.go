package rtlib

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/svmc/svmc/trace"
)

// Template is an HPF-style template: an index space whose distribution onto
// a processor arrangement drives predefined scheduling.
type Template struct {
	id        int
	name      string
	rank      int
	dims      []Extent
	defined   bool
	creatable bool
	dist      *distribution
}

// Rank is the number of dimensions.
func (t *Template) Rank() int { return t.rank }

// Extent is the index range of dimension d (zero when undefined).
func (t *Template) Extent(d int) Extent {
	if !t.defined {
		return Extent{}
	}
	return t.dims[d]
}

// Size is the number of elements (0 when undefined).
func (t *Template) Size() int {
	if !t.defined {
		return 0
	}
	n := 1
	for _, d := range t.dims {
		n *= d.Size()
	}
	return n
}

// Defined reports whether the template has a shape (created and neither
// destroyed nor undefined).
func (t *Template) Defined() bool { return t.defined }

// ID is the template id of the run.
func (t *Template) ID() int { return t.id }

// Name is the template's name.
func (t *Template) Name() string { return t.name }

// Distributed reports whether the template has a distribution.
func (t *Template) Distributed() bool { return t.defined && t.dist != nil }

func (t *Template) String() string {
	if !t.defined {
		s := t.name + "("
		for i := 0; i < t.rank; i++ {
			if i > 0 {
				s += ","
			}
			s += ":"
		}
		return s + ")"
	}
	return shapeString(t.name, t.dims)
}

// Template declares a fixed or automatic template (or, with prev non-nil, a
// template passed in: prev is returned, its shape must match) and writes
// template-info.
func (p *Proc) Template(prev *Template, sub, dir int, name string, dims ...Extent) *Template {
	defer p.statRestore(p.statSwitch(grpDistr))
	if prev != nil {
		if !prev.defined || !sameSizes(prev.dims, dims) {
			p.errorf(sub, dir, false, "template %s does not match the shape of the argument %s", shapeString(name, dims), prev)
		}
		p.templateInfoRec(prev, sub, dir)
		return prev
	}
	t := &Template{id: int(p.r.nextTemplate.Add(1)), name: name, rank: len(dims),
		dims: append([]Extent(nil), dims...), defined: true}
	p.templateInfoRec(t, sub, dir)
	return t
}

// CreatableTemplate declares a creatable template of the given rank; it has
// no shape until Create. No record is written.
func (p *Proc) CreatableTemplate(prev *Template, sub, dir int, name string, rank int) *Template {
	if prev != nil {
		if prev.rank != rank {
			p.errorf(sub, dir, false, "template %s of rank %d does not match the rank %d of the argument %s", name, rank, prev.rank, prev)
		}
		return prev
	}
	return &Template{id: int(p.r.nextTemplate.Add(1)), name: name, rank: rank, creatable: true}
}

// Create gives a creatable template its shape (dropping any distribution)
// and writes template-info.
func (p *Proc) Create(t *Template, sub, dir int, dims ...Extent) {
	defer p.statRestore(p.statSwitch(grpDistr))
	if len(dims) != t.rank {
		p.errorf(sub, dir, false, "create %s: %d extents for a template of rank %d", shapeString(t.name, dims), len(dims), t.rank)
	}
	t.dims = append(t.dims[:0], dims...)
	t.defined = true
	t.dist = nil
	p.templateInfoRec(t, sub, dir)
}

// Destroy destroys a created template (destroy-template); it becomes
// undefined.
func (p *Proc) Destroy(t *Template, sub, dir int) {
	defer p.statRestore(p.statSwitch(grpDistr))
	t.defined, t.dims, t.dist = false, nil, nil
	p.templateIDRec(trace.TagDestroyTemplate, t)
}

// Undef makes a template undefined (undef-template): its shape and
// distribution are dropped.
func (p *Proc) Undef(t *Template, sub, dir int) {
	defer p.statRestore(p.statSwitch(grpDistr))
	t.defined, t.dims, t.dist = false, nil, nil
	p.templateIDRec(trace.TagUndefTemplate, t)
}

func (p *Proc) templateInfoRec(t *Template, sub, dir int) {
	if !p.on(trace.TagTemplateInfo) || !p.isLeader() {
		return
	}
	p.begin(trace.TagTemplateInfo, p.id)
	p.buf.Int(t.id)
	p.buf.Int(sub)
	p.buf.Int(dir)
	p.buf.Int(t.rank)
	p.extentRows(t.dims)
	p.end()
}

func (p *Proc) templateIDRec(tag trace.Tag, t *Template) {
	if !p.on(tag) || !p.isLeader() {
		return
	}
	p.begin(tag, p.id)
	p.buf.Int(t.id)
	p.end()
}

type fmtKind uint8

const (
	fBlock fmtKind = iota + 1
	fCyclic
	fGenBlock
	fIndirect
	fStar
)

// Format is the distribution format of one dimension.
type Format struct {
	kind fmtKind
	k    int
	vals []int
}

// Block is BLOCK: blocks of ceil(n/p) consecutive indices.
func Block() Format { return Format{kind: fBlock} }

// Cyclic is CYCLIC(k): blocks of k indices dealt round robin; Cyclic(1) is
// CYCLIC.
func Cyclic(k int) Format { return Format{kind: fCyclic, k: k} }

// GeneralBlock is GENERAL_BLOCK(sizes): one block per processor of the
// dimension, of the given sizes.
func GeneralBlock(sizes []int) Format { return Format{kind: fGenBlock, vals: sizes} }

// Indirect is INDIRECT(owner): owner[i] is the index, in the processor
// dimension, of the owner of the i-th index of the dimension.
func Indirect(owner []int) Format { return Format{kind: fIndirect, vals: owner} }

// Star is `*`: the dimension is not distributed.
func Star() Format { return Format{kind: fStar} }

func (f Format) String() string {
	switch f.kind {
	case fBlock:
		return "block"
	case fCyclic:
		if f.k == 1 {
			return "cyclic"
		}
		return "cyclic(" + strconv.Itoa(f.k) + ")"
	case fGenBlock:
		return "general_block"
	case fIndirect:
		return "indirect"
	case fStar:
		return "*"
	}
	return "invalid format"
}

// distributed reports whether the format maps the dimension onto a
// processor dimension.
func (f Format) distributed() bool { return f.kind != fStar }

// dimMap maps the indices lo..lo+n-1 of one dimension (of a template, or
// the iteration counts of one loop) onto the p coordinates of arrangement
// dimension adim (-1: not distributed).
type dimMap struct {
	kind   fmtKind
	lo, n  int
	adim   int
	p      int
	plo    int   // lowest index of the arrangement dimension
	bs     int   // block size (block) or k (cyclic)
	starts []int // general block: offset of block c, len p+1
	owner  []int // indirect: 0-based coordinate of each offset
}

// newDimMap checks format f for a dimension of extent e on arrangement
// dimension adim of a (adim -1 for `*`) and builds its map. what names the
// dimension in messages.
func newDimMap(f Format, e Extent, a *Procs, adim int, what string) (dimMap, error) {
	m := dimMap{kind: f.kind, lo: e.Lo, n: e.Size(), adim: adim}
	if f.kind == fStar {
		return m, nil
	}
	if f.kind == 0 {
		return m, fmt.Errorf("%s: invalid distribution format", what)
	}
	pe := a.dims[adim]
	m.p, m.plo = pe.Size(), pe.Lo
	switch f.kind {
	case fBlock:
		m.bs = max(1, (m.n+m.p-1)/m.p)
	case fCyclic:
		if f.k < 1 {
			return m, fmt.Errorf("%s: cyclic(%d): the block length must be positive", what, f.k)
		}
		m.bs = f.k
	case fGenBlock:
		if len(f.vals) != m.p {
			return m, fmt.Errorf("%s: general_block has %d sizes for %d processors of dimension %d of %s", what, len(f.vals), m.p, adim+1, a)
		}
		m.starts = make([]int, m.p+1)
		for c, s := range f.vals {
			if s < 0 {
				return m, fmt.Errorf("%s: general_block size %d is negative", what, s)
			}
			m.starts[c+1] = m.starts[c] + s
		}
		if m.starts[m.p] != m.n {
			return m, fmt.Errorf("%s: general_block sizes sum to %d, the extent %s has %d indices", what, m.starts[m.p], e, m.n)
		}
	case fIndirect:
		if len(f.vals) != m.n {
			return m, fmt.Errorf("%s: indirect has %d owners for the %d indices of %s", what, len(f.vals), m.n, e)
		}
		m.owner = make([]int, m.n)
		for i, v := range f.vals {
			if v < pe.Lo || v > pe.Hi {
				return m, fmt.Errorf("%s: indirect owner %d of index %d is outside %s of dimension %d of %s", what, v, e.Lo+i, pe, adim+1, a)
			}
			m.owner[i] = v - pe.Lo
		}
	}
	return m, nil
}

// coord is the 0-based coordinate owning index i (i within the extent).
func (m *dimMap) coord(i int) int {
	off := i - m.lo
	switch m.kind {
	case fBlock:
		return off / m.bs
	case fCyclic:
		return (off / m.bs) % m.p
	case fGenBlock:
		return sort.SearchInts(m.starts[1:], off+1)
	case fIndirect:
		return m.owner[off]
	}
	return 0
}

// runs appends the index intervals owned by coordinate c, ascending; for
// `*` the whole extent.
func (m *dimMap) runs(c int, dst []ivl) []ivl {
	if m.n <= 0 {
		return dst
	}
	switch m.kind {
	case fStar:
		dst = append(dst, ivl{m.lo, m.lo + m.n - 1})
	case fBlock:
		if a := c * m.bs; a < m.n {
			dst = append(dst, ivl{m.lo + a, m.lo + min(m.n, a+m.bs) - 1})
		}
	case fCyclic:
		for a := c * m.bs; a < m.n; a += m.p * m.bs {
			dst = append(dst, ivl{m.lo + a, m.lo + min(m.n, a+m.bs) - 1})
		}
	case fGenBlock:
		if a, b := m.starts[c], m.starts[c+1]; a < b {
			dst = append(dst, ivl{m.lo + a, m.lo + b - 1})
		}
	case fIndirect:
		for i := 0; i < m.n; {
			if m.owner[i] != c {
				i++
				continue
			}
			j := i
			for j+1 < m.n && m.owner[j+1] == c {
				j++
			}
			dst = append(dst, ivl{m.lo + i, m.lo + j})
			i = j + 1
		}
	}
	return dst
}

// distribution is the distribution of a template (or of a loop nest's
// iteration counts) onto an arrangement.
type distribution struct {
	onto    *Procs
	dims    []dimMap
	strides []int     // column-major strides of the arrangement
	rec     *recorded // ownership decided by a dynamic schedule (dims are then `*`)
}

// newDistribution checks formats for the extents dims onto a and builds the
// maps; the k-th distributed dimension maps onto arrangement dimension k.
func newDistribution(a *Procs, formats []Format, dims []Extent, what func(d int) string) (*distribution, error) {
	d := &distribution{onto: a, dims: make([]dimMap, len(dims))}
	k := 0
	for i, f := range formats {
		adim := -1
		if f.distributed() {
			adim = k
			k++
		}
		m, err := newDimMap(f, dims[i], a, adim, what(i))
		if err != nil {
			return nil, err
		}
		d.dims[i] = m
	}
	d.strides = make([]int, len(a.sizes))
	s := 1
	for i, n := range a.sizes {
		d.strides[i] = s
		s *= n
	}
	return d, nil
}

// countDistributed counts the formats that are not `*`.
func countDistributed(formats []Format) int {
	n := 0
	for _, f := range formats {
		if f.distributed() {
			n++
		}
	}
	return n
}

// Distribute distributes the templates ts with one format per template
// dimension onto the arrangement onto (nil: the 1-D arrangement of the APS)
// and writes template-dist: one record per processor of the APS. It also
// serves REDISTRIBUTE.
func (p *Proc) Distribute(sub, dir int, onto *Procs, formats []Format, ts ...*Template) {
	defer p.statRestore(p.statSwitch(grpDistr))
	if onto == nil {
		onto = p.aps.procs
	}
	if onto.size == 0 {
		p.errorf(sub, dir, false, "distribute onto the empty processor arrangement %s", onto)
	}
	for _, t := range ts {
		if !t.defined {
			p.errorf(sub, dir, false, "distribute %s: the template is undefined", t)
		}
		if len(formats) != t.rank {
			p.errorf(sub, dir, false, "distribute %s: %d formats for a template of rank %d", t, len(formats), t.rank)
		}
		if nd := countDistributed(formats); nd != onto.Rank() {
			p.errorf(sub, dir, false, "distribute %s: %d distributed dimensions onto %s of rank %d", t, nd, onto, onto.Rank())
		}
		d, err := newDistribution(onto, formats, t.dims, func(i int) string {
			return fmt.Sprintf("distribute %s: dimension %d", t, i+1)
		})
		if err != nil {
			p.errorf(sub, dir, false, "%v", err)
		}
		t.dist = d
		p.templateDistRecs(t)
	}
}

// DistributeWith gives each template of ts the current distribution of with
// (linked distribution); the shapes must be equal. It writes template-dist.
func (p *Proc) DistributeWith(sub, dir int, with *Template, ts ...*Template) {
	defer p.statRestore(p.statSwitch(grpDistr))
	if !with.defined || with.dist == nil {
		p.errorf(sub, dir, false, "distribute with %s: the template is not distributed", with)
	}
	for _, t := range ts {
		if !t.defined {
			p.errorf(sub, dir, false, "distribute %s with %s: the template is undefined", t, with)
		}
		if !sameSizes(t.dims, with.dims) {
			p.errorf(sub, dir, false, "distribute %s with %s: the shapes differ", t, with)
		}
		d := &distribution{onto: with.dist.onto, dims: append([]dimMap(nil), with.dist.dims...), strides: with.dist.strides, rec: with.dist.rec}
		for i := range d.dims {
			d.dims[i].lo = t.dims[i].Lo
		}
		t.dist = d
		p.templateDistRecs(t)
	}
}

// ownedBoxes appends the boxes of template indices owned by processor pid,
// each as lo_1,hi_1,...,lo_r,hi_r: for every arrangement element on pid in
// column-major order, the product of the runs of every dimension.
func (d *distribution) ownedBoxes(pid int, dst []int) []int {
	if d.rec != nil {
		d.rec.boxes(d.dims, pid, func(_ int, box []ivl) {
			for _, iv := range box {
				dst = append(dst, iv.lo, iv.hi)
			}
		})
		return dst
	}
	a := d.onto
	var c []int
	runs := make([][]ivl, len(d.dims))
	for l, q := range a.pids {
		if q != pid {
			continue
		}
		c = a.coords(l, c)
		empty := false
		for i := range d.dims {
			m := &d.dims[i]
			cc := 0
			if m.adim >= 0 {
				cc = c[m.adim]
			}
			runs[i] = m.runs(cc, runs[i][:0])
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
func appendProduct(dst []int, runs [][]ivl, pos []int) []int {
	for {
		for i, k := range pos {
			dst = append(dst, runs[i][k].lo, runs[i][k].hi)
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

// templateDistRecs writes template-dist for every processor of the APS.
func (p *Proc) templateDistRecs(t *Template) {
	if !p.on(trace.TagTemplateDist) || !p.isLeader() {
		return
	}
	var boxes []int
	for _, pid := range p.aps.pids {
		boxes = t.dist.ownedBoxes(pid, boxes[:0])
		p.begin(trace.TagTemplateDist, pid)
		p.buf.Int(t.id)
		p.buf.IntRows(2*t.rank, boxes)
		p.end()
	}
}
