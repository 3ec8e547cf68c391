package analysis

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// measured is a run of two processors with measured intervals:
//
//	P0: program [0, 100]; setup [10, 30] (elapsed 19.5); solve [40, 95]
//	    (elapsed 54) holding a pdo [45, 90] with row (level 2) [50, 60]
//	    (10) and [65, 80] (14.5)
//	P1: program [0, 98]; pdo [45, 92] with row (level 1) [50, 70] (19.25),
//	    [71, 75] (4) and a finish of "ghost" that nothing opened; "tail"
//	    opened at 93 and never finished
//
// then the runtime's statistics and a normal trace-end at 200.
func measured() *tracetest.Synth {
	s := tracetest.New(2)
	s.Start(0, 0, 2, 0, trace.RegionProgram)
	s.MeasureStart(0, 10, 1, "setup")
	s.MeasureFinish(0, 30, 1, "setup", 19.5)
	s.MeasureStart(0, 40, 1, "solve")
	s.Start(0, 45, 1, 2, trace.RegionPDO)
	s.MeasureStart(0, 50, 2, "row")
	s.MeasureFinish(0, 60, 2, "row", 10)
	s.MeasureStart(0, 65, 2, "row")
	s.MeasureFinish(0, 80, 2, "row", 14.5)
	s.Stop(0, 90, 1, 2, trace.RegionPDO)
	s.MeasureFinish(0, 95, 1, "solve", 54)
	s.Stop(0, 100, 2, 0, trace.RegionProgram)

	s.Start(1, 0, 2, 0, trace.RegionProgram)
	s.Start(1, 45, 1, 2, trace.RegionPDO)
	s.MeasureStart(1, 50, 1, "row")
	s.MeasureFinish(1, 70, 1, "row", 19.25)
	s.MeasureStart(1, 71, 1, "row")
	s.MeasureFinish(1, 75, 1, "row", 4)
	s.MeasureFinish(1, 80, 1, "ghost", 3)
	s.Stop(1, 92, 1, 2, trace.RegionPDO)
	s.MeasureStart(1, 93, 1, "tail")
	s.Stop(1, 98, 2, 0, trace.RegionProgram)

	s.StatInterval(200, 0, -1, 0, "program", 1, 2, [11]float64{100, 200, 120, 0, 2.5, 30, 122.5, 30, 47.5, 6, 0.6125})
	s.StatGroup(200, 0, 0, 0, "UserGrp", 0, 120, 0)
	s.StatGroup(200, 0, 0, 7, "MapPLGrp", 1, 0, 0)
	s.StatGroup(200, 0, 0, 11, "StatistGrp", 2.5, 0, 0)
	s.StatGroup(200, 0, 7, 7, "MapPLGrp", 1, 2, 6)
	s.StatGroup(200, 0, 7, 12, "SyncGrp", 0.5, 0.5, 24)
	s.StatGroup(200, 0, 11, 11, "StatistGrp", 5, 0, 0)
	s.StatInterval(200, 1, 0, 1, "solve", 1, 2, [11]float64{55, 110, 80, 0, 2.5, 30, 82.5, 30, 0, 3.5, 0.75})
	s.StatGroup(200, 1, 0, 0, "UserGrp", 0, 80, 0)
	s.StatGroup(200, 1, 7, 12, "SyncGrp", 0.5, 2.5, 30)
	s.TraceEnd(200, trace.EndNormal, "", nil, 0)
	return s
}

func TestMeasuredIntervals(t *testing.T) {
	for _, f := range []trace.Format{trace.ASCII, trace.Binary} {
		m := analyzeBytes(t, measured().MustEncode(t, f, testProg()), Options{})
		want := []*MeasureStat{
			{Name: "setup", Level: 1, Entries: 1, Elapsed: 19.5, Mean: 19.5, Max: 19.5, First: 10,
				PerProc: []MeasureProc{{1, 19.5}, {0, 0}}},
			{Name: "solve", Level: 1, Entries: 1, Elapsed: 54, Mean: 54, Max: 54, First: 40,
				PerProc: []MeasureProc{{1, 54}, {0, 0}}},
			{Name: "row", Level: 1, Entries: 2, Elapsed: 23.25, Mean: 11.625, Max: 19.25, First: 50,
				PerProc: []MeasureProc{{0, 0}, {2, 23.25}}},
			{Name: "row", Level: 2, Entries: 2, Elapsed: 24.5, Mean: 12.25, Max: 14.5, First: 50,
				PerProc: []MeasureProc{{2, 24.5}, {0, 0}}},
			{Name: "tail", Level: 1, Unfinished: 1, First: 93,
				PerProc: []MeasureProc{{0, 0}, {0, 0}}},
		}
		if !reflect.DeepEqual(m.Measures, want) {
			js, _ := json.MarshalIndent(m.Measures, "", " ")
			t.Errorf("measured intervals:\n%s", js)
		}
		// The statistics and trace-end at 200 are not processor 0's time.
		if m.End != 100 || m.Duration != 100 || m.Records != 33 || m.PerProc[0].Records != 12 {
			t.Errorf("end %v, duration %v, records %d (P0 %d): want 100, 100, 33 (12)", m.End, m.Duration, m.Records, m.PerProc[0].Records)
		}
		if !reflect.DeepEqual(m.Warnings, []string{
			"1 measure-finish records without a matching measure-start (not counted)",
			"1 measure-start records without a matching measure-finish (not counted)",
		}) {
			t.Errorf("warnings %q", m.Warnings)
		}
	}
}

// TestMeasureNesting: a finish closes the innermost open interval of its
// name and level; those left open inside it are unfinished; a finish of a
// name that is open at another level does not match.
func TestMeasureNesting(t *testing.T) {
	s := tracetest.New(1)
	s.Start(0, 0, 2, 0, trace.RegionProgram)
	s.MeasureStart(0, 1, 1, "a")
	s.MeasureStart(0, 2, 2, "b")
	s.MeasureStart(0, 3, 3, "c") // left open by the finish of b
	s.MeasureFinish(0, 4, 2, "b", 2)
	s.MeasureFinish(0, 5, 2, "a", 9) // a is open at level 1: no match
	s.MeasureFinish(0, 6, 1, "a", 5)
	s.MeasureFinish(0, 7, 1, "a", 1) // nothing open
	s.Stop(0, 10, 2, 0, trace.RegionProgram)
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	type row struct {
		name          string
		level         int
		entries, open int64
		elapsed       float64
	}
	var got []row
	for _, ms := range m.Measures {
		got = append(got, row{ms.Name, ms.Level, ms.Entries, ms.Unfinished, ms.Elapsed})
	}
	want := []row{{"a", 1, 1, 0, 5}, {"b", 2, 1, 0, 2}, {"c", 3, 0, 1, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("measures %v, want %v", got, want)
	}
	if !reflect.DeepEqual(m.Warnings, []string{
		"2 measure-finish records without a matching measure-start (not counted)",
		"1 measure-start records without a matching measure-finish (not counted)",
	}) {
		t.Errorf("warnings %q", m.Warnings)
	}
}

func TestRuntimeStats(t *testing.T) {
	for _, f := range []trace.Format{trace.ASCII, trace.Binary} {
		m := analyzeBytes(t, measured().MustEncode(t, f, testProg()), Options{})
		want := []*StatInterval{
			{ID: 0, Parent: -1, Level: 0, Name: "program", Entries: 1, Procs: 2, Exec: 100, ProcTime: 200,
				UserProductive: 120, SystemProductive: 2.5, SystemLost: 30, Productive: 122.5, Lost: 30, Idle: 47.5,
				SystemCalls: 6, Efficiency: 0.6125, Groups: []StatGroup{
					{0, "UserGrp", 0, "UserGrp", 0, 120, 0},
					{0, "UserGrp", 7, "MapPLGrp", 1, 0, 0},
					{0, "UserGrp", 11, "StatistGrp", 2.5, 0, 0},
					{7, "MapPLGrp", 7, "MapPLGrp", 1, 2, 6},
					{7, "MapPLGrp", 12, "SyncGrp", 0.5, 0.5, 24},
					{11, "StatistGrp", 11, "StatistGrp", 5, 0, 0},
				}, ByGroup: []StatGroupSum{
					// MapPLGrp's row: 2 + 0.5 productive, 6 + 24 lost; its column: 2 and 8
					{7, "MapPLGrp", 1, 2.5, 30, 2, 8},
					{11, "StatistGrp", 2.5, 0, 0, 0, 0},
					{12, "SyncGrp", 0, 0, 0, 0.5, 24.5},
				}},
			{ID: 1, Parent: 0, Level: 1, Name: "solve", Entries: 1, Procs: 2, Exec: 55, ProcTime: 110,
				UserProductive: 80, SystemProductive: 2.5, SystemLost: 30, Productive: 82.5, Lost: 30,
				SystemCalls: 3.5, Efficiency: 0.75, Groups: []StatGroup{
					{0, "UserGrp", 0, "UserGrp", 0, 80, 0},
					{7, "MapPLGrp", 12, "SyncGrp", 0.5, 2.5, 30},
				}, ByGroup: []StatGroupSum{
					{7, "MapPLGrp", 0, 2.5, 30, 0, 0},
					{12, "SyncGrp", 0, 0, 0, 2.5, 32.5},
				}},
		}
		if !reflect.DeepEqual(m.Stats, want) {
			js, _ := json.MarshalIndent(m.Stats, "", " ")
			t.Errorf("statistics:\n%s", js)
		}
		want0 := RunEnd{Recorded: true, Status: 0, StatusName: "normal", NotStopped: []int{}}
		if !reflect.DeepEqual(m.Ended, want0) {
			t.Errorf("run end %+v", m.Ended)
		}
	}
}

// section returns the text report's lines from the one starting with
// title up to the next section (a line without indentation after a blank
// line).
func section(out, title string) string {
	i := strings.Index(out, "\n"+title)
	if i < 0 {
		return ""
	}
	s := out[i+1:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		for k := j; k >= 0 && k < len(s); {
			if k+2 < len(s) && s[k+2] != ' ' {
				return s[:k+1]
			}
			n := strings.Index(s[k+2:], "\n\n")
			if n < 0 {
				break
			}
			k += 2 + n
		}
	}
	return s
}

func TestRenderMeasures(t *testing.T) {
	m := analyzeBytes(t, measured().MustEncode(t, trace.Binary, testProg()), Options{})
	rep := NewReport("m.sddf", m, 5)
	var txt bytes.Buffer
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	out := txt.String()
	if strings.Contains(out, "note:") {
		t.Errorf("a normal end has a note:\n%s", out)
	}
	wantM := `Measured intervals (MeasureStart/MeasureFinish per name and level; elapsed time from the measure-finish records)
  interval  level  entries    total     mean      max  unfinished
  setup         1        1  19.5 µs  19.5 µs  19.5 µs           0
  solve         1        1  54.0 µs  54.0 µs  54.0 µs           0
  row           1        2  23.2 µs  11.6 µs  19.2 µs           0
    row         2        2  24.5 µs  12.2 µs  14.5 µs           0
  tail          1        0   0.0 µs   0.0 µs   0.0 µs           1

  interval  level  proc  entries    total     mean
  setup         1     0        1  19.5 µs  19.5 µs
  solve         1     0        1  54.0 µs  54.0 µs
  row           1     1        2  23.2 µs  11.6 µs
    row         2     0        2  24.5 µs  12.2 µs
`
	if got := section(out, "Measured intervals"); got != wantM {
		t.Errorf("measured intervals:\n%s\nwant:\n%s", got, wantM)
	}
	wantS := `Interval statistics of the runtime (2 processors)
  These are the runtime's own figures (stat-interval and stat-group records, SVMC_STATS=1;
  Lib-DVM's interval matrix, seed 000 §11), not the trace-based characteristics above: a call
  that k processors make together counts 1/k call, its time t counts t/k productive and
  (k−1)t/k lost (Lib-DVM's (n−1)/n rule); an interval includes the intervals nested in it;
  execution = the longest processor's wall time in it, processor time = processors × execution,
  efficiency = productive / processor time.

  id  interval  entries  execution  proc time  productive  user prod  system prod     lost  user lost  system lost     idle  calls  efficiency
   0  program         1   100.0 µs   200.0 µs    122.5 µs   120.0 µs       2.5 µs  30.0 µs     0.0 µs      30.0 µs  47.5 µs      6       61.3%
   1    solve         1    55.0 µs   110.0 µs     82.5 µs    80.0 µs       2.5 µs  30.0 µs     0.0 µs      30.0 µs   0.0 µs   3.50       75.0%

  Interval matrices: calls, productive and lost time of each group of runtime functions
  called from a caller group (UserGrp → UserGrp: the program's own code; UserGrp → a group:
  the calls the program made of it directly, per processor; seed 000 §11.1.1's names)
  id  interval  caller group  group       calls  productive     lost
   0  program   UserGrp       UserGrp         0    120.0 µs   0.0 µs
   0  program   UserGrp       MapPLGrp        1      0.0 µs   0.0 µs
   0  program   UserGrp       StatistGrp   2.50      0.0 µs   0.0 µs
   0  program   MapPLGrp      MapPLGrp        1      2.0 µs   6.0 µs
   0  program   MapPLGrp      SyncGrp      0.50      0.5 µs  24.0 µs
   0  program   StatistGrp    StatistGrp      5      0.0 µs   0.0 µs
   1  solve     UserGrp       UserGrp         0     80.0 µs   0.0 µs
   1  solve     MapPLGrp      SyncGrp      0.50      2.5 µs  30.0 µs

  By group (seed 000 §11.1.3): calls the user program made directly (per processor); productive
  and lost time of those calls with what they called (SPTi, SLTi); the group's own time from anywhere
  id  interval  group       direct calls  productive     lost  own productive  own time
   0  program   MapPLGrp               1      2.5 µs  30.0 µs          2.0 µs    8.0 µs
   0  program   StatistGrp          2.50      0.0 µs   0.0 µs          0.0 µs    0.0 µs
   0  program   SyncGrp                0      0.0 µs   0.0 µs          0.5 µs   24.5 µs
   1  solve     MapPLGrp               0      2.5 µs  30.0 µs          0.0 µs    0.0 µs
   1  solve     SyncGrp                0      0.0 µs   0.0 µs          2.5 µs   32.5 µs
`
	if got := section(out, "Interval statistics of the runtime"); got != wantS {
		t.Errorf("statistics:\n%s\nwant:\n%s", got, wantS)
	}

	var html bytes.Buffer
	if err := WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, s := range []string{
		`<h2 id="measures">Measured intervals</h2>`,
		`<tr><td class="ind">  row</td><td class="n">2</td><td class="n">2</td><td class="n">24.5 µs</td><td class="n">12.2 µs</td><td class="n">14.5 µs</td><td class="n">0</td><td class="n">2 × 12.2 µs<br>24.5 µs</td><td class="n">–</td></tr>`,
		`<h2 id="stats">Interval statistics of the runtime</h2>`,
		"Lib-DVM&#39;s (n−1)/n rule",
		`<tr><td class="n">1</td><td>solve</td><td>MapPLGrp</td><td>SyncGrp</td><td class="n">0.50</td><td class="n">2.5 µs</td><td class="n">30.0 µs</td></tr>`,
	} {
		if !strings.Contains(h, s) {
			t.Errorf("HTML lacks %s", s)
		}
	}
	if strings.Contains(h, `id="run-end"`) {
		t.Errorf("HTML has a run-end note for a normal end")
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Model struct {
			Measures []struct {
				Name    string `json:"name"`
				Level   int    `json:"level"`
				PerProc []struct {
					Entries int64   `json:"entries"`
					Elapsed float64 `json:"elapsed_us"`
				} `json:"per_proc"`
			} `json:"measures"`
			Stats []struct {
				Name   string `json:"name"`
				Exec   float64
				Groups []struct {
					CallerName string  `json:"caller_name"`
					Calls      float64 `json:"calls"`
				} `json:"groups"`
			} `json:"stats"`
			End map[string]any `json:"end"`
		} `json:"model"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	bm := back.Model
	if len(bm.Measures) != 5 || bm.Measures[3].Name != "row" || bm.Measures[3].Level != 2 || bm.Measures[3].PerProc[0].Entries != 2 ||
		bm.Measures[3].PerProc[0].Elapsed != 24.5 || len(bm.Stats) != 2 || bm.Stats[1].Groups[1].CallerName != "MapPLGrp" ||
		bm.Stats[1].Groups[1].Calls != 0.5 {
		t.Errorf("JSON: %+v", bm)
	}
	if !reflect.DeepEqual(bm.End, map[string]any{"recorded": true, "status": 0.0, "status_name": "normal", "message": "",
		"not_stopped": []any{}, "lost_records": 0.0}) {
		t.Errorf("JSON end: %v", bm.End)
	}
}

// TestAbnormalEnd: a run that ended abnormally is a note at the top and an
// unranked finding first; the other findings keep their ranking and the
// next request ignores it.
func TestAbnormalEnd(t *testing.T) {
	normal := analyzeBytes(t, twoLoops(true).MustEncode(t, trace.Binary, testProg()), Options{})
	s := twoLoops(true)
	s.TraceEnd(5000, trace.EndPanic, "processor 1 panicked: boom\n\tat main.go:22", []int{1, 3}, 12)
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	if m.Duration != normal.Duration {
		t.Errorf("duration %v, want %v: trace-end is no processor's time", m.Duration, normal.Duration)
	}
	note := "the run ended abnormally (panic): processor 1 panicked: boom at main.go:22; processors 1 and 3 had not stopped when the trace was closed; 12 records were lost"
	if got := m.Ended.Summary(); got != note {
		t.Errorf("summary %q\nwant    %q", got, note)
	}
	// A list in the message (a time limit's, a deadlock's: each
	// processor on a line of its own) keeps its items apart.
	limit := &RunEnd{Recorded: true, Status: trace.EndTerminate, StatusName: "terminate",
		Message: "time limit 3s reached: the run was stopped\n  processor 0: running in main.step at main.go:11\n  processor 1: running"}
	if got, want := limit.Summary(), "the run ended abnormally (terminate): time limit 3s reached: the run was stopped; processor 0: running in main.step at main.go:11; processor 1: running"; got != want {
		t.Errorf("summary %q\nwant    %q", got, want)
	}
	fs, base := Findings(m), Findings(normal)
	if len(fs) != len(base)+1 || fs[0].Kind != FindEnd || !fs[0].Unranked || fs[0].Severity != 0 || fs[0].Title != note ||
		!strings.HasPrefix(fs[0].Advice, "fix the failure") {
		t.Fatalf("findings %+v", fs)
	}
	if !reflect.DeepEqual(fs[1:], base) {
		t.Errorf("the ranked findings changed:\n%+v\nwant\n%+v", fs[1:], base)
	}
	rep, repBase := NewReport("p.sddf", m, 3), NewReport("p.sddf", normal, 3)
	if rep.NextRequest != repBase.NextRequest {
		t.Errorf("next request\n%s\nwant\n%s", rep.NextRequest, repBase.NextRequest)
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	out := txt.String()
	lines := strings.Split(out, "\n")
	if lines[3] != "note: "+note {
		t.Errorf("line 4 %q, want the note", lines[3])
	}
	if !strings.Contains(out, "\n  1.   n/a  abnormal end  "+note+"\n") || !strings.Contains(out, "\n  2. 30.0%  imbalance ") {
		t.Errorf("findings in the text:\n%s", out)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<p class="end" id="run-end">`+note+`</p>`) ||
		!strings.Contains(html.String(), `<span class="sev">n/a</span> abnormal end: `) {
		t.Errorf("HTML lacks the abnormal end")
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Model struct {
			End RunEnd `json:"end"`
		} `json:"model"`
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	want := RunEnd{Recorded: true, Status: trace.EndPanic, StatusName: "panic", Message: "processor 1 panicked: boom\n\tat main.go:22",
		NotStopped: []int{1, 3}, LostRecords: 12}
	if !reflect.DeepEqual(back.Model.End, want) || back.Findings[0]["unranked"] != true || back.Findings[1]["unranked"] != nil {
		t.Errorf("JSON: end %+v, findings %v", back.Model.End, back.Findings)
	}

	// A normal end with lost records: a note, no finding.
	s = twoLoops(true)
	s.TraceEnd(5000, trace.EndNormal, "", nil, -1)
	m = analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	if got := m.Ended.Summary(); got != "the run ended normally; records were lost (a processor's buffer could not be taken over)" {
		t.Errorf("summary %q", got)
	}
	if fs := Findings(m); !reflect.DeepEqual(fs, base) {
		t.Errorf("findings %+v", fs)
	}
}

// TestNoTraceEnd: without a trace-end record the JSON says so and the text
// has a note.
func TestNoTraceEnd(t *testing.T) {
	m := analyzeBytes(t, twoLoops(true).MustEncode(t, trace.Binary, testProg()), Options{})
	want := RunEnd{Status: -1, StatusName: "not recorded", NotStopped: []int{}}
	if !reflect.DeepEqual(m.Ended, want) || m.Ended.Abnormal() {
		t.Errorf("run end %+v", m.Ended)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, NewReport("x", m, 0)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"end": {
      "recorded": false,
      "status": -1,
      "status_name": "not recorded",
      "message": "",
      "not_stopped": [],
      "lost_records": 0
    }`) {
		t.Errorf("JSON lacks the end:\n%s", js.String())
	}
	var txt bytes.Buffer
	WriteText(&txt, NewReport("x", m, 0))
	if !strings.Contains(txt.String(), "\nnote: the trace has no trace-end record") {
		t.Errorf("text lacks the note")
	}
}

// TestDeadlockTimeCounted: a run that deadlocked after 10 µs and was
// declared so 700 ms later spent those 700 ms waiting: processor 0 at the
// barrier it waits at (wait record), processor 1 in a lock wait that left
// no record (below stage 3). Before, the run's time ended at the last
// records and its efficiency was about 100%.
func TestDeadlockTimeCounted(t *testing.T) {
	s := tracetest.New(2)
	s.Start(0, 0, tracetest.SubMain, 0, trace.RegionProgram)
	s.Sync(0, 10, trace.TagWaitBarrierStart, tracetest.SubMain, tracetest.DirBar)
	s.Start(1, 0, tracetest.SubMain, 0, trace.RegionProgram)
	s.Start(1, 5, tracetest.SubWork, 0, trace.RegionSubroutine)
	s.TraceEnd(700010, trace.EndDeadlock, "deadlock: no processor can proceed", nil, 0)
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, tracetest.Prog()), Options{})
	if m.Duration != 700010 {
		t.Errorf("duration %v µs, want 700010: the time deadlocked is run time", m.Duration)
	}
	if eff := m.Time.Productive / m.Time.Total; eff > 0.001 {
		t.Errorf("efficiency %.4f, want about 0", eff)
	}
	if got := m.PerProc[0].Sync; got != 700000 {
		t.Errorf("processor 0 waited %v µs, want 700000", got)
	}
	if got := m.PerProc[1].Sync; got != 700005 {
		t.Errorf("processor 1 waited %v µs, want 700005", got)
	}
	var bar *WaitStat
	for _, w := range m.Waits {
		if w.Dir == tracetest.DirBar {
			bar = w
		}
	}
	if bar == nil || bar.Total != 700000 {
		t.Errorf("barrier waits %+v, want 700000 µs", bar)
	}
}

// TestUnequalWork: the time lost at the end of a psection whose sections
// take unequal time, and at the end of a replicated region whose
// processors do unequal work, is a finding of its own with the processor
// that arrives last; before, implicit barriers other than a pdo's were
// skipped and the report said "none above 1.0%".
func TestUnequalWork(t *testing.T) {
	for _, c := range []struct {
		dir, typ int
		kind     string
		where    string
	}{
		{tracetest.DirPSec, trace.RegionPSection, "psection", "at the end of the psection"},
		{tracetest.DirRepl, trace.RegionReplicated, "replicated", "at the end of the replicated region"},
	} {
		s := tracetest.New(2)
		for p := 0; p < 2; p++ {
			s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
			s.Start(p, 1, tracetest.SubMain, c.dir, c.typ)
			end := 20.0 + 80*float64(p) // processor 1 works 4 times as long
			if c.typ == trace.RegionPSection {
				s.Start(p, 2, tracetest.SubMain, tracetest.DirSec, trace.RegionSection)
				s.Stop(p, end, tracetest.SubMain, tracetest.DirSec, trace.RegionSection)
			}
			s.Sync(p, end+0.5, trace.TagWaitBarrierStart, tracetest.SubMain, c.dir)
			s.Sync(p, 101, trace.TagWaitBarrierStop, tracetest.SubMain, c.dir)
			s.Stop(p, 101.5, tracetest.SubMain, c.dir, c.typ)
			s.Stop(p, 102, tracetest.SubMain, 0, trace.RegionProgram)
		}
		m := analyzeBytes(t, s.MustEncode(t, trace.Binary, tracetest.Prog()), Options{})
		fs := Findings(m)
		if len(fs) == 0 || fs[0].Kind != FindUnequal || !strings.Contains(fs[0].Title, c.where) ||
			!strings.Contains(fs[0].Title, "processor 1 waits least (arrives last)") {
			t.Fatalf("%s: findings %+v", c.kind, fs)
		}
		// Processor 0 waits 80 µs of N × T = 204 µs.
		if sev := fs[0].Severity; sev < 0.35 || sev > 0.45 {
			t.Errorf("%s: severity %.3f, want about 80/204 = 0.39", c.kind, sev)
		}
	}
}

// TestQueueImbalanceFolded: a critical section that serialises a loop makes
// the loop look unbalanced (the member that queued finishes last). The
// imbalance is folded into the critical-section finding that causes it;
// before, a second finding advised cyclic scheduling, which cannot help.
func TestQueueImbalanceFolded(t *testing.T) {
	prog := testProg()
	g := prog.Subprograms[0]
	g.Directives = append(g.Directives, tracetest.Directive(&progdb.Directive{Num: 5, Kind: "critical", Text: "//svm:critical q", Pos: progdb.Pos{File: "main.go", Line: 22, Col: 3}, Label: "q"}))
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		s.Start(p, 0, 1, 2, trace.RegionPDO)
	}
	s.PDOInfo(0, 0, 1, 2, 0)
	s.Sync(0, 10, trace.TagWaitCritSecStart, 1, 5)
	s.Sync(0, 10, trace.TagWaitCritSecStop, 1, 5)
	s.Sync(0, 50, trace.TagExitCritSec, 1, 5)
	s.PDOWork(0, 50, 1, 2, 1, 50)
	s.Sync(0, 50, trace.TagWaitBarrierStart, 1, 2)
	s.Sync(0, 90, trace.TagWaitBarrierStop, 1, 2)
	s.Sync(1, 10, trace.TagWaitCritSecStart, 1, 5)
	s.Sync(1, 50, trace.TagWaitCritSecStop, 1, 5)
	s.Sync(1, 90, trace.TagExitCritSec, 1, 5)
	s.PDOWork(1, 90, 1, 2, 1, 90)
	s.Sync(1, 90, trace.TagWaitBarrierStart, 1, 2)
	s.Sync(1, 90, trace.TagWaitBarrierStop, 1, 2)
	for p := 0; p < 2; p++ {
		s.Stop(p, 91, 1, 2, trace.RegionPDO)
		s.Stop(p, 100, 2, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{})
	fs := Findings(m)
	if len(fs) == 0 || fs[0].Kind != FindCritical || !strings.Contains(fs[0].Title, "the queue also makes loop tri unbalanced (40.0 µs of waiting at its end)") {
		t.Fatalf("findings %+v", fs)
	}
	// Both entries write a wait; one of them waited.
	if !strings.Contains(fs[0].Title, "to enter the critical section q (G, main.go:22), 2 entries, longest 40.0 µs") {
		t.Errorf("title %q", fs[0].Title)
	}
	for _, f := range fs {
		if f.Kind == FindImbalance {
			t.Errorf("an imbalance finding beside its cause: %+v", f)
		}
	}
}

// TestSerialBetweenLoops: serial code between two pdos that calls a helper
// is charged to the function that holds the pdos, between them, not to the
// helper it calls (before, the finding named the helper's header).
func TestSerialBetweenLoops(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		if p == 0 {
			s.Start(0, 0, 1, 0, trace.RegionSubroutine) // G, entered by the leader
		}
		s.Start(p, 0, 1, 2, trace.RegionPDO)
		s.Sync(p, 90, trace.TagWaitBarrierStart, 1, 2)
		s.Sync(p, 100, trace.TagWaitBarrierStop, 1, 2)
		s.Stop(p, 100, 1, 2, trace.RegionPDO)
	}
	s.Start(0, 110, 3, 0, trace.RegionSubroutine)
	s.Stop(0, 890, 3, 0, trace.RegionSubroutine) // the helper T.M, serial
	for p := 0; p < 2; p++ {
		s.Start(p, 900, 1, 3, trace.RegionPDO)
		s.Sync(p, 990, trace.TagWaitBarrierStart, 1, 3)
		s.Sync(p, 1000, trace.TagWaitBarrierStop, 1, 3)
		s.Stop(p, 1000, 1, 3, trace.RegionPDO)
	}
	s.Stop(0, 1000, 1, 0, trace.RegionSubroutine)
	for p := 0; p < 2; p++ {
		s.Stop(p, 1000, 2, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	var serial []Finding
	for _, f := range Findings(m) {
		if f.Kind == FindSerial {
			serial = append(serial, f)
		}
	}
	if len(serial) == 0 || serial[0].Site.Func != "G" || !strings.HasSuffix(serial[0].Title, "between the pdo at main.go:20 and the pdo at main.go:30 for 800.0 µs") {
		t.Fatalf("serial findings %+v", serial)
	}
}

// TestDispatchOverhead: time a self-scheduled loop spends fetching chunks
// (pdo-work's dispatch time) is overhead, not productive work, and a
// finding with the chunk count; before, a dynamic(1) loop 7 times slower
// than block showed 85% efficiency and no finding.
func TestDispatchOverhead(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		s.Start(p, 0, 1, 3, trace.RegionPDO)
		s.PDOWorkDyn(p, 1000, 1, 3, 50000, 1000, 50001, 700)
		s.Sync(p, 1000, trace.TagWaitBarrierStart, 1, 3)
		s.Sync(p, 1000, trace.TagWaitBarrierStop, 1, 3)
		s.Stop(p, 1000, 1, 3, trace.RegionPDO)
		s.Stop(p, 1000, 2, 0, trace.RegionProgram)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, testProg()), Options{})
	near(t, "dispatch", m.Time.Dispatch, 1400)
	near(t, "productive", m.Time.Productive, 600)
	fs := Findings(m)
	if len(fs) == 0 || fs[0].Kind != FindDispatch || !strings.Contains(fs[0].Title, "70% of their time in the loop (G, main.go:30") ||
		!strings.HasSuffix(fs[0].Title, "fetching its 100002 chunks") {
		t.Fatalf("findings %+v", fs)
	}
	near(t, "severity", fs[0].Severity, 0.7)
}

// TestCutShortBarriers: a trace cut short without trace-end whose
// processors' records end at different times (processor 1 handed over its
// last buffer before two more barriers of processor 0) has barrier
// instances the consistent order cannot complete: the warning says why,
// with each processor's end.
func TestCutShortBarriers(t *testing.T) {
	s := tracetest.New(2)
	for p := range 2 {
		s.Start(p, 0, tracetest.SubMain, 0, trace.RegionProgram)
	}
	for k := range 5 {
		for p := range 2 {
			if p == 1 && k >= 3 {
				continue // processor 1's last buffer ends here
			}
			at := float64(10 + 10*k)
			s.Sync(p, at, trace.TagWaitBarrierStart, tracetest.SubMain, tracetest.DirBar)
			s.Sync(p, at+1, trace.TagWaitBarrierStop, tracetest.SubMain, tracetest.DirBar)
		}
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, tracetest.Prog()), Options{})
	if m.Ended.Recorded || m.Order == nil || m.Order.Forced == 0 {
		t.Fatalf("end %+v, order %+v: want a trace cut short with forced constraints", m.Ended, m.Order)
	}
	found := false
	for _, w := range m.Warnings {
		if strings.Contains(w, "the trace was cut short (no trace-end)") && strings.Contains(w, "processor 1's at 31.0 µs, processor 0's at 51.0 µs") {
			found = true
		}
	}
	if !found {
		t.Errorf("warnings %q: want the cut-short explanation with both ends", m.Warnings)
	}
}
