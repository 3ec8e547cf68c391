package rtlib

import (
	"bytes"
	"io"
	"testing"

	"github.com/svmc/svmc/trace"
)

// TestRecordingRecords: each processor of a traced run ends with one
// trace-overhead record of type recording, an estimate of the time it
// spent recording that grows with what it recorded: in one run (one
// calibration), processor 0 makes twenty times the calls of processor 1.
func TestRecordingRecords(t *testing.T) {
	body := func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
				calls := 4000
				if it.Index(0) == 1 {
					calls = 200
				}
				for range calls {
					tiny(q)
				}
			}
		})
	}
	var buf bytes.Buffer
	if err := Run(testProg(), Params{NProcs: 2, Stage: 1, Trace: &buf, Stderr: io.Discard}, body); err != nil {
		t.Fatal(err)
	}
	us := map[int]float64{}
	for _, r := range readTraceAll(t, buf.Bytes()) {
		if r.Desc.Tag == trace.TagTraceOverhead && r.Int("overhead type") == trace.OverheadRecording {
			if _, twice := us[r.Node()]; twice {
				t.Errorf("processor %d: a second recording estimate", r.Node())
			}
			us[r.Node()] = r.Double("duration microseconds")
		}
	}
	if us[1] <= 0 || us[0] < 5*us[1] {
		t.Errorf("recording estimated at %v µs for 4000 calls on processor 0, %v µs for 200 on processor 1; want it to grow with them", us[0], us[1])
	}
}
