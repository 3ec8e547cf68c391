package vet_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/svmc/svmc/vet"
)

// The analyzer reports the checks of parallel bodies and the directives'
// errors at their positions, as go vet and gopls show them.
func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), vet.Analyzer, "a")
}
