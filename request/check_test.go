package request

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/progdb"
)

// TestCheck has one case per kind of name error, with the exact message in
// strict mode and as a warning in lenient mode.
func TestCheck(t *testing.T) {
	noMain := testProg()
	noMain.Subprograms[0].Main = false
	for _, tc := range []struct {
		name, src string
		prog      *progdb.Program
		want      []string
	}{
		{"unknown function", "REQUEST LOCAL Solve.*: (REGION)", nil,
			[]string{`t.req:1:15: unknown function "Solve"; did you mean "solve"?`}},
		{"unknown method", "REQUEST LOCAL Grid.Updat.*: (REGION)", nil,
			[]string{`t.req:1:15: unknown function "Grid.Updat"; did you mean "Grid.Update"?`}},
		{"method without its type", "REQUEST LOCAL Update.*: (REGION)", nil,
			[]string{`t.req:1:15: unknown function "Update"; a method is named with its type: Grid.Update`}},
		{"no main", "REQUEST LOCAL @MAIN.*: (REGION)", noMain,
			[]string{`t.req:1:15: @MAIN: the program has no main function`}},
		{"unknown pdo label", "REQUEST LOCAL main.PDO_LABEL(swep): (PDOInfo)", nil,
			[]string{`t.req:1:30: function main has no pdo labelled "swep"; did you mean "sweep"?`}},
		{"region label is no pdo label", "REQUEST LOCAL @MAIN.PDO_LABEL(phase): (PDOInfo)", nil,
			[]string{`t.req:1:31: function main has no pdo labelled "phase"`}},
		{"unknown pdo label anywhere", "REQUEST LOCAL *.PDO_LABEL(sweep, inner, outer): (PDOInfo)", nil,
			[]string{`t.req:1:41: no function has a pdo labelled "outer"`}},
		{"unknown region label", "REQUEST LOCAL main.REG_LABEL(Phase): (REGION)", nil,
			[]string{`t.req:1:30: function main has no region labelled "Phase"; did you mean "phase"?`}},
		{"unknown region label anywhere", "REQUEST LOCAL *.REG_LABEL(phase, nothing): (REGION)", nil,
			[]string{`t.req:1:34: no function has a region labelled "nothing"`}},
		{"unknown region number", "REQUEST LOCAL solve.REG_NO(0, 1): (REGION)", nil,
			[]string{`t.req:1:31: function solve has no region 1 (its regions are numbered 0 to 0)`}},
		{"unknown region number in a range", "REQUEST LOCAL main.REG_NO(2-5): (REGION)", nil,
			[]string{`t.req:1:27: function main has no region 4 (its regions are numbered 0 to 3)`}},
		{"unknown region number anywhere", "REQUEST LOCAL *.REG_NO(3, 9): (REGION)", nil,
			[]string{`t.req:1:27: no function has a region 9 (the largest region number is 3)`}},
		{"unknown variable", "REQUEST LOCAL main.*: (RPFSum[a, bb]), (*.SVMInfo[g])", nil,
			[]string{
				`t.req:1:34: function main has no shared variable "bb"; did you mean "b"?`,
				`t.req:1:51: function main has no shared variable "g"`}},
		{"unknown variable anywhere", "REQUEST LOCAL *.*: (PageOut[g, x, z])", nil,
			[]string{`t.req:1:35: no function has a shared variable "z"`}},
		{"several requests", "REQUEST LOCAL nope.*: (REGION)\nREQUEST GLOBAL TrOverhead\nREQUEST LOCAL main.REG_NO(7): (REGION)", nil,
			[]string{
				`t.req:1:15: unknown function "nope"`,
				`t.req:3:27: function main has no region 7 (its regions are numbered 0 to 3)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := tc.prog
			if prog == nil {
				prog = testProg()
			}
			f := mustParse(t, tc.src)
			warns, errs := Check(f, prog, false)
			if d := cmp.Diff(tc.want, diagStrings(errs)); d != "" || warns != nil {
				t.Errorf("strict: warnings %v, errors (-want +got):\n%s", warns, d)
			}
			_, err := Compile(f, prog, 4)
			if d := cmp.Diff(tc.want, errStrings(err)); d != "" {
				t.Errorf("Compile without Check: errors (-want +got):\n%s", d)
			}

			warns, errs = Check(f, prog, true)
			var want []string
			for _, w := range tc.want {
				want = append(want, w+" (request dropped)")
			}
			if d := cmp.Diff(want, diagStrings(warns)); d != "" || errs != nil {
				t.Errorf("lenient: errors %v, warnings (-want +got):\n%s", errs, d)
			}
			tab, err := Compile(f, prog, 4)
			if err != nil {
				t.Fatalf("Compile after lenient Check: %v", err)
			}
			if tab.HasLocal() {
				t.Errorf("a dropped request was compiled")
			}
		})
	}
}

// TestCheckLenientKeepsGood checks that lenient mode drops only the
// requests with name errors.
func TestCheckLenientKeepsGood(t *testing.T) {
	f := mustParse(t, "REQUEST LOCAL solve.*: (REGION)\nREQUEST LOCAL nope.*: (BARRIER)")
	warns, errs := Check(f, testProg(), true)
	if len(warns) != 1 || errs != nil {
		t.Fatalf("warnings %v, errors %v", warns, errs)
	}
	tab, err := Compile(f, testProg(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := sorted(tab.Enter(0, 3, 0, 0)); !cmp.Equal(got, names("trace-region-start", "trace-region-stop", "trace-throttled", "throttled-calls")) {
		t.Errorf("inside solve: %v", got)
	}
	// Checking again strictly undoes the drop.
	if _, errs := Check(f, testProg(), false); len(errs) != 1 || f.Entries[1].(*Request).Dropped {
		t.Errorf("strict Check after lenient: %v", errs)
	}
}

func TestCheckConfigTwice(t *testing.T) {
	f := mustParse(t, "CONFIG SVM_TraceStage: 1\nCONFIG SVM_TraceBuf_Size: 1k\nCONFIG SVM_TraceStage: 3\n")
	warns, errs := Check(f, testProg(), false)
	want := []string{"t.req:3:8: SVM_TraceStage is set again: this value replaces the one at t.req:1:8"}
	if d := cmp.Diff(want, diagStrings(warns)); d != "" || errs != nil {
		t.Errorf("errors %v, warnings (-want +got):\n%s", errs, d)
	}
	if c := f.Config(); c.Stage != 3 || c.TraceBufSize != 1024 || c.KernelTraceBufSize != 0 {
		t.Errorf("Config = %+v", c)
	}
}

func TestCompileNodes(t *testing.T) {
	for _, tc := range []struct {
		src    string
		nprocs int
		want   []string
	}{
		{"REQUEST (0, 2-5) GLOBAL TrOverhead", 4,
			[]string{"t.req:1:13: node 4 does not exist: the run has 4 processors, 0 to 3"}},
		{"REQUEST (7) LOCAL solve.*: (REGION)\nREQUEST (1) LOCAL nope.*: (REGION)", 1,
			[]string{
				"t.req:1:10: node 7 does not exist: the run has 1 processor, node 0",
				"t.req:2:10: node 1 does not exist: the run has 1 processor, node 0",
				`t.req:2:19: unknown function "nope"`}},
		{"REQUEST (0-3) LOCAL solve.*: (REGION)", 4, nil},
	} {
		f := mustParse(t, tc.src)
		_, err := Compile(f, testProg(), tc.nprocs)
		if d := cmp.Diff(tc.want, errStrings(err)); d != "" {
			t.Errorf("%q: errors (-want +got):\n%s", tc.src, d)
		}
	}
	if _, err := Compile(mustParse(t, ""), nil, 0); err == nil {
		t.Errorf("Compile for 0 processors: no error")
	}
}

// TestCheckPlain: a request that names a function svmc left as written
// (small enough for Go to inline) is kept, with a warning that says why it
// will trace nothing and how to give the function a region.
func TestCheckPlain(t *testing.T) {
	prog := testProg()
	prog.Subprograms[2].Plain = true
	f := mustParse(t, "REQUEST LOCAL solve.*: (REGION)\nREQUEST LOCAL main.*: (REGION)")
	warns, errs := Check(f, prog, false)
	want := []string{"t.req:1:15: function solve is small enough for Go to inline, so svmc left it as written: it has no region to trace (build with --instrument-all to give it one)"}
	if d := cmp.Diff(want, diagStrings(warns)); d != "" || errs != nil {
		t.Errorf("errors %v, warnings (-want +got):\n%s", errs, d)
	}
}

// TestWithNames: a file with syntax errors and unknown names reports both
// in one list, in the order of their positions (x338's request file took
// two runs to show its four errors).
func TestWithNames(t *testing.T) {
	src := "CONFIG SVM_TraceStage: 9\n" +
		"REQUEST LOCAL @MAIN.REG_NO(7): (REGION)\n" +
		"REQUEST GLOBAL Bogus\n" +
		"REQUEST LOCAL Solve.*: (REGION)\n" +
		"CONFIG SVM_Throttle_Calls: -5\n"
	f, err := Parse("t.req", []byte(src))
	var syntax ErrorList
	if !errors.As(err, &syntax) || f == nil {
		t.Fatalf("Parse: %v", err)
	}
	got := WithNames(f, syntax, testProg(), false).Error()
	want := strings.Join([]string{
		`t.req:1:24: bad stage "9": want a number from 0 to 6`,
		`t.req:2:28: function main has no region 7 (its regions are numbered 0 to 3)`,
		`t.req:3:16: unknown global request "Bogus"`,
		`t.req:4:15: unknown function "Solve"; did you mean "solve"?`,
		`t.req:5:28: expected a number of calls after SVM_Throttle_Calls:, found "-"`,
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
