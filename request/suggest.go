package request

import sug "github.com/svmc/svmc/internal/suggest"

// suggest returns `; did you mean "x"?` for the candidate closest to word
// (compared without case), or "" when none is close. A candidate equal to
// word but for case is suggested too (for names, which are case-sensitive).
func suggest(word string, candidates []string) string {
	return sug.DidYouMean(word, candidates, true)
}
