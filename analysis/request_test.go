package analysis

import (
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/trace"
)

// The next-request file parses with the request package and every name in
// it resolves against the program information.
func TestNextRequestParses(t *testing.T) {
	prog := testProg()
	fs := sampleFindings(prog)
	check := func(src []byte, prog *progdb.Program) {
		t.Helper()
		f, err := request.Parse("next.req", src)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if warn, errs := request.Check(f, prog, false); len(errs) > 0 || len(warn) > 0 {
			t.Errorf("check: warnings %v, errors %v\n%s", warn, errs, src)
		}
		if _, err := request.Compile(f, prog, 4); err != nil {
			t.Errorf("compile: %v", err)
		}
	}
	check(NextRequest(fs, prog), prog)
	// And the request of a whole analysis.
	m := analyzeBytes(t, twoLoops(true).MustEncode(t, trace.Binary, prog), Options{})
	check(NextRequest(Findings(m), prog), prog)
}
