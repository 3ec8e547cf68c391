package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// sampleFindings is one finding of every kind on the sites of testProg.
func sampleFindings(prog *progdb.Program) []Finding {
	pi := progInfo{prog}
	return []Finding{
		{Kind: FindImbalance, Severity: 0.30, Site: pi.site(1, 2), Region: 1},
		{Kind: FindBarrier, Severity: 0.12, Site: pi.site(2, 2), Region: 1},
		{Kind: FindSerial, Severity: 0.06, Site: pi.site(1, 0), Region: 0},
		{Kind: FindImbalance, Severity: 0.05, Site: pi.site(1, 3), Region: 2},
		{Kind: FindLock, Severity: 0.04, Site: pi.site(2, 3), Region: 2},
		{Kind: FindCritical, Severity: 0.03, Site: pi.site(2, 4), Region: 2},
		{Kind: FindStartup, Severity: 0.02, Site: pi.site(1, 2), Region: 1},
		{Kind: FindOverhead, Severity: 0.015, Site: mainSite(pi), Region: -1},
		{Kind: FindSerial, Severity: 0.011, Site: pi.site(3, 0), Region: 0},
	}
}

func TestNextRequest(t *testing.T) {
	prog := testProg()
	fs := sampleFindings(prog)
	got := string(NextRequest(fs, prog))
	want := `# svmc report --findings: next run for the top findings
# stage 0: nothing is traced but what the requests below ask for
CONFIG SVM_TraceStage: 0
# brief functions the regions call: traced for their first 1000 calls per processor, then counted
CONFIG SVM_Throttle_Calls: 1000
# imbalance 30.0%: main.go:20
# pdo startup 2.0%: main.go:20
REQUEST LOCAL G.PDO_LABEL(tri): (REGION), (PDOInfo), (BARRIER), (APSInfo)
# barrier 12.0%: main.go:45
REQUEST LOCAL @MAIN.REG_NO(1): (REGION), (BARRIER)
# serial 6.0%: main.go:10
REQUEST LOCAL G.REG_NO(0): (REGION), (APSInfo)
# imbalance 5.0%: main.go:30
REQUEST LOCAL G.REG_NO(2): (REGION), (PDOInfo), (BARRIER)
# lock 4.0%: main.go:50
# critical 3.0%: main.go:55
REQUEST LOCAL @MAIN.REG_NO(2): (REGION), (LOCK), (WaitCritical)
# serial 1.1%: other.go:5
REQUEST LOCAL T.M.REG_NO(0): (REGION), (APSInfo)
# tracing 1.5%
REQUEST GLOBAL TrOverhead
`
	if got != want {
		t.Errorf("NextRequest:\n%s\nwant:\n%s", got, want)
	}
	// Without findings: the header and the stage only.
	if got := string(NextRequest(nil, prog)); got != "# svmc report --findings: next run for the top findings\nCONFIG SVM_TraceStage: 1\n" {
		t.Errorf("empty: %q", got)
	}
	// Tracing the top finding: stage 1 traces every call still, so the
	// frequent ones stop sooner (svmc tune of x514 asked for the same run
	// again, its trace as large).
	var tracing []Finding
	for _, f := range fs {
		if f.Kind == FindOverhead {
			tracing = append(tracing, f)
		}
	}
	want = "# svmc report --findings: next run for the top findings\nCONFIG SVM_TraceStage: 1\n" +
		"# frequent calls: traced for their first 1000 calls per processor, then counted\nCONFIG SVM_Throttle_Calls: 1000\n" +
		"# tracing 1.5%\nREQUEST GLOBAL TrOverhead\n"
	if got := string(NextRequest(tracing, prog)); len(tracing) != 1 || got != want {
		t.Errorf("tracing alone (%d findings):\n%s\nwant:\n%s", len(tracing), got, want)
	}
}

// The findings of a real-shaped model name the right request targets.
func TestFindingsToRequest(t *testing.T) {
	m := analyzeBytes(t, twoLoops(true).MustEncode(t, trace.Binary, testProg()), Options{})
	fs := Findings(m)
	req := string(NextRequest(fs[:1], m.Prog()))
	if !strings.Contains(req, "REQUEST LOCAL G.PDO_LABEL(tri): (REGION), (PDOInfo), (BARRIER)\n") {
		t.Errorf("request for the top finding:\n%s", req)
	}
}

func TestRender(t *testing.T) {
	m := analyzeBytes(t, twoLoops(true).MustEncode(t, trace.Binary, testProg()), Options{})
	rep := NewReport("two.sddf", m, 3)
	var txt bytes.Buffer
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	out := txt.String()
	for _, s := range []string{
		"program example.com/synth: 4 processors, stage 3,",
		"efficiency 63.5%",
		"1. 30.0%  imbalance",
		"loop tri (G, main.go:20)",
		"REQUEST LOCAL G.PDO_LABEL(tri)",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("text report lacks %q:\n%s", s, out)
		}
	}
	if !regexp.MustCompile(`\n  tri +G +main\.go:20 +block +1 +100 +710\.0 µs +700\.0 µs +400\.0 µs +1\.75 +1\.20 ms +42\.3%\n`).MatchString(out) {
		t.Errorf("loop table row of tri missing:\n%s", out)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, s := range []string{"<!DOCTYPE html>", "load imbalance in loop tri", "main.go:20", "REQUEST LOCAL G.PDO_LABEL(tri)"} {
		if !strings.Contains(h, s) {
			t.Errorf("HTML lacks %q", s)
		}
	}
	for _, s := range []string{"http://", "https://", "<script", "<link", "src="} {
		if strings.Contains(h, s) {
			t.Errorf("HTML is not self-contained: it has %q", s)
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Trace string `json:"trace"`
		Model struct {
			Procs int `json:"procs"`
			Time  struct {
				Efficiency float64 `json:"efficiency"`
			} `json:"time"`
			Loops []struct {
				Label     string  `json:"label"`
				Imbalance float64 `json:"imbalance"`
				Line      int     `json:"line"`
			} `json:"loops"`
		} `json:"model"`
		Findings []struct {
			Kind     string  `json:"kind"`
			Severity float64 `json:"severity"`
		} `json:"findings"`
		NextRequest string `json:"next_request"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Trace != "two.sddf" || back.Model.Procs != 4 || back.Model.Time.Efficiency != 0.635 ||
		len(back.Model.Loops) != 2 || back.Model.Loops[0].Label != "tri" || back.Model.Loops[0].Imbalance != 1.75 ||
		back.Model.Loops[0].Line != 20 || back.Findings[0].Kind != "imbalance" || back.Findings[0].Severity != 0.3 ||
		!strings.HasPrefix(back.NextRequest, "# svmc report") {
		t.Errorf("JSON: %+v", back)
	}
}

func TestProgramInfo(t *testing.T) {
	if _, err := ProgramInfo(nil, "t"); err != ErrNoProgramInfo {
		t.Errorf("no attribute: %v", err)
	}
	js, _ := progdb.Marshal(testProg())
	bad := strings.Replace(string(js), fmt.Sprintf(`"version": %d`, progdb.Version), `"version": 99`, 1)
	_, err := ProgramInfo([]trace.Attr{{Key: replay.ProgAttr, Value: bad}}, "x.sddf")
	if err == nil || !strings.Contains(err.Error(), "version 99 is not supported") || !strings.Contains(err.Error(), "x.sddf") {
		t.Errorf("unknown version: %v", err)
	}
	// Analyze passes the error on.
	s := tracetest.New(1)
	s.Start(0, 0, 2, 0, trace.RegionProgram)
	s.Stop(0, 1, 2, 0, trace.RegionProgram)
	var out bytes.Buffer
	w, _ := trace.NewWriter(&out, trace.Binary, []trace.Attr{{Key: replay.ProgAttr, Value: bad}})
	w.WriteBuf(&s.Bufs[0])
	w.Close()
	rd, _ := trace.NewReader(bytes.NewReader(out.Bytes()))
	if _, err := Analyze(rd, Options{}); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("Analyze with an unknown version: %v", err)
	}
}

// TestStrategyFromProgramInformation: a loop's strategy is what the program
// information file records, never words in the directive's text; a
// commented-out strategy clause used to be reported as the loop's.
func TestStrategyFromProgramInformation(t *testing.T) {
	prog := testProg()
	d := prog.Sub(1).Directive(3)
	d.Text = "//svm:pdo loops(i) // was strategy(dynamic(4))"
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 1, 3, trace.RegionPDO)
		s.Stop(p, 10, 1, 3, trace.RegionPDO)
	}
	m := analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{})
	if len(m.Loops) != 1 || m.Loops[0].Strategy != "block (default)" {
		t.Fatalf("loops %+v, want one with strategy block (default)", m.Loops)
	}
	d.Schedule = nil // a program information file of version 1
	m = analyzeBytes(t, s.MustEncode(t, trace.Binary, prog), Options{})
	if m.Loops[0].Strategy != "?" {
		t.Errorf("without a recorded schedule the strategy is %q, want ?", m.Loops[0].Strategy)
	}
}

func TestDur(t *testing.T) {
	for us, want := range map[float64]string{0: "0.0 µs", 12.34: "12.3 µs", 1500: "1.50 ms", 2.5e6: "2.500 s"} {
		if got := Dur(us); got != want {
			t.Errorf("Dur(%v) = %q, want %q", us, got, want)
		}
	}
}

// TestLateSenderOfSeveral: a receive from any source that waited for two
// senders names both (x217's master waited for processors 1 and 2, and the
// finding said "messages that processor 2 sends later").
func TestLateSenderOfSeveral(t *testing.T) {
	m := &Model{Procs: 3, Duration: 1000, Messages: &MessageStats{Waits: []*MsgWait{
		{Kind: LateSender, Func: "Recv", Where: "main.go:59:11", PeerFunc: "Send", PeerWhere: "main.go:77:5",
			Count: 19, Time: 600, PerProc: []float64{600, 0, 0}, Culprit: 2, Culprits: []int{1, 2}},
		{Kind: LateSender, Func: "Recv", Where: "main.go:73:11", Call: 2, PeerFunc: "Send", PeerWhere: "main.go:62:6",
			Count: 20, Time: 100, PerProc: []float64{0, 50, 50}, Culprit: 0, Culprits: []int{0}},
	}}}
	var titles []string
	for _, f := range Findings(m) {
		titles = append(titles, f.Title)
	}
	for _, want := range []string{
		"processor 0 waits 600.0 µs in Recv (main.go:59:11) for messages that processors 1-2 send later (processor 2 most often) from Send (main.go:77:5), 19 messages",
		"processors 1-2 wait 100.0 µs in Recv (main.go:73:11) for messages that processor 0 sends later from Send (main.go:62:6), 20 messages",
	} {
		if !slices.Contains(titles, want) {
			t.Errorf("findings %q lack %q", titles, want)
		}
	}
}

// TestRegionTitle: a finding names a construct by its kind and label, an
// unlabelled one by its kind alone (its place follows), not "at directive
// N" (a number that counts every directive of the function, shared and
// template ones too).
func TestRegionTitle(t *testing.T) {
	for _, c := range []struct {
		site Site
		code int
		want string
	}{
		{Site{Func: "Squares", Dir: 2}, trace.RegionPDO, "pdo"},
		{Site{Func: "solve", Dir: 3, Label: "sweep"}, trace.RegionPDO, "pdo sweep"},
		{Site{Func: "main"}, trace.RegionProgram, "program main"},
	} {
		if got := regionTitle(c.site, c.code); got != c.want {
			t.Errorf("regionTitle(%+v, %d) = %q, want %q", c.site, c.code, got, c.want)
		}
	}
}
