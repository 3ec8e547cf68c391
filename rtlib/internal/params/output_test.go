package params

import "testing"

func TestParseOutput(t *testing.T) {
	for s, want := range map[string]string{
		"":                 "proc0",
		"proc0":            "proc0",
		"PROC0:o.txt":      "proc0:o.txt",
		"each":             "each:stdout%d.sto",
		"each:x/%d.out":    "each:x/%d.out",
		"common":           "common",
		"common:all.txt":   "common:all.txt",
		"each:%d-%d":       "error",
		"everything:a.txt": "error",
	} {
		o, err := ParseOutput(s, "stdout%d.sto")
		got := o.String()
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}
