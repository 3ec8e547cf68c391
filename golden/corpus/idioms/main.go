// Ordinary Go around pdos: a String method and a method expression with
// pdos (fmt calls String through an interface), a closure returned by a
// function holding a pdo, a deferred call of one, a recover around a panic
// in a pdo body, os.Exit with a deferred call pending; methods on named
// array and number types with named results, pdos in the cases of a
// switch and a select, a labelled continue; loops over a named integer
// type, a pointer to an array, a struct field bound and a typed constant,
// goroutines a pdo iteration starts and waits for.
package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

type Vec []float64

func (v Vec) Norm1() float64 {
	s := 0.0
	//svm:pdo loops(i) reduction(+: s)
	for i := range v {
		s += max(v[i], -v[i])
	}
	return s
}

func (v Vec) String() string {
	parts := make([]string, len(v))
	//svm:pdo loops(i)
	for i := range v {
		parts[i] = fmt.Sprintf("%.1f", v[i])
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func scaler(k float64) func(Vec) Vec {
	return func(v Vec) Vec {
		out := make(Vec, len(v))
		//svm:pdo loops(i)
		for i := range v {
			out[i] = v[i] * k
		}
		return out
	}
}

func summary(v Vec) {
	fmt.Println("norm", v.Norm1())
}

func run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	v := Vec{1, -2, 3}
	var idx []int
	//svm:pdo loops(i)
	for i := range v {
		if v[i] < 0 {
			_ = idx[5]
		}
	}
	return nil
}

func vectors() {
	v := Vec{1, -2, 3, -4}
	defer summary(v)
	norm := Vec.Norm1
	fmt.Println(v, norm(v))
	double := scaler(2)
	fmt.Println(double(v))
	fmt.Printf("%v %s\n", double(v), v)
	fmt.Println(run())
	if len(os.Args) > 1 {
		defer fmt.Println("not printed")
		os.Exit(3)
	}
}

type Celsius float64

type Temps [8]Celsius

func (t Temps) Mean() (m Celsius) {
	//svm:pdo loops(i) reduction(+: m)
	for i := range t {
		m += t[i] / Celsius(len(t))
	}
	return
}

func (t *Temps) Warm(by ...Celsius) {
	add := Celsius(0)
	for _, b := range by {
		add += b
	}
	//svm:pdo loops(i)
	for i := range t {
		t[i] += add
	}
}

type Op int

const (
	Sum Op = iota
	Max
)

func (o Op) Apply(xs []int) (r int) {
	switch o {
	case Sum:
		//svm:pdo loops(i) reduction(+: r)
		for i := range xs {
			r += xs[i]
		}
	case Max:
		r = xs[0]
		//svm:pdo loops(i) reduction(max: r)
		for i := range xs {
			r = max(r, xs[i])
		}
	default:
		//svm:template W(4)
		//svm:distribute (cyclic) :: W
		//svm:pdo loops(i) strategy(on_home(W(i)))
		for i := 0; i < 4; i++ {
			_ = i
		}
		r = -1
	}
	return r
}

func named() {
	var t Temps
	for i := range t {
		t[i] = Celsius(i)
	}
	t.Warm(1, 0.5)
	fmt.Printf("%.2f\n", t.Mean())
	xs := []int{4, 9, 2, 7}
	fmt.Println(Sum.Apply(xs), Max.Apply(xs), Op(5).Apply(xs))
	ch := make(chan int, 1)
	ch <- 3
	grid := make([][]int, 4)
	select {
	case k := <-ch:
		//svm:pdo loops(i)
	rows:
		for i := 0; i < 4; i++ {
			grid[i] = make([]int, k)
			for j := range grid[i] {
				if j == 1 {
					continue rows
				}
				grid[i][j] = i + j
			}
		}
	case <-time.After(time.Second):
	}
	fmt.Println(grid)
}

type Count int

type box struct {
	n    int
	vals *[8]int
}

func ranges() {
	var c Count = 5
	out := make([]int, 8)
	//svm:pdo loops(i)
	for i := range c {
		out[i] = int(i) * 2
	}
	b := &box{n: 6, vals: &[8]int{}}
	//svm:pdo loops(i)
	for i := range b.vals {
		b.vals[i] = i + 1
	}
	//svm:pdo loops(i)
	for i := 0; i < b.n; i++ {
		out[i] += b.vals[i]
	}
	small := make([]int, 200)
	//svm:pdo loops(i)
	for i := range uint8(200) {
		small[i] = int(i) % 3
	}
	parts := make([]int, 4)
	//svm:pdo loops(i)
	for i := 0; i < 4; i++ {
		var wg sync.WaitGroup
		sub := make([]int, 3)
		for k := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sub[k] = i * k
			}()
		}
		wg.Wait()
		parts[i] = sub[0] + sub[1] + sub[2]
	}
	s := 0
	for _, v := range small {
		s += v
	}
	fmt.Println(out, *b.vals, s, parts)
}

func main() {
	vectors()
	named()
	ranges()
}
