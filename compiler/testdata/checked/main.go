// The shared variables of this package, each marked with whether every
// access of its storage is an access check (TestFullyChecked).
package main

import (
	"fmt"
	"sort"
)

func main() {
	n := 64
	//svm:processors P(nprocs())
	a, b := grid(n), grid(n) // checked: elements, swapped, rows passed to a helper
	c := make([]float64, n)  // checked: len, range keys, a slice to a helper
	d := make([]float64, n)  // unchecked: sorted by the standard library
	e := make([]float64, n)  // checked: ranged over with values (checked before the loop)
	e2 := make([]float64, n) // unchecked: ranged over in a labelled loop
	r := grid(n)             // checked: its rows ranged over, by value
	f := grid(n)             // unchecked: a row taken as a value
	g := make([]float64, n)  // unchecked: an element's address
	h := make([]float64, n)  // unchecked: copied to another variable
	q := make([]int64, 8)    // checked: updated in a critical section
	l := make([]float64, 4)  // checked: updated under a lock of its element (a key)
	w := make([]int64, 8)    // unchecked: an atomic update (svmc replaces the statement)
	//svm:shared a, b, c, d, e, e2, r, f, g, h, q, l, w
	//svm:pdo loops(i)
	for i := 1; i < n-1; i++ {
		for j := range n {
			b[i][j] = (a[i-1][j] + a[i+1][j]) / 2
		}
		c[i] = float64(i)
		//svm:critical
		q[i%8]++
		//svm:lock(l[i%4])
		l[i%4] += 1
		//svm:atomic
		w[i%8]++
	}
	a, b = b, a
	fill(a[3], 1)
	sum(c[1:])
	for i := range c {
		d[i] = c[i]
	}
	sort.Float64s(d)
	t := 0.0
	for _, x := range e {
		t += x
	}
L:
	for _, x := range e2 {
		if x > 0 {
			break L
		}
	}
	for _, row := range r {
		for j, x := range row {
			row[j] = x + 1
		}
	}
	row := f[2]
	p := &g[1]
	*p = 2
	k := h
	z := make([]float64, n)
	share(z)
	fmt.Println(len(a), cap(c), t, row[0], k[0], z[0], q[0], l[0], w[0])
}

// share shares its parameter: main's own variable reaches the same storage
// unchecked (x: not fully checked).
func share(x []float64) {
	//svm:shared x
	for i := range x {
		x[i] = 1
	}
}

func grid(n int) [][]float64 {
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, n)
	}
	return g
}

func fill(r []float64, v float64) {
	for j := range r {
		r[j] = v
	}
}

func sum(s []float64) (t float64) {
	for i := 0; i < len(s); i++ {
		t += s[i]
	}
	return t
}
