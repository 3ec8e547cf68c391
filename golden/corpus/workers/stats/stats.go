// Package stats is generic helpers.
package stats

import (
	"cmp"
	"slices"
)

type Number interface {
	~int | ~int64 | ~float64
}

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Median[T cmp.Ordered](xs []T) T {
	c := slices.Clone(xs)
	slices.Sort(c)
	return c[len(c)/2]
}

type Hist struct {
	Buckets map[string]int
}

func (h *Hist) Add(k string) {
	if h.Buckets == nil {
		h.Buckets = map[string]int{}
	}
	h.Buckets[k]++
}
