package export_test

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/svmc/svmc/export"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// TestPprof: the profile holds each processor's time per stack of nested
// regions, the innermost region's exclusive time (the program region 100
// µs with a pdo of 50 µs inside: 50 + 50 per processor), and the entries.
func TestPprof(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
		s.Start(p, 10, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.Stop(p, 60, tracetest.SubMain, tracetest.DirPDO, trace.RegionPDO)
		s.Stop(p, 100, tracetest.SubMain, 0, trace.RegionProgram)
	}
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := export.WritePprof(&buf, timeline(t, data)); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, smp := range p.Sample {
		name := smp.Location[0].Line[0].Function.Name
		got[name+"/"+smp.Label["kind"][0]] += smp.Value[0]
		if n := smp.Label["processor"]; len(n) != 1 || (n[0] != "0" && n[0] != "1") {
			t.Errorf("sample %v: processor label %v", name, n)
		}
		if name == "main: pdo work" && (len(smp.Location) != 2 || smp.Location[1].Line[0].Function.Name != "main") {
			t.Errorf("the pdo's stack %v", smp.Location)
		}
	}
	want := map[string]int64{"main/program": 2 * 50_000, "main: pdo work/pdo": 2 * 50_000}
	if len(got) != len(want) || got["main/program"] != want["main/program"] || got["main: pdo work/pdo"] != want["main: pdo work/pdo"] {
		t.Errorf("time per function and kind %v, want %v", got, want)
	}
	if p.DefaultSampleType != "time" || p.Function[0].Filename != "main.go" {
		t.Errorf("default sample type %q, file %q", p.DefaultSampleType, p.Function[0].Filename)
	}
}
