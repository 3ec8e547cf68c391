package rtlib

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// testProg is the program information of the hand-written "generated code"
// of the tests: subprogram 1 is main in main.go with directives 1..20 on
// lines 10, 11, ...
func testProg() *Program {
	dirs := make([]Dir, 21)
	for i := 1; i < len(dirs); i++ {
		dirs[i] = Dir{Kind: "pdo", Line: 9 + i, Col: 1}
	}
	return &Program{
		Info: `{"version":1}`,
		Main: 1,
		Subs: []Sub{{}, {Name: "main", File: "main.go", Line: 5, Dirs: dirs},
			{Name: "work", File: "work.go", Line: 30, Dirs: dirs}},
	}
}

// runN runs body on n processors without a trace.
func runN(t testing.TB, n int, body func(p *Proc)) {
	t.Helper()
	if err := Run(testProg(), Params{NProcs: n, Stderr: io.Discard}, body); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// traced runs body with a trace of the given stage and format and returns
// the records.
func traced(t testing.TB, n, stage int, f trace.Format, body func(p *Proc)) []*trace.Record {
	t.Helper()
	var buf bytes.Buffer
	err := Run(testProg(), Params{NProcs: n, Stage: stage, Trace: &buf, Format: f, Stderr: io.Discard}, body)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return readTrace(t, buf.Bytes())
}

func readTrace(t testing.TB, b []byte) []*trace.Record {
	t.Helper()
	rd, err := trace.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var recs []*trace.Record
	for r, err := range rd.All() {
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		recs = append(recs, r)
	}
	// Every trace the runtime closes ends with trace-end; the tests
	// compare the records before it (see TestTraceEnd).
	if len(recs) == 0 || recs[len(recs)-1].Desc.Name != "trace-end" {
		t.Fatalf("the trace does not end with trace-end")
	}
	if rd.Format() == trace.Binary {
		// A trace the runtime closed lists its buffers' runs (trace/runs.go).
		if _, err := trace.VerifyRunIndex(b); err != nil {
			t.Fatalf("run index: %v", err)
		}
	}
	return tracetest.WithoutEstimates(recs[:len(recs)-1]) // TestRecordingRecords reads them
}

// byNode splits records by node id.
func byNode(recs []*trace.Record) map[int][]*trace.Record {
	m := map[int][]*trace.Record{}
	for _, r := range recs {
		m[r.Node()] = append(m[r.Node()], r)
	}
	return m
}

// evString renders a record compactly: name and the interesting scalar
// fields.
func evString(r *trace.Record) string {
	var b strings.Builder
	b.WriteString(r.Desc.Name)
	switch r.Desc.Name {
	case "trace-region-start", "trace-region-stop":
		fmt.Fprintf(&b, "(%d,%d,%s)", r.Int("subprogram number"), r.Int("directive number"),
			trace.RegionTypeName(r.Int("trace region type")))
	case "wait-barrier-start", "wait-barrier-stop", "pdo-info", "pdo-iteration-space":
		fmt.Fprintf(&b, "(%d,%d)", r.Int("subprogram number"), r.Int("directive number"))
	case "template-info", "template-dist", "undef-template", "destroy-template":
		fmt.Fprintf(&b, "(%d)", r.Int("template id"))
	case "proc-arrangement":
		fmt.Fprintf(&b, "(%d)", r.Int("proc arrangement id"))
	}
	return b.String()
}

func evStrings(recs []*trace.Record) []string {
	var s []string
	for _, r := range recs {
		s = append(s, evString(r))
	}
	return s
}

// checkClocks fails if a node's clocks decrease.
func checkClocks(t *testing.T, recs []*trace.Record) {
	t.Helper()
	for node, rs := range byNode(recs) {
		last := -1.0
		for _, r := range rs {
			if r.Desc.Name == "template-dist" {
				continue // written by the leader for every node
			}
			if c := r.Clock(); c < last {
				t.Errorf("node %d: clock %v after %v at %s", node, c, last, evString(r))
			} else {
				last = c
			}
		}
	}
}
