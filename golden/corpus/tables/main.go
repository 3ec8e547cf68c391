// Tables: function literals held by package-level variables, the way
// command tables, handler maps and strategy maps are written: a slice of
// commands whose run functions hold pdo loops, one with an unnamed
// parameter and named results; an http.HandlerFunc variable; a table built
// by a literal called where it stands (its pdo runs serially, before main);
// an exported map of reducers in a library package; checks registered by
// an init function, whose literal runs from main. Functions named p and
// first, and a variable lo holding a literal, have names that svmc's
// generated code also uses for its own variables.
package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"

	"github.com/svmc/svmc/golden/corpus/tables/reduce"
)

type command struct {
	name string
	run  func(args []string) (int, error)
}

var commands = []command{
	{"letters", func(args []string) (int, error) {
		n := 0
		//svm:pdo loops(i) reduction(+: n)
		for i := range args {
			n += len(args[i])
		}
		return n, nil
	}},
	{"none", func([]string) (int, error) { return 0, nil }},
	{"longest", func(args []string) (best int, err error) {
		//svm:pdo loops(i) reduction(max: best)
		for i := 0; i < len(args); i++ {
			best = max(best, first(len(args[i]), 0))
		}
		return
	}},
}

var squares = func() []int {
	out := make([]int, 10)
	//svm:pdo loops(i)
	for i := range out {
		out[i] = p(i) * p(i)
	}
	return out
}()

var handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	words := strings.Fields(r.URL.Query().Get("q"))
	total := 0
	//svm:pdo loops(i) reduction(+: total)
	for i := range words {
		total += len(words[i])
	}
	fmt.Fprintf(w, "%d letters in %d words\n", total, len(words))
})

var lo = func(xs []int) int {
	m := xs[0]
	//svm:pdo loops(i) reduction(min: m)
	for i := range xs {
		m = min(m, xs[i])
	}
	return m
}

var checks = map[string]func([]int) bool{}

func init() {
	checks["sorted"] = func(xs []int) bool {
		ok := true
		//svm:pdo loops(i) reduction(&&: ok)
		for i := 1; i < len(xs); i++ {
			ok = ok && xs[i-1] <= xs[i]
		}
		return ok
	}
}

// p is the identity, recursively.
func p(x int) int {
	if x == 0 {
		return 0
	}
	return p(x-1) + 1
}

func first(a, _ int) int { return a }

func main() {
	args := []string{"alpha", "be", "gamma", "delta", "epsilon"}
	for _, c := range commands {
		n, err := c.run(args)
		fmt.Println(c.name, n, err)
	}
	fmt.Println(squares, lo([]int{7, 3, 9, 4}), p(12))
	fmt.Println(checks["sorted"](squares), checks["sorted"]([]int{3, 1, 2}))

	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i % 97)
	}
	var names []string
	for k := range reduce.By {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Println(k, reduce.By[k](xs...))
	}
	out := make([]int, 5)
	fmt.Println(reduce.Fill(1, 2, 3, 4, 5, 6, 7, 8, "x", out))
	fmt.Println(out)

	srv := httptest.NewServer(handler)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?q=the+quick+brown+fox")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(string(b))
}
