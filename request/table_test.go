package request

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// stageAdds is seed 002's Table 2 as svmc reads it: the records each stage
// adds to the one before.
var stageAdds = [MaxStage + 1][]string{
	0: nil,
	1: {"trace-region-start", "trace-region-stop", "trace-overhead", "kernel-trace-buffer-overflow",
		// svmc's measured intervals, statistics, end of trace and throttling
		"measure-start", "measure-finish", "stat-interval", "stat-group", "trace-end", "trace-throttled", "throttled-calls", "gc-pause",
		// svmc's goroutine lanes, and a rank's clock and exchanges
		"goroutine-start", "goroutine-end", "goroutines-untraced", "rank-info"},
	2: {"pdo-info", "pdo-iteration-space", "pdo-work", "section-info", "aps-info", "template-info", "template-dist",
		"undef-template", "destroy-template", "proc-arrangement", "variable-mapping"},
	3: {"wait-barrier-start", "wait-barrier-stop", "barrier-checkin", "wait-bcheckout-start", "wait-bcheckout-stop",
		"wait-lock-start", "wait-lock-stop", "release-lock",
		// svmc's waits for the program's sync mutexes
		"wait-mutex-start", "wait-mutex-stop",
		"wait-crit-sec-start", "wait-crit-sec-stop", "exit-crit-sec",
		// svmc's message passing
		"msg-call-start", "msg-call-stop", "msg-request-done"},
	4: {"read-page-fault-sum", "write-page-fault-sum",
		// svmc's variable of a segment, for the locality analysis
		"segment-variable"},
	5: {"page-travel", "o-page-dist", "c-page-dist", "coherence-switch", "prefetch"},
	6: {"read-page-fault-serviced", "write-page-fault-serviced", "invalidate-copy", "reduce-access-permission",
		"page-out", "shared-segment-address", "svm-overhead-start"},
}

// TestStageTable is the golden table: for each stage, the records enabled
// at base and inside a requested region, on a requested and another node.
func TestStageTable(t *testing.T) {
	const local = "REQUEST (1) LOCAL main.PDO_LABEL(sweep): (PDOInfo), (BARRIER)\n"
	inPDO := []string{"pdo-info", "pdo-iteration-space", "pdo-work",
		"wait-barrier-start", "wait-barrier-stop", "barrier-checkin", "wait-bcheckout-start", "wait-bcheckout-stop"}
	var cum []string
	for stage := 0; stage <= MaxStage; stage++ {
		cum = append(cum, stageAdds[stage]...)
		tab := mustCompile(t, "CONFIG SVM_TraceStage: "+string(rune('0'+stage))+"\n"+local, 2)
		base := tab.Base(1)
		if got, want := sorted(base), names(cum...); !cmp.Equal(got, want) {
			t.Errorf("stage %d: base (-want +got):\n%s", stage, cmp.Diff(want, got))
		}
		if got := sorted(StageMask(stage)); !cmp.Equal(got, names(cum...)) {
			t.Errorf("stage %d: StageMask = %v", stage, got)
		}
		inside := tab.Enter(1, 1, 1, base)
		want := names(cum...)
		for _, n := range inPDO {
			if !slices.Contains(want, n) {
				want = append(want, n)
			}
		}
		slices.Sort(want)
		if got := sorted(inside); !cmp.Equal(got, want) {
			t.Errorf("stage %d: inside sweep on node 1 (-want +got):\n%s", stage, cmp.Diff(want, got))
		}
		if got := tab.Enter(0, 1, 1, tab.Base(0)); got != tab.Base(0) {
			t.Errorf("stage %d: inside sweep on node 0 = %v, want base", stage, got)
		}
	}
	requestOnly := 0
	for _, d := range trace.Catalog {
		if trace.Stage(d.Tag) == trace.RequestOnly {
			requestOnly++
		}
	}
	if len(cum) != len(trace.Catalog)-requestOnly {
		t.Errorf("the stages enable %d records, the catalogue has %d", len(cum), len(trace.Catalog))
	}
}

// TestWordRecords lists, for each local request word, exactly the records
// it adds inside its region.
func TestWordRecords(t *testing.T) {
	svm := []string{"read-page-fault-sum", "write-page-fault-sum", "read-page-fault-serviced", "write-page-fault-serviced",
		"invalidate-copy", "reduce-access-permission", "page-travel", "o-page-dist", "c-page-dist", "page-out", "svm-overhead-start"}
	sync := []string{"wait-barrier-start", "wait-barrier-stop", "barrier-checkin", "wait-bcheckout-start", "wait-bcheckout-stop",
		"wait-lock-start", "wait-lock-stop", "release-lock", "wait-mutex-start", "wait-mutex-stop", "wait-crit-sec-start", "wait-crit-sec-stop", "exit-crit-sec",
		"msg-call-start", "msg-call-stop", "msg-request-done"}
	lang := []string{"trace-region-start", "trace-region-stop", "trace-throttled", "throttled-calls", "pdo-info", "pdo-iteration-space", "pdo-work",
		"section-info", "aps-info", "coherence-switch", "prefetch", "measure-start", "measure-finish"}
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"RPFSum", []string{"read-page-fault-sum"}},
		{"WPFSum", []string{"write-page-fault-sum"}},
		{"RPF", []string{"read-page-fault-serviced"}},
		{"WPF", []string{"write-page-fault-serviced"}},
		{"InvalCopy", []string{"invalidate-copy", "reduce-access-permission"}},
		{"PageTravel", []string{"page-travel"}},
		{"OwnPageDist", []string{"o-page-dist"}},
		{"CurPageDist", []string{"c-page-dist"}},
		{"PageOut[x]", []string{"page-out"}},
		{"SVMOverhead", []string{"svm-overhead-start"}},
		{"*.SVMInfo", svm},
		{"BARRIER", sync[:5]},
		{"LOCK", sync[5:10]},
		{"WaitCritical", sync[10:13]},
		{"MsgInfo", sync[13:]},
		{"*.SyncInfo", sync},
		{"REGION", lang[:4]},
		{"PDOInfo", lang[4:7]},
		{"SECTIONInfo", []string{"section-info"}},
		{"APSInfo", []string{"aps-info"}},
		{"CoSwitch", []string{"coherence-switch"}},
		{"Prefetch", []string{"prefetch"}},
		{"MEASURE", []string{"measure-start", "measure-finish"}},
		{"*.LangInfo", lang},
	} {
		tab := mustCompile(t, "REQUEST LOCAL solve.*: ("+tc.word+")", 1)
		if got := sorted(tab.Enter(0, 3, 0, tab.Base(0))); !cmp.Equal(got, names(tc.want...)) {
			t.Errorf("%s adds %v, want %v", tc.word, got, names(tc.want...))
		}
	}
	for _, tc := range []struct {
		item string
		want []string
	}{
		{"MappingInfo", []string{"template-info", "template-dist", "undef-template", "destroy-template", "proc-arrangement", "variable-mapping"}},
		{"TrOverhead", []string{"trace-overhead"}},
		{"KernBufOverflow", []string{"kernel-trace-buffer-overflow"}},
	} {
		tab := mustCompile(t, "REQUEST GLOBAL "+tc.item, 1)
		if got := sorted(tab.Base(0)); !cmp.Equal(got, names(tc.want...)) {
			t.Errorf("GLOBAL %s enables %v, want %v", tc.item, got, names(tc.want...))
		}
		if tab.HasLocal() {
			t.Errorf("GLOBAL %s: HasLocal", tc.item)
		}
	}
}

var (
	regionRecs = MaskOfTags(trace.TagTraceRegionStart, trace.TagTraceRegionStop, trace.TagTraceThrottled, trace.TagThrottledCalls)
	pdoRecs    = MaskOfTags(trace.TagPDOInfo, trace.TagPDOIterationSpace, trace.TagPDOWork)
	lockRecs   = MaskOfTags(trace.TagWaitLockStart, trace.TagWaitLockStop, trace.TagReleaseLock, trace.TagWaitMutexStart, trace.TagWaitMutexStop)
	overhead   = MaskOf(trace.TagTraceOverhead)
)

// TestRegionSelection checks which (node, subprogram, region) each kind of
// LOCAL request names.
func TestRegionSelection(t *testing.T) {
	const src = `REQUEST (0, 2-3) GLOBAL TrOverhead
REQUEST LOCAL *.PDO_LABEL(sweep): (PDOInfo)
REQUEST (1) LOCAL @MAIN.REG_LABEL(phase): (REGION)
REQUEST LOCAL Grid.Update.REG_NO(0, 2): (LOCK)
REQUEST (3) LOCAL solve.*: (REGION)
REQUEST (2) LOCAL *.*: (LOCK)
`
	tab := mustCompile(t, src, 4)
	type key struct{ node, sub, region int }
	want := map[key]Mask{}
	for node := range 4 {
		want[key{node, 1, 1}] |= pdoRecs // main sweep
		want[key{node, 2, 3}] |= pdoRecs // Grid.Update sweep
		want[key{node, 2, 0}] |= lockRecs
		want[key{node, 2, 2}] |= lockRecs
	}
	want[key{1, 1, 2}] |= regionRecs // main phase
	want[key{3, 3, 0}] |= regionRecs
	for sub, n := range map[int]int{1: 4, 2: 4, 3: 1} {
		for r := range n {
			want[key{2, sub, r}] |= lockRecs
		}
	}
	for node := range 5 {
		base := Mask(0)
		if node != 1 && node < 4 {
			base = overhead
		}
		if got := tab.Base(node); got != base {
			t.Errorf("Base(%d) = %v, want %v", node, got, base)
		}
		for sub := range 5 {
			for region := range 5 {
				k := key{node, sub, region}
				if got := tab.Enter(node, sub, region, base); got != base|want[k] {
					t.Errorf("Enter%v = %v, want %v", k, got, base|want[k])
				}
			}
		}
	}
	// Nesting: the inner pdo of main (region 3, inside phase) has nothing of
	// its own, but entered from phase it keeps phase's records.
	if got := tab.Enter(1, 1, 3, tab.Enter(1, 1, 2, 0)); got != regionRecs {
		t.Errorf("inner inside phase = %v", got)
	}
	// Negative and huge indices are outside every table.
	for _, k := range []key{{-1, 1, 1}, {0, -1, 0}, {0, 1, -1}, {math.MaxInt, 1, 1}, {0, math.MaxInt, 0}} {
		if got := tab.Enter(k.node, k.sub, k.region, 7); got != 7 {
			t.Errorf("Enter%v = %v, want the outer mask", k, got)
		}
	}
	var nilTab *Table
	if nilTab.Enter(0, 1, 1, 5) != 5 || nilTab.Base(0) != 0 || nilTab.HasLocal() || nilTab.Config().Stage != -1 {
		t.Errorf("nil table is not empty")
	}
	if tab.Procs() != 4 || !tab.HasLocal() || tab.Config() != (Config{Stage: -1}) {
		t.Errorf("Procs %d, HasLocal %v, Config %+v", tab.Procs(), tab.HasLocal(), tab.Config())
	}
}

func TestVars(t *testing.T) {
	const src = `REQUEST LOCAL main.PDO_LABEL(sweep): (RPFSum[b, a]), (PageOut), (SVMOverhead)
REQUEST (1) LOCAL main.PDO_LABEL(sweep): (RPFSum[a]), (*.SVMInfo[b])
REQUEST LOCAL *.*: (WPFSum[g])
`
	tab := mustCompile(t, src, 2)
	for _, tc := range []struct {
		node, sub, region int
		tag               trace.Tag
		vars              []int
		restricted        bool
	}{
		{0, 1, 1, trace.TagReadPageFaultSum, []int{1, 2}, true},
		{1, 1, 1, trace.TagReadPageFaultSum, []int{1, 2}, true},
		{0, 1, 1, trace.TagPageOut, nil, false},
		{1, 1, 1, trace.TagPageOut, nil, false},
		{1, 1, 1, trace.TagPageTravel, []int{2}, true},
		{0, 1, 1, trace.TagPageTravel, nil, false},
		{1, 1, 1, trace.TagSVMOverhead, nil, false},
		{0, 2, 0, trace.TagWritePageFaultSum, []int{1}, true},
		{0, 1, 0, trace.TagWritePageFaultSum, nil, true}, // main has no g
		{0, 1, 2, trace.TagReadPageFaultSum, nil, false},
	} {
		vars, restricted := tab.Vars(tc.node, tc.sub, tc.region, tc.tag)
		if !slices.Equal(vars, tc.vars) || restricted != tc.restricted {
			t.Errorf("Vars(%d, %d, %d, %d) = %v, %v; want %v, %v", tc.node, tc.sub, tc.region, tc.tag, vars, restricted, tc.vars, tc.restricted)
		}
	}
}

// TestRowsShared checks that regions with the same requests share one row.
func TestRowsShared(t *testing.T) {
	tab := mustCompile(t, "REQUEST LOCAL *.*: (REGION)", 64)
	first := &tab.local[1][0][0]
	for s, regs := range tab.local {
		for r, row := range regs {
			if row != nil && &row[0] != first {
				t.Errorf("row of (%d, %d) not shared", s, r)
			}
		}
	}
}

func TestMaskBits(t *testing.T) {
	var all Mask
	for _, d := range trace.Catalog {
		m := MaskOf(d.Tag)
		if m == 0 || m&(m-1) != 0 {
			t.Errorf("MaskOf(%d) = %#x, want one bit", d.Tag, uint64(m))
		}
		if all&m != 0 {
			t.Errorf("MaskOf(%d) = %#x, shared with another tag", d.Tag, uint64(m))
		}
		all |= m
	}
	if all.Len() != len(trace.Catalog) || StageMask(MaxStage) != all&^MaskOf(trace.TagVarCheck) || StageMask(99) != StageMask(MaxStage) || StageMask(-1) != 0 {
		t.Errorf("catalogue mask %v, stage 6 %v", all, StageMask(MaxStage))
	}
	for _, tag := range []trace.Tag{0, 1000, 1011, 1100, 1112, 1204, 1300, 1313, 1404, 2000, 2018, 2100, 2109, -5} {
		if MaskOf(tag) != 0 {
			t.Errorf("MaskOf(%d) = %#x, want 0", tag, uint64(MaskOf(tag)))
		}
	}
	if MaskOf(2108) != 1<<63 || MaskOf(2017) != 1<<55 || MaskOf(trace.TagPDOWork) != 1<<39 || MaskOf(2109) != 0 {
		t.Errorf("svmc's tags: %#x %#x", uint64(MaskOf(2108)), uint64(MaskOf(trace.TagPDOWork)))
	}
	m := MaskOfTags(trace.TagPrefetch, trace.TagPDOWork)
	if !m.Has(trace.TagPrefetch) || m.Has(trace.TagPDOInfo) || m.String() != "prefetch,pdo-work" ||
		!slices.Equal(m.Tags(), []trace.Tag{trace.TagPrefetch, trace.TagPDOWork}) {
		t.Errorf("mask %v", m)
	}
	for _, d := range trace.Catalog {
		for s := 0; s <= MaxStage; s++ {
			if got, want := StageMask(s).Has(d.Tag), s >= 1 && trace.Stage(d.Tag) <= s; got != want {
				t.Errorf("StageMask(%d).Has(%s) = %v", s, d.Name, got)
			}
		}
	}
}

// TestNamed: a LOCAL request names a subprogram by its name or as @MAIN;
// one for * names none.
func TestNamed(t *testing.T) {
	tab := mustCompile(t, "REQUEST LOCAL solve.*: (REGION)\nREQUEST LOCAL @MAIN.REG_LABEL(phase): (LOCK)\nREQUEST LOCAL *.PDO_LABEL(sweep): (REGION)", 2)
	for sub, want := range map[int]bool{0: false, 1: true, 2: false, 3: true, 4: false, -1: false} {
		if got := tab.Named(sub); got != want {
			t.Errorf("Named(%d) = %v, want %v", sub, got, want)
		}
	}
	var none *Table
	if none.Named(1) {
		t.Error("a nil table names a subprogram")
	}
}

// TestCriticalLabel: a critical section is no region (seed 002 numbers
// none), so REG_LABEL of its name selects the innermost region holding it,
// or the function itself when it stands outside every region; a name that
// is neither a region's nor a critical section's is still an error.
func TestCriticalLabel(t *testing.T) {
	prog := testProg()
	main := prog.Subprograms[0]
	at := func(line, col int) progdb.Pos { return progdb.Pos{File: "main.go", Line: line, Col: col} }
	// phase (region 2) spans lines 10-20, inner (region 3) lines 12-15.
	main.Regions[2].Pos, main.Regions[2].End = at(10, 2), at(20, 2)
	main.Regions[3].Pos, main.Regions[3].End = at(12, 2), at(15, 3)
	crit := func(num int, label string, pos progdb.Pos) *progdb.Directive {
		return tracetest.Directive(&progdb.Directive{Num: num, Kind: "critical", Text: "//svm:critical " + label, Label: label, Pos: pos})
	}
	main.Directives = append(main.Directives, crit(6, "alpha", at(17, 3)), crit(7, "beta", at(25, 2)), crit(8, "alpha", at(30, 2)))
	f := mustParse(t, "REQUEST LOCAL main.REG_LABEL(alpha): (WaitCritical)\nREQUEST LOCAL *.REG_LABEL(beta): (REGION)\n")
	if _, errs := Check(f, prog, false); errs != nil {
		t.Fatalf("Check: %v", errs)
	}
	tab, err := Compile(f, prog, 1)
	if err != nil {
		t.Fatal(err)
	}
	crits := MaskOfTags(trace.TagWaitCritSecStart, trace.TagWaitCritSecStop, trace.TagExitCritSec)
	for region, want := range map[int]Mask{0: crits | regionRecs, 1: 0, 2: crits, 3: 0} {
		if got := tab.Enter(0, 1, region, 0); got != want {
			t.Errorf("region %d: %v, want %v", region, got, want)
		}
	}
	f = mustParse(t, "REQUEST LOCAL main.REG_LABEL(alpa): (WaitCritical)")
	if _, errs := Check(f, prog, false); len(errs) != 1 || !strings.Contains(errs[0].Error(), `no region labelled "alpa"; did you mean "alpha"?`) {
		t.Errorf("misspelt critical name: %v", errs)
	}
}
