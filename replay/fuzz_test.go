package replay

import (
	"bytes"
	"errors"
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
