// Package stat holds small generic helpers of the spmd program.
package stat

type Number interface {
	~int | ~int32 | ~int64 | ~float32 | ~float64
}

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

type Acc[T Number] struct {
	N   int
	Tot T
}

func (a *Acc[T]) Add(x T) { a.N++; a.Tot += x }
