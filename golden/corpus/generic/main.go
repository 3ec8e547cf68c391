// A generic vector type with a pdo in its method, a pdo in a method promoted
// through an embedded pointer and called through an interface, method values
// and closures as pdo bodies' callees, a range over runes, a variable step and
// a two-loop nest.
package main

import (
	"fmt"
	"strings"
)

type Vec[T ~float64 | ~int] []T

func (v Vec[T]) Scale(k T) Vec[T] {
	out := make(Vec[T], len(v))
	//svm:pdo loops(i)
	for i := range v {
		out[i] = v[i] * k
	}
	return out
}

type Base struct{ data []int }

func (b *Base) Double() {
	//svm:pdo loops(i)
	for i := 0; i < len(b.data); i++ {
		b.data[i] *= 2
	}
}

type Derived struct {
	*Base
	name string
}

type Doubler interface{ Double() }

func apply(f func(int) int, xs []int) {
	//svm:pdo loops(i)
	for i := len(xs) - 1; i >= 0; i-- {
		xs[i] = f(xs[i])
	}
}

type counter struct{ n int }

func (c counter) plus(x int) int { return x + c.n }

func main() {
	fmt.Println(Vec[float64]{1, 2, 3}.Scale(1.5), Vec[int]{4, 5}.Scale(3))
	d := Derived{&Base{[]int{1, 2, 3}}, "d"}
	var dbl Doubler = d
	dbl.Double()
	fmt.Println(d.data)
	xs := []int{1, 2, 3, 4}
	apply(counter{10}.plus, xs)
	apply(func(x int) int { return x * x }, xs)
	fmt.Println(xs)
	s := []rune("héllo wörld")
	upper := make([]string, len(s))
	//svm:pdo loops(i)
	for i, r := range s {
		upper[i] = strings.ToUpper(string(r))
	}
	fmt.Println(strings.Join(upper, ""))
	step := 3
	cnt := 0
	//svm:pdo loops(i) reduction(+: cnt)
	for i := 0; i < 20; i += step {
		cnt++
	}
	fmt.Println(cnt)
	grid := make([][]int, 4)
	for i := range grid {
		grid[i] = make([]int, 5)
	}
	//svm:pdo loops(i, j)
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			if j > i {
				continue
			}
			grid[i][j] = i*10 + j
		}
	}
	fmt.Println(grid)
}
