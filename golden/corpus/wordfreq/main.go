// Wordfreq: a pdo over lines, each iteration counting words through an
// interface of a package of its own (a constructor passed as a function
// value), merged under a named critical section; the result sorted with
// maps.Keys and slices, a String method, JSON with struct tags.
package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/svmc/svmc/golden/corpus/wordfreq/text"
)

type result struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

func (r result) String() string { return fmt.Sprintf("%s=%d", r.Word, r.Count) }

func count(lines []string, newCounter func() text.Counter) map[string]int {
	total := map[string]int{}
	//svm:pdo
	for i := range lines {
		c := newCounter()
		for _, w := range text.Words(lines[i]) {
			c.Add(w)
		}
		//svm:critical merge
		for w, n := range c.Counts() {
			total[w] += n
		}
		//svm:end critical
	}
	return total
}

func main() {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "The quick brown fox %d jumps over the lazy dog; the END of line %d.\n", i, i%7)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	counts := count(lines, func() text.Counter { return text.NewMapCounter() })
	var rs []result
	for _, w := range slices.Sorted(maps.Keys(counts)) {
		rs = append(rs, result{w, counts[w]})
	}
	slices.SortStableFunc(rs, func(a, b result) int { return b.Count - a.Count })
	fmt.Println(rs[:4])
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(rs[len(rs)-2:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
