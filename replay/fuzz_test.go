package replay

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// FuzzOrder feeds arbitrary traces to the causal order, as report, view
// and export read them: whatever the records say (processors, clocks,
// barrier and lock records in any order), Order ends with the records
// emitted or an error, never a panic, and holds no more processors than
// MaxProcs.
func FuzzOrder(f *testing.F) {
	for _, s := range []*tracetest.Synth{skewed(), tracetest.Sync2(), tracetest.Lanes(3, 4), tracetest.Measured()} {
		f.Add(s.MustEncode(f, trace.Binary, nil))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		stop := time.AfterFunc(5*time.Second, func() { panic("FuzzOrder: an input took more than 5 s") })
		defer stop.Stop()
		rd, err := trace.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		n := 0
		_, err = Order(rd, OrderOptions{Lookahead: 64}, func(e *Event) error {
			if e.Proc < 0 || e.Proc >= MaxProcs {
				t.Fatalf("event of processor %d", e.Proc)
			}
			n++
			return nil
		})
		var ce *trace.CorruptError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("after %d events: %v (not a CorruptError)", n, err)
		}
	})
}

// FuzzClockOrder holds ClockOrderFile to its promise on arbitrary traces:
// where it takes a trace, the consistent order takes it too, repairs
// nothing, and gives every processor the same records at the same times.
func FuzzClockOrder(f *testing.F) {
	for _, s := range []*tracetest.Synth{skewed(), tracetest.Sync2(), tracetest.Lanes(3, 4), tracetest.Measured()} {
		f.Add(s.MustEncode(f, trace.Binary, tracetest.Prog()))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		stop := time.AfterFunc(5*time.Second, func() { panic("FuzzClockOrder: an input took more than 5 s") })
		defer stop.Stop()
		opt := OrderOptions{Prog: tracetest.Prog()}
		got := perProc{}
		st, ok, err := ClockOrderFile(bytes.NewReader(data), int64(len(data)), "fuzz", opt, got.add)
		if err != nil || !ok {
			return
		}
		want := perProc{}
		wst, err := OrderFile(bytes.NewReader(data), int64(len(data)), "fuzz", opt, want.add)
		if err != nil {
			t.Fatalf("taken in clock order, but the consistent order fails: %v", err)
		}
		if wst.Violations != 0 || wst.EdgeViolations != 0 || wst.Forced != 0 || wst.Records != st.Records {
			t.Fatalf("taken in clock order, but the consistent order says %+v", wst)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("records differ:\nclock order      %v\nconsistent order %v", got, want)
		}
	})
}
