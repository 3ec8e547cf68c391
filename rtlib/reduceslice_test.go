package rtlib

import (
	"math"
	"slices"
	"testing"
)

// TestReduceSlice: a slice or array reduces element by element, each
// member from a private copy that starts from the operator's identity,
// folded into the variable's elements (a histogram; maxima per bucket; an
// array of bit sets).
func TestReduceSlice(t *testing.T) {
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = (i * 7919) % 101
	}
	wantHist, wantMax, wantBits := make([]int, 10), []float64{-1, -1, -1}, [4]uint8{}
	for i, x := range xs {
		wantHist[x%10]++
		wantMax[i%3] = max(wantMax[i%3], float64(x))
		wantBits[i%4] |= 1 << (x % 8)
	}
	for _, n := range []int{1, 2, 3, 4} {
		for _, s := range []Schedule{DefaultSchedule(), Dynamic(7)} {
			hist, mx, bits := make([]int, 10), []float64{-1, -1, -1}, [4]uint8{}
			runN(t, n, func(p *Proc) {
				p.PDO(1, 1, s, []Range{{Lo: 0, Hi: len(xs) - 1, Step: 1}}, func(q *Proc, it *Iter) {
					h, m := IdentitySlice(hist, OpAdd), IdentitySlice(mx, OpMax)
					b := bits
					FillIdentity(b[:], OpOr)
					for it.Next() {
						i := it.Index(0)
						h[xs[i]%10]++
						m[i%3] = max(m[i%3], float64(xs[i]))
						b[i%4] |= 1 << (xs[i] % 8)
					}
					ReduceSlice(it, hist, h, SumOf)
					ReduceSlice(it, mx, m, MaxOf)
					ReduceSlice(it, bits[:], b[:], OrBitsOf)
				})
			})
			if !slices.Equal(hist, wantHist) || !slices.Equal(mx, wantMax) || bits != wantBits {
				t.Errorf("n=%d: %v %v %v; want %v %v %v", n, hist, mx, bits, wantHist, wantMax, wantBits)
			}
		}
	}
	if id := IdentitySlice([]float32{1, 2}, OpMin); id[0] != float32(math.Inf(1)) || len(id) != 2 {
		t.Errorf("IdentitySlice min: %v", id)
	}
	a := [3]int8{5, 5, 5}
	if FillIdentity(a[:], OpAnd); a != [3]int8{-1, -1, -1} {
		t.Errorf("FillIdentity &: %v", a)
	}
}

// TestSliceAcrossRanks: what a rank sends of its private copy decodes and
// combines with the others' in rank order; a cut buffer or another length
// is an error.
func TestSliceAcrossRanks(t *testing.T) {
	parts := [][]int16{{1, -2, 3}, {10, 20, 30}, {-100, 0, 7}}
	var encs [][]byte
	for _, p := range parts {
		encs = append(encs, (&slicePart[int16]{part: p}).encode(nil))
	}
	dst := []int16{1, 1, 1}
	mine := &slicePart[int16]{dst: dst, part: slices.Clone(parts[1]), op: SumOf[int16]}
	if err := mine.acrossRanks(slices.Clone(encs)); err != nil {
		t.Fatal(err)
	}
	mine.fold()
	if !slices.Equal(dst, []int16{-88, 19, 41}) {
		t.Errorf("folded %v, want [-88 19 41]", dst)
	}
	for k := range len(encs[0]) {
		cut := slices.Clone(encs)
		cut[0] = cut[0][:k]
		if err := (&slicePart[int16]{part: make([]int16, 3), op: SumOf[int16]}).acrossRanks(cut); err == nil {
			t.Errorf("a buffer cut to %d bytes decoded", k)
		}
	}
	if err := (&slicePart[int16]{part: make([]int16, 2), op: SumOf[int16]}).acrossRanks(slices.Clone(encs)); err == nil {
		t.Error("a rank's copy of another length decoded")
	}
}
