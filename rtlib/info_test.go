package rtlib

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/svmc/svmc/rtlib/internal/params"
)

// lockedBuffer is a bytes.Buffer for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestRtlPrintf: rtl_printf prints once (processor 0), rtl_mprintf once per
// processor, rtl_iprintf returns what it printed, all on the run's stream
// of informational messages, none on the program's output.
func TestRtlPrintf(t *testing.T) {
	var info lockedBuffer
	counts := make([]int, 3)
	err := Run(testProg(), Params{NProcs: 3, Stderr: &info, UserStdout: Output{Mode: OutCommon, W: io.Discard}}, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			RtlPrintf("once %d\n", q.ID())
			RtlMPrintf("each %d\n", q.ID())
			counts[q.ID()] = RtlIPrintf("counted\n")
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	out := info.b.String()
	for _, want := range []string{"once 0\n", "each 0\n", "each 1\n", "each 2\n", "counted\n"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("%q %d times in:\n%s", want, strings.Count(out, want), out)
		}
	}
	if strings.Contains(out, "once 1") || counts[0] != len("counted\n") || counts[1] != 0 || counts[2] != 0 {
		t.Errorf("output:\n%s\ncounts %v", out, counts)
	}
}

// TestUnfinishedMeasure: a measured interval left open when the program
// ends is reported once (with the line of its MeasureStart in user code;
// this test is inside rtlib, so there is none).
func TestUnfinishedMeasure(t *testing.T) {
	var info lockedBuffer
	err := Run(testProg(), Params{NProcs: 2, Stderr: &info}, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			q.MeasureStart("phase")
			q.MeasureStart("done")
			q.MeasureFinish("done")
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	out := info.b.String()
	if strings.Count(out, `measured interval "phase"`) != 1 || strings.Contains(out, `"done"`) {
		t.Errorf("info:\n%s", out)
	}
}

// TestSystemInfo: seed 000 §11.6 as a processor sees it: in a section of
// two of four processors CurrEnvProcCount is 2 and the central processor
// is the section's leader; outside a run one processor.
func TestSystemInfo(t *testing.T) {
	var mu sync.Mutex
	got := map[int]Environment{}
	runN(t, 4, func(p *Proc) {
		p.PSection(1, 1, []Section{
			{Dir: 2, Body: func(q *Proc) {}},
			{Dir: 2, Body: func(q *Proc) {
				q.Replicated(1, 3, func(r *Proc) {
					mu.Lock()
					got[r.ID()] = SystemInfo()
					mu.Unlock()
				})
			}},
		})
	})
	if len(got) != 2 {
		t.Fatalf("the second section ran on %d processors, want 2", len(got))
	}
	for id, e := range got {
		if e.ProcCount != 4 || e.CurrEnvProcCount != 2 || e.CentralProc != 2 || e.CurrentProc != id || e.Time <= 0 || e.IOProc != 0 {
			t.Errorf("processor %d: %+v", id, e)
		}
	}
	if e := SystemInfo(); e.ProcCount != 1 || e.CurrEnvProcCount != 1 {
		t.Errorf("outside a run: %+v", e)
	}
}

// TestMeasureAllocatesNothing: opening and closing a measured interval
// allocates nothing (resolving the caller's line on every MeasureStart
// cost 4 allocations).
func TestMeasureAllocatesNothing(t *testing.T) {
	Run(testProg(), Params{NProcs: 1, Stderr: io.Discard}, func(p *Proc) {
		if a := testing.AllocsPerRun(100, func() { p.MeasureStart("x"); p.MeasureFinish("x") }); a != 0 {
			t.Errorf("%v allocations per measured interval", a)
		}
	})
}

// Lib-DVM §8.3: each class of informational messages is switched off by
// itself (info_off), the others still print.
func TestInfoClasses(t *testing.T) {
	body := func(p *Proc) {
		p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: 7}) // 8 elements on 2 processors: a mapping message
		RtlPrintf("user message\n")
	}
	for _, c := range []struct {
		off        []string
		user, wrap bool
	}{{nil, true, true}, {[]string{"mapping"}, true, false}, {[]string{"user", "mapping"}, false, false}} {
		var msg strings.Builder
		if err := Run(testProg(), Params{NProcs: 2, Stderr: &msg, InfoOff: c.off}, body); err != nil {
			t.Fatal(err)
		}
		out := msg.String()
		if strings.Contains(out, "user message") != c.user || strings.Contains(out, "wrapping") != c.wrap {
			t.Errorf("info_off %v: %q", c.off, out)
		}
	}
	env := map[string]string{"SVMC_INFO_OFF": "mappin"}
	if _, err := params.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err == nil || !strings.Contains(err.Error(), `unknown class "mappin"; did you mean "mapping"?`) {
		t.Errorf("misspelt class: %v", err)
	}
}
