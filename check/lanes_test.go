package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// TestLanesAreNoProcessors: a trace whose processors started goroutines
// has their lanes after the processors; the protocol lists the run's
// processors and counts the lanes (it listed each lane as a processor
// that "stopped").
func TestLanesAreNoProcessors(t *testing.T) {
	s := tracetest.New(3) // processors 0 and 1, and a lane of processor 0
	for p := range 2 {
		s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
		s.Stop(p, 20, tracetest.SubMain, 0, trace.RegionProgram)
	}
	b := &s.Bufs[2]
	b.Begin(trace.TagGoroutineStart, 2, 1)
	b.Int(0)
	b.Int(1)
	b.Chars("main.go:9")
	b.End()
	s.Start(2, 2, tracetest.SubWork, 0, trace.RegionSubroutine)
	s.Stop(2, 5, tracetest.SubWork, 0, trace.RegionSubroutine)
	b.Begin(trace.TagGoroutineEnd, 2, 6)
	b.End()
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, trace.Binary, []trace.Attr{{Key: "processors", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Bufs {
		if err := w.WriteBuf(&s.Bufs[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	data := out.Bytes()
	res, err := Analyze(bytes.NewReader(data), int64(len(data)), "lanes", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ProcState) != 2 || res.Lanes != 1 {
		t.Fatalf("states of %d processors and %d lanes; want 2 and 1", len(res.ProcState), res.Lanes)
	}
	out.Reset()
	if err := WriteText(&out, "lanes", res, PrintOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, "processor 2:") || !strings.Contains(s, "goroutine lanes: ") {
		t.Errorf("protocol:\n%s", s)
	}
}
