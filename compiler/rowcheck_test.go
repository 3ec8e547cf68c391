package compiler

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// lineCounts reads the comments of the test program at path that count
// two things on their line ("first N", "second M"): line → [N, M].
func lineCounts(t *testing.T, path, first, second string) map[int][2]int {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][2]int{}
	re := regexp.MustCompile(`(` + first + `|` + second + `) (\d+)`)
	for i, line := range strings.Split(string(src), "\n") {
		_, comment, ok := strings.Cut(line, "// ")
		if !ok {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(comment, -1) {
			n, _ := strconv.Atoi(m[2])
			w := want[i+1]
			if m[1] == first {
				w[0] = n
			} else {
				w[1] = n
			}
			want[i+1] = w
		}
	}
	return want
}

// TestHoistRows: built for ranks, an access X[e…][j+c] in an innermost
// counting loop over j whose row does not change in the loop is checked
// once before it, and so is one in a pdo's body whose j is the nest's
// innermost index (once per run); an index that is not j+c, a row whose index the loop
// changes (a local it assigns, one a called closure changes, a package
// variable where the loop calls something, an index read from shared
// storage), a labelled loop, an outer loop and a shadowed j keep their
// checks. A build for one process hoists nothing.
func TestHoistRows(t *testing.T) {
	want := lineCounts(t, "testdata/rowcheck/main.go", "hoisted", "kept") // line: hoisted, kept
	for _, ranks := range []bool{true, false} {
		p, err := Compile(Config{Dir: "testdata/rowcheck", Pattern: ".", Ranks: ranks})
		if p == nil || len(p.Diags.Errors()) > 0 {
			t.Fatalf("does not compile: %v %v", err, p.Diags)
		}
		accs, _ := ResultOf[[]*Access](p, AccessesPass)
		got := map[int][2]int{}
		for _, a := range accs {
			line := p.Fset.Position(a.Expr.Pos()).Line
			w := got[line]
			if a.Row != nil {
				w[0]++
			} else {
				w[1]++
			}
			got[line] = w
		}
		for line, w := range want {
			if !ranks {
				w = [2]int{0, w[0] + w[1]}
			}
			if got[line] != w {
				t.Errorf("ranks %v: line %d: %d hoisted, %d kept; want %d, %d", ranks, line, got[line][0], got[line][1], w[0], w[1])
			}
		}
	}
}
