// Reduction clauses: each variable must be declared before the pdo, named
// once, not be a loop variable, and have a type its operator is defined on.
// The second pdo of func types is correct.
package main

type point struct{ x, y int }

type celsius float64

func types(n int) {
	var (
		name  string
		p     point
		f     float64
		c     complex128
		ok    bool
		count int
		t     celsius
	)
	//svm:pdo loops(i) reduction(+: name, p) reduction(&: f) reduction(max: c) reduction(+: ok) reduction(&&: count) // want 34:`^reduction\(\+: name\): name has type string; \+ needs a number: a string's \+ concatenates in the order of the iterations, which a reduction's partial results do not keep; write each iteration's part into a slice indexed by the iteration and join it after the loop \(strings\.Join\)$` 40:`^reduction\(\+: p\): p has type point, a struct, which does not reduce as a whole; reduce its fields in variables of their own declared before the loop \(pX, pY, each in the reduction clause of its operator\) and set the struct from them after the loop, or update it in a //svm:critical section$` 56:`^reduction\(&: f\): f has type float64; & needs an integer$` 74:`^reduction\(max: c\): c has type complex128; max needs an ordered type: an integer, a floating-point number or a string$` 90:`^reduction\(\+: ok\): ok has type bool; \+ needs a number \(a bool reduces with && or \|\|\)$` 108:`^reduction\(&&: count\): count has type int; && needs a bool$`
	for i := 0; i < n; i++ {
		name += "x"
		p.x += i
		f += 1
		c += 1
		ok = ok || i > 2
		count += i
	}
	//svm:pdo loops(i) reduction(+: c; *: f; min: t; ^: count; ||: ok)
	for i := 0; i < n; i++ {
		c += 1
		f *= 2
		t = min(t, celsius(i))
		count ^= i
		ok = ok || i > 2
	}
}

func names(n int) {
	s := 0
	//svm:pdo loops(i) reduction(+: s, total) reduction(max: s) reduction(+: i) reduction(+: n2) // want 37:`^reduction\(\+: total\): total is not a variable declared before the pdo$` 59:`^reduction variable s is named twice; reduce it with one operator$` 75:`^reduction\(\+: i\): i is a loop variable of the pdo; reduce into a variable declared before it$` 91:`^reduction\(\+: n2\): n2 is not a variable declared before the pdo$`
	for i := 0; i < n; i++ {
		s += i
	}
}

// Slices and arrays of numbers reduce element by element.
func elements(xs []float64, n int) {
	hist := make([]int, 8)
	var peaks [4]float64
	var bits [2]uint8
	//svm:pdo reduction(+: hist) reduction(max: peaks) reduction(|: bits)
	for i, x := range xs {
		hist[i%8]++
		peaks[i%4] = max(peaks[i%4], x)
		bits[i%2] |= uint8(i)
	}
	words := make([]string, 3)
	cs := make([]complex128, 3)
	grid := make([][]int, 3)
	fs := make([]float64, 3)
	var flags [2]bool
	//svm:pdo reduction(max: words) reduction(+: cs, grid) reduction(^: fs) reduction(||: flags) // want 27:`^reduction\(max: words\): words has type \[\]string; a slice or array reduces element by element, and its elements must be integers or floating-point numbers, not string$` 47:`elements must be integers or floating-point numbers, not complex128$` 51:`elements must be integers or floating-point numbers, not \[\]int$` 70:`^reduction\(\^: fs\): fs has type \[\]float64; \^ needs integer elements$` 88:`^reduction\(\|\|: flags\): flags has type \[2\]bool; a slice or array reduces element by element, and its elements must be integers or floating-point numbers, not bool$`
	for i := range n {
		_ = i
	}
	_, _, _, _, _ = words, cs, grid, fs, flags
}

type numeric interface{ ~int | ~float64 }
type textual interface{ ~int | ~string }

// A slice of a type parameter reduces when its type set holds numbers only.
func generic[N numeric, S textual, A any](ns []N, ss []S, as []A) {
	//svm:pdo reduction(+: ns) reduction(max: ss) reduction(+: as) // want 44:`^reduction\(max: ss\): ss has type \[\]S; a slice or array reduces element by element, and its elements must be integers or floating-point numbers, not string$` 61:`^reduction\(\+: as\): as has type \[\]A; a slice or array reduces element by element, and the constraint of its elements A admits types that are not numbers`
	for i := range 4 {
		ns[i%2] += N(i)
	}
}

func main() {}
