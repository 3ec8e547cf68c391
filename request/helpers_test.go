package request

import (
	"slices"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// testProg is a small program information file:
//
//	1 main (main)   regions 0 program; 1 pdo sweep; 2 user phase; 3 pdo inner (in 2)
//	                shared a (1), b (2)
//	2 Grid.Update   regions 0 subroutine; 1 psection; 2 section (in 1); 3 pdo sweep (in 2)
//	                shared g (1)
//	3 solve         region 0 only; shared x (1)
func testProg() *progdb.Program {
	reg := func(num int, typ string, label string, parent, dir int) *progdb.Region {
		code := map[string]int{"program": trace.RegionProgram, "subroutine": trace.RegionSubroutine, "pdo": trace.RegionPDO,
			"user": trace.RegionUser, "psection": trace.RegionPSection, "section": trace.RegionSection}[typ]
		return &progdb.Region{Num: num, Type: typ, Code: code, Label: label, Parent: parent, Directive: dir}
	}
	dir := func(num int, kind, label string) *progdb.Directive {
		return tracetest.Directive(&progdb.Directive{Num: num, Kind: kind, Text: "//svm:" + kind, Label: label})
	}
	v := func(num int, name string) *progdb.Var {
		return &progdb.Var{Num: num, Name: name, Type: "[]float64", ElemSize: 8}
	}
	return &progdb.Program{
		Version: progdb.Version, Tool: "svmc", Package: "example.com/t", Name: "main", Files: []string{"main.go"},
		Subprograms: []*progdb.Subprogram{
			{Num: 1, Name: "main", Main: true,
				Directives: []*progdb.Directive{dir(1, "template", ""), dir(2, "pdo", "sweep"), dir(3, "trace_region", "phase"), dir(4, "pdo", "inner"), dir(5, "end", "")},
				Regions:    []*progdb.Region{reg(0, "program", "", -1, 0), reg(1, "pdo", "sweep", 0, 2), reg(2, "user", "phase", 0, 3), reg(3, "pdo", "inner", 2, 4)},
				Shared:     []*progdb.Var{v(1, "a"), v(2, "b")}},
			{Num: 2, Name: "Grid.Update",
				Directives: []*progdb.Directive{dir(1, "psection", ""), dir(2, "section", ""), dir(3, "pdo", "sweep")},
				Regions:    []*progdb.Region{reg(0, "subroutine", "", -1, 0), reg(1, "psection", "", 0, 1), reg(2, "section", "", 1, 2), reg(3, "pdo", "sweep", 2, 3)},
				Shared:     []*progdb.Var{v(1, "g")}},
			{Num: 3, Name: "solve",
				Regions: []*progdb.Region{reg(0, "subroutine", "", -1, 0)},
				Shared:  []*progdb.Var{v(1, "x")}},
		},
	}
}

// mustParse parses src as "t.req".
func mustParse(t testing.TB, src string) *File {
	t.Helper()
	f, err := Parse("t.req", []byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	return f
}

// mustCompile parses, checks (strictly) and compiles src for testProg.
func mustCompile(t testing.TB, src string, nprocs int) *Table {
	t.Helper()
	f := mustParse(t, src)
	if _, errs := Check(f, testProg(), false); errs != nil {
		t.Fatalf("Check: %v", errs)
	}
	tab, err := Compile(f, testProg(), nprocs)
	if err != nil {
		t.Fatalf("Compile:\n%v", err)
	}
	return tab
}

// sorted returns the record names of m, sorted.
func sorted(m Mask) []string {
	n := m.Names()
	slices.Sort(n)
	return n
}

// names sorts a list of record names written in a test.
func names(s ...string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// diagStrings formats diagnostics or an ErrorList for comparison.
func diagStrings(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func errStrings(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}
