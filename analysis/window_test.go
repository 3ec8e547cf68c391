package analysis

import (
	"math/rand/v2"
	"testing"
)

// TestInstWindow holds instWindow to the map it replaced: random
// instances opened (mostly in rising order, some behind the oldest open
// one) and finished in any order give the same lookups, and all yields
// the open ones in number order.
func TestInstWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var w instWindow
	ref := map[int]*loopInst{}
	next := 100
	for step := range 20000 {
		switch r := rng.IntN(10); {
		case r < 4:
			k := next
			if rng.IntN(8) == 0 {
				k -= 1 + rng.IntN(40) // a member far behind
			} else {
				next++
			}
			if ref[k] == nil {
				in := &loopInst{first: float64(k)}
				ref[k] = in
				w.set(k, in)
			}
		case r < 8 && len(ref) > 0:
			// Finish the oldest open instance, or any.
			k := -1
			for j := range ref {
				if k < 0 || j < k || rng.IntN(3) == 0 {
					k = j
				}
			}
			delete(ref, k)
			w.del(k)
		default:
			k := next - rng.IntN(60)
			if got := w.get(k); got != ref[k] {
				t.Fatalf("step %d: get(%d) = %v, want %v", step, k, got, ref[k])
			}
		}
		// The window spans the open instances, with at most as many
		// finished ones before the oldest.
		lo, hi := 1<<62, -1<<62
		for k := range ref {
			lo, hi = min(lo, k), max(hi, k)
		}
		if span := hi - lo + 1; len(ref) > 0 && len(w.ins) > 2*span {
			t.Fatalf("step %d: window of %d for open instances %d..%d", step, len(w.ins), lo, hi)
		}
	}
	last, n := -1<<62, 0
	for k, in := range w.all() {
		if in != ref[k] || k <= last {
			t.Fatalf("all: %d out of order or not open", k)
		}
		last = k
		n++
		w.del(k) // the caller finishes them as it goes
	}
	if n != len(ref) {
		t.Errorf("all yielded %d of %d open instances", n, len(ref))
	}
}
