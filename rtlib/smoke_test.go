package rtlib

import (
	"testing"

	"github.com/svmc/svmc/trace"
)

func TestSmoke(t *testing.T) {
	recs := traced(t, 2, 3, trace.ASCII, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{0, 9, 1}}, func(p *Proc, it *Iter) {
			for it.Next() {
			}
		})
	})
	for _, r := range recs {
		t.Log(r.Node(), evString(r))
	}
}
