package compiler

import "testing"

// TestOtherNames: time imported by another name or a dot, and cgo, make
// noTimers answer "may" (a file that calls t.NewTimer names no time.NewTimer).
func TestOtherNames(t *testing.T) {
	for src, want := range map[string]bool{
		"import (\n\tt \"time\"\n)":          true,
		"import . \"time\"":                  true,
		"import \"time\"":                    false,
		"import (\n\t\"time\"\n\t\"fmt\"\n)": false,
		"// #include <x.h>\nimport \"C\"":    true,
	} {
		if got := otherNames([]byte(src)); got != want {
			t.Errorf("%q: %v", src, got)
		}
	}
}
