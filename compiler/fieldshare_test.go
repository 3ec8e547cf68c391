package compiler

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFieldShare: a shared variable taken from a struct field (pos :=
// s.Pos, arr := s.Arr[:]) makes the accesses through that field shared
// accesses, in every function and through any value of the type (a
// parameter given the field's storage too); an element written through
// a field of it (s.Pos[i].X += 1) is a write, one written through a
// pointer field of it (s.Ptrs[i].P.X = 3) a read; a field no shared
// variable was taken from (Mass) has none, and neither has an accessor
// the Go compiler inlines (at), which stays plain.
func TestFieldShare(t *testing.T) {
	src, err := os.ReadFile("testdata/fieldshare/main.go")
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][2]int{} // line: reads, writes
	re := regexp.MustCompile(`(read|write) (\d+)`)
	for i, line := range strings.Split(string(src), "\n") {
		_, comment, ok := strings.Cut(line, "// ")
		if !ok {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(comment, -1) {
			n, _ := strconv.Atoi(m[2])
			w := want[i+1]
			if m[1] == "read" {
				w[0] = n
			} else {
				w[1] = n
			}
			want[i+1] = w
		}
	}
	p, err := Compile(Config{Dir: "testdata/fieldshare", Pattern: "."})
	if p == nil || len(p.Diags.Errors()) > 0 {
		t.Fatalf("does not compile: %v %v", err, p.Diags)
	}
	accs, _ := ResultOf[[]*Access](p, AccessesPass)
	got := map[int][2]int{}
	for _, a := range accs {
		line := p.Fset.Position(a.Pos()).Line
		w := got[line]
		if a.Write {
			w[1]++
		} else {
			w[0]++
		}
		got[line] = w
	}
	for line, w := range want {
		if got[line] != w {
			t.Errorf("line %d: %d reads, %d writes; want %d, %d", line, got[line][0], got[line][1], w[0], w[1])
		}
	}
	for line, w := range got {
		if _, ok := want[line]; !ok {
			t.Errorf("line %d: %d reads, %d writes; want none", line, w[0], w[1])
		}
	}
}
