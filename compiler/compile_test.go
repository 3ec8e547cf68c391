package compiler

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// compileOK compiles the package in testdata/<dir> and fails the test on
// any diagnostic, warnings included.
func compileOK(t *testing.T, dir string) *Package {
	t.Helper()
	p, err := Compile(Config{Dir: "testdata/" + dir, Pattern: "."})
	if err != nil {
		t.Fatalf("compile %s:\n%v", dir, err)
	}
	if len(p.Diags) > 0 {
		t.Fatalf("compile %s: unexpected diagnostics:\n%v", dir, p.Diags)
	}
	return p
}

func pos(file string, line, col int) progdb.Pos { return progdb.Pos{File: file, Line: line, Col: col} }

func at(file string, line, col int) *progdb.Pos { p := pos(file, line, col); return &p }

// TestNumbering checks the whole program information file of a two-file
// package: subprograms numbered files-sorted then in source order (methods
// as T.M, init skipped), directives per subprogram in textual order with end
// directives counted, regions in textual order with region 0 the
// subprogram and each region's parent the innermost region around it, and
// shared variables in the order the shared directives name them.
func TestNumbering(t *testing.T) {
	t.Parallel()
	p := compileOK(t, "numbering")
	user := func(num, parent, dir int, label string, from, to progdb.Pos) *progdb.Region {
		return &progdb.Region{Num: num, Type: "user", Code: trace.RegionUser, Label: label, Parent: parent, Directive: dir, Pos: from, End: to}
	}
	pdo := func(num, parent, dir int, label string, from, to progdb.Pos) *progdb.Region {
		return &progdb.Region{Num: num, Type: "pdo", Code: trace.RegionPDO, Label: label, Parent: parent, Directive: dir, Pos: from, End: to}
	}
	sub := func(from, to progdb.Pos) *progdb.Region {
		return &progdb.Region{Num: 0, Type: "subroutine", Code: trace.RegionSubroutine, Parent: -1, Pos: from, End: to}
	}
	want := &progdb.Program{
		Version: progdb.Version,
		Tool:    "svmc",
		Package: "github.com/svmc/svmc/compiler/testdata/numbering",
		Name:    "main",
		Files:   []string{"a.go", "b.go"},
		Subprograms: []*progdb.Subprogram{
			{
				Num: 1, Name: "T.M", Pos: pos("a.go", 7, 1),
				Directives: []*progdb.Directive{
					{Num: 1, Kind: "barrier", Site: progdb.SiteBarrier, Text: "//svm:barrier", Pos: pos("a.go", 8, 2)},
				},
				Regions: []*progdb.Region{sub(pos("a.go", 7, 1), pos("a.go", 10, 2))},
			},
			{
				Num: 2, Name: "main", Pos: pos("a.go", 16, 1), Main: true,
				Directives: []*progdb.Directive{
					{Num: 1, Kind: "shared", Site: progdb.SiteSVM, Text: "//svm:shared a, total", Pos: pos("a.go", 20, 2)},
					{Num: 2, Kind: "trace_region", Site: progdb.SiteRegion, Text: "//svm:trace_region outer", Pos: pos("a.go", 21, 2), End: at("a.go", 31, 2), Label: "outer"},
					{Num: 3, Kind: "pdo", Site: progdb.SiteLoop, Text: "//svm:pdo label(first) loops(i)", Pos: pos("a.go", 23, 3), Label: "first",
						ImplicitBarrier: true, Loops: []string{"i"}, Schedule: &progdb.Schedule{Strategy: progdb.StrategyDefault},
						Vars: &progdb.VarClasses{Shared: []string{"a", "k"}, Private: []string{"i"}}},
					{Num: 4, Kind: "trace_region", Site: progdb.SiteRegion, Text: "//svm:trace_region body", Pos: pos("a.go", 25, 4), Label: "body"},
					{Num: 5, Kind: "trace_region", Site: progdb.SiteRegion, Text: "//svm:trace_region single", Pos: pos("a.go", 29, 2), Label: "single"},
					{Num: 6, Kind: "end", Site: progdb.SiteEnd, Text: "//svm:end trace_region outer", Pos: pos("a.go", 31, 2)},
					{Num: 7, Kind: "barrier", Site: progdb.SiteBarrier, Text: "//svm:barrier", Pos: pos("a.go", 32, 2)},
				},
				Regions: []*progdb.Region{
					{Num: 0, Type: "program", Code: trace.RegionProgram, Parent: -1, Pos: pos("a.go", 16, 1), End: pos("a.go", 37, 2)},
					user(1, 0, 2, "outer", pos("a.go", 21, 2), pos("a.go", 31, 2)),   // closed by its end
					pdo(2, 1, 3, "first", pos("a.go", 23, 3), pos("a.go", 27, 4)),    // the for statement
					user(3, 2, 4, "body", pos("a.go", 25, 4), pos("a.go", 26, 22)),   // the statement after it
					user(4, 1, 5, "single", pos("a.go", 29, 2), pos("a.go", 30, 17)), // inside outer, not closed by an end
				},
				Shared: []*progdb.Var{
					{Num: 1, Name: "a", Type: "[]float64", ElemSize: 8, Pos: pos("a.go", 18, 2), Checked: true},
					{Num: 2, Name: "total", Type: "[1]float64", ElemSize: 8, Pos: pos("a.go", 19, 6), Checked: true},
				},
			},
			{
				Num: 3, Name: "List.Push", Pos: pos("b.go", 5, 1), Plain: true, // small enough for Go to inline
				Directives: []*progdb.Directive{},
				Regions:    []*progdb.Region{sub(pos("b.go", 5, 1), pos("b.go", 7, 2))},
			},
			{
				Num: 4, Name: "helper", Pos: pos("b.go", 9, 1),
				Directives: []*progdb.Directive{
					{Num: 1, Kind: "shared", Site: progdb.SiteSVM, Text: "//svm:shared a", Pos: pos("b.go", 12, 2)},
					{Num: 2, Kind: "trace_region", Site: progdb.SiteRegion, Text: "//svm:trace_region r1", Pos: pos("b.go", 13, 2), Label: "r1"},
					{Num: 3, Kind: "pdo", Site: progdb.SiteLoop, Text: "//svm:pdo loops(i) reduction(+: s)", Pos: pos("b.go", 15, 3),
						ImplicitBarrier: true, Loops: []string{"i"}, Schedule: &progdb.Schedule{Strategy: progdb.StrategyDefault},
						Reductions: []progdb.Reduction{{Op: "+", Vars: []string{"s"}}},
						Vars:       &progdb.VarClasses{Shared: []string{"a"}, Private: []string{"i"}, Reduction: []string{"+:s"}}},
					{Num: 4, Kind: "trace_region", Site: progdb.SiteRegion, Text: "//svm:trace_region r2", Pos: pos("b.go", 19, 3), Label: "r2"},
					{Num: 5, Kind: "trace_region", Site: progdb.SiteRegion, Text: "//svm:trace_region r3", Pos: pos("b.go", 22, 2), End: at("b.go", 23, 2), Label: "r3"},
					{Num: 6, Kind: "end", Site: progdb.SiteEnd, Text: "//svm:end trace_region r3", Pos: pos("b.go", 23, 2)},
				},
				Regions: []*progdb.Region{
					sub(pos("b.go", 9, 1), pos("b.go", 24, 2)),
					user(1, 0, 2, "r1", pos("b.go", 13, 2), pos("b.go", 21, 3)), // the block after it
					pdo(2, 1, 3, "", pos("b.go", 15, 3), pos("b.go", 18, 4)),
					user(3, 1, 4, "r2", pos("b.go", 19, 3), pos("b.go", 20, 12)),
					user(4, 0, 5, "r3", pos("b.go", 22, 2), pos("b.go", 23, 2)), // empty, closed at once
				},
				Shared: []*progdb.Var{
					{Num: 1, Name: "a", Type: "[]float64", ElemSize: 8, Pos: pos("b.go", 9, 13)}, // a parameter: the caller reaches its storage unchecked
				},
			},
			{
				Num: 5, Name: "List.Len", Plain: true, Pos: pos("b.go", 28, 1),
				Directives: []*progdb.Directive{},
				Regions:    []*progdb.Region{sub(pos("b.go", 28, 1), pos("b.go", 28, 51))},
			},
		},
		// Element accesses of shared variables, reads and writes (a[i] +=
		// is a write; the check of a write covers its read).
		Accesses: []*progdb.Access{
			{Num: 1, Sub: 2, Var: 1, VarSub: 2, Name: "a", Write: true, Pos: pos("a.go", 26, 4)},
			{Num: 2, Sub: 2, Var: 2, VarSub: 2, Name: "total", Write: true, Pos: pos("a.go", 30, 2)},
			{Num: 3, Sub: 2, Var: 1, VarSub: 2, Name: "a", Pos: pos("a.go", 30, 13)},
			{Num: 4, Sub: 2, Var: 2, VarSub: 2, Name: "total", Pos: pos("a.go", 36, 10)},
			{Num: 5, Sub: 4, Var: 1, VarSub: 4, Name: "a", Pos: pos("b.go", 17, 9)},
		},
		// The segments of each shared variable's storage, by directive.
		Segments: []*progdb.Segment{
			{VarSub: 2, Var: 1, Name: "a", Storage: "slice", ElemSize: 8, Directive: 1, Pos: pos("a.go", 20, 2)},
			{VarSub: 2, Var: 2, Name: "total", Storage: "array", ElemSize: 8, Directive: 1, Pos: pos("a.go", 20, 2)},
			{VarSub: 4, Var: 1, Name: "a", Storage: "slice", ElemSize: 8, Directive: 1, Pos: pos("b.go", 12, 2)},
		},
	}
	if diff := cmp.Diff(want, p.Prog); diff != "" {
		t.Errorf("program information (-want +got):\n%s", diff)
	}
	// The compiler's own view agrees with what it recorded.
	for i, s := range p.Subs {
		if s.Num != i+1 {
			t.Errorf("Subs[%d].Num = %d", i, s.Num)
		}
		if p.SubOf(s.Obj) != s {
			t.Errorf("SubOf(%s) does not find subprogram %d", s.Name, s.Num)
		}
	}
}

// TestRuntimeVariables checks that processors and template directives that
// name package variables of type *rtlib.Procs and *rtlib.Template assign
// them (Declares is false), that a name with no variable declares a new one,
// and that other functions may use the variables in directives.
func TestRuntimeVariables(t *testing.T) {
	t.Parallel()
	p := compileOK(t, "rtlibvars")
	declares := map[string]bool{}
	for _, s := range p.Subs {
		for _, c := range s.Constructs {
			if name := declName(c); name != "" {
				declares[name] = c.Declares
			}
		}
	}
	want := map[string]bool{"procs": false, "grid": false, "local": true}
	if diff := cmp.Diff(want, declares); diff != "" {
		t.Errorf("Declares by name (-want +got):\n%s", diff)
	}
}
