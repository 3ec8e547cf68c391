// Serial code that calls small methods very often (sort.Sort of its own
// type) before one parallel loop: the top finding is the serial time, and
// the request that narrows in on it must not trace every Less and Swap.
package main

import (
	"fmt"
	"sort"
)

type byVal []int

func (b byVal) Len() int           { return len(b) }
func (b byVal) Less(i, j int) bool { return b[i] < b[j] }
func (b byVal) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func main() {
	a := make([]int, 200000)
	x := 1
	for i := range a {
		x = (x*1103515245 + 12345) & 0x7fffffff
		a[i] = x % 1000
	}
	sort.Sort(byVal(a))
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < len(a); i++ {
		s += a[i]
	}
	fmt.Println("sum", s)
}
