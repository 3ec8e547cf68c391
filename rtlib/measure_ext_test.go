package rtlib_test

import (
	"errors"
	"regexp"
	"testing"

	rt "github.com/svmc/svmc/rtlib"
)

// TestMeasureErrorPosition: a MeasureFinish that does not match is a user
// error at the caller's line.
func TestMeasureErrorPosition(t *testing.T) {
	err := rt.Run(prog, rt.Params{NProcs: 2}, func(p *rt.Proc) {
		rt.MeasureStart("a")
		rt.MeasureFinish("b")
	})
	var e *rt.Error
	if !errors.As(err, &e) || !regexp.MustCompile(`measure_ext_test\.go:[0-9]+$`).MatchString(e.Pos) ||
		e.Msg != `MeasureFinish("b"): the innermost measured interval is "a"` {
		t.Errorf("got %#v", err)
	}
}
