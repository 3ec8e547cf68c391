// Word statistics: tokens from strings.FieldsFunc with a closure, their
// lengths and a histogram by a dynamic pdo with an atomic update, two
// counts in parallel sections, then a map and sort.Slice in serial code.
package main

import (
	"fmt"
	"sort"
	"strings"
)

type word struct {
	text  string
	count int
}

func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r < 'a' || r > 'z' })
}

func main() {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog and the cat ", 200)
	toks := tokens(text)
	lengths := make([]int, len(toks))
	hist := make([]int64, 16)
	//svm:shared lengths, hist
	//svm:pdo loops(i) strategy(dynamic(64))
	for i := 0; i < len(toks); i++ {
		lengths[i] = len(toks[i])
		//svm:atomic
		hist[len(toks[i])%16]++
	}
	var vowels, consonants int
	//svm:psection
	{
		//svm:section
		{
			for _, t := range toks {
				vowels += strings.Count(t, "a") + strings.Count(t, "e") + strings.Count(t, "o") + strings.Count(t, "u") + strings.Count(t, "i")
			}
		}
		//svm:section
		{
			for _, t := range toks {
				consonants += len(t)
			}
		}
	}
	counts := map[string]int{}
	for _, t := range toks {
		counts[t]++
	}
	ws := make([]word, 0, len(counts))
	for k, v := range counts {
		ws = append(ws, word{k, v})
	}
	sort.Slice(ws, func(i, j int) bool {
		return ws[i].count > ws[j].count || ws[i].count == ws[j].count && ws[i].text < ws[j].text
	})
	total := 0
	for _, l := range lengths {
		total += l
	}
	fmt.Println(ws[:3], hist[:6], total, vowels, consonants-vowels)
}
