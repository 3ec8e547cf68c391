// Package suggest finds the known word closest to a misspelt one, for the
// "did you mean" part of error messages of directives, request files and the
// compiler. Standard library only: the runtime links it through package
// request.
package suggest

import (
	"strconv"
	"strings"
)

// DidYouMean is the "did you mean" part of a message about the unknown word:
// `; did you mean "x"?` for the candidate Closest finds, "" when none is
// close. Every message of svmc that suggests a word phrases it so.
func DidYouMean(word string, candidates []string, fold bool) string {
	best := Closest(word, candidates, fold)
	if best == "" {
		return ""
	}
	return "; did you mean " + strconv.Quote(best) + "?"
}

// Closest returns the candidate closest to word, or "" when none is close:
// an edit distance (with transpositions) of at most 2 and at most half the
// word's length, so that short unrelated words get no misleading
// suggestion. Comparison ignores case when fold is set; a candidate equal
// to word is never suggested.
func Closest(word string, candidates []string, fold bool) string {
	w := word
	if fold {
		w = strings.ToLower(word)
	}
	best, bestD := "", 3
	for _, c := range candidates {
		if c == word {
			continue
		}
		lc := c
		if fold {
			lc = strings.ToLower(c)
		}
		if len(w) > len(lc)+2 || len(lc) > len(w)+2 {
			continue // too far apart, and the distance is quadratic
		}
		if d := Distance(w, lc); d < bestD && 2*d <= len(w) {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the optimal-string-alignment edit distance of a and b (bytes).
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
