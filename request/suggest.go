package request

import (
	"fmt"
	"strings"
)

// suggest returns `; did you mean "x"?` for the candidate closest to word
// (compared without case), or "" when none is close: an edit distance (with
// transpositions) of at most 2 and at most half the word's length, so that
// short unrelated words get no misleading suggestion. A candidate equal to
// word but for case is suggested too (for names, which are case-sensitive).
func suggest(word string, candidates []string) string {
	lw := strings.ToLower(word)
	best, bestD := "", 3
	for _, c := range candidates {
		if c == word {
			continue
		}
		lc := strings.ToLower(c)
		if len(lw) > len(lc)+2 || len(lc) > len(lw)+2 {
			continue
		}
		if d := distance(lw, lc); d < bestD && 2*d <= len(lw) {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// distance is the optimal-string-alignment edit distance of a and b (bytes).
func distance(a, b string) int {
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
