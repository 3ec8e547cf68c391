package rtlib

import (
	"bytes"
	"io"
	"testing"

	"github.com/svmc/svmc/trace"
)

// TestRecordingRecords: each processor of a traced run ends with one
// trace-overhead record of type recording, an estimate of the time it
// spent recording that grows with what it recorded: twenty times the
// calls, twenty times the records.
func TestRecordingRecords(t *testing.T) {
	estimate := func(calls int) map[int]float64 {
		body := func(p *Proc) {
			p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
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
		return us
	}
	few, many := estimate(200), estimate(4000)
	for p := range 2 {
		if few[p] <= 0 || many[p] < 5*few[p] {
			t.Errorf("processor %d: recording estimated at %v µs for 200 calls, %v µs for 4000; want it to grow with them", p, few[p], many[p])
		}
	}
}
