// Package stats computes summaries of samples.
package stats

import "math"

// Summary is what Summarize computes.
type Summary struct {
	Mean, Std, Min, Max float64
}

// Summarizer is anything that summarises samples.
type Summarizer interface {
	Summarize(xs []float64) Summary
}

// Parallel summarises with pdos.
type Parallel struct{ Scale float64 }

// Summarize implements Summarizer.
func (p Parallel) Summarize(xs []float64) Summary {
	s, sq := 0.0, 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	//svm:pdo loops(i) reduction(+: s, sq) reduction(min: lo) reduction(max: hi)
	for i := range xs {
		v := xs[i] * p.Scale
		s += v
		sq += v * v
		lo = min(lo, v)
		hi = max(hi, v)
	}
	n := float64(len(xs))
	m := s / n
	return Summary{Mean: m, Std: math.Sqrt(sq/n - m*m), Min: lo, Max: hi}
}
