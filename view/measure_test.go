package view_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
	"github.com/svmc/svmc/view"
)

// TestMeasured: measured intervals are intervals of their own kind, named
// by their site, nested like regions; a finish without a start is an
// event, a start without a finish is closed with its enclosing region;
// the runtime's statistics and trace-end are neither events nor part of
// the run's time span.
func TestMeasured(t *testing.T) {
	for _, f := range []trace.Format{trace.ASCII, trace.Binary} {
		data, err := tracetest.Measured().Encode(f, tracetest.Prog())
		if err != nil {
			t.Fatal(err)
		}
		tl := buildBytes(t, data, view.Options{})
		checkStructure(t, tl)
		type want struct {
			proc, depth int
			name        string
			level       int
			start, end  float64
			unclosed    bool
		}
		wants := []want{
			{0, 1, "setup", 1, 1, 4, false},
			{0, 1, "solve", 1, 5, 19, false},
			{0, 3, "row", 2, 6, 9, false},
			{0, 3, "row", 2, 10, 14, false},
			{1, 2, "row", 1, 6.5, 12, false},
			{1, 1, "tail", 1, 15, 16, true},
		}
		var got []want
		for _, iv := range tl.Intervals {
			if iv.Kind != view.KindMeasure {
				continue
			}
			s := tl.Sites[iv.Site]
			if s.Kind != "measure" || s.Label != s.Name || s.Where() != "" {
				t.Errorf("measured interval site %+v", s)
			}
			got = append(got, want{iv.Proc, iv.Depth, s.Name, s.Level, iv.Start, iv.End, iv.Unclosed})
		}
		if fmt.Sprint(got) != fmt.Sprint(wants) {
			t.Errorf("measured intervals\n got %v\nwant %v", got, wants)
		}
		if tl.Measures() != len(wants) || len(tl.Intervals) != len(wants)+4 {
			t.Errorf("%d measured of %d intervals, want %d of %d", tl.Measures(), len(tl.Intervals), len(wants), len(wants)+4)
		}
		// The same name at another level is another site.
		if a, b := siteOf(tl, 0, "row"), siteOf(tl, 1, "row"); a == b {
			t.Errorf("row at levels 2 and 1 share site %d", a)
		}
		if len(tl.Instants) != 1 || tl.Instants[0].Name != "measure-finish" || tl.Instants[0].Proc != 1 {
			t.Errorf("instants %+v: want only the stray measure-finish", tl.Instants)
		}
		if tl.Start != 0 || tl.End != 20 {
			t.Errorf("run [%v, %v], want [0, 20]: the statistics at 30 are not the processors' time", tl.Start, tl.End)
		}
		if tl.Records != 24 {
			t.Errorf("%d records, want 24", tl.Records)
		}
		if !tl.Ended.Recorded || tl.Ended.StatusName != "normal" || tl.Ended.Abnormal() {
			t.Errorf("run end %+v", tl.Ended)
		}
		if len(tl.Warnings) != 2 || !strings.Contains(tl.Warnings[0], "1 closing records") || !strings.Contains(tl.Warnings[1], "1 regions, waits or measured intervals") {
			t.Errorf("warnings %q", tl.Warnings)
		}
		sum := view.Summarize(tl, 10)
		if len(sum.Measures) != 5 || tl.Sites[sum.Measures[0].Site].Name != "solve" || sum.Measures[0].Time != 14 {
			t.Errorf("summary of measured intervals %+v", sum.Measures)
		}
		// Busy time is that of the outermost regions, not of the
		// measured intervals.
		if p0 := sum.PerProc[0]; p0.Busy != 20 || p0.Idle != 0 {
			t.Errorf("P0 busy %v idle %v, want 20 and 0", p0.Busy, p0.Idle)
		}
	}
}

func siteOf(tl *view.Timeline, proc int, name string) int {
	for _, iv := range tl.Intervals {
		if iv.Proc == proc && iv.Kind == view.KindMeasure && tl.Sites[iv.Site].Name == name {
			return iv.Site
		}
	}
	return -1
}

// TestMeasureOutsideRegions: a measured interval that encloses the
// program region does not hide the region's busy time.
func TestMeasureOutsideRegions(t *testing.T) {
	s := tracetest.New(1)
	s.MeasureStart(0, 0, 1, "all")
	s.Start(0, 1, tracetest.SubMain, 0, trace.RegionProgram)
	s.Sync(0, 2, trace.TagWaitBarrierStart, tracetest.SubMain, tracetest.DirBar)
	s.Sync(0, 4, trace.TagWaitBarrierStop, tracetest.SubMain, tracetest.DirBar)
	s.Stop(0, 9, tracetest.SubMain, 0, trace.RegionProgram)
	s.MeasureFinish(0, 10, 1, "all", 10)
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	checkStructure(t, tl)
	p := view.Summarize(tl, 10).PerProc[0]
	if p.Busy != 6 || p.Wait != 2 || p.Idle != 2 {
		t.Errorf("busy %v wait %v idle %v, want 6, 2, 2", p.Busy, p.Wait, p.Idle)
	}
}

// TestAbnormalEndWarning: a run that ended abnormally is the first warning
// of the page and its run-end row.
func TestAbnormalEndWarning(t *testing.T) {
	s := tracetest.New(2)
	s.Start(0, 0, tracetest.SubMain, 0, trace.RegionProgram)
	s.Start(1, 0, tracetest.SubMain, 0, trace.RegionProgram)
	s.TraceEnd(5, trace.EndDeadlock, "deadlock: processors 0 and 1\nwait at the barrier", []int{1}, 7)
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	want := "the run ended abnormally (deadlock): deadlock: processors 0 and 1 wait at the barrier; processor 1 had not stopped when the trace was closed; 7 records were lost"
	if len(tl.Warnings) == 0 || tl.Warnings[0] != want {
		t.Errorf("warnings %q\nwant first %q", tl.Warnings, want)
	}
	// trace-end is no event of a processor; the deadlocked run lasted
	// until it (the report's T counts the blocked time too).
	if len(tl.Instants) != 0 || tl.End != 5 {
		t.Errorf("trace-end drawn: %+v, end %v; want none, and the run to end at 5", tl.Instants, tl.End)
	}
	var buf bytes.Buffer
	if err := view.WriteHTML(&buf, tl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<td id="run-end" class="abnormal">`+want) {
		t.Errorf("the page lacks the run end row")
	}
}

// TestMeasuredPage: the page's data describes the measured kind and the
// sites with their levels, and the side panel lists the intervals.
func TestMeasuredPage(t *testing.T) {
	data, err := tracetest.Measured().Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	tl := buildBytes(t, data, view.Options{})
	var buf bytes.Buffer
	if err := view.WriteHTML(&buf, tl); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`{"name":"measured interval","color":"#3f3d99","start":"measure-start","end":"measure-finish","style":"measure"}`,
		`{"n":"row","f":"","sub":0,"dir":0,"k":"measure","l":"row","x":"MeasureStart(\"row\"), level 2","lv":2}`,
		`<span class="sw measure" style="--c:#3f3d99"></span>measured interval`,
		`<table class="top" id="measures">`,
		`<td id="run-end">normal</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}
