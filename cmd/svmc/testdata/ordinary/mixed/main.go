// The program of issue 11: sort.Sort of its own type, a recursive function,
// a named function passed as a value, four goroutines, then one pdo.
package main

import (
	"fmt"
	"sort"
	"sync"
)

type item struct {
	key   int
	value float64
}

type byKey []item

func (s byKey) Len() int           { return len(s) }
func (s byKey) Less(i, j int) bool { return s[i].key < s[j].key }
func (s byKey) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func scale(v float64) float64 { return 2 * v }

func mapInPlace(xs []item, f func(float64) float64) {
	for i := range xs {
		xs[i].value = f(xs[i].value)
	}
}

func main() {
	items := make(byKey, 150000)
	seed := uint32(7)
	for i := range items {
		seed = seed*1664525 + 1013904223
		items[i] = item{int(seed >> 8), float64(i)}
	}
	sort.Sort(items)
	mapInPlace(items, scale)
	f := fib(25)

	var wg sync.WaitGroup
	parts := make([]float64, 4)
	for g := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(items); i += len(parts) {
				parts[g] += items[i].value
			}
		}()
	}
	wg.Wait()

	total := 0.0
	//svm:pdo loops(i) reduction(+: total)
	for i := 0; i < len(items); i++ {
		total += items[i].value * 0.5
	}
	fmt.Println(items[0].key, f, parts[0]+parts[1]+parts[2]+parts[3], total)
}
