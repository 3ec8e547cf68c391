package rtlib

import (
	"sort"
	"strconv"
	"strings"
)

// ivl is the inclusive interval lo..hi of indices or iteration counts.
type ivl struct{ lo, hi int }

// intersect returns the intersection of two sorted lists of disjoint
// intervals.
func intersect(a, b []ivl) []ivl {
	var out []ivl
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi)
		if lo <= hi {
			out = append(out, ivl{lo, hi})
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// contains reports whether the sorted interval list s holds x.
func contains(s []ivl, x int) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].hi >= x })
	return i < len(s) && s[i].lo <= x
}

// A processor's iterations of a loop nest are a union of disjoint boxes (one
// interval list of iteration counts per loop). To walk them in
// lexicographic order they are turned into a tree: a node of level l holds
// segments of iteration counts of loop l, each with the node of level l+1
// that applies to every count in the segment (nil at the innermost level).

type snode struct{ segs []sseg }

type sseg struct {
	lo, hi int
	child  *snode
}

// buildTree returns the tree of the union of boxes (each a list of
// intervals per loop, none empty), nil if there are none.
func buildTree(boxes [][][]ivl, nl int) *snode {
	if len(boxes) == 0 {
		return nil
	}
	if nl == 0 {
		return &snode{}
	}
	b := &treeBuilder{boxes: boxes, nl: nl, memo: map[string]*snode{}}
	all := make([]int, len(boxes))
	for i := range all {
		all[i] = i
	}
	return b.build(all, 0)
}

type treeBuilder struct {
	boxes [][][]ivl
	nl    int
	memo  map[string]*snode
}

func (b *treeBuilder) build(active []int, l int) *snode {
	if l == b.nl {
		return nil
	}
	var key strings.Builder
	key.WriteString(strconv.Itoa(l))
	for _, a := range active {
		key.WriteByte(',')
		key.WriteString(strconv.Itoa(a))
	}
	if nd, ok := b.memo[key.String()]; ok {
		return nd
	}
	nd := &snode{}
	if len(active) == 1 {
		child := b.build(active, l+1)
		for _, iv := range b.boxes[active[0]][l] {
			nd.segs = append(nd.segs, sseg{iv.lo, iv.hi, child})
		}
	} else {
		// Sweep the boundaries of the active boxes' intervals of loop l;
		// between two boundaries the set of boxes holding a count is fixed.
		var pts []int
		for _, a := range active {
			for _, iv := range b.boxes[a][l] {
				pts = append(pts, iv.lo, iv.hi+1)
			}
		}
		sort.Ints(pts)
		var act []int
		for i := 0; i+1 < len(pts); i++ {
			x, y := pts[i], pts[i+1]-1
			if x > y {
				continue
			}
			act = act[:0]
			for _, a := range active {
				if contains(b.boxes[a][l], x) {
					act = append(act, a)
				}
			}
			if len(act) == 0 {
				continue
			}
			child := b.build(append([]int(nil), act...), l+1)
			if n := len(nd.segs); n > 0 && nd.segs[n-1].child == child && nd.segs[n-1].hi+1 == x {
				nd.segs[n-1].hi = y
			} else {
				nd.segs = append(nd.segs, sseg{x, y, child})
			}
		}
	}
	b.memo[key.String()] = nd
	return nd
}
