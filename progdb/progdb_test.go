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
				Directives: []*Directive{{Num: 1, Kind: "pdo", Text: "//svm:pdo loops(i)", Pos: Pos{"a.go", 5, 2}, Label: "l1",
					Vars: &VarClasses{Shared: []string{"a"}, Private: []string{"i"}, Reduction: []string{"+:s"}}}},
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
		`{"version": 2}`:                "x.json: program information file version 2 is not supported (this svmc reads version 1)",
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
