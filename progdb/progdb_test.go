package progdb

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sample() *Program {
	return &Program{
		Version: Version, Tool: "svmc", Package: "example.com/p", Name: "main",
		Files: []string{"a.go", "b.go"},
		Subprograms: []*Subprogram{
			{Num: 1, Name: "main", Main: true, Pos: Pos{"a.go", 3, 1},
				Directives: []*Directive{{Num: 1, Kind: "pdo", Site: SiteLoop, Text: "//svm:pdo loops(i)", Pos: Pos{"a.go", 5, 2}, Label: "l1",
					ImplicitBarrier: true, Loops: []string{"i"}, Schedule: &Schedule{Strategy: StrategyDynamic, Chunk: "4"},
					Reductions: []Reduction{{Op: "+", Vars: []string{"s"}}},
					Vars:       &VarClasses{Shared: []string{"a"}, Private: []string{"i"}, Reduction: []string{"+:s"}}}},
				Regions: []*Region{{Num: 0, Type: "program", Parent: -1, Pos: Pos{"a.go", 3, 1}},
					{Num: 1, Type: "pdo", Code: 4, Parent: 0, Directive: 1, Label: "l1", Pos: Pos{"a.go", 6, 2}}}},
			{Num: 2, Name: "T.M", Pos: Pos{"b.go", 7, 1}},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	p := sample()
	data, err := Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Unmarshal(data, "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(p, q); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	again, _ := Marshal(q)
	if string(again) != string(data) {
		t.Fatal("Marshal is not deterministic")
	}
	if q.Sub(2).Name != "T.M" || q.SubByName("main").Num != 1 || q.Sub(3) != nil {
		t.Fatal("lookups")
	}
	if q.Sub(1).Directive(1).Label != "l1" || q.Sub(1).Directive(2) != nil {
		t.Fatal("directive lookup")
	}
}

func TestRejects(t *testing.T) {
	cases := map[string]string{
		`{"version": 3}`:                "x.json: program information file version 3 is not supported (this svmc reads versions 1 and 2)",
		`{"tool": "svmc"}`:              "x.json: not a program information file: no version",
		`not json`:                      "x.json: not a program information file: invalid character",
		`{"version": 1, "bogus": true}`: `x.json: json: unknown field "bogus"`,
	}
	for in, want := range cases {
		_, err := Unmarshal([]byte(in), "x.json")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want prefix %q", in, err, want)
		}
	}
}

// TestVersion1 reads a program information file of version 1: what version
// 2 derives from a directive's kind is filled in, the schedule it did not
// record stays unknown.
func TestVersion1(t *testing.T) {
	v1 := `{"version": 1, "tool": "svmc", "package": "p", "name": "main", "files": ["a.go"],
	  "subprograms": [{"num": 1, "name": "main", "pos": {"file": "a.go", "line": 1, "col": 1}, "main": true,
	    "directives": [
	      {"num": 1, "kind": "pdo", "text": "//svm:pdo loops(i) strategy(dynamic)", "pos": {"file": "a.go", "line": 2, "col": 2}},
	      {"num": 2, "kind": "atomic", "text": "//svm:atomic", "pos": {"file": "a.go", "line": 3, "col": 2}},
	      {"num": 3, "kind": "barrier", "text": "//svm:barrier", "pos": {"file": "a.go", "line": 4, "col": 2}}],
	    "regions": []}]}`
	p, err := Unmarshal([]byte(v1), "old.json")
	if err != nil {
		t.Fatal(err)
	}
	ds := p.Sub(1).Directives
	if ds[0].Site != SiteLoop || !ds[0].ImplicitBarrier || ds[0].Schedule != nil {
		t.Errorf("pdo: %+v", ds[0])
	}
	if ds[1].Site != SiteAtomic || ds[1].ImplicitBarrier || ds[2].Site != SiteBarrier || ds[2].ImplicitBarrier {
		t.Errorf("atomic %+v, barrier %+v", ds[1], ds[2])
	}
}

func TestScheduleString(t *testing.T) {
	for _, c := range []struct {
		s    *Schedule
		want string
	}{
		{&Schedule{Strategy: StrategyOnHome, Home: "T1(i, j)"}, "on_home(T1(i, j))"},
		{&Schedule{Strategy: StrategyLoopLevel, Formats: []string{"block", "block"}, Procs: "P"}, "block, block onto P"},
		{&Schedule{Strategy: StrategyDefault}, "block (default)"},
		{&Schedule{Strategy: StrategyDynamic, Chunk: "4", Record: "T"}, "dynamic(4) recorded in T"},
		{&Schedule{Strategy: StrategyGuided}, "guided"},
		{&Schedule{Strategy: StrategyAffinity}, "affinity"},
		{nil, "?"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

// TestSubName: reports name subprogram 0, the program region of a test
// binary, after the binary; an unknown number stays numeric.
func TestSubName(t *testing.T) {
	p := &Program{Name: "vec", Subprograms: []*Subprogram{{Num: 1, Name: "Dot"}}}
	for num, want := range map[int]string{0: "vec.test", 1: "Dot", 7: "sub 7"} {
		if got := p.SubName(num); got != want {
			t.Errorf("SubName(%d) = %q, want %q", num, got, want)
		}
	}
	var none *Program
	if got := none.SubName(0); got != "sub 0" {
		t.Errorf("without program information SubName(0) = %q", got)
	}
}
