// Named functions and closures passed as values, methods as method values.
package main

import (
	"fmt"
	"strings"
)

type acc struct{ total int }

func (a *acc) add(v int) { a.total += v }

func square(v int) int { return v * v }

func apply(xs []int, f func(int) int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func each(xs []int, f func(int)) {
	for _, x := range xs {
		f(x)
	}
}

func main() {
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i
	}
	var a acc
	offset := 3
	for range 2000 {
		ys := apply(xs, square)
		ys = apply(ys, func(v int) int { return v%1000 + offset })
		each(ys, a.add)
	}
	fmt.Println(a.total, strings.Repeat("=", 3))
}
