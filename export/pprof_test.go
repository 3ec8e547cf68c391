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

// TestGoroutineLanes: a goroutine processor 0 started (a lane of its own)
// is named as processor 0's in every export: its Chrome thread, and its
// pprof samples, labelled processor 0 with their lane (they were
// "processor 2", a processor the run did not have).
func TestGoroutineLanes(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
	}
	s.Bufs, s.Procs = append(s.Bufs, trace.Buf{}), 2
	s.GoroutineStart(2, 5, 0, 1, "main.go:30:3")
	s.Start(2, 10, tracetest.SubWork, 0, trace.RegionSubroutine)
	s.Stop(2, 40, tracetest.SubWork, 0, trace.RegionSubroutine)
	s.Rec(2, 45, trace.TagGoroutineEnd)
	for p := 0; p < 2; p++ {
		s.Stop(p, 100, tracetest.SubMain, 0, trace.RegionProgram)
	}
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := timeline(t, data)
	if tl.LaneTitle(2) != "processor 0 goroutine lane 1" || tl.LaneTitle(1) != "processor 1" || tl.GoLanes() != 1 {
		t.Fatalf("lanes %q: titles %q, %q", tl.Lanes, tl.LaneTitle(1), tl.LaneTitle(2))
	}
	var js bytes.Buffer
	if err := export.WriteChrome(&js, tl); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js.Bytes(), []byte(`"tid":2,"args":{"name":"processor 0 goroutine lane 1"}`)) {
		t.Errorf("the lane's Chrome thread is not named after processor 0:\n%s", js.Bytes())
	}
	var buf bytes.Buffer
	if err := export.WritePprof(&buf, tl); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	lanes := 0
	for _, smp := range p.Sample {
		if smp.Label["processor"][0] == "2" {
			t.Errorf("a sample of processor 2: %v", smp.Label)
		}
		if l := smp.Label["goroutine lane"]; len(l) == 1 {
			lanes++
			if l[0] != "1" || smp.Label["processor"][0] != "0" {
				t.Errorf("the lane's sample: %v", smp.Label)
			}
		}
	}
	if lanes == 0 {
		t.Error("no sample of the goroutine's lane")
	}
}
