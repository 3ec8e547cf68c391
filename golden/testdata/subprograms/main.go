// Subprograms of every shape: methods on values and pointers, a generic
// function, a variadic function, a recursive function, a function value and
// an interface call. Direct calls pass the processor; the others go through
// the wrappers with the original signatures.
package main

import (
	"fmt"
	"sort"
)

type vec []float64

func (v vec) dot(w vec) float64 {
	s := 0.0
	//svm:pdo loops(i) reduction(+: s)
	for i := range v {
		s += v[i] * w[i]
	}
	return s
}

type counter struct{ n int }

func (c *counter) add(k int) { c.n += k }

func (c *counter) String() string { return fmt.Sprintf("counter(%d)", c.n) }

func sum[T int | float64](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func apply(f func(int) int, x int) int { return f(x) }

func main() {
	v := vec{1, 2, 3, 4}
	c := &counter{}
	c.add(3)
	c.add(4)
	var s fmt.Stringer = c
	ks := []int{3, 1, 2}
	sort.Ints(ks)
	fmt.Println(v.dot(v), s, sum(1, 2, 3), sum(0.5, 0.25), fib(10), apply(fib, 12), ks)
}
