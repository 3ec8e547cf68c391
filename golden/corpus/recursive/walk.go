package main

import (
	"fmt"
	"strings"
)

// Ordered is a generic binary search tree.
type Ordered[T any] struct {
	L, R *Ordered[T]
	V    T
}

// Walk visits in order: a recursive method of a generic type.
func (t *Ordered[T]) Walk(f func(T)) {
	if t == nil {
		return
	}
	t.L.Walk(f)
	f(t.V)
	t.R.Walk(f)
}

func insert[T any](t *Ordered[T], v T, less func(a, b T) bool) *Ordered[T] {
	if t == nil {
		return &Ordered[T]{V: v}
	}
	if less(v, t.V) {
		t.L = insert(t.L, v, less)
	} else {
		t.R = insert(t.R, v, less)
	}
	return t
}

// sum is variadic; count has blank parameters.
func sum(xs ...int) int {
	if len(xs) == 0 {
		return 0
	}
	return xs[0] + sum(xs[1:]...)
}

func count(n int, _ string, _ bool) int {
	if n == 0 {
		return 0
	}
	return 1 + count(n-1, "", false)
}

// hanoi writes its moves into a builder (not the program's output), and
// reaches its recursion through a label.
func hanoi(n int, from, to, via string, b *strings.Builder) {
again:
	if n == 0 {
		return
	}
	hanoi(n-1, from, via, to, b)
	fmt.Fprintf(b, "%s>%s ", from, to)
	n, from, via = n-1, via, from
	goto again
}

// others runs this file's functions.
func others() {
	var root *Ordered[string]
	for _, w := range strings.Fields("pear apple fig kiwi banana cherry") {
		root = insert(root, w, func(a, b string) bool { return a < b })
	}
	var words []string
	root.Walk(func(s string) { words = append(words, s) })
	var b strings.Builder
	hanoi(3, "A", "C", "B", &b)
	fmt.Println(words, sum(1, 2, 3, 4, 5), count(7, "x", true), b.String())
}
