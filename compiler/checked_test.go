package compiler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFullyChecked: a shared variable is fully checked (its pages may be
// kept lazily between ranks) when its storage is reached only through
// access checks — elements, len and cap, range keys, storage moved between
// shared variables, rows and slices passed to the package's own functions,
// ranges over its values or its rows' (checked before the loop) — and not
// when the standard library sorts it, a labelled range reads its values, a
// row, an element's address or the whole slice is taken into another
// variable, nor a parameter (its caller reaches the storage unchecked), nor
// when an atomic directive updates it; critical sections and locks change
// nothing.
func TestFullyChecked(t *testing.T) {
	p := compileOK(t, "checked")
	got := map[string]bool{}
	for _, s := range p.Prog.Subprograms {
		for _, v := range s.Shared {
			got[v.Name] = v.Checked
		}
	}
	want := map[string]bool{"a": true, "b": true, "c": true, "d": false, "e": true, "e2": false, "r": true, "f": false, "g": false, "h": false, "x": false, "q": true, "l": true, "w": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checked variables (-want +got):\n%s", diff)
	}
}
