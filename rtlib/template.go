package rtlib

import (
	"fmt"
	"slices"

	"github.com/svmc/svmc/rtlib/internal/sched"
	"github.com/svmc/svmc/rtlib/internal/stats"
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
	dist      *sched.Distribution
	// with is the template whose distribution this one follows (distribute
	// T with A), followers those that follow this one: linked distribution
	// is a form of alignment (seed 002), so redistributing A redistributes
	// T. Each template follows at most one, so the links form trees.
	with      *Template
	followers []*Template
	// distRecs are the owned boxes of the last distributions traced, per
	// processor of the APS: a loop that alternates two distributions
	// (redistribute between pdos) writes template-dist without
	// computing them again (cyclic over 120 elements: 1.7 µs of the
	// leader's serial time a redistribute).
	distRecs [2]distRec
}

// distRec is a distribution's owned boxes (OwnedBoxes) for the processors
// pids.
type distRec struct {
	dist  *sched.Distribution
	pids  []int
	boxes [][]int
}

// link makes t follow with (nil: follow nothing).
func (t *Template) link(with *Template) {
	if t.with != nil {
		fs := t.with.followers
		for i, f := range fs {
			if f == t {
				t.with.followers = append(fs[:i], fs[i+1:]...)
				break
			}
		}
	}
	t.with = with
	if with != nil {
		with.followers = append(with.followers, t)
	}
}

// unlinkAll ends t's links both ways: t lost its shape or distribution, so
// neither does it follow another template nor do others follow it (they
// keep the ownership they have).
func (t *Template) unlinkAll() {
	t.link(nil)
	for _, f := range t.followers {
		f.with = nil
	}
	t.followers = nil
}

// The queries of a nil *Template answer as for an undefined template: in
// the serial build (go run without svmc) no template directive runs, so a
// template variable stays nil, and its queries must not fail.

// Rank is the number of dimensions.
func (t *Template) Rank() int {
	if t == nil {
		return 0
	}
	return t.rank
}

// Extent is the index range of dimension d (zero when undefined).
func (t *Template) Extent(d int) Extent {
	if t == nil || !t.defined {
		return Extent{}
	}
	return t.dims[d]
}

// Size is the number of elements (0 when undefined).
func (t *Template) Size() int {
	if t == nil || !t.defined {
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
func (t *Template) Defined() bool { return t != nil && t.defined }

// ID is the template id of the run.
func (t *Template) ID() int {
	if t == nil {
		return 0
	}
	return t.id
}

// Name is the template's name.
func (t *Template) Name() string {
	if t == nil {
		return ""
	}
	return t.name
}

// Distributed reports whether the template has a distribution.
func (t *Template) Distributed() bool { return t != nil && t.defined && t.dist != nil }

func (t *Template) String() string {
	if t == nil {
		return "<nil template>"
	}
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
	return sched.ShapeString(t.name, t.dims)
}

// Template declares a fixed or automatic template (or, with prev non-nil, a
// template passed in: prev is returned, its shape must match) and writes
// template-info.
func (p *Proc) Template(prev *Template, sub, dir int, name string, dims ...Extent) *Template {
	at := Site{Sub: sub, Dir: dir}
	defer p.st.Restore(p.st.Switch(stats.Distr))
	if prev != nil {
		if !prev.defined || !sched.SameSizes(prev.dims, dims) {
			p.errorf(at, false, "template %s does not match the shape of the argument %s", sched.ShapeString(name, dims), prev)
		}
		p.templateInfoRec(prev, at)
		return prev
	}
	t := &Template{id: int(p.r.nextTemplate.Add(1)), name: name, rank: len(dims),
		dims: append([]Extent(nil), dims...), defined: true}
	p.templateInfoRec(t, at)
	return t
}

// CreatableTemplate declares a creatable template of the given rank; it has
// no shape until Create. It writes template-info as every TEMPLATE
// directive does (seed 002, Table 1): its rank, and a shape of no rows,
// since its extents are ':' until CREATE writes them.
func (p *Proc) CreatableTemplate(prev *Template, sub, dir int, name string, rank int) *Template {
	at := Site{Sub: sub, Dir: dir}
	defer p.st.Restore(p.st.Switch(stats.Distr))
	if prev != nil {
		if prev.rank != rank {
			p.errorf(at, false, "template %s of rank %d does not match the rank %d of the argument %s", name, rank, prev.rank, prev)
		}
		p.templateInfoRec(prev, at)
		return prev
	}
	t := &Template{id: int(p.r.nextTemplate.Add(1)), name: name, rank: rank, creatable: true}
	p.templateInfoRec(t, at)
	return t
}

// Create gives a creatable template its shape (dropping any distribution)
// and writes template-info.
func (p *Proc) Create(t *Template, sub, dir int, dims ...Extent) {
	at := Site{Sub: sub, Dir: dir}
	defer p.st.Restore(p.st.Switch(stats.Distr))
	if len(dims) != t.rank {
		p.errorf(at, false, "create %s: %d extents for a template of rank %d", sched.ShapeString(t.name, dims), len(dims), t.rank)
	}
	t.dims = append(t.dims[:0], dims...)
	t.defined = true
	t.dist = nil
	t.unlinkAll()
	p.templateInfoRec(t, at)
}

// Destroy destroys a created template (destroy-template); it becomes
// undefined.
func (p *Proc) Destroy(t *Template, sub, dir int) {
	defer p.st.Restore(p.st.Switch(stats.Distr))
	t.defined, t.dims, t.dist = false, nil, nil
	t.unlinkAll()
	p.templateIDRec(trace.TagDestroyTemplate, t)
}

// Undef makes a template undefined (undef-template): its shape and
// distribution are dropped.
func (p *Proc) Undef(t *Template, sub, dir int) {
	defer p.st.Restore(p.st.Switch(stats.Distr))
	t.defined, t.dims, t.dist = false, nil, nil
	t.unlinkAll()
	p.templateIDRec(trace.TagUndefTemplate, t)
}

func (p *Proc) templateInfoRec(t *Template, at Site) {
	if !p.mapOn(trace.TagTemplateInfo) || !p.isLeader() {
		return
	}
	p.begin(trace.TagTemplateInfo, p.id)
	p.buf.Int(t.id)
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
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

// Format is the distribution format of one dimension (package sched).
type Format = sched.Format

// Block is BLOCK: blocks of ceil(n/p) consecutive indices.
func Block() Format { return sched.Block() }

// Cyclic is CYCLIC(k): blocks of k indices dealt round robin; Cyclic(1) is
// CYCLIC.
func Cyclic(k int) Format { return sched.Cyclic(k) }

// GeneralBlock is GENERAL_BLOCK(sizes): one block per processor of the
// dimension, of the given sizes.
func GeneralBlock(sizes []int) Format { return sched.GeneralBlock(sizes) }

// Indirect is INDIRECT(owner): owner[i] is the index, in the processor
// dimension, of the owner of the i-th index of the dimension.
func Indirect(owner []int) Format { return sched.Indirect(owner) }

// Star is `*`: the dimension is not distributed.
func Star() Format { return sched.Star() }

// Distribute distributes the templates ts with one format per template
// dimension onto the arrangement onto (nil: the 1-D arrangement of the APS)
// and writes template-dist: one record per processor of the APS. It also
// serves REDISTRIBUTE. A template distributed this way stops following the
// one it was linked to; the templates linked to it follow it.
func (p *Proc) Distribute(sub, dir int, onto *Procs, formats []Format, ts ...*Template) {
	at := Site{Sub: sub, Dir: dir}
	defer p.st.Restore(p.st.Switch(distrGroup(ts)))
	if onto == nil {
		onto = p.aps.procs
	}
	if onto.size == 0 {
		p.errorf(at, false, "distribute onto the empty processor arrangement %s", onto)
	}
	for _, t := range ts {
		if !t.defined {
			p.errorf(at, false, "distribute %s: the template is undefined", t)
		}
		if len(formats) != t.rank {
			p.errorf(at, false, "distribute %s: %d formats for a template of rank %d", t, len(formats), t.rank)
		}
		if nd := sched.CountDistributed(formats); nd != onto.Rank() {
			p.errorf(at, false, "distribute %s: %d distributed dimensions onto %s of rank %d", t, nd, onto, onto.Rank())
		}
		d, err := sched.NewDistribution(&onto.g, formats, t.dims, func(i int) string {
			return fmt.Sprintf("distribute %s: dimension %d", t, i+1)
		})
		if err != nil {
			p.errorf(at, false, "%v", err)
		}
		t.dist = d
		t.link(nil)
		p.templateDistRecs(t)
		p.redistributeFollowers(t)
	}
}

// distrGroup is the statistics group of distributing ts: a redistribution
// (Lib-DVM's ReDistrGrp) when one of them is distributed already.
func distrGroup(ts []*Template) stats.Group {
	for _, t := range ts {
		if t.dist != nil {
			return stats.ReDistr
		}
	}
	return stats.Distr
}

// DistributeWith gives each template of ts the current distribution of with
// (linked distribution); the shapes must be equal. It writes template-dist.
// The link holds until the template is distributed again, or either
// template is created, destroyed or made undefined: meanwhile every
// redistribution of with is also one of ts.
func (p *Proc) DistributeWith(sub, dir int, with *Template, ts ...*Template) {
	at := Site{Sub: sub, Dir: dir}
	defer p.st.Restore(p.st.Switch(distrGroup(ts)))
	if !with.defined || with.dist == nil {
		p.errorf(at, false, "distribute with %s: the template is not distributed", with)
	}
	for _, t := range ts {
		if !t.defined {
			p.errorf(at, false, "distribute %s with %s: the template is undefined", t, with)
		}
		if !sched.SameSizes(t.dims, with.dims) {
			p.errorf(at, false, "distribute %s with %s: the shapes differ", t, with)
		}
		if t == with {
			continue // distribute T with T: nothing changes
		}
		// If with follows t (through any chain), the newer link wins: the
		// template of that chain linked to t stops following it.
		for x := with; x != nil; x = x.with {
			if x.with == t {
				x.link(nil)
				break
			}
		}
		t.dist = with.dist.With(t.dims)
		t.link(with)
		p.templateDistRecs(t)
		p.redistributeFollowers(t)
	}
}

// redistributeFollowers gives the templates linked to t, and to them, t's
// new distribution, writing template-dist for each.
func (p *Proc) redistributeFollowers(t *Template) {
	for _, f := range t.followers {
		f.dist = t.dist.With(f.dims)
		p.templateDistRecs(f)
		p.redistributeFollowers(f)
	}
}

// templateDistRecs writes template-dist for every processor of the APS.
func (p *Proc) templateDistRecs(t *Template) {
	if !p.mapOn(trace.TagTemplateDist) || !p.isLeader() {
		return
	}
	rec := t.distRec(p.aps.pids)
	for k, pid := range p.aps.pids {
		p.begin(trace.TagTemplateDist, pid)
		p.buf.Int(t.id)
		p.buf.IntRows(2*t.rank, rec.boxes[k])
		p.end()
	}
}

// distRec is t's distribution's owned boxes for pids, from t.distRecs or
// computed and kept there as the most recent.
func (t *Template) distRec(pids []int) *distRec {
	keep := t.dist.Rec == nil // recorded by a dynamic schedule: it may grow
	for i := range t.distRecs {
		if r := &t.distRecs[i]; keep && r.dist != nil && r.dist.Same(t.dist) && slices.Equal(r.pids, pids) {
			t.distRecs[0], t.distRecs[i] = t.distRecs[i], t.distRecs[0] // the most recent first
			return &t.distRecs[0]
		}
	}
	r := &distRec{dist: t.dist, pids: slices.Clone(pids), boxes: make([][]int, len(pids))}
	for k, pid := range pids {
		r.boxes[k] = t.dist.OwnedBoxes(pid, nil)
	}
	if keep {
		t.distRecs[1], t.distRecs[0] = t.distRecs[0], *r
	}
	return r
}
