package main

import "slices"

// A pdo over an iterator of pairs: collect the pairs, or range over the
// slice that slices.All walks.
func pairs(seq2 func(yield func(int, string) bool), xs []float64) {
	//svm:pdo
	for k := range seq2 { // want 17:`^pdo loop k ranges over func\(yield func\(int, string\) bool\); a pdo ranges over an integer, a slice or an array \(an iterator yields its pairs one by one: collect them first, for k, v := range seq2 \{ ks = append\(ks, k\); vs = append\(vs, v\) \}, and range over ks\)$`
		_ = k
	}
	//svm:pdo
	for i, x := range slices.All(xs) { // want 20:`^pdo loop i ranges over iter.Seq2\[int, float64\]; a pdo ranges over an integer, a slice or an array \(slices.All walks a slice: range over the slice itself, for i, v := range xs\)$`
		_, _ = i, x
	}
}
