package rtlib

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
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
