package request

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignorePos compares Files without positions.
var ignorePos = cmpopts.IgnoreTypes(Pos{})

func TestFormat(t *testing.T) {
	const want = `CONFIG SVM_TraceBuf_Size: 64K
CONFIG SVM_Kernel_TraceBuf_Size: 2M
CONFIG SVM_TraceStage: 3
INCLUDE common.req
INCLUDE "dir/with space.req"
REQUEST (0, 2-5, 7) GLOBAL MappingInfo, TrOverhead, KernBufOverflow
REQUEST LOCAL Grid.Update.PDO_LABEL(sweep, l2): (PDOInfo), (RPFSum[a, b]), (*.SVMInfo[x]), (SVMOverhead)
REQUEST LOCAL @MAIN.REG_LABEL(phase): (REGION), (APSInfo)
REQUEST (1) LOCAL *.REG_NO(0, 2-3): (BARRIER), (LOCK), (WaitCritical), (MsgInfo), (*.SyncInfo)
REQUEST LOCAL solve.*: (SECTIONInfo), (CoSwitch), (Prefetch), (MEASURE), (*.LangInfo), (VarCheck[u])
REQUEST LOCAL f.*: (WPFSum), (RPF), (WPF), (InvalCopy), (PageTravel), (OwnPageDist), (CurPageDist), (PageOut[y])
REQUEST LOCAL T.REG_NO.REG_NO(1): (REGION)
CONFIG SVM_Throttle_Calls: 1000
`
	f := mustParse(t, formsSrc)
	got := string(Format(f))
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Format (-want +got):\n%s", d)
	}
	g := mustParse(t, got)
	if d := cmp.Diff(f, g, ignorePos); d != "" {
		t.Errorf("Parse(Format(f)) differs from f (-f +got):\n%s", d)
	}
	if again := string(Format(g)); again != got {
		t.Errorf("Format is not stable:\n%s", again)
	}
}

func TestFormatValues(t *testing.T) {
	for v, want := range map[int64]string{1: "1", 1000: "1000", 1024: "1K", 1536: "1536", 3 << 20: "3M", 1 << 30: "1G", 5 << 40: "5120G"} {
		if got := formatSize(v); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", v, got, want)
		}
	}
	for p, want := range map[string]string{"a.req": "a.req", "a b": `"a b"`, "#x": `"#x"`, `"q`: `"\"q"`, "x#!y": "x#!y", "tab\t": `"tab\t"`} {
		if got := formatPath(p); got != want {
			t.Errorf("formatPath(%q) = %q, want %q", p, got, want)
		}
		f := mustParse(t, "INCLUDE "+formatPath(p))
		if got := f.Entries[0].(*Include).Path; got != p {
			t.Errorf("INCLUDE %s reads back as %q", formatPath(p), got)
		}
	}
}

func TestBuilders(t *testing.T) {
	type built struct {
		r   *Request
		err error
	}
	b := func(r *Request, err error) built { return built{r, err} }
	for _, tc := range []struct {
		got  built
		want string
	}{
		{b(LocalRequest("Grid.Update", "sweep", "PDOInfo", "barrier")), "REQUEST LOCAL Grid.Update.PDO_LABEL(sweep): (PDOInfo), (BARRIER)"},
		{b(LocalRequest("", "", "*.syncinfo")), "REQUEST LOCAL *.*: (*.SyncInfo)"},
		{b(LocalRequest("@MAIN", "", "RPFSum[a, b]")), "REQUEST LOCAL @MAIN.*: (RPFSum[a, b])"},
		{b(LabelRequest("main", "phase", "REGION")), "REQUEST LOCAL main.REG_LABEL(phase): (REGION)"},
		{b(RegionRequest("solve", 0, "APSInfo", "LOCK")), "REQUEST LOCAL solve.REG_NO(0): (APSInfo), (LOCK)"},
		{b(GlobalRequest("MappingInfo", "TrOverhead")), "REQUEST GLOBAL MappingInfo, TrOverhead"},
	} {
		if tc.got.err != nil {
			t.Errorf("%s: %v", tc.want, tc.got.err)
			continue
		}
		if s := tc.got.r.String(); s != tc.want {
			t.Errorf("built %q, want %q", s, tc.want)
		}
	}
	r, _ := GlobalRequest("TrOverhead")
	if got := r.OnNodes(0, 1, 2, 5, 7, 8).String(); got != "REQUEST (0-2, 5, 7-8) GLOBAL TrOverhead" {
		t.Errorf("OnNodes: %q", got)
	}
	if got := r.OnNodes().String(); got != "REQUEST GLOBAL TrOverhead" {
		t.Errorf("OnNodes(): %q", got)
	}
	for _, bad := range []built{
		b(LocalRequest("main", "sweep", "PDOInf")),
		b(LocalRequest("main", "sweep")),
		b(LocalRequest("main.*: (REGION)\nREQUEST GLOBAL TrOverhead\n#", "", "REGION")),
		b(LocalRequest("main", "a, b): (REGION), (LOCK", "REGION")),
		b(LocalRequest("main", "a, b", "REGION")),
		b(LabelRequest("main", "", "REGION")),
		b(LocalRequest("T.M.N", "", "REGION")),
		b(LocalRequest("main.REG_NO(1)", "", "REGION")),
		b(GlobalRequest()),
		b(LocalRequest("main", "", "REGION), (LOCK")),
		b(GlobalRequest("TrOverhead, MappingInfo")),
		b(GlobalRequest("x LOCAL main.*: (REGION)")),
		b(GlobalRequest("TrOverhead MappingInfo")),
	} {
		if bad.err == nil {
			t.Errorf("built %q, want an error", bad.r)
		}
	}
	if _, err := LocalRequest("main", "sweep", "PDOInf"); err == nil || !strings.Contains(err.Error(), `<generated>:1:`) {
		t.Errorf("builder error %v", err)
	}

	// A file built from scratch formats, parses back and compiles.
	stage, _ := NewConfig(ConfigTraceStage, 2)
	size, _ := NewConfig(ConfigTraceBufSize, 1<<20)
	lr, _ := LocalRequest("main", "sweep", "PDOInfo")
	f := (&File{Name: "gen.req"}).Add(stage, size, lr.OnNodes(1))
	if got, want := string(Format(f)), "CONFIG SVM_TraceStage: 2\nCONFIG SVM_TraceBuf_Size: 1M\nREQUEST (1) LOCAL main.PDO_LABEL(sweep): (PDOInfo)\n"; got != want {
		t.Errorf("Format of a built file:\n%s", got)
	}
	tab, err := Compile(mustParse(t, string(Format(f))), testProg(), 2)
	if err != nil || tab.Config().Stage != 2 || !tab.Enter(1, 1, 1, 0).Has(pdoRecs.Tags()[0]) {
		t.Errorf("compiled built file: %v", err)
	}
	for _, bad := range []struct {
		k ConfigKey
		v int64
	}{{ConfigTraceStage, 7}, {ConfigTraceStage, -1}, {ConfigKernelTraceBufSize, 0}, {0, 1}, {9, 1}} {
		if _, err := NewConfig(bad.k, bad.v); err == nil {
			t.Errorf("NewConfig(%v, %d): no error", bad.k, bad.v)
		}
	}
}
