package diff

import (
	"math"
	"testing"
)

// The exact Mann-Whitney U test against values from its tables: complete
// separation of 3 and 3 gives 2/20, of 5 and 5 2/252, of 4 and 4 2/70;
// interleaved samples give 1; the normal approximation beyond 400 pairs is
// close to the exact value where both apply.
func TestMannWhitney(t *testing.T) {
	seq := func(from, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(from + i)
		}
		return xs
	}
	for _, c := range []struct {
		name string
		a, b []float64
		want float64
	}{
		{"3 below 3", seq(0, 3), seq(10, 3), 0.1},
		{"5 above 5", seq(10, 5), seq(0, 5), 2.0 / 252},
		{"4 below 4", seq(0, 4), seq(10, 4), 2.0 / 70},
		{"interleaved", []float64{1, 3, 5, 7}, []float64{2, 4, 6, 8}, 48.0 / 70}, // U = 6: P(U ≤ 6) = 24/70,
		{"one shift", []float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 4.0 / 70},    // U = 1: P(U ≤ 1) = 2/70,
	} {
		if got := mannWhitneyP(c.a, c.b); math.Abs(got-c.want) > 0.001 {
			t.Errorf("%s: p = %.4f, want %.4f", c.name, got, c.want)
		}
	}
	if got, want := mannWhitneyMinP(3, 3), 0.1; math.Abs(got-want) > 1e-9 {
		t.Errorf("min p of 3 and 3: %v, want %v", got, want)
	}
	// 20 and 21 values: beyond the exact count; shifted by half the range.
	a, b := seq(0, 20), seq(10, 21)
	if p := mannWhitneyP(a, b); p > 0.01 || p < 1e-5 {
		t.Errorf("normal approximation: p = %g for samples overlapping by half", p)
	}
}
