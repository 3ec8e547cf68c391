// min and max reductions over any ordered type, strings and type
// parameters of cmp.Ordered too (not in TestRunMPI: a reduction that is
// neither an integer nor a floating-point number is not yet combined
// between ranks).
package main

import (
	"cmp"
	"fmt"
	"strings"
)

// extremes reduces with min and max over any ordered type.
func extremes[T cmp.Ordered](xs []T) (lo, hi T) {
	lo, hi = xs[0], xs[0]
	//svm:pdo loops(i) reduction(min: lo) reduction(max: hi)
	for i := range xs {
		lo = min(lo, xs[i])
		hi = max(hi, xs[i])
	}
	return lo, hi
}

type name string

func main() {
	words := strings.Fields("pear fig apple quince kiwi banana cherry")
	last := ""
	//svm:pdo loops(i) reduction(max: last)
	for i := 0; i < len(words); i++ {
		last = max(last, words[i])
	}
	fmt.Println(last)
	fmt.Println(extremes(words))
	fmt.Println(extremes([]float64{2.5, -1, 9.25, 3}))
	fmt.Println(extremes([]name{"b", "a", "c"}))
	// A min starts from the variable's value, as the serial loop does.
	first := name("aardvark")
	//svm:pdo loops(i) reduction(min: first)
	for i := range 3 {
		first = min(first, []name{"b", "a", "c"}[i])
	}
	fmt.Println(first)
}
