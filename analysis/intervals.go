package analysis

import (
	"cmp"
	"slices"
)

// Time intervals as [start, end] pairs: the leader's serial time set
// against its goroutines' lives (lanes.go), the waits against the
// collector's pauses (gcInWaits).

// addPiece appends [t0, t1] to pieces, joining it to the last when they touch.
func addPiece(pieces [][2]float64, t0, t1 float64) [][2]float64 {
	if n := len(pieces); n > 0 && pieces[n-1][1] == t0 {
		pieces[n-1][1] = t1
		return pieces
	}
	return append(pieces, [2]float64{t0, t1})
}

// unionOf is the union of intervals as disjoint intervals in time order.
func unionOf(ivs [][2]float64) [][2]float64 {
	in := slices.Clone(ivs)
	slices.SortFunc(in, func(x, y [2]float64) int { return cmp.Compare(x[0], y[0]) })
	var out [][2]float64
	for _, iv := range in {
		if n := len(out); n > 0 && iv[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], iv[1])
			continue
		}
		out = append(out, iv)
	}
	return out
}

// overlap is how much of pieces lies within union (disjoint, in order).
func overlap(pieces, union [][2]float64) float64 {
	sum := 0.0
	for _, p := range pieces {
		sum += within(p[0], p[1], union)
	}
	return sum
}

// within is how much of [t0, t1] lies within union (disjoint, in order).
func within(t0, t1 float64, union [][2]float64) float64 {
	sum := 0.0
	// the first interval of union that ends after t0
	i, _ := slices.BinarySearchFunc(union, t0, func(u [2]float64, t float64) int { return cmp.Compare(u[1], t) })
	for ; i < len(union) && union[i][0] < t1; i++ {
		if s, e := max(union[i][0], t0), min(union[i][1], t1); e > s {
			sum += e - s
		}
	}
	return sum
}

// step is a piecewise-constant count from time t on.
type step struct {
	t float64
	n int
}

// countSteps is, over time, how many of the intervals up are open minus
// how many of down are (down lies within up: a goroutine's waits within
// its life), as steps in time order.
func countSteps(up, down [][2]float64) []step {
	type edge struct {
		t float64
		d int
	}
	var es []edge
	for _, iv := range up {
		es = append(es, edge{iv[0], 1}, edge{iv[1], -1})
	}
	for _, iv := range down {
		es = append(es, edge{iv[0], -1}, edge{iv[1], 1})
	}
	slices.SortFunc(es, func(x, y edge) int { return cmp.Compare(x.t, y.t) })
	var out []step
	n := 0
	for i, e := range es {
		n += e.d
		if i+1 < len(es) && es[i+1].t == e.t {
			continue // one step per instant
		}
		out = append(out, step{e.t, n})
	}
	return out
}

// coverage is the integral over pieces of min(count, limit) for the
// count that steps gives.
func coverage(pieces [][2]float64, steps []step, limit int) float64 {
	sum := 0.0
	for _, p := range pieces {
		// the last step at or before p[0]
		i, found := slices.BinarySearchFunc(steps, p[0], func(s step, t float64) int { return cmp.Compare(s.t, t) })
		if !found {
			i--
		}
		for t := p[0]; t < p[1]; i++ {
			next := p[1]
			if i+1 < len(steps) && steps[i+1].t < next {
				next = steps[i+1].t
			}
			if i >= 0 && next > t {
				sum += float64(min(max(steps[i].n, 0), limit)) * (next - t)
			}
			t = next
		}
	}
	return sum
}
