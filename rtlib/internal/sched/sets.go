package sched

import (
	"sort"
	"strconv"
	"strings"
)

// Ivl is the inclusive interval Lo..Hi of indices or iteration counts.
type Ivl struct{ Lo, Hi int }

// Intersect returns the intersection of two sorted lists of disjoint
// intervals.
func Intersect(a, b []Ivl) []Ivl {
	var out []Ivl
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].Lo, b[j].Lo), min(a[i].Hi, b[j].Hi)
		if lo <= hi {
			out = append(out, Ivl{lo, hi})
		}
		if a[i].Hi < b[j].Hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// Contains reports whether the sorted interval list s holds x.
func Contains(s []Ivl, x int) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].Hi >= x })
	return i < len(s) && s[i].Lo <= x
}

// A processor's iterations of a loop nest are a union of disjoint boxes (one
// interval list of iteration counts per loop). To walk them in
// lexicographic order they are turned into a tree: a node of level l holds
// segments of iteration counts of loop l, each with the node of level l+1
// that applies to every count in the segment (nil at the innermost level).

// Node is a node of such a tree.
type Node struct{ Segs []Seg }

// Seg is a segment of iteration counts Lo..Hi of a node's loop. With Reps
// > 1 it is Reps segments, the r-th shifted by r*Period: the runs of a
// cyclic schedule, kept in constant space however many there are.
type Seg struct {
	Lo, Hi int
	Child  *Node
	Period int
	Reps   int // 0 or 1: one segment
}

// Times is the number of segments s stands for.
func (s *Seg) Times() int { return max(1, s.Reps) }

// BuildTree returns the tree of the union of boxes (each a list of
// intervals per loop, none empty), nil if there are none.
func BuildTree(boxes [][][]Ivl, nl int) *Node {
	if len(boxes) == 0 {
		return nil
	}
	if nl == 0 {
		return &Node{}
	}
	b := &treeBuilder{boxes: boxes, nl: nl, memo: map[string]*Node{}}
	all := make([]int, len(boxes))
	for i := range all {
		all[i] = i
	}
	return b.build(all, 0)
}

type treeBuilder struct {
	boxes [][][]Ivl
	nl    int
	memo  map[string]*Node
}

func (b *treeBuilder) build(active []int, l int) *Node {
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
	nd := &Node{}
	if len(active) == 1 {
		child := b.build(active, l+1)
		for _, iv := range b.boxes[active[0]][l] {
			nd.Segs = append(nd.Segs, Seg{Lo: iv.Lo, Hi: iv.Hi, Child: child})
		}
	} else {
		// Sweep the boundaries of the active boxes' intervals of loop l;
		// between two boundaries the set of boxes holding a count is fixed.
		var pts []int
		for _, a := range active {
			for _, iv := range b.boxes[a][l] {
				pts = append(pts, iv.Lo, iv.Hi+1)
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
				if Contains(b.boxes[a][l], x) {
					act = append(act, a)
				}
			}
			if len(act) == 0 {
				continue
			}
			child := b.build(append([]int(nil), act...), l+1)
			if n := len(nd.Segs); n > 0 && nd.Segs[n-1].Child == child && nd.Segs[n-1].Hi+1 == x {
				nd.Segs[n-1].Hi = y
			} else {
				nd.Segs = append(nd.Segs, Seg{Lo: x, Hi: y, Child: child})
			}
		}
	}
	b.memo[key.String()] = nd
	return nd
}

// TreeCount counts the iterations of a tree of segments of the given
// number of loops.
func TreeCount(nd *Node, levels int) int {
	if nd == nil {
		return 0
	}
	if levels == 0 {
		return 1
	}
	n := 0
	for _, s := range nd.Segs {
		if s.Hi < s.Lo {
			continue
		}
		w := (s.Hi - s.Lo + 1) * s.Times()
		if levels > 1 {
			w *= TreeCount(s.Child, levels-1)
		}
		n += w
	}
	return n
}

// Chain is the tree of one box given as segments per loop (periodic ones
// allowed): each level's segments share the node of the next level.
func Chain(box [][]Seg) *Node {
	var child *Node
	for l := len(box) - 1; l >= 0; l-- {
		nd := &Node{Segs: make([]Seg, len(box[l]))}
		for i, s := range box[l] {
			s.Child = child
			nd.Segs[i] = s
		}
		child = nd
	}
	return child
}
