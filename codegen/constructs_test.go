package codegen

import (
	"testing"

	"github.com/svmc/svmc/directives"
)

// TestGenerators fails, naming the kind, when a directive kind of the
// registry (directives.Table) has no generator in codegen.
func TestGenerators(t *testing.T) {
	for _, in := range directives.Table {
		if generators[in.Kind] == nil {
			t.Errorf("%s: no generator in codegen.generators (constructs.go; noCode if the kind generates nothing)", in.Keyword)
		}
	}
}
