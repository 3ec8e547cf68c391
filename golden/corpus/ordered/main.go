// Reductions whose values are not real numbers: min and max over any
// ordered type (strings, type parameters of cmp.Ordered), && and || over
// bool and a named bool type, + and * over complex numbers. They are
// combined between ranks too (TestRunMPI).
package main

import (
	"cmp"
	"fmt"
	"math/cmplx"
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

type flag bool

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

	all, some := true, false
	var nice flag = true
	var z complex128
	p := complex64(1)
	//svm:pdo loops(i) reduction(&&: all) reduction(||: some) reduction(&&: nice) reduction(+: z) reduction(*: p)
	for i := 0; i < len(words); i++ {
		all = all && len(words[i]) > 2
		some = some || strings.HasPrefix(words[i], "q")
		nice = nice && flag(words[i] != "")
		z += cmplx.Rect(1, float64(i))
		p *= complex(1, 0.1)
	}
	fmt.Println(all, some, nice)
	fmt.Printf("%.6f %.6f\n", z, p)
}
