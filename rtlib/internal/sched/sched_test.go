package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func grid(name string, dims ...Extent) *Grid {
	return NewGrid(1, name, dims, func(l int) int { return l % 3 })
}

// TestDimMapRunsAgreeWithCoord: for every format, the runs of coordinate c
// are exactly the indices whose owner is c, ascending and disjoint.
func TestDimMapRunsAgreeWithCoord(t *testing.T) {
	g := grid("P", Extent{Lo: 1, Hi: 4})
	for _, f := range []Format{Block(), Cyclic(1), Cyclic(3), GeneralBlock([]int{0, 5, 2, 6}), Indirect([]int{4, 4, 1, 2, 3, 1, 1, 2, 4, 3, 3, 2, 1}), Star()} {
		adim := 0
		if !f.Distributed() {
			adim = -1
		}
		e := Extent{Lo: -3, Hi: 9}
		m, err := NewDimMap(f, e, g, adim, "d")
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		owned := 0
		for c := 0; c < max(1, m.P); c++ {
			runs := m.Runs(c, nil)
			for i, r := range runs {
				if r.Lo > r.Hi || i > 0 && runs[i-1].Hi+1 > r.Lo {
					t.Errorf("%v: runs of %d not ascending and disjoint: %v", f, c, runs)
				}
			}
			for x := e.Lo; x <= e.Hi; x++ {
				in := Contains(runs, x)
				if f.Distributed() && in != (m.Coord(x) == c) {
					t.Errorf("%v: index %d owned by %d, runs of %d %v", f, x, m.Coord(x), c, runs)
				}
				if in {
					owned++
				}
			}
		}
		if owned != e.Size() {
			t.Errorf("%v: the runs cover %d indices of %d", f, owned, e.Size())
		}
	}
}

func TestDimMapErrors(t *testing.T) {
	g := grid("P", Extent{Lo: 0, Hi: 1})
	e := Extent{Lo: 0, Hi: 3}
	for f, want := range map[*Format]string{
		{}:                               "d: invalid distribution format",
		ptr(Cyclic(0)):                   "d: cyclic(0): the block length must be positive",
		ptr(GeneralBlock([]int{4})):      "d: general_block has 1 sizes for 2 processors of dimension 1 of P(0:1)",
		ptr(GeneralBlock([]int{1, 2})):   "d: general_block sizes sum to 3, the extent 0:3 has 4 indices",
		ptr(GeneralBlock([]int{5, -1})):  "d: general_block size -1 is negative",
		ptr(Indirect([]int{0, 1, 2, 0})): "d: indirect owner 2 of index 2 is outside 0:1 of dimension 1 of P(0:1)",
		ptr(Indirect([]int{0})):          "d: indirect has 1 owners for the 4 indices of 0:3",
	} {
		if _, err := NewDimMap(*f, e, g, 0, "d"); err == nil || err.Error() != want {
			t.Errorf("%v: %v, want %s", *f, err, want)
		}
	}
}

func ptr(f Format) *Format { return &f }

// TestOwnedBoxes: the boxes of the processors partition the template, and
// each index lies in the boxes of the processor of its owning element.
func TestOwnedBoxes(t *testing.T) {
	g := grid("P", Extent{Lo: 0, Hi: 1}, Extent{Lo: 0, Hi: 2}) // 6 elements on 3 processors
	dims := []Extent{{Lo: 1, Hi: 7}, {Lo: 0, Hi: 4}}
	d, err := NewDistribution(g, []Format{Cyclic(2), Block()}, dims, func(int) string { return "t" })
	if err != nil {
		t.Fatal(err)
	}
	owner := map[[2]int]int{}
	for pid := 0; pid < 3; pid++ {
		b := d.OwnedBoxes(pid, nil)
		for k := 0; k+4 <= len(b); k += 4 {
			for i := b[k]; i <= b[k+1]; i++ {
				for j := b[k+2]; j <= b[k+3]; j++ {
					if o, dup := owner[[2]int{i, j}]; dup {
						t.Fatalf("(%d,%d) owned by %d and %d", i, j, o, pid)
					}
					owner[[2]int{i, j}] = pid
				}
			}
		}
	}
	for i := dims[0].Lo; i <= dims[0].Hi; i++ {
		for j := dims[1].Lo; j <= dims[1].Hi; j++ {
			l := d.Dims[0].Coord(i)*d.Strides[0] + d.Dims[1].Coord(j)*d.Strides[1]
			if got, ok := owner[[2]int{i, j}]; !ok || got != g.Pids[l] {
				t.Errorf("(%d,%d): boxes say %d (%v), the maps %d", i, j, got, ok, g.Pids[l])
			}
		}
	}
	// A linked distribution of a template with other bounds.
	w := d.With([]Extent{{Lo: 11, Hi: 17}, {Lo: 10, Hi: 14}})
	if w.Dims[0].Coord(11) != d.Dims[0].Coord(1) || w.Dims[1].Coord(14) != d.Dims[1].Coord(4) || d.Dims[0].Lo != 1 {
		t.Error("With: the linked map differs or changed the original")
	}
}

// enumerate lists the points of a union of boxes, lexicographically, each
// once.
func enumerate(boxes [][][]Ivl, nl int) [][]int {
	seen := map[string]bool{}
	var out [][]int
	var walk func(b [][]Ivl, l int, pt []int)
	walk = func(b [][]Ivl, l int, pt []int) {
		if l == nl {
			k := fmt.Sprint(pt)
			if !seen[k] {
				seen[k] = true
				out = append(out, slices.Clone(pt))
			}
			return
		}
		for _, iv := range b[l] {
			for x := iv.Lo; x <= iv.Hi; x++ {
				walk(b, l+1, append(pt, x))
			}
		}
	}
	for _, b := range boxes {
		walk(b, 0, nil)
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

func walkTree(nd *Node, nl int) [][]int {
	var out [][]int
	var walk func(nd *Node, l int, pt []int)
	walk = func(nd *Node, l int, pt []int) {
		if l == nl {
			out = append(out, slices.Clone(pt))
			return
		}
		for _, s := range nd.Segs {
			for x := s.Lo; x <= s.Hi; x++ {
				walk(s.Child, l+1, append(pt, x))
			}
		}
	}
	if nd != nil {
		walk(nd, 0, nil)
	}
	return out
}

// TestBuildTree: the tree of overlapping random boxes walks their union in
// lexicographic order, each point once, and TreeCount counts it.
func TestBuildTree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		nl := 1 + r.IntN(3)
		var boxes [][][]Ivl
		for range 1 + r.IntN(4) {
			box := make([][]Ivl, nl)
			for l := range box {
				x := 0
				for range 1 + r.IntN(2) {
					lo := x + r.IntN(3)
					hi := lo + r.IntN(3)
					box[l] = append(box[l], Ivl{Lo: lo, Hi: hi})
					x = hi + 2
				}
			}
			boxes = append(boxes, box)
		}
		want := enumerate(boxes, nl)
		tree := BuildTree(boxes, nl)
		got := walkTree(tree, nl)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("boxes %v:\ntree walks %v\nwant       %v", boxes, got, want)
		}
		if n := TreeCount(tree, nl); n != len(want) {
			t.Fatalf("TreeCount %d, want %d", n, len(want))
		}
	}
	if BuildTree(nil, 2) != nil || TreeCount(BuildTree([][][]Ivl{{}}, 0), 0) != 1 {
		t.Error("empty union or nest of no loops")
	}
}

// TestToCounts: the counts k of loop r whose value lo+k*step+off lies in
// the runs, for steps of either sign.
func TestToCounts(t *testing.T) {
	runs := []Ivl{{Lo: -4, Hi: -1}, {Lo: 3, Hi: 3}, {Lo: 7, Hi: 12}}
	for _, r := range []Range{{Lo: -6, Hi: 14, Step: 1}, {Lo: -6, Hi: 14, Step: 3}, {Lo: 14, Hi: -6, Step: -2}, {Lo: 0, Hi: -1, Step: 1}} {
		for _, off := range []int{0, 2, -3} {
			got := ToCounts(runs, r, off)
			var want []int
			for k := 0; k < r.Count(); k++ {
				if Contains(runs, r.Lo+k*r.Step+off) {
					want = append(want, k)
				}
			}
			var have []int
			for i, iv := range got {
				if i > 0 && got[i-1].Hi >= iv.Lo {
					t.Errorf("%v off %d: intervals %v not ascending", r, off, got)
				}
				for k := iv.Lo; k <= iv.Hi; k++ {
					have = append(have, k)
				}
			}
			if fmt.Sprint(have) != fmt.Sprint(want) {
				t.Errorf("%v off %d: counts %v, want %v", r, off, have, want)
			}
		}
	}
	for x := -7; x <= 7; x++ {
		for y := -3; y <= 3; y++ {
			if y == 0 {
				continue
			}
			f := FloorDiv(x, y)
			if f*y > x && y > 0 || f*y < x && y < 0 || (f+1)*y <= x && y > 0 {
				t.Errorf("FloorDiv(%d, %d) = %d", x, y, f)
			}
			if c := CeilDiv(x, y); c != -FloorDiv(-x, y) {
				t.Errorf("CeilDiv(%d, %d) = %d", x, y, c)
			}
		}
	}
}

// TestRecorded: the runs the members of a dynamic loop ran, merged, give
// each element its owner, and the boxes of each processor cover exactly
// its elements.
func TestRecorded(t *testing.T) {
	g := grid("APS", Extent{Lo: 0, Hi: 2})
	dims := []Extent{{Lo: 1, Hi: 4}, {Lo: 0, Hi: 5}} // 24 elements, row-major
	runs := []RecRun{{Lo: 10, Hi: 15, Pid: 1}, {Lo: 0, Hi: 3, Pid: 0}, {Lo: 4, Hi: 9, Pid: 0}, {Lo: 16, Hi: 23, Pid: 2}}
	d := NewRecorded(g, dims, runs)
	for x := 0; x < 24; x++ {
		want := 1
		switch {
		case x < 10:
			want = 0
		case x >= 16:
			want = 2
		}
		if got := d.Rec.Owner(x); got != want {
			t.Errorf("owner of %d: %d, want %d", x, got, want)
		}
	}
	if len(d.Rec.runs) != 3 {
		t.Errorf("runs %v: the two of processor 0 are not merged", d.Rec.runs)
	}
	for pid := 0; pid < 3; pid++ {
		n := 0
		d.Rec.Boxes(d.Dims, pid, func(p int, box []Ivl) {
			for i := box[0].Lo; i <= box[0].Hi; i++ {
				for j := box[1].Lo; j <= box[1].Hi; j++ {
					if o := d.Rec.Owner(d.Rec.Number(d.Dims, []int{i, j})); o != pid || p != pid {
						t.Errorf("(%d,%d) in a box of %d, owned by %d", i, j, pid, o)
					}
					n++
				}
			}
		})
		if want := []int{10, 6, 8}[pid]; n != want {
			t.Errorf("processor %d: boxes cover %d elements, want %d", pid, n, want)
		}
	}
}

func TestFormat(t *testing.T) {
	g := GeneralBlock([]int{1, 2})
	c := g.Clone()
	c.vals[0] = 9
	if !g.Equal(GeneralBlock([]int{1, 2})) || g.Equal(c) || Cyclic(2).Equal(Cyclic(3)) {
		t.Error("Equal or Clone")
	}
	for _, c := range []struct {
		f    Format
		name string
		bcl  int
	}{{Block(), "block", 0}, {Cyclic(1), "cyclic", 1}, {Cyclic(4), "cyclic(4)", 4}, {g, "general_block", -2}, {Indirect(nil), "indirect", -3}, {Star(), "*", -1}, {Format{}, "invalid format", -1}} {
		if c.f.String() != c.name || c.f.BlockCyclicLength() != c.bcl {
			t.Errorf("%v: %q %d, want %q %d", c.f, c.f.String(), c.f.BlockCyclicLength(), c.name, c.bcl)
		}
	}
	if CountDistributed([]Format{Block(), Star(), Cyclic(2)}) != 2 {
		t.Error("CountDistributed")
	}
}

// TestSegs: a cyclic dimension's runs as periodic segments are the same
// counts as its runs, in at most two segments.
func TestSegs(t *testing.T) {
	for _, c := range []struct{ n, p, k int }{{10, 3, 1}, {11, 3, 2}, {12, 3, 2}, {5, 4, 2}, {1, 4, 1}, {5000000, 4, 1}, {7, 2, 3}} {
		m := DimMap{Kind: KindCyclic, Lo: 0, N: c.n, P: c.p, Bs: c.k}
		for coord := 0; coord < c.p; coord++ {
			segs := m.Segs(coord)
			if len(segs) > 2 {
				t.Errorf("%v coord %d: %d segments", c, coord, len(segs))
			}
			var got []Ivl
			for _, s := range segs {
				for r := 0; r < s.Times(); r++ {
					got = append(got, Ivl{s.Lo + r*s.Period, s.Hi + r*s.Period})
				}
			}
			if want := m.Runs(coord, nil); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%v coord %d: segments give %d runs, Runs %d", c, coord, len(got), len(want))
			}
			if n := TreeCount(Chain([][]Seg{segs}), 1); n != countIvls(m.Runs(coord, nil)) {
				t.Errorf("%v coord %d: TreeCount %d", c, coord, n)
			}
		}
	}
}

func countIvls(s []Ivl) int {
	n := 0
	for _, iv := range s {
		n += iv.Hi - iv.Lo + 1
	}
	return n
}
