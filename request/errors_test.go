package request

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseErrors has one case per kind of syntax error, with the exact
// messages.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"syntax", "REQUEST LOCAL F.*: REGION",
			[]string{`t.req:1:20: expected '(' before a request word, found "REGION"`}},
		{"entry keyword", "REQEUST GLOBAL TrOverhead",
			[]string{`t.req:1:1: expected CONFIG, INCLUDE or REQUEST, found "REQEUST"; did you mean "REQUEST"?`}},
		{"entry keyword, no suggestion", "(REGION)",
			[]string{`t.req:1:1: expected CONFIG, INCLUDE or REQUEST, found "("`}},
		{"unknown word", "REQUEST LOCAL F.*: (PDOInf)",
			[]string{`t.req:1:21: unknown request word "PDOInf"; did you mean "PDOInfo"?`}},
		{"group without *.", "REQUEST LOCAL F.*: (SyncInfo)",
			[]string{`t.req:1:21: unknown request word "SyncInfo"; did you mean "*.SyncInfo"?`}},
		{"unknown group", "REQUEST LOCAL F.*: (*.LangInf)",
			[]string{`t.req:1:21: unknown request group "*.LangInf"; did you mean "*.LangInfo"?`}},
		{"unknown word, far off", "REQUEST LOCAL F.*: (Everything)",
			[]string{`t.req:1:21: unknown request word "Everything"`}},
		{"bad stage", "CONFIG SVM_TraceStage: 7",
			[]string{`t.req:1:24: bad stage "7": want a number from 0 to 6`}},
		{"bad stage number", "CONFIG SVM_TraceStage: 2b",
			[]string{`t.req:1:24: bad stage "2b": want a number from 0 to 6`}},
		{"negative stage", "CONFIG SVM_TraceStage: -1",
			[]string{`t.req:1:24: expected a stage number (0 to 6) after SVM_TraceStage:, found "-"`}},
		{"bad size", "CONFIG SVM_TraceBuf_Size: 12x",
			[]string{`t.req:1:27: bad size "12x": want a number of bytes, optionally followed by k, M or G`}},
		{"bad calls", "CONFIG SVM_Throttle_Calls: 1K",
			[]string{`t.req:1:28: bad number of calls "1K": want 0 (no throttling) to 1099511627776`}},
		{"bad calls", "CONFIG SVM_Throttle_Calls: 1K",
			[]string{`t.req:1:28: bad number of calls "1K": want 0 (no throttling) to 1099511627776`}},
		{"zero size", "CONFIG SVM_Kernel_TraceBuf_Size: 0K",
			[]string{`t.req:1:34: bad size "0K": a buffer needs at least one byte`}},
		{"huge size", "CONFIG SVM_TraceBuf_Size: 99999999999G",
			[]string{`t.req:1:27: bad size "99999999999G": too large (at most 1024G)`}},
		// The runtime reads the same sizes (ParseSize): 2048G used to pass
		// here and be dropped there.
		{"size the runtime cannot take", "CONFIG SVM_TraceBuf_Size: 2048G",
			[]string{`t.req:1:27: bad size "2048G": too large (at most 1024G)`}},
		{"size with a blank before the suffix", "CONFIG SVM_TraceBuf_Size: 64 k",
			[]string{`t.req:1:30: unexpected "k" after the end of the entry; an entry ends at the end of its line`}},
		{"config key", "CONFIG SVM_TraceStag: 1",
			[]string{`t.req:1:8: unknown configuration parameter "SVM_TraceStag"; did you mean "SVM_TraceStage"?`}},
		{"config colon", "CONFIG SVM_TraceStage 1",
			[]string{`t.req:1:23: expected ':' after SVM_TraceStage, found "1"`}},
		{"missing file name", "INCLUDE # nothing",
			[]string{`t.req:1:9: expected a file name after INCLUDE`}},
		{"unterminated file name", "INCLUDE \"a.req\nREQUEST GLOBAL TrOverhead",
			[]string{`t.req:1:9: file name not terminated: a quoted name ends with '"' on the same line`}},
		{"GLOBAL or LOCAL", "REQUEST LOCL F.*: (REGION)",
			[]string{`t.req:1:9: expected GLOBAL or LOCAL after REQUEST, found "LOCL"; did you mean "LOCAL"?`}},
		{"global word", "REQUEST GLOBAL MappingInfo, TrOverhd",
			[]string{`t.req:1:29: unknown global request "TrOverhd"; did you mean "TrOverhead"?`}},
		{"missing comma", "REQUEST GLOBAL TrOverhead MappingInfo",
			[]string{`t.req:1:27: unexpected "MappingInfo" after the end of the entry (missing ','?)`}},
		{"bad node number", "REQUEST (1, 2x) GLOBAL TrOverhead",
			[]string{`t.req:1:13: bad node number "2x"`}},
		{"bad node range", "REQUEST (5-2) GLOBAL TrOverhead",
			[]string{`t.req:1:10: bad node range 5-2: 5 is larger than 2`}},
		{"empty node list", "REQUEST () GLOBAL TrOverhead",
			[]string{`t.req:1:10: expected a node number, found ")"`}},
		{"node list not closed", "REQUEST (1 2) GLOBAL TrOverhead",
			[]string{`t.req:1:12: expected ',' or ')' after the node list, found "2"`}},
		{"main", "REQUEST LOCAL @MIAN.*: (REGION)",
			[]string{`t.req:1:15: unknown "@MIAN": the main function is @MAIN`}},
		{"function name", "REQUEST LOCAL (F).*: (REGION)",
			[]string{`t.req:1:15: expected a function name, @MAIN or * after LOCAL, found "("`}},
		{"no region", "REQUEST LOCAL F: (REGION)",
			[]string{`t.req:1:16: expected '.' and a region after "F", found ":"`}},
		{"region keyword", "REQUEST LOCAL F.PDO_LABL(l): (REGION)",
			[]string{`t.req:1:17: unknown region keyword "PDO_LABL"; did you mean "PDO_LABEL"?`}},
		{"a method's region left out", "REQUEST LOCAL KMeans.Step: (REGION)",
			[]string{`t.req:1:22: expected PDO_LABEL(...), REG_LABEL(...), REG_NO(...) or * after "KMeans.", found "Step": a method's regions are named after it, KMeans.Step.* for all of them (its own and those inside it), KMeans.Step.PDO_LABEL(name) for one`}},
		{"region expected", "REQUEST LOCAL T.M.N.*: (REGION)",
			[]string{`t.req:1:19: expected PDO_LABEL(...), REG_LABEL(...), REG_NO(...) or * after "T.M.", found "N"`}},
		{"region keyword without list", "REQUEST LOCAL F.REG_NO: (REGION)",
			[]string{`t.req:1:23: expected '(' after REG_NO, found ":"`}},
		{"empty label list", "REQUEST LOCAL F.REG_LABEL(): (REGION)",
			[]string{`t.req:1:27: expected a label, found ")"`}},
		{"bad region number", "REQUEST LOCAL F.REG_NO(x): (REGION)",
			[]string{`t.req:1:24: expected a region number, found "x"`}},
		{"colon", "REQUEST LOCAL F.* (REGION)",
			[]string{`t.req:1:19: expected ':' after the region, found "("`}},
		{"variable list on a word without one", "REQUEST LOCAL F.*: (BARRIER[a])",
			[]string{`t.req:1:28: BARRIER takes no variable list`}},
		{"empty variable list", "REQUEST LOCAL F.*: (RPFSum[])",
			[]string{`t.req:1:28: expected a variable name, found "]"`}},
		{"unclosed word", "REQUEST LOCAL F.*: (REGION\nREQUEST GLOBAL TrOverhead",
			[]string{`t.req:1:27: expected ')' after the request word, found end of line`}},
		{"end of file", "REQUEST LOCAL F.*:",
			[]string{`t.req:1:19: expected '(' before a request word, found end of file`}},
		{"illegal character", "REQUEST LOCAL F.*: ($)",
			[]string{`t.req:1:21: expected a request word, found "$"`}},
		{"all errors of a file", strings.Join([]string{
			"CONFIG SVM_TraceStage: 9",
			"REQUEST GLOBAL TrOverhead",
			"REQUEST LOCAL F.*: (BARIER), (LOCK), (WaitCritcal)",
			"REQUEST LOCAL F.*",
			"  : (REGION) (PDOInfo)",
			"REQUST GLOBAL TrOverhead",
			"  , MappingInfo",
			"REQUEST (3) GLOBAL KernBufOverflow",
		}, "\n"), []string{
			`t.req:1:24: bad stage "9": want a number from 0 to 6`,
			`t.req:3:21: unknown request word "BARIER"; did you mean "BARRIER"?`,
			`t.req:3:39: unknown request word "WaitCritcal"; did you mean "WaitCritical"?`,
			`t.req:5:14: unexpected "(" after the end of the entry (missing ','?)`,
			`t.req:6:1: expected CONFIG, INCLUDE or REQUEST, found "REQUST"; did you mean "REQUEST"?`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.req", []byte(tc.src))
			if d := cmp.Diff(tc.want, errStrings(err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// TestParseKeepsGoodEntries checks that the entries without errors of a
// file with errors are kept.
func TestParseKeepsGoodEntries(t *testing.T) {
	f, err := Parse("t.req", []byte("REQUEST GLOBAL TrOverhead\nREQUEST GLOBAL Nonsense\nCONFIG SVM_TraceStage: 2\n"))
	if err == nil || len(f.Entries) != 2 {
		t.Fatalf("got %d entries, err %v; want 2 and an error", len(f.Entries), err)
	}
}

func TestTooManyErrors(t *testing.T) {
	_, err := Parse("t.req", []byte(strings.Repeat("REQUEST GLOBAL Foo\n", 100)))
	got := errStrings(err)
	if len(got) != maxErrors+1 || got[maxErrors] != "t.req:51:16: too many errors" {
		t.Errorf("got %d errors, last %q", len(got), got[len(got)-1])
	}
}
