// want race=yes line=17
// a counter method indexed by its argument, given shared data
package main

type counts struct{ n []int }

func (c *counts) inc(k int) { c.n[k]++ }

func main() {
	keys := make([]int, 64)
	for i := range keys {
		keys[i] = i % 4
	}
	c := &counts{n: make([]int, 4)}
	//svm:pdo loops(i)
	for i := range keys {
		c.inc(keys[i])
	}
}
