// Command plainloops has pdos written without loops(...): each is the loop
// that follows, as Go writes it, with an index, without one
// (for _, v := range s) or with no variable at all (for range n), and one
// whose loop carries a label.
package main

import (
	"fmt"
	"strings"
)

type grid [8][8]float64

type shape interface{ area() float64 }

type square struct{ side float64 }
type tri struct{ base, height float64 }

func (s square) area() float64 { return s.side * s.side }
func (t tri) area() float64    { return t.base * t.height / 2 }

func main() {
	hits := 0
	//svm:pdo reduction(+: hits)
	for range 100 {
		hits++
	}
	fmt.Println("hits", hits)

	words := strings.Fields("alpha beta gamma delta epsilon")
	total := 0
	//svm:pdo strategy(dynamic(2)) reduction(+: total)
	for _, w := range words {
		total += len(w)
	}
	fmt.Println("letters", total)

	var g grid
	//svm:shared g
	//svm:pdo strategy(cyclic)
	for r := 0; r < len(g); r++ {
		for c := range g[r] { // serial inside the iteration
			g[r][c] = float64(r*10 + c)
		}
	}
	sum := 0.0
	//svm:pdo reduction(+: sum)
	for _, row := range g {
		for _, v := range row {
			sum += v
		}
	}
	fmt.Println("grid", sum)

	longest := ""
	//svm:pdo reduction(max: longest)
	for k := range len(words) {
		longest = max(longest, words[k])
	}
	fmt.Println("last word", longest)

	shapes := []shape{square{2}, tri{3, 4}, square{1.5}, tri{1, 1}}
	area := 0.0
	//svm:pdo reduction(+: area)
	for _, s := range shapes {
		area += s.area()
	}
	fmt.Printf("area %.2f\n", area)

	down := 0
	//svm:pdo reduction(+: down)
	for i := 10; i > 0; i -= 3 {
		down += i
	}
	fmt.Println("down", down)

	// A labelled pdo loop: continue from the inner loop ends one iteration.
	prime := make([]bool, 60)
	//svm:shared prime
	//svm:pdo strategy(cyclic)
next:
	for i := 2; i < len(prime); i++ {
		for d := 2; d*d <= i; d++ {
			if i%d == 0 {
				continue next
			}
		}
		prime[i] = true
	}
	var ps []int
	for i, p := range prime {
		if p {
			ps = append(ps, i)
		}
	}
	fmt.Println("primes", ps)

	// The directive may stand below the label too, above its loop.
	composite := make([]bool, 60)
	//svm:shared composite
mark:
	//svm:pdo strategy(cyclic)
	for i := 4; i < len(composite); i++ {
		for d := 2; d*d <= i; d++ {
			if i%d == 0 {
				composite[i] = true
				continue mark
			}
		}
	}
	fmt.Println("composites", strings.Count(fmt.Sprint(composite), "true"))
}
