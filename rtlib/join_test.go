package rtlib

import "testing"

// TestQuickJoin: a pdo dispatched in exclusive mode ends with the leader
// waiting for the arrivals alone (aps.join) when nothing observes the
// members' waits, and with the barrier otherwise; loop after loop, with
// partial results on some members only, both give the same sums.
func TestQuickJoin(t *testing.T) {
	for _, n := range []int{2, 3} {
		for _, stats := range []bool{false, true} {
			var quick bool
			var got, want int
			err := Run(testProg(), Params{NProcs: n, Stats: stats}, func(p *Proc) {
				quick = p.r.quickJoin
				for k := range 2000 {
					p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: k % 7, Step: 1}}, func(q *Proc, it *Iter) {
						s := 0
						for it.Next() {
							s += it.Index(0) + k
						}
						if s != 0 { // an empty share hands nothing over
							ReduceInto(it, &got, s, OpAdd)
						}
					})
					for i := 0; i <= k%7; i++ {
						want += i + k
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if quick == stats {
				t.Errorf("n=%d stats=%v: quickJoin %v", n, stats, quick)
			}
			if got != want {
				t.Errorf("n=%d stats=%v: sum %d, want %d", n, stats, got, want)
			}
		}
	}
}
