// Message passing written the way Go programmers write: an interface whose
// method exchanges, a generic helper over rtlib.Number, a function value
// and a method value of the API (not numbered call sites: they must still
// work), explicit type arguments, closures, and a psection whose sections
// reduce over their own processors.
package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/svmc/svmc/rtlib"
)

type exchanger interface {
	exchange(me, n int) int
}

type ring struct{ hops int }

func (r ring) exchange(me, n int) int {
	v := []int{me}
	in := make([]int, 1)
	for range r.hops {
		rtlib.Sendrecv((me+1)%n, 1, v, (me+n-1)%n, 1, in)
		v[0] = in[0]
	}
	return v[0]
}

// total is the sum of x over the active processor set.
func total[T rtlib.Number](x T) T {
	out := make([]T, 1)
	rtlib.Allreduce[T](rtlib.Sum, []T{x}, out)
	return out[0]
}

// isLeader reports whether the caller is the lowest processor of its
// active processor set.
func isLeader() bool {
	lead := make([]int, 1)
	rtlib.Allreduce(rtlib.Min, []int{rtlib.ProcessorID()}, lead)
	return lead[0] == rtlib.ProcessorID()
}

func main() {
	var ex exchanger = ring{hops: 3}
	send := rtlib.Send[string] // a function value of the API
	words := make([]string, 0)
	var sum float64
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		got := ex.exchange(me, n)
		s := total(float64(got + 1))
		if me == 0 {
			sum = s
		}
		// Every processor greets processor 0 through the function value;
		// processor 0 collects the greetings with a method value.
		send(0, 2, []string{fmt.Sprintf("hello from %d", me)})
		if me == 0 {
			buf := make([]string, 1)
			for range n {
				r := rtlib.Irecv[string](rtlib.AnySource, 2, buf)
				wait := r.Wait
				st := wait()
				words = append(words, fmt.Sprint(buf[0], " (", st.Count, ")"))
			}
		}
	}
	sort.Strings(words)
	n := len(words) // one greeting per processor
	fmt.Println("ring and Allreduce right:", sum == float64(n*(n+1)/2))
	fmt.Println("greetings right:", strings.Count(strings.Join(words, ","), "hello") == rtlib.NumProcessors())

	// Sections: each section's processors reduce over themselves only
	// (every one of them runs the replicated region).
	parts := make([]int, 2)
	//svm:psection
	{
		//svm:section
		//svm:replicated
		{
			if t := total(1); isLeader() {
				parts[0] = t
			}
		}
		//svm:section
		//svm:replicated
		{
			if t := total(10); isLeader() {
				parts[1] = t
			}
		}
	}
	fmt.Println("sections:", parts[0] > 0, parts[1] >= 10)
}
