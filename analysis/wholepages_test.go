package analysis

import (
	"strings"
	"testing"

	"github.com/svmc/svmc/progdb"
)

// TestWholePages: the false sharing finding's advice names the change to
// the schedule the loop has (x264: a block-scheduled loop was told to
// schedule itself block-wise).
func TestWholePages(t *testing.T) {
	for _, c := range []struct {
		sched     *progdb.Schedule
		want, not string
	}{
		{nil, "schedule the loop block-wise or cyclic(512)", ""},
		{&progdb.Schedule{Strategy: progdb.StrategyDefault}, "the blocks end inside pages: make the iterations each processor gets a multiple of 512", "schedule the loop block-wise"},
		{&progdb.Schedule{Strategy: progdb.StrategyLoopLevel, Formats: []string{"block"}}, "the blocks end inside pages", "schedule the loop block-wise"},
		{&progdb.Schedule{Strategy: progdb.StrategyLoopLevel, Formats: []string{"cyclic"}}, "cyclic deals the iterations out one at a time", ""},
		{&progdb.Schedule{Strategy: progdb.StrategyLoopLevel, Formats: []string{"cyclic(3)"}}, "cyclic(3) deals the iterations out in pieces that end inside pages: make the piece a multiple of 512", ""},
		{&progdb.Schedule{Strategy: progdb.StrategyDynamic, Chunk: "4"}, "dynamic(4) hands out chunks of iterations that end inside pages: chunks of a multiple of 512, strategy(dynamic(512))", ""},
		{&progdb.Schedule{Strategy: progdb.StrategyGuided}, "strategy(guided(512))", ""},
		{&progdb.Schedule{Strategy: progdb.StrategyOnHome, Home: "T(i)"}, "on_home(T(i)) gives the processors the parts of the template's distribution", "schedule the loop"},
	} {
		got := wholePages("c", 512, 8, 4096, c.sched)
		if !strings.HasPrefix(got, "give each processor whole pages of c (512 elements of 8 bytes per 4096-byte page): ") {
			t.Errorf("%v: advice %q does not begin with what a page holds", c.sched, got)
		}
		if !strings.Contains(got, c.want) || c.not != "" && strings.Contains(got, c.not) {
			t.Errorf("%v: advice %q, want %q and not %q", c.sched, got, c.want, c.not)
		}
	}
}
