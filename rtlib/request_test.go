package rtlib

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// reqProg is the program information of reqBody, with its regions as the
// compiler numbers them:
//
//	func main() {                                   sub 1, region 0
//	  //svm:processors P(2)                         dir 1
//	  //svm:template T(10)                          dir 2
//	  //svm:pdo label(sweep) loops(i) strategy(on_home(T(i)))
//	  for i := 0; i <= 9; i++ {}                    dir 3, region 1
//	  //svm:barrier                                 dir 4
//	  //svm:trace_region phase                      dir 5, region 2
//	  {
//	    //svm:pdo label(inner) loops(i)             dir 6, region 3 (in 2)
//	    for i := 0; i <= 3; i++ { work() }
//	  }
//	  //svm:distribute (block) onto P :: T          dir 7
//	  work()
//	}
//	func work() {                                   sub 2, region 0
//	  //svm:trace_region hot                        dir 1, region 1
//	  { rtlib.MeasureStart("m"); rtlib.MeasureFinish("m") }
//	}
func reqProg() *Program {
	pos := func(line int) progdb.Pos { return progdb.Pos{File: "main.go", Line: line, Col: 2} }
	dir := func(num int, kind, label string) *progdb.Directive {
		return tracetest.Directive(&progdb.Directive{Num: num, Kind: kind, Text: "//svm:" + kind, Pos: pos(10 + num), Label: label})
	}
	reg := func(num int, typ string, code int, label string, parent, d int) *progdb.Region {
		return &progdb.Region{Num: num, Type: typ, Code: code, Label: label, Parent: parent, Directive: d, Pos: pos(10 + d), End: pos(10 + d)}
	}
	info := &progdb.Program{Version: progdb.Version, Tool: "svmc", Package: "example.com/req", Name: "main", Files: []string{"main.go"},
		Subprograms: []*progdb.Subprogram{
			{Num: 1, Name: "main", Main: true, Pos: pos(5),
				Directives: []*progdb.Directive{dir(1, "processors", ""), dir(2, "template", ""), dir(3, "pdo", "sweep"),
					dir(4, "barrier", ""), dir(5, "trace_region", "phase"), dir(6, "pdo", "inner"), dir(7, "distribute", "")},
				Regions: []*progdb.Region{reg(0, "program", trace.RegionProgram, "", -1, 0), reg(1, "pdo", trace.RegionPDO, "sweep", 0, 3),
					reg(2, "user", trace.RegionUser, "phase", 0, 5), reg(3, "pdo", trace.RegionPDO, "inner", 2, 6)},
				Shared: []*progdb.Var{{Num: 1, Name: "a", Type: "[]float64", ElemSize: 8}}},
			{Num: 2, Name: "work", Pos: pos(30),
				Directives: []*progdb.Directive{dir(1, "trace_region", "hot")},
				Regions:    []*progdb.Region{reg(0, "subroutine", trace.RegionSubroutine, "", -1, 0), reg(1, "user", trace.RegionUser, "hot", 0, 1)}},
		}}
	js, err := progdb.Marshal(info)
	if err != nil {
		panic(err)
	}
	mainDirs := []Dir{{}, {Kind: "processors"}, {Kind: "template"}, {Kind: "pdo", Label: "sweep", Region: 1}, {Kind: "barrier"},
		{Kind: "trace_region", Label: "phase", Region: 2}, {Kind: "pdo", Label: "inner", Region: 3}, {Kind: "distribute"}}
	for i := 1; i < len(mainDirs); i++ {
		mainDirs[i].Line, mainDirs[i].Col = 10+i, 2
	}
	return &Program{Info: string(js), Main: 1, Subs: []Sub{{},
		{Name: "main", File: "main.go", Line: 5, Dirs: mainDirs},
		{Name: "work", File: "main.go", Line: 30, Dirs: []Dir{{}, {Kind: "trace_region", Label: "hot", Region: 1, Line: 11, Col: 2}}}}}
}

func reqWork(p *Proc) {
	p.Enter(2)
	defer p.Exit(2)
	p.RegionStart(2, 1, trace.RegionUser)
	p.MeasureStart("m")
	p.MeasureFinish("m")
	p.RegionStop(2, 1, trace.RegionUser)
}

// reqBody is the "generated code" of reqProg.
func reqBody(p *Proc) {
	P := p.Processors(nil, 1, 1, "P", ext(0, 1))
	T := p.Template(nil, 1, 2, "T", ext(0, 9))
	p.Distribute(1, 7, P, []Format{Block()}, T)
	p.PDO(1, 3, OnHome(T, LoopVar(0, 0)), []Range{{Lo: 0, Hi: 9, Step: 1}}, func(q *Proc, it *Iter) {
		for it.Next() {
		}
	})
	p.Barrier(1, 4)
	p.RegionStart(1, 5, trace.RegionUser)
	p.PDO(1, 6, DefaultSchedule(), []Range{{Lo: 0, Hi: 3, Step: 1}}, func(q *Proc, it *Iter) {
		for it.Next() {
		}
		reqWork(q)
	})
	p.RegionStop(1, 5, trace.RegionUser)
	reqWork(p)
}

// runRequest runs reqBody on 2 processors with the request file src (its
// SVM_TraceStage as the stage, 0 if it sets none) and returns the records
// (without trace-end) and the informational messages.
func runRequest(t *testing.T, src string, lenient bool) ([]*trace.Record, string, error) {
	t.Helper()
	f, err := request.Parse("t.req", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	stage := max(f.Config().Stage, 0)
	var buf, msg bytes.Buffer
	err = Run(reqProg(), Params{NProcs: 2, Stage: stage, Trace: &buf, Format: trace.ASCII, Request: f, Lenient: lenient,
		BufSize: int(f.Config().TraceBufSize), Stderr: &msg}, reqBody)
	if err != nil {
		return nil, msg.String(), err
	}
	return readTrace(t, buf.Bytes()), msg.String(), nil
}

// recordNames is the sorted set of record names.
func recordNames(recs []*trace.Record) []string {
	var s []string
	for _, r := range recs {
		if !slices.Contains(s, r.Desc.Name) {
			s = append(s, r.Desc.Name)
		}
	}
	slices.Sort(s)
	return s
}

func sortedNames(s ...string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestRequestStages: a request file per stage 0-6 and the set of records
// each produces on reqProg. Stages 4-6 add SVM kernel page events, which
// svmc does not produce.
func TestRequestStages(t *testing.T) {
	stage1 := []string{"trace-region-start", "trace-region-stop", "measure-start", "measure-finish"}
	stage2 := append(slices.Clone(stage1), "proc-arrangement", "template-info", "template-dist",
		"pdo-info", "aps-info", "pdo-iteration-space", "pdo-work")
	stage3 := append(slices.Clone(stage2), "wait-barrier-start", "wait-barrier-stop")
	for stage, want := range [][]string{nil, stage1, stage2, stage3, stage3, stage3, stage3} {
		src := "# stage " + string(rune('0'+stage)) + "\nCONFIG SVM_TraceStage: " + string(rune('0'+stage)) + "\n"
		recs, _, err := runRequest(t, src, false)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(sortedNames(want...), withoutPDOWork(recordNames(recs), want)); diff != "" {
			t.Errorf("stage %d (-want +got):\n%s", stage, diff)
		}
	}
}

// withoutPDOWork leaves pdo-work out of got unless want has it, so that the
// tables hold whether or not the runtime writes pdo-work.
func withoutPDOWork(got, want []string) []string {
	if slices.Contains(want, "pdo-work") && !slices.Contains(got, "pdo-work") {
		return sortedNames(append(slices.Clone(got), "pdo-work")...) // written by a later runtime
	}
	if !slices.Contains(want, "pdo-work") {
		return slices.DeleteFunc(slices.Clone(got), func(s string) bool { return s == "pdo-work" })
	}
	return got
}

// TestRequestLocal: one request file per kind of LOCAL request (stage 0, so
// that only the request adds records) with the records it produces, as
// evString renders them, per node.
func TestRequestLocal(t *testing.T) {
	regions := func(evs ...string) []string { return evs }
	mapping0 := []string{"proc-arrangement(1)", "template-info(1)", "template-dist(1)"}
	workRegions := []string{"trace-region-start(2,0,subroutine)", "trace-region-start(2,1,user)",
		"trace-region-stop(2,1,user)", "trace-region-stop(2,0,subroutine)"}
	for _, c := range []struct {
		name, src string
		want      map[int][]string
	}{
		{"PDO_LABEL REGION", "REQUEST LOCAL main.PDO_LABEL(sweep): (REGION)", map[int][]string{
			0: regions("trace-region-start(1,3,pdo)", "trace-region-stop(1,3,pdo)"),
			1: regions("trace-region-start(1,3,pdo)", "trace-region-stop(1,3,pdo)")}},
		// pdo-info brings the mapping records it refers to, and those are
		// written wherever they happen (seed 002 §4.2.1: regardless of
		// the trace regions).
		{"PDO_LABEL PDOInfo", "REQUEST LOCAL main.PDO_LABEL(sweep): (PDOInfo)", map[int][]string{
			0: append(slices.Clone(mapping0), "pdo-info(1,3)", "pdo-iteration-space(1,3)"),
			1: {"template-dist(1)"}}},
		{"REG_LABEL nested and called", "REQUEST LOCAL main.REG_LABEL(phase): (REGION)", map[int][]string{
			0: append(append([]string{"trace-region-start(1,5,user)", "trace-region-start(1,6,pdo)"}, workRegions...),
				"trace-region-stop(1,6,pdo)", "trace-region-stop(1,5,user)"),
			1: append(append([]string{"trace-region-start(1,6,pdo)"}, workRegions...), "trace-region-stop(1,6,pdo)")}},
		{"REG_NO BARRIER", "REQUEST LOCAL main.REG_NO(1): (BARRIER)", map[int][]string{
			0: {"wait-barrier-start(1,3)", "wait-barrier-stop(1,3)"},
			1: {"wait-barrier-start(1,3)", "wait-barrier-stop(1,3)"}}},
		{"@MAIN region 0 BARRIER", "REQUEST LOCAL @MAIN.REG_NO(0): (BARRIER)", map[int][]string{
			0: {"wait-barrier-start(1,3)", "wait-barrier-stop(1,3)", "wait-barrier-start(1,4)", "wait-barrier-stop(1,4)",
				"wait-barrier-start(1,6)", "wait-barrier-stop(1,6)"},
			1: {"wait-barrier-start(1,3)", "wait-barrier-stop(1,3)", "wait-barrier-start(1,4)", "wait-barrier-stop(1,4)",
				"wait-barrier-start(1,6)", "wait-barrier-stop(1,6)"}}},
		{"function all regions", "REQUEST LOCAL work.*: (REGION)", map[int][]string{
			0: append(slices.Clone(workRegions), workRegions...),
			1: workRegions}},
		{"all functions APSInfo", "REQUEST LOCAL *.REG_NO(0): (APSInfo)", map[int][]string{
			0: {"aps-info", "aps-info"}}},
		{"node list", "REQUEST (1) LOCAL main.PDO_LABEL(inner): (REGION)", map[int][]string{
			1: append(append([]string{"trace-region-start(1,6,pdo)"}, workRegions...), "trace-region-stop(1,6,pdo)")}},
		{"SyncInfo group", "REQUEST LOCAL main.PDO_LABEL(inner): (*.SyncInfo)", map[int][]string{
			0: {"wait-barrier-start(1,6)", "wait-barrier-stop(1,6)"},
			1: {"wait-barrier-start(1,6)", "wait-barrier-stop(1,6)"}}},
		{"LangInfo group", "REQUEST LOCAL work.REG_LABEL(hot): (*.LangInfo)", map[int][]string{
			0: append(slices.Clone(mapping0), "trace-region-start(2,1,user)", "measure-start", "measure-finish", "trace-region-stop(2,1,user)",
				"trace-region-start(2,1,user)", "measure-start", "measure-finish", "trace-region-stop(2,1,user)"),
			1: {"template-dist(1)", "trace-region-start(2,1,user)", "measure-start", "measure-finish", "trace-region-stop(2,1,user)"}}},
		{"SVMInfo with variables", "REQUEST LOCAL main.*: (RPFSum[a]), (*.SVMInfo)", map[int][]string{}},
		{"GLOBAL MappingInfo", "REQUEST GLOBAL MappingInfo", map[int][]string{
			0: {"proc-arrangement(1)", "template-info(1)", "template-dist(1)"},
			1: {"template-dist(1)"}}},
		{"two requests", "REQUEST LOCAL main.PDO_LABEL(sweep): (PDOInfo)\nREQUEST (0) LOCAL main.REG_NO(2): (REGION)", map[int][]string{
			0: append(slices.Clone(mapping0), "pdo-info(1,3)", "pdo-iteration-space(1,3)", "trace-region-start(1,5,user)", "trace-region-start(1,6,pdo)",
				"trace-region-start(2,0,subroutine)", "trace-region-start(2,1,user)", "trace-region-stop(2,1,user)", "trace-region-stop(2,0,subroutine)",
				"trace-region-stop(1,6,pdo)", "trace-region-stop(1,5,user)"),
			1: {"template-dist(1)"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs, msg, err := runRequest(t, "CONFIG SVM_TraceStage: 0\n"+c.src+"\n", false)
			if err != nil || msg != "" {
				t.Fatalf("err %v, messages %q", err, msg)
			}
			got := map[int][]string{}
			for node, rs := range byNode(recs) {
				for _, r := range rs {
					if r.Desc.Name != "pdo-work" {
						got[node] = append(got[node], evString(r))
					}
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequestStagePlusLocal: LOCAL requests add to the stage.
func TestRequestStagePlusLocal(t *testing.T) {
	recs, _, err := runRequest(t, "CONFIG SVM_TraceStage: 1\nREQUEST LOCAL main.PDO_LABEL(inner): (BARRIER)\n", false)
	if err != nil {
		t.Fatal(err)
	}
	want := sortedNames("trace-region-start", "trace-region-stop", "measure-start", "measure-finish", "wait-barrier-start", "wait-barrier-stop")
	if diff := cmp.Diff(want, recordNames(recs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, r := range recs {
		if r.Desc.Name == "wait-barrier-start" && r.Int("directive number") != 6 {
			t.Errorf("barrier record outside the inner pdo: %s", evString(r))
		}
	}
}

// TestRequestOverheadAndOverflow: GLOBAL TrOverhead and KernBufOverflow
// with a small buffer; without them the flushes leave no record.
func TestRequestOverheadAndOverflow(t *testing.T) {
	for _, c := range []struct {
		global string
		want   []string
	}{
		{"", nil},
		{"REQUEST GLOBAL TrOverhead\n", []string{"trace-overhead"}},
		{"REQUEST GLOBAL KernBufOverflow, TrOverhead\n", []string{"kernel-trace-buffer-overflow", "trace-overhead"}},
	} {
		recs, _, err := runRequest(t, "CONFIG SVM_TraceBuf_Size: 100\nREQUEST LOCAL *.*: (REGION)\n"+c.global, false)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.DeleteFunc(recordNames(recs), func(s string) bool { return strings.HasPrefix(s, "trace-region") })
		if diff := cmp.Diff(c.want, got, cmpEmpty); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.global, diff)
		}
		for _, r := range recs {
			if r.Desc.Name == "trace-overhead" && (r.Int("overhead type") != trace.OverheadFlush || r.Double("duration microseconds") < 0) {
				t.Errorf("trace-overhead %v", r)
			}
		}
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

// TestRequestNames: a name the program does not have is an error with its
// position, or with lenient a warning that drops the request.
func TestRequestNames(t *testing.T) {
	const src = "CONFIG SVM_TraceStage: 0\nREQUEST LOCAL work.REG_LABEL(hott): (REGION)\nREQUEST LOCAL main.PDO_LABEL(sweep): (REGION)\n"
	_, _, err := runRequest(t, src, false)
	if err == nil || !strings.HasPrefix(err.Error(), "t.req:2:") || !strings.Contains(err.Error(), `"hott"`) {
		t.Fatalf("strict: got %v", err)
	}
	recs, msg, err := runRequest(t, src, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(msg, "svmc: t.req:2:") || !strings.Contains(msg, "(request dropped)") || strings.Count(msg, "\n") != 1 {
		t.Errorf("lenient: messages %q", msg)
	}
	if got := recordNames(recs); !slices.Equal(got, []string{"trace-region-start", "trace-region-stop"}) {
		t.Errorf("lenient: records %v", got)
	}
	// A node the run does not have.
	_, _, err = runRequest(t, "REQUEST (0-2) LOCAL main.*: (REGION)\n", false)
	if err == nil || !strings.Contains(err.Error(), "node 2 does not exist") {
		t.Errorf("nodes: got %v", err)
	}
	// A request file with LOCAL requests for a program without program
	// information.
	f, _ := request.Parse("t.req", []byte("REQUEST LOCAL main.*: (REGION)\n"))
	err = Run(&Program{}, Params{NProcs: 1, Request: f, Trace: io.Discard, Stderr: io.Discard}, func(p *Proc) {})
	if err == nil || !strings.Contains(err.Error(), "no program information") || !strings.Contains(err.Error(), `unknown function "main"`) {
		t.Errorf("no program information: got %v", err)
	}
}

// TestStageZeroKeepsNoStack: without LOCAL requests at stage 0 no region
// is tracked; with them the stack is kept without writing anything
// outside the requested regions.
func TestStageZeroKeepsNoStack(t *testing.T) {
	var tracked, depth []int
	body := func(p *Proc) {
		p.Enter(2)
		tracked = append(tracked, btoi(p.track))
		depth = append(depth, len(p.regions))
		p.Exit(2)
	}
	if err := Run(reqProg(), Params{NProcs: 1, Trace: io.Discard, Stderr: io.Discard}, body); err != nil {
		t.Fatal(err)
	}
	f, _ := request.Parse("t.req", []byte("REQUEST LOCAL work.REG_NO(1): (REGION)\n"))
	if err := Run(reqProg(), Params{NProcs: 1, Trace: io.Discard, Request: f, Stderr: io.Discard}, body); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tracked, []int{0, 1}) || !slices.Equal(depth, []int{0, 2}) {
		t.Errorf("tracked %v, depth %v", tracked, depth)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestLaneLocalRequests: a goroutine a processor starts traces as that
// processor does, its LOCAL requests included: at stage 0 a request for
// work's regions gives work's records on the goroutine's lane too. Before,
// the lane's node id, beyond the request table's processors, matched none.
func TestLaneLocalRequests(t *testing.T) {
	f, err := request.Parse("t.req", []byte("CONFIG SVM_TraceStage: 0\nREQUEST LOCAL work.*: (REGION)\n"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = Run(reqProg(), Params{NProcs: 2, Trace: &buf, Format: trace.Binary, Request: f, Stderr: io.Discard}, func(p *Proc) {
		reqWork(p)
		done := make(chan struct{})
		l := GoLane()
		go func() {
			defer GoRecover(l, "main.go:40:2")
			l.GoEnter("main.go:40:2")
			reqWork(Current())
			close(done)
		}()
		<-done
	})
	if err != nil {
		t.Fatal(err)
	}
	starts := map[int]int{} // node → work's region starts
	for _, r := range readTrace(t, buf.Bytes()) {
		if r.Desc.Tag == trace.TagTraceRegionStart && r.Int("subprogram number") == 2 {
			starts[r.Int("node id")]++
		}
	}
	if starts[0] != 2 || starts[2] != 2 {
		t.Errorf("work's region starts by node %v, want 2 on processor 0 and 2 on its goroutine's lane (node 2)", starts)
	}
}
