package analysis

import (
	"bytes"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// testProg is the program information of the synthetic traces:
//
//	sub 1 G (main.go:10): dir 1 processors (11), dir 2 pdo label(tri)
//	  strategy(block) (20), dir 3 pdo without label (30), dir 4 barrier (35)
//	sub 2 main (main.go:40): dir 1 trace_region phase (42), dir 2 barrier
//	  (45), dir 3 lock (50), dir 4 critical (55), dir 5 barrier_checkin
//	  (57), dir 6 barrier_checkout (58), dir 7 atomic (59), dir 8
//	  replicated (48); regions: 1 user "phase" (42-60), 2 replicated (48-60)
//	sub 3 T.M (other.go:5)
func testProg() *progdb.Program {
	pos := func(line int) progdb.Pos { return progdb.Pos{File: "main.go", Line: line, Col: 2} }
	prog := &progdb.Program{
		Version: progdb.Version, Tool: "svmc", Package: "example.com/synth", Name: "main",
		Files: []string{"main.go", "other.go"},
		Subprograms: []*progdb.Subprogram{
			{Num: 1, Name: "G", Pos: progdb.Pos{File: "main.go", Line: 10, Col: 1},
				Directives: []*progdb.Directive{
					{Num: 1, Kind: "processors", Text: "//svm:processors P(4)", Pos: pos(11), Procs: "P"},
					{Num: 2, Kind: "pdo", Text: "//svm:pdo label(tri) loops(i) strategy(block)", Pos: pos(20), Label: "tri",
						Schedule: &progdb.Schedule{Strategy: progdb.StrategyLoopLevel, Formats: []string{"block"}}},
					{Num: 3, Kind: "pdo", Text: "//svm:pdo loops(i)", Pos: pos(30)},
					{Num: 4, Kind: "barrier", Text: "//svm:barrier", Pos: pos(35)},
				},
				Regions: []*progdb.Region{
					{Num: 0, Type: "subroutine", Code: 1, Parent: -1, Pos: progdb.Pos{File: "main.go", Line: 10, Col: 1}, End: progdb.Pos{File: "main.go", Line: 38, Col: 2}},
					{Num: 1, Type: "pdo", Code: 4, Label: "tri", Parent: 0, Directive: 2, Pos: pos(20), End: pos(25)},
					{Num: 2, Type: "pdo", Code: 4, Parent: 0, Directive: 3, Pos: pos(30), End: pos(33)},
				}},
			{Num: 2, Name: "main", Main: true, Pos: progdb.Pos{File: "main.go", Line: 40, Col: 1},
				Directives: []*progdb.Directive{
					{Num: 1, Kind: "trace_region", Text: "//svm:trace_region phase", Pos: pos(42), Label: "phase"},
					{Num: 2, Kind: "barrier", Text: "//svm:barrier", Pos: pos(45)},
					{Num: 3, Kind: "lock", Text: "//svm:lock(x)", Pos: pos(50)},
					{Num: 4, Kind: "critical", Text: "//svm:critical upd", Pos: pos(55), Label: "upd"},
					{Num: 5, Kind: "barrier_checkin", Text: "//svm:barrier_checkin", Pos: pos(57)},
					{Num: 6, Kind: "barrier_checkout", Text: "//svm:barrier_checkout", Pos: pos(58)},
					{Num: 7, Kind: "atomic", Text: "//svm:atomic", Pos: pos(59)},
					{Num: 8, Kind: "replicated", Text: "//svm:replicated", Pos: pos(48)},
				},
				Regions: []*progdb.Region{
					{Num: 0, Type: "program", Code: 0, Parent: -1, Pos: progdb.Pos{File: "main.go", Line: 40, Col: 1}, End: progdb.Pos{File: "main.go", Line: 70, Col: 2}},
					{Num: 1, Type: "user", Code: 7, Label: "phase", Parent: 0, Directive: 1, Pos: pos(42), End: pos(60)},
					{Num: 2, Type: "replicated", Code: 5, Parent: 1, Directive: 8, Pos: pos(48), End: pos(60)},
				}},
			{Num: 3, Name: "T.M", Pos: progdb.Pos{File: "other.go", Line: 5, Col: 1},
				Directives: []*progdb.Directive{},
				Regions: []*progdb.Region{
					{Num: 0, Type: "subroutine", Code: 1, Parent: -1, Pos: progdb.Pos{File: "other.go", Line: 5, Col: 1}, End: progdb.Pos{File: "other.go", Line: 9, Col: 2}},
				}},
		},
	}
	for _, sp := range prog.Subprograms {
		for _, d := range sp.Directives {
			tracetest.Directive(d)
		}
	}
	return prog
}

// analyzeBytes runs the analysis over an encoded trace: the stream reader
// (window order), and for binary traces also the indexed per-processor
// reading (the clock-order path when the trace allows it), and checks that
// both give the same model.
func analyzeBytes(t *testing.T, data []byte, opt Options) *Model {
	t.Helper()
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Analyze(rd, opt)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := AnalyzeReaderAt(bytes.NewReader(data), int64(len(data)), "synthetic", opt)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := WriteJSON(&a, NewReport("x", m, 0)); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&b, NewReport("x", m2, 0)); err != nil {
		t.Fatal(err)
	}
	// The order statistics differ in how the records were read.
	if m.Order != nil && m2.Order != nil {
		o1, o2 := *m.Order, *m2.Order
		o1.MaxBuffered, o2.MaxBuffered, o1.PerNode, o2.PerNode = 0, 0, false, false
		o1.ClockOrder, o2.ClockOrder = false, false
		if o1 != o2 {
			t.Errorf("order statistics differ: stream %+v, indexed %+v", o1, o2)
		}
	}
	ma, mb := *m, *m2
	ma.Order, mb.Order = nil, nil
	a.Reset()
	b.Reset()
	WriteJSON(&a, NewReport("x", &ma, 0))
	WriteJSON(&b, NewReport("x", &mb, 0))
	if a.String() != b.String() {
		t.Errorf("stream and indexed analyses differ:\n%s\n----\n%s", a.String(), b.String())
	}
	return m
}
