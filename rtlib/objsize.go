package rtlib

import (
	"cmp"
	"slices"

	"github.com/svmc/svmc/rtlib/internal/sched"
)

// Global and local sizes of one dimension of an object (Lib-DVM §10,
// GetObjectSize and GetObjectLocSize). The object is a *Template, a
// *Procs, or nil for the parallel loop the calling processor is in. Axis
// counts dimensions from 1; axis 0 is the whole object (the product of its
// dimensions' sizes). An axis the object does not have, or an object of
// another type, gives 0.

// GetObjectSize is the global size of dimension axis of obj; for a loop
// the number of values of its loop variable, ceil((last-first+1)/step).
func GetObjectSize(obj any, axis int) int {
	switch o := obj.(type) {
	case *Template:
		if axis == 0 {
			return o.Size()
		}
		if o == nil || !o.defined || axis < 0 || axis > o.rank {
			return 0
		}
		return o.dims[axis-1].Size()
	case *Procs:
		if axis == 0 {
			return o.Size()
		}
		if o == nil || axis < 0 || axis > len(o.dims) {
			return 0
		}
		return o.dims[axis-1].Size()
	case nil:
		p := Current()
		if axis == 0 {
			return p.LoopSize()
		}
		if p.loop.it == nil || axis < 0 || axis > len(p.loop.space) {
			return 0
		}
		return p.loop.space[axis-1].Count()
	}
	return 0
}

// GetObjectLocSize is the local size: of the part of obj mapped on the
// calling processor, the number of distinct indices along dimension axis
// (0 when it has no part there); for an arrangement it equals the global
// size.
func GetObjectLocSize(obj any, axis int) int {
	switch o := obj.(type) {
	case *Template:
		if axis == 0 {
			return o.LocalSize(-1)
		}
		if o == nil || !o.defined || axis < 0 || axis > o.rank {
			return 0
		}
		if o.dist == nil {
			return o.dims[axis-1].Size()
		}
		boxes := o.dist.OwnedBoxes(Current().id, nil)
		var iv []sched.Ivl
		for i := 0; i+2*o.rank <= len(boxes); i += 2 * o.rank {
			iv = append(iv, sched.Ivl{Lo: boxes[i+2*(axis-1)], Hi: boxes[i+2*(axis-1)+1]})
		}
		return unionSize(iv)
	case *Procs:
		return GetObjectSize(o, axis)
	case nil:
		p := Current()
		if axis == 0 {
			return p.LoopLocalSize()
		}
		if p.loop.it == nil || axis < 0 || axis > len(p.loop.space) {
			return 0
		}
		var iv []sched.Ivl
		collectLevel(p.loop.it.root, 0, axis-1, &iv)
		return unionSize(iv)
	}
	return 0
}

// collectLevel appends the counts of loop level want held by the tree
// below nd (at level l).
func collectLevel(nd *sched.Node, l, want int, out *[]sched.Ivl) {
	if nd == nil {
		return
	}
	for _, s := range nd.Segs {
		if l == want {
			for r := 0; r < s.Times(); r++ {
				*out = append(*out, sched.Ivl{Lo: s.Lo + r*s.Period, Hi: s.Hi + r*s.Period})
			}
			continue
		}
		collectLevel(s.Child, l+1, want, out)
	}
}

// unionSize is the number of integers in a union of intervals.
func unionSize(iv []sched.Ivl) int {
	if len(iv) == 0 {
		return 0
	}
	slices.SortFunc(iv, func(a, b sched.Ivl) int { return cmp.Compare(a.Lo, b.Lo) })
	n, lo, hi := 0, iv[0].Lo, iv[0].Hi
	for _, x := range iv[1:] {
		if x.Lo > hi+1 {
			n += hi - lo + 1
			lo, hi = x.Lo, x.Hi
		} else {
			hi = max(hi, x.Hi)
		}
	}
	return n + hi - lo + 1
}
