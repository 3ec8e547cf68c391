package rtlib

import (
	"bytes"
	"io"
	"testing"

	"github.com/svmc/svmc/request"
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

// TestSampleFloor: a traced run measures what timing a throttled call
// measures of an empty body, on a subprogram whose calls take the gate's
// path, so a LOCAL request on main's own region leaves it measured; where
// every subprogram has one (*), no call is sampled and there is none.
func TestSampleFloor(t *testing.T) {
	for _, c := range []struct {
		req  string
		some bool
	}{
		{"", true},
		{"REQUEST LOCAL main.REG_NO(0): (REGION)\n", true},
		{"REQUEST LOCAL *.REG_NO(0): (APSInfo)\n", false},
	} {
		f, err := request.Parse("t.req", []byte("CONFIG SVM_TraceStage: 1\n"+c.req))
		if err != nil {
			t.Fatal(err)
		}
		var cost recordingCost
		err = Run(reqProg(), Params{NProcs: 1, Stage: 1, Trace: io.Discard, Stderr: io.Discard, Request: f, ThrottleCalls: 100, ThrottleUs: 10}, func(p *Proc) {
			cost = p.r.recCost
		})
		if err != nil {
			t.Fatal(err)
		}
		if c.some != (cost.sample > 0) || cost.sample < 0 {
			t.Errorf("%q: an empty call's sample measured %d ns; want some: %v", c.req, cost.sample, c.some)
		}
		// A record costs a clock reading at least: with a throttle_calls
		// below the calibration's calls they stopped being traced, and a
		// record was said to cost 1 ns.
		if cost.record < float64(cost.sample)/4 || cost.record < 5 {
			t.Errorf("%q: a record said to cost %.1f ns (an empty call's sample %d ns)", c.req, cost.record, cost.sample)
		}
	}
}

// TestSampleLessFloor: each sample of a throttled call is less what timing
// an empty one measures, and never below zero: with that said to be a
// second, the untraced calls took no time; with it zero, they took some.
func TestSampleLessFloor(t *testing.T) {
	for _, floor := range []int64{0, 1e9} {
		var buf bytes.Buffer
		err := Run(testProg(), Params{NProcs: 1, Stage: 1, Trace: &buf, Stderr: io.Discard, ThrottleCalls: 100, ThrottleUs: 1000}, func(p *Proc) {
			p.r.recCost.sample = floor
			for range 5000 {
				tiny(p)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		calls, us := 0, -1.0
		for _, r := range readTraceAll(t, buf.Bytes()) {
			if r.Desc.Tag == trace.TagThrottledCalls {
				calls, us = r.Int("calls"), r.Double("inclusive microseconds")
			}
		}
		if calls != 4900 || (floor == 0) != (us > 0) || us < 0 {
			t.Errorf("floor %d ns: %d untraced calls of %v µs; want 4900, of some time: %v", floor, calls, us, floor == 0)
		}
	}
}
