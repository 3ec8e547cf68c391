package analysis

import (
	"testing"
)

// TestFalseSharingProcessorOneFirst: a stage-4 trace of the findings
// suite's falsesharing program (svmc run -n 2 --stage 4) in which
// processor 1's first record has an earlier clock than processor 0's
// segment-variable record. The report took such traces a batch per
// processor at a time and met processor 1's page-fault sums before the
// segment they name: the false-sharing finding (95% of the run) was
// missing, in about one run in ten.
func TestFalseSharingProcessorOneFirst(t *testing.T) {
	m, err := AnalyzeFile("testdata/falsesharing-p1-first.sddf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs := Findings(m)
	if len(fs) == 0 || fs[0].Kind != FindFalseSharing {
		t.Fatalf("findings %v, want false sharing first", fs)
	}
}
