package rtlib

import "testing"

// TestRuntimeFunc: a panic's line is the program's, past the frames of
// rtlib and of the packages written out with it (the trace format's Buf
// appends the region records), not past those of the program's own
// packages.
func TestRuntimeFunc(t *testing.T) {
	for fn, want := range map[string]bool{
		"github.com/svmc/svmc/trace.(*Buf).Rec3":      true,
		"github.com/svmc/svmc/rtlib.(*Proc).PDO":      true,
		"github.com/svmc/svmc/request.(*Table).Enter": true,
		"github.com/svmc/svmc/examples/halo.exchange": false,
		"main.svm_fib":                 false,
		"example.com/tracer/trace.Add": false,
	} {
		if got := runtimeFunc(fn); got != want {
			t.Errorf("runtimeFunc(%q) = %v, want %v", fn, got, want)
		}
	}
}
