// Recursive Go of the usual kinds — a method on a tree, mutual recursion
// through a helper, a generic function, a recursive function that prints,
// one that panics and recovers — called from a pdo and from exclusive
// code. svmc gives the recursive functions whose bodies it rewrites only
// to pass the processor a plain clone that runs when nothing is traced.
package main

import (
	"errors"
	"fmt"
	"sort"
)

// Tree is a binary tree of ints.
type Tree struct {
	L, R *Tree
	V    int
}

// Sum adds the tree's values: a recursive method.
func (t *Tree) Sum() int {
	if t == nil {
		return 0
	}
	return t.V + t.L.Sum() + t.R.Sum()
}

// Depth is a recursive method with a value of its own type as argument.
func (t *Tree) Depth(acc int) int {
	if t == nil {
		return acc
	}
	return max(t.L.Depth(acc+1), t.R.Depth(acc+1))
}

func build(d, v int) *Tree {
	if d == 0 {
		return nil
	}
	return &Tree{build(d-1, 2*v), build(d-1, 2*v+1), v}
}

// even and odd recurse through each other and a helper with a loop.
func even(n int) bool {
	if n == 0 {
		return true
	}
	return odd(step(n))
}

func odd(n int) bool {
	if n == 0 {
		return false
	}
	return even(step(n))
}

func step(n int) int {
	for n > 100 {
		n -= 2
	}
	return n - 1
}

// Number is what gsum adds.
type Number interface{ ~int | ~float64 }

// gsum is a generic recursive function.
func gsum[T Number](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	return xs[0] + gsum(xs[1:])
}

// countdown prints as it recurses: its output goes through the processor.
func countdown(n int) {
	if n == 0 {
		fmt.Println("liftoff")
		return
	}
	fmt.Println(n)
	countdown(n - 1)
}

var errDeep = errors.New("too deep")

// dive panics at the bottom; safeDive recovers.
func dive(n int) int {
	if n == 0 {
		panic(errDeep)
	}
	return 1 + dive(n-1)
}

func safeDive(n int) (depth int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	return dive(n), nil
}

// perm lists the permutations of xs in lexicographic order, recursively,
// through a closure.
func perm(xs []int) [][]int {
	if len(xs) <= 1 {
		return [][]int{append([]int(nil), xs...)}
	}
	var out [][]int
	for i := range xs {
		rest := append(append([]int(nil), xs[:i]...), xs[i+1:]...)
		for _, p := range perm(rest) {
			out = append(out, append([]int{xs[i]}, p...))
		}
	}
	return out
}

func main() {
	sums := make([]int, 8)
	evens := make([]bool, 8)
	//svm:pdo
	for i := 0; i < 8; i++ {
		sums[i] = build(i+3, i).Sum()
		evens[i] = even(i*37 + 5)
	}
	fmt.Println(sums, evens)
	fmt.Println(build(6, 1).Depth(0), gsum([]float64{0.5, 1.5, 2}), gsum([]int{1, 2, 3, 4}))
	countdown(3)
	if _, err := safeDive(5); errors.Is(err, errDeep) {
		fmt.Println("recovered:", err)
	}
	ps := perm([]int{3, 1, 2})
	sort.Slice(ps, func(a, b int) bool { return fmt.Sprint(ps[a]) < fmt.Sprint(ps[b]) })
	fmt.Println(ps)
	others()
}
