package request

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/trace"
)

const formsSrc = `# every form of the grammar
CONFIG SVM_TraceBuf_Size: 64k
config svm_kernel_tracebuf_size: 2M ! a trailing comment
CONFIG SVM_TraceStage: 3
INCLUDE common.req
INCLUDE "dir/with space.req"
REQUEST (0, 2-5, 7) GLOBAL MappingInfo, trOverhead, KernBufOverflow
REQUEST LOCAL Grid.Update.PDO_LABEL(sweep, l2): (PDOInfo), (RPFSum[a, b]),
    (*.svminfo[x]), (SVMOverhead)
REQUEST LOCAL @main.REG_LABEL(phase): (REGION, APSInfo)
REQUEST (1) LOCAL *.REG_NO(0, 2-3): (BARRIER), (lock), (WaitCritical), (MsgInfo), (*.SyncInfo)
REQUEST LOCAL solve.*: (SECTIONInfo), (CoSwitch), (Prefetch), (MEASURE), (*.LangInfo), (VarCheck[u])
REQUEST LOCAL f.*: (WPFSum), (RPF), (WPF), (InvalCopy), (PageTravel), (OwnPageDist), (CurPageDist), (PageOut[y])
REQUEST LOCAL T.REG_NO.REG_NO(1): (REGION)
CONFIG SVM_Throttle_Calls: 1000
`

// posIn returns a function giving the position of the n-th (from 1, default
// 1st) occurrence of s on a line of src.
func posIn(src string) func(line int, s string, n ...int) Pos {
	lines := strings.Split(src, "\n")
	return func(line int, s string, n ...int) Pos {
		k := 1
		if len(n) > 0 {
			k = n[0]
		}
		off := -1
		for ; k > 0; k-- {
			i := strings.Index(lines[line-1][off+1:], s)
			if i < 0 {
				panic("posIn: " + s + " not on line")
			}
			off += 1 + i
		}
		return Pos{"t.req", line, off + 1}
	}
}

func TestParseForms(t *testing.T) {
	f := mustParse(t, formsSrc)
	p := posIn(formsSrc)
	word := func(line int, s string, k WordKind, n ...int) Word { return Word{Pos: p(line, s, n...), Kind: k} }
	id := func(line int, s string, n ...int) Ident { return Ident{p(line, s, n...), s} }
	want := &File{Name: "t.req", Entries: []Entry{
		&ConfigEntry{At: p(2, "CONFIG"), Key: ConfigTraceBufSize, KeyPos: p(2, "SVM"), Value: 64 << 10, ValuePos: p(2, "64k")},
		&ConfigEntry{At: p(3, "config"), Key: ConfigKernelTraceBufSize, KeyPos: p(3, "svm"), Value: 2 << 20, ValuePos: p(3, "2M")},
		&ConfigEntry{At: p(4, "CONFIG"), Key: ConfigTraceStage, KeyPos: p(4, "SVM"), Value: 3, ValuePos: p(4, "3")},
		&Include{At: p(5, "INCLUDE"), Path: "common.req", PathPos: p(5, "common")},
		&Include{At: p(6, "INCLUDE"), Path: "dir/with space.req", PathPos: p(6, `"`)},
		&Request{At: p(7, "REQUEST"),
			Nodes: []Range{{p(7, "0"), 0, 0}, {p(7, "2-5"), 2, 5}, {p(7, "7"), 7, 7}},
			Global: &Global{At: p(7, "GLOBAL"), Items: []GlobalItem{
				{p(7, "MappingInfo"), GlobalMappingInfo}, {p(7, "trOverhead"), GlobalTrOverhead}, {p(7, "KernBufOverflow"), GlobalKernBufOverflow}}}},
		&Request{At: p(8, "REQUEST"), Local: &Local{At: p(8, "LOCAL"),
			Sub:    SubSpec{p(8, "Grid"), SubNamed, "Grid.Update"},
			Region: RegionSpec{Pos: p(8, "PDO_LABEL"), Kind: RegPDOLabel, Labels: []Ident{id(8, "sweep"), id(8, "l2")}},
			Words: []Word{word(8, "PDOInfo", WordPDOInfo),
				{Pos: p(8, "RPFSum"), Kind: WordRPFSum, Vars: []Ident{id(8, "a", 2), id(8, "b", 1)}},
				{Pos: p(9, "*"), Kind: WordAllSVM, Vars: []Ident{id(9, "x")}},
				word(9, "SVMOverhead", WordSVMOverhead)}}},
		&Request{At: p(10, "REQUEST"), Local: &Local{At: p(10, "LOCAL"),
			Sub:    SubSpec{p(10, "@main"), SubMain, ""},
			Region: RegionSpec{Pos: p(10, "REG_LABEL"), Kind: RegLabel, Labels: []Ident{id(10, "phase")}},
			Words:  []Word{word(10, "REGION", WordRegion), word(10, "APSInfo", WordAPSInfo)}}},
		&Request{At: p(11, "REQUEST"), Nodes: []Range{{p(11, "1"), 1, 1}}, Local: &Local{At: p(11, "LOCAL"),
			Sub:    SubSpec{p(11, "*"), SubAll, ""},
			Region: RegionSpec{Pos: p(11, "REG_NO"), Kind: RegNo, Nums: []Range{{p(11, "0"), 0, 0}, {p(11, "2-3"), 2, 3}}},
			Words: []Word{word(11, "BARRIER", WordBarrier), word(11, "lock", WordLock), word(11, "WaitCritical", WordWaitCritical),
				word(11, "MsgInfo", WordMsgInfo), word(11, "*", WordAllSync, 2)}}},
		&Request{At: p(12, "REQUEST"), Local: &Local{At: p(12, "LOCAL"),
			Sub:    SubSpec{p(12, "solve"), SubNamed, "solve"},
			Region: RegionSpec{Pos: p(12, "*"), Kind: RegAll},
			Words: []Word{word(12, "SECTIONInfo", WordSECTIONInfo), word(12, "CoSwitch", WordCoSwitch),
				word(12, "Prefetch", WordPrefetch), word(12, "MEASURE", WordMeasure), word(12, "*", WordAllLang, 2),
				{Pos: p(12, "VarCheck"), Kind: WordVarCheck, Vars: []Ident{{p(12, "u]"), "u"}}}}}},
		&Request{At: p(13, "REQUEST"), Local: &Local{At: p(13, "LOCAL"),
			Sub:    SubSpec{p(13, "f"), SubNamed, "f"},
			Region: RegionSpec{Pos: p(13, "*"), Kind: RegAll},
			Words: []Word{word(13, "WPFSum", WordWPFSum), word(13, "(RPF", WordRPF), word(13, "(WPF)", WordWPF),
				word(13, "InvalCopy", WordInvalCopy), word(13, "PageTravel", WordPageTravel), word(13, "OwnPageDist", WordOwnPageDist),
				word(13, "CurPageDist", WordCurPageDist), {Pos: p(13, "PageOut"), Kind: WordPageOut, Vars: []Ident{{p(13, "y]"), "y"}}}}}},
		&Request{At: p(14, "REQUEST"), Local: &Local{At: p(14, "LOCAL"),
			Sub:    SubSpec{p(14, "T.REG"), SubNamed, "T.REG_NO"},
			Region: RegionSpec{Pos: p(14, "REG_NO", 2), Kind: RegNo, Nums: []Range{{p(14, "1"), 1, 1}}},
			Words:  []Word{word(14, "REGION", WordRegion)}}},
		&ConfigEntry{At: p(15, "CONFIG"), Key: ConfigThrottleCalls, KeyPos: p(15, "SVM"), Value: 1000, ValuePos: p(15, "1000")},
	}}
	// The words written "(RPF" and "(WPF" are located at their '('; move
	// them to the word.
	for _, i := range []int{1, 2} {
		want.Entries[10].(*Request).Local.Words[i].Pos.Col++
	}
	if d := cmp.Diff(want, f); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
	// Every word kind appears once or more in formsSrc.
	seen := map[WordKind]bool{}
	for _, e := range f.Entries {
		if r, ok := e.(*Request); ok && r.Local != nil {
			for _, w := range r.Local.Words {
				seen[w.Kind] = true
			}
		}
	}
	for k := WordKind(1); k < numWords; k++ {
		if !seen[k] {
			t.Errorf("formsSrc lacks %v", k)
		}
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "\n\n", "# only a comment\n! and another", "\ufeff# with a byte order mark\n"} {
		f, err := Parse("t.req", []byte(src))
		if err != nil || len(f.Entries) != 0 {
			t.Errorf("Parse(%q) = %d entries, %v; want none, nil", src, len(f.Entries), err)
		}
	}
}

func TestParseLayout(t *testing.T) {
	// Entries may span lines, and ',' may be followed by a line end; names
	// keep their case; several entries in a row.
	src := "REQUEST\n  (0,\n   1)\n  LOCAL\n  Solve.REG_LABEL(Phase):\n  (barrier),\n  (Prefetch)\nREQUEST GLOBAL TrOverhead"
	f := mustParse(t, src)
	if len(f.Entries) != 2 {
		t.Fatalf("got %d entries, want 2", len(f.Entries))
	}
	l := f.Entries[0].(*Request).Local
	if l.Sub.Name != "Solve" || l.Region.Labels[0].Name != "Phase" || len(l.Words) != 2 || l.Words[1].Pos != (Pos{"t.req", 7, 4}) {
		t.Errorf("got %+v", l)
	}
}

func TestLoadIncludes(t *testing.T) {
	files := map[string]string{
		"top.req":          "CONFIG SVM_TraceStage: 1\nINCLUDE sub/b.req\nREQUEST GLOBAL TrOverhead\n",
		"sub/b.req":        "INCLUDE c.req\nCONFIG SVM_TraceStage: 2\n",
		"sub/c.req":        "REQUEST LOCAL solve.*: (REGION)\nINCLUDE ../d.req\n",
		"d.req":            "CONFIG SVM_TraceBuf_Size: 1k\n",
		"loop/a.req":       "INCLUDE b.req\n",
		"loop/b.req":       "\nINCLUDE ./a.req\n",
		"missing.req":      "REQUEST GLOBAL TrOverhead\nINCLUDE nothere.req\nINCLUDE \"also missing.req\"\nREQUEST GLOBL x\n",
		"bad-included.req": "INCLUDE sub/bad.req\n",
		"sub/bad.req":      "CONFIG SVM_TraceStage: 8\n",
		"secret.req":       "INCLUDE shadow\n",
		"shadow":           "root:$6$salt$hash:19000:0:99999:7:::\n",
	}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f, err := Load("top.req", read)
	if err != nil {
		t.Fatal(err)
	}
	in := f.Entries[1].(*Include)
	c := in.File.Entries[0].(*Include).File
	if c.Name != "sub/c.req" || c.Entries[0].Pos() != (Pos{"sub/c.req", 1, 1}) {
		t.Errorf("included file %q, first entry at %v", c.Name, c.Entries[0].Pos())
	}
	if got, want := f.Config(), (Config{TraceBufSize: 1024, Stage: 2}); got != want {
		t.Errorf("Config = %+v, want %+v", got, want)
	}
	tab, err := Compile(f, testProg(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if !tab.Enter(0, 3, 0, 0).Has(trace.TagTraceRegionStart) || !tab.Base(1).Has(trace.TagTraceOverhead) {
		t.Errorf("included request not compiled")
	}

	for _, tc := range []struct {
		file string
		want []string
	}{
		{"loop/a.req", []string{"loop/b.req:2:9: include cycle: loop/a.req -> loop/b.req -> loop/a.req"}},
		{"missing.req", []string{
			`missing.req:4:9: expected GLOBAL or LOCAL after REQUEST, found "GLOBL"; did you mean "GLOBAL"?`,
			`missing.req:2:9: cannot include "nothere.req": nothere.req does not exist`,
			`missing.req:3:9: cannot include "also missing.req": also missing.req does not exist`}},
		{"bad-included.req", []string{`sub/bad.req:1:24: bad stage "8": want a number from 0 to 6`}},
		// A file that is no request file at all: said at the INCLUDE, and
		// nothing it holds is quoted.
		{"secret.req", []string{`secret.req:1:9: cannot include "shadow": shadow is not a request file (it does not begin with CONFIG, REQUEST or INCLUDE)`}},
	} {
		_, err := Load(tc.file, read)
		if d := cmp.Diff(tc.want, errStrings(err)); d != "" {
			t.Errorf("Load(%s) errors (-want +got):\n%s", tc.file, d)
		}
	}
	if _, err := Load("none.req", read); err == nil {
		t.Errorf("Load of a missing file: no error")
	}
}

// TestParseFile reads real files: the include is found relative to the
// including file's directory, not the working directory.
func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("req/top.req", "INCLUDE inc/more.req\nINCLUDE inc/gone.req\n")
	write("req/inc/more.req", "CONFIG SVM_TraceStage: 5\nREQUEST GLOBL TrOverhead\n")
	top := filepath.Join(dir, "req", "top.req")
	f, err := ParseFile(top)
	more := filepath.Join(dir, "req", "inc", "more.req")
	want := []string{
		more + `:2:9: expected GLOBAL or LOCAL after REQUEST, found "GLOBL"; did you mean "GLOBAL"?`,
		top + `:2:9: cannot include "inc/gone.req": ` + filepath.Join(dir, "req", "inc", "gone.req") + " does not exist",
	}
	if d := cmp.Diff(want, errStrings(err)); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	if f.Config().Stage != 5 {
		t.Errorf("stage %d, want 5 from the included file", f.Config().Stage)
	}
}
