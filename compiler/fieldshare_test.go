package compiler

import "testing"

// TestFieldShare: a shared variable taken from a struct field (pos :=
// s.Pos, arr := s.Arr[:]) makes the accesses through that field shared
// accesses, in every function and through any value of the type (a
// parameter given the field's storage too); an element written through
// a field of it (s.Pos[i].X += 1) is a write, one written through a
// pointer field of it (s.Ptrs[i].P.X = 3) a read; a field no shared
// variable was taken from (Mass) has none, and neither has an accessor
// the Go compiler inlines (at), which stays plain.
func TestFieldShare(t *testing.T) {
	want := lineCounts(t, "testdata/fieldshare/main.go", "read", "write") // line: reads, writes
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
