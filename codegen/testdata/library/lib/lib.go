// Package lib has a pdo and a replicated region further down its file
// than anything in main.go; the region's message call is in package wire.
package lib

import (
	"github.com/svmc/svmc/codegen/testdata/library/wire"
	"github.com/svmc/svmc/rtlib"
)

// Padding, so that no line of this file's directives is a line of main.go.
var (
	_ = 1
	_ = 2
	_ = 3
	_ = 4
	_ = 5
	_ = 6
	_ = 7
	_ = 8
	_ = 9
	_ = 10
)

// Sum adds xs in parallel.
func Sum(xs []float64) float64 {
	s := 0.0
	//svm:pdo loops(i) reduction(+: s)
	for i := range xs {
		s += xs[i]
	}
	return s
}

// Ring passes v around the processors once.
func Ring(v int) int {
	got := []int{v}
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		wire.Pass([]int{v + me}, got)
	}
	return got[0]
}
