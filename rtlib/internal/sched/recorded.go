package sched

import (
	"slices"
	"sort"
)

// Recorded is a distribution decided by a dynamic schedule: runs of
// consecutive template elements (numbered row-major over the extents) and
// the processor that owns each run, sorted and disjoint, covering every
// element the loop ran.
type Recorded struct {
	sizes []int
	runs  []RecRun
}

// RecRun is a run of element numbers Lo..Hi that processor Pid ran.
type RecRun struct{ Lo, Hi, Pid int }

// NewRecorded is the distribution of a template of the shape dims that the
// chunks runs of a dynamic schedule decided (in any order): it returns the
// distribution, with every dimension `*` onto g.
func NewRecorded(g *Grid, dims []Extent, runs []RecRun) *Distribution {
	slices.SortFunc(runs, func(x, y RecRun) int { return x.Lo - y.Lo })
	merged := runs[:0]
	for _, r := range runs {
		if n := len(merged); n > 0 && merged[n-1].Pid == r.Pid && merged[n-1].Hi+1 == r.Lo {
			merged[n-1].Hi = r.Hi
			continue
		}
		merged = append(merged, r)
	}
	rc := &Recorded{sizes: make([]int, len(dims)), runs: slices.Clip(merged)}
	d := &Distribution{Onto: g, Dims: make([]DimMap, len(dims)), Rec: rc, Strides: []int{1}}
	for i, e := range dims {
		rc.sizes[i] = e.Size()
		d.Dims[i] = DimMap{Kind: KindStar, Lo: e.Lo, N: e.Size(), Adim: -1}
	}
	return d
}

// Owner is the processor owning element number x, -1 if none.
func (rc *Recorded) Owner(x int) int {
	i := sort.Search(len(rc.runs), func(i int) bool { return rc.runs[i].Hi >= x })
	if i < len(rc.runs) && rc.runs[i].Lo <= x {
		return rc.runs[i].Pid
	}
	return -1
}

// Number is the element number of template indices idx (within dims).
func (rc *Recorded) Number(dims []DimMap, idx []int) int {
	x := 0
	for i := range dims {
		x = x*rc.sizes[i] + idx[i] - dims[i].Lo
	}
	return x
}

// linBoxes calls emit with the boxes (one interval of offsets per
// dimension) that make up element numbers a..b of an array of the given
// sizes, row-major, in order.
func linBoxes(sizes []int, a, b int, prefix []Ivl, emit func([]Ivl)) {
	if len(sizes) == 0 {
		emit(prefix)
		return
	}
	inner := 1
	for _, s := range sizes[1:] {
		inner *= s
	}
	a0, ar := a/inner, a%inner
	b0, br := b/inner, b%inner
	if a0 == b0 {
		linBoxes(sizes[1:], ar, br, append(prefix, Ivl{a0, a0}), emit)
		return
	}
	if ar != 0 {
		linBoxes(sizes[1:], ar, inner-1, append(prefix, Ivl{a0, a0}), emit)
		a0++
	}
	last := b0
	if br != inner-1 {
		last--
	}
	if a0 <= last {
		box := append(prefix, Ivl{a0, last})
		for _, s := range sizes[1:] {
			box = append(box, Ivl{0, s - 1})
		}
		emit(box)
	}
	if br != inner-1 {
		linBoxes(sizes[1:], 0, br, append(prefix, Ivl{b0, b0}), emit)
	}
}

// Boxes calls emit for every box of template indices the runs of pid cover
// (pid < 0: every run), with the run's processor.
func (rc *Recorded) Boxes(dims []DimMap, pid int, emit func(pid int, box []Ivl)) {
	var prefix, tb []Ivl
	for _, r := range rc.runs {
		if pid >= 0 && r.Pid != pid {
			continue
		}
		linBoxes(rc.sizes, r.Lo, r.Hi, prefix[:0], func(box []Ivl) {
			tb = append(tb[:0], box...)
			for i := range tb {
				tb[i].Lo += dims[i].Lo
				tb[i].Hi += dims[i].Lo
			}
			emit(r.Pid, tb)
		})
	}
}
