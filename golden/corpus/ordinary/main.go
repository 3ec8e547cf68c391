// Ordinary Go around one parallel loop: methods called through
// sort.Interface, a function value, goroutines, os.Stderr, and os.Exit at
// the end (the smoke program of the project).
package main

import (
	"fmt"
	"os"
	"sort"
	"sync"
)

type byVal []int

func (b byVal) Len() int           { return len(b) }
func (b byVal) Less(i, j int) bool { return b[i] < b[j] }
func (b byVal) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func twice(x int) int { return 2 * x }

func main() {
	a := make([]int, 20000)
	x := 1
	for i := range a {
		x = (x*1103515245 + 12345) & 0x7fffffff
		a[i] = x % 1000
	}
	sort.Sort(byVal(a))
	f := twice
	var wg sync.WaitGroup
	part := make([]int, 2)
	for g := range part {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				part[g] += f(i)
			}
		}()
	}
	wg.Wait()
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < len(a); i++ {
		s += a[i]
	}
	fmt.Fprintln(os.Stderr, "sorted:", sort.IsSorted(byVal(a)))
	fmt.Println("sum", s, "parts", part[0]+part[1])
	os.Exit(0)
}
