package rtlib

import "time"

// The clock in code every rank runs (issue 16). Processor 0 runs on every
// rank, and each copy read its own clock: a loop bounded by time.Since ran
// a different number of pdos on each rank, and the job stopped in a
// deadlock (x423). svmc's build for ranks calls these for time.Now,
// time.Since and time.Until outside pdo bodies; processor 0's copies then
// take rank 0's reading (a decision, as for a receive from any source,
// rankmsg.go), and everywhere else — a pdo's iterations, another
// processor, a goroutine — they are Go's. In a job of several ranks the
// reading carries no monotonic clock on any rank, so that the copies'
// durations compute alike.

// Now is time.Now (now) in a build for ranks.
func Now(now func() time.Time) time.Time {
	r := activeRun.Load()
	if r == nil || !r.spread() {
		return now()
	}
	p := Current()
	if p != r.procs[0] || !p.everywhere() {
		return now()
	}
	if r.rank == 0 {
		t := now().Round(0)
		p.postDecision(t.UnixNano())
		return t
	}
	return time.Unix(0, p.awaitDecision(0, wDecision))
}

// Since is time.Since (since) in a build for ranks.
func Since(since func(time.Time) time.Duration, t time.Time) time.Duration {
	return Now(time.Now).Sub(t)
}

// Until is time.Until (until) in a build for ranks.
func Until(until func(time.Time) time.Duration, t time.Time) time.Duration {
	return t.Sub(Now(time.Now))
}
