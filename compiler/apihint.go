package compiler

import (
	"go/types"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/svmc/svmc/internal/suggest"
	"golang.org/x/tools/go/packages"
)

// undefinedSel is the type checker's message for a name a package does
// not declare: "undefined: rtlib.NProcs".
var undefinedSel = regexp.MustCompile(`^undefined: (\w+)\.(\w+)$`)

// runtimeHint adds to the type checker's "undefined: rtlib.X", where the
// package is the runtime's API, the names of the API X resembles: a
// misspelling's "did you mean", and the names sharing a word with it
// (rtlib.NProcs: "rtlib's names with proc: …, NumProcessors, …"), as a
// programmer guessing an API's names needs; other messages are returned as
// they are.
func runtimeHint(lp *packages.Package, msg string) string {
	m := undefinedSel.FindStringSubmatch(msg)
	if m == nil || lp.Types == nil || !importsAs(lp, m[1]) {
		return msg
	}
	var rt *types.Package
	for _, ip := range lp.Types.Imports() {
		if ip.Path() == RuntimePath {
			rt = ip
		}
	}
	if rt == nil {
		return msg
	}
	var names []string
	for _, n := range rt.Scope().Names() {
		if o := rt.Scope().Lookup(n); o.Exported() && !isInternal(o) {
			names = append(names, n)
		}
	}
	msg += suggest.DidYouMean(m[2], names, true)
	var like, words []string
	for _, stem := range stems(m[2]) {
		for _, n := range names {
			if strings.Contains(strings.ToLower(n), stem) && !slices.Contains(like, n) {
				like = append(like, n)
				if !slices.Contains(words, stem) {
					words = append(words, stem)
				}
			}
		}
	}
	if len(like) == 0 {
		return msg
	}
	slices.Sort(like)
	if len(like) > 5 {
		like = append(like[:5], "…")
	}
	return msg + " (" + m[1] + "'s names with " + strings.Join(words, " or ") + ": " + strings.Join(like, ", ") + "; the README's Program API lists them all)"
}

// importsAs reports whether a file of lp imports the runtime under name
// (its package name, or the name an import gives it).
func importsAs(lp *packages.Package, name string) bool {
	for _, f := range lp.Syntax {
		for _, im := range f.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); path != RuntimePath {
				continue
			}
			if im.Name == nil && name == "rtlib" || im.Name != nil && im.Name.Name == name {
				return true
			}
		}
	}
	return false
}

// isInternal reports whether o is one of the names the generated code
// calls (Entry2_1, PDO's helpers), not meant for the program.
func isInternal(o types.Object) bool {
	n := o.Name()
	return strings.HasPrefix(n, "Entry") || strings.HasSuffix(n, "At") && len(n) > 2
}

// stems are the words of a camel-case name, lower case, a plural's s
// dropped, of three letters or more: NProcs → proc; NumProcessors →
// num, processor.
func stems(name string) []string {
	var words []string
	start := 0
	rs := []rune(name)
	for i := 1; i <= len(rs); i++ {
		// NumProcessors: Num|Processors; NProcs, an initial: N|Procs.
		if i == len(rs) || unicode.IsUpper(rs[i]) && (!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	var out []string
	for _, w := range words {
		w = strings.TrimSuffix(strings.ToLower(w), "s")
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}
