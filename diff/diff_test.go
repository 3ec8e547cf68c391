package diff

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// prog: main (main.go:3) with a pdo label(work) (line 5) and a
// subroutine init (main.go:20).
func prog() *progdb.Program {
	pos := func(l int) progdb.Pos { return progdb.Pos{File: "main.go", Line: l, Col: 2} }
	return &progdb.Program{Version: progdb.Version, Tool: "svmc", Package: "example.com/scale", Name: "main", Files: []string{"main.go"},
		Subprograms: []*progdb.Subprogram{
			{Num: 1, Name: "main", Main: true, Pos: pos(3),
				Directives: []*progdb.Directive{{Num: 1, Kind: "pdo", Site: progdb.SiteLoop, Text: "//svm:pdo label(work) loops(i)", Pos: pos(5), Label: "work"}},
				Regions: []*progdb.Region{
					{Num: 0, Type: "program", Code: 0, Parent: -1, Pos: pos(3), End: pos(15)},
					{Num: 1, Type: "pdo", Code: 4, Label: "work", Parent: 0, Directive: 1, Pos: pos(5), End: pos(9)},
				}},
			{Num: 2, Name: "init", Pos: pos(20), Directives: []*progdb.Directive{},
				Regions: []*progdb.Region{{Num: 0, Type: "subroutine", Code: 1, Parent: -1, Pos: pos(20), End: pos(25)}}},
		}}
}

// run is a synthetic run on n processors: 100 µs of serial setup in
// init, then the pdo, whose 1000 µs of work split over the processors
// with the last one doing extra (imbalance), then 50 µs serial.
func run(t *testing.T, n int, extra float64) *analysis.Model {
	t.Helper()
	s := tracetest.New(n)
	s.Start(0, 0, 1, 0, trace.RegionProgram)
	s.Start(0, 0, 2, 0, trace.RegionSubroutine)
	s.Stop(0, 100, 2, 0, trace.RegionSubroutine)
	work := 1000 / float64(n)
	end := 100 + work + extra
	for p := range n {
		if p > 0 {
			s.Start(p, 0, 1, 0, trace.RegionProgram)
		}
		busy := work
		if p == n-1 {
			busy += extra
		}
		s.Start(p, 100, 1, 1, trace.RegionPDO)
		s.PDOWork(p, 100+busy, 1, 1, 1000/n, busy)
		s.Sync(p, 100+busy, trace.TagWaitBarrierStart, 1, 1)
		s.Sync(p, end, trace.TagWaitBarrierStop, 1, 1)
		s.Stop(p, end, 1, 1, trace.RegionPDO)
		if p > 0 {
			s.Stop(p, end+50, 1, 0, trace.RegionProgram)
		}
	}
	s.Stop(0, end+50, 1, 0, trace.RegionProgram)
	data, err := s.Encode(trace.ASCII, prog())
	if err != nil {
		t.Fatal(err)
	}
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	m, err := analysis.Analyze(rd, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The text of svmc diff on synthetic runs on 2 and 4 processors (the pdo
// scales, its last processor's extra work does not), and of a run against
// itself.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b *analysis.Model
	}{
		{"scaling", run(t, 2, 20), run(t, 4, 300)},
		{"same", run(t, 2, 20), run(t, 2, 20)},
	} {
		var out bytes.Buffer
		Compare("a.sddf", "b.sddf", c.a, c.b, prog(), prog()).WriteText(&out)
		golden(t, c.name+".txt", out.Bytes())
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./diff -update writes it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s (-want +got):\n%s", name, d)
	}
}

// The scaling table of synthetic runs on 1, 2 and 4 processors: the pdo's
// last processor's extra work grows with N, and its efficiency falls
// below 0.5 at N=4.
func TestScalingGolden(t *testing.T) {
	runs := []*analysis.Model{run(t, 1, 0), run(t, 2, 40), run(t, 4, 300)}
	var out bytes.Buffer
	Scale([]string{"n1.sddf", "n2.sddf", "n4.sddf"}, runs, []*progdb.Program{prog(), prog(), prog()}).WriteText(&out)
	golden(t, "scaling-table.txt", out.Bytes())
}

// Different program information is said, not hidden.
func TestDifferentPrograms(t *testing.T) {
	other := prog()
	other.Subprograms[0].Directives[0].Pos.Line = 6
	r := Compare("a", "b", run(t, 2, 0), run(t, 2, 0), prog(), other)
	if r.SameProgram || r.Program == "" {
		t.Errorf("same %v: %q", r.SameProgram, r.Program)
	}
}

// TestStagesDiffer: runs traced at different stages are compared with a
// warning that the higher stage's tracing is in its times (x235: stage 3
// on 2 processors against stage 6 on 4 read as a speedup of 0.28 with no
// word of it); runs of one stage get none.
func TestStagesDiffer(t *testing.T) {
	a, b := run(t, 2, 20), run(t, 2, 20)
	b.Stage = 6
	var out bytes.Buffer
	r := Compare("a.sddf", "b.sddf", a, b, prog(), prog())
	r.WriteText(&out)
	if !strings.Contains(out.String(), "B: b.sddf: 2 processors, stage 6,") ||
		!strings.Contains(out.String(), "WARNING: A was traced at stage 3 and B at stage 6: the higher stage records more") {
		t.Errorf("output:\n%s", out.String())
	}
	if r.A.Stage != 3 || r.B.Stage != 6 {
		t.Errorf("stages %d and %d in the result", r.A.Stage, r.B.Stage)
	}
	out.Reset()
	Compare("a.sddf", "b.sddf", a, run(t, 2, 20), prog(), prog()).WriteText(&out)
	if strings.Contains(out.String(), "WARNING") {
		t.Errorf("runs of one stage:\n%s", out.String())
	}
}
