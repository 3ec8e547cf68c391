// Functions on both sides of the Go compiler's inlining budget, and small
// ones svmc must instrument anyway (TestInlinePass).
package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
)

type point struct{ x, y int }

func (p point) dist() int { return p.x*p.x + p.y*p.y } // plain

type byDist []point

func (b byDist) Len() int           { return len(b) }                       // plain
func (b byDist) Less(i, j int) bool { return b[i].dist() < b[j].dist() }    // plain: calls a plain method
func (b byDist) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }             // plain
func norm(p point) float64          { return math.Sqrt(float64(p.dist())) } // plain: math.Sqrt is an intrinsic
func apply(xs []int, f func(int) int) { // plain: f is a parameter
	for i, x := range xs {
		xs[i] = f(x)
	}
}

type Number interface{ ~int | ~float64 }

func sum[E Number](xs []E) E { // instrumented: a loop
	var s E
	for _, x := range xs {
		s += x
	}
	return s
}

func fib(n int) int { // instrumented: recursive
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func even(n int) bool { // instrumented: mutually recursive
	if n == 0 {
		return true
	}
	return odd(n - 1)
}

func odd(n int) bool { // instrumented: mutually recursive
	if n == 0 {
		return false
	}
	return even(n - 1)
}

func show(p point) { fmt.Println(p.x) } // instrumented: output goes through the processor

func warn(s string) { fmt.Fprintln(os.Stderr, s) } // instrumented: output goes through the processor

func spawn(wg *sync.WaitGroup) { // instrumented: a go statement
	go wg.Done()
}

func locked(mu *sync.Mutex, p *int) { // instrumented: a defer
	mu.Lock()
	defer mu.Unlock()
	*p++
}

//go:noinline
func kept(x int) int { return x + 1 } // instrumented: the user chose

func heavy(s []string) string { // instrumented: too costly
	var b strings.Builder
	for _, x := range s {
		b.WriteString(strings.ToUpper(x))
		b.WriteString(strings.TrimSpace(x))
	}
	return b.String()
}

func twice(p point) int { return fib(p.x) * 2 } // instrumented: calls an instrumented function

func work(xs []float64) float64 { // instrumented: a pdo
	s := 0.0
	//svm:pdo loops(i) reduction(+: s)
	for i := range xs {
		s += xs[i]
	}
	return s
}

func main() {
	ps := byDist{{3, 4}, {1, 1}}
	sort.Sort(ps)
	xs := []int{1, 2, 3}
	apply(xs, func(v int) int { return v * 2 })
	var wg sync.WaitGroup
	wg.Add(1)
	spawn(&wg)
	wg.Wait()
	var mu sync.Mutex
	n := 0
	locked(&mu, &n)
	show(ps[0])
	warn("w")
	fmt.Println(norm(ps[1]), sum(xs), fib(10), even(4), kept(1), heavy([]string{"a"}), twice(ps[0]), work([]float64{1, 2}))
}
