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
	pi := progInfo{prog}
	fs := []Finding{
		{Kind: FindImbalance, Severity: 0.30, Site: pi.site(1, 2), Region: 1},
		{Kind: FindBarrier, Severity: 0.12, Site: pi.site(2, 2), Region: 1},
		{Kind: FindSerial, Severity: 0.06, Site: pi.site(1, 0), Region: 0},
		{Kind: FindImbalance, Severity: 0.05, Site: pi.site(1, 3), Region: 2},
		{Kind: FindLock, Severity: 0.04, Site: pi.site(2, 3), Region: 2},
		{Kind: FindCritical, Severity: 0.03, Site: pi.site(2, 4), Region: 2},
		{Kind: FindStartup, Severity: 0.02, Site: pi.site(1, 2), Region: 1},
		{Kind: FindOverhead, Severity: 0.015, Site: mainSite(pi), Region: -1},
		{Kind: FindSerial, Severity: 0.011, Site: pi.site(3, 0), Region: 0},
	}
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
