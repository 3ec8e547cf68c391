package view

import "fmt"

// Merge puts two runs on one page (svmc diff --format html): the lanes of
// a, then those of b, named "A P0", "B P0", ..., each run's time from its
// own start, so that both timelines share one axis. Note (text) goes into
// the side panel.
func Merge(a, b *Timeline, note string) *Timeline {
	m := &Timeline{Trace: a.Trace + " and " + b.Trace, Program: a.Program, Procs: a.Procs + b.Procs,
		Records: a.Records + b.Records, Order: a.Order, Note: note}
	if b.Program != a.Program {
		m.Program = a.Program + " and " + b.Program
	}
	m.Order.Violations += b.Order.Violations
	m.Order.MaxCorrection = max(a.Order.MaxCorrection, b.Order.MaxCorrection)
	m.Start, m.End = 0, max(a.End-a.Start, b.End-b.Start)
	for i, tl := range []*Timeline{a, b} {
		side := "A"
		if i == 1 {
			side = "B"
		}
		for p := 0; p < tl.Procs; p++ {
			m.Lanes = append(m.Lanes, fmt.Sprintf("%s P%d", side, p))
		}
		procs, sites, t0 := len(m.Lanes)-tl.Procs, len(m.Sites), tl.Start
		m.Sites = append(m.Sites, tl.Sites...)
		for _, iv := range tl.Intervals {
			iv.Proc += procs
			iv.Site += sites
			iv.Start, iv.End, iv.Clock0, iv.Clock1 = iv.Start-t0, iv.End-t0, iv.Clock0-t0, iv.Clock1-t0
			if iv.Peer >= 0 {
				iv.Peer += procs
			}
			m.Intervals = append(m.Intervals, iv)
		}
		for _, in := range tl.Instants {
			in.Proc += procs
			if in.Site >= 0 {
				in.Site += sites
			}
			in.Time, in.Clock = in.Time-t0, in.Clock-t0
			m.Instants = append(m.Instants, in)
		}
		for _, ms := range tl.Messages {
			ms.From, ms.To = ms.From+procs, ms.To+procs
			ms.SendSite, ms.RecvSite = ms.SendSite+sites, ms.RecvSite+sites
			ms.Send, ms.Recv = ms.Send-t0, ms.Recv-t0
			m.Messages = append(m.Messages, ms)
		}
		for _, mk := range tl.Marks {
			mk.Proc += procs
			mk.Time -= t0
			m.Marks = append(m.Marks, mk)
		}
		for _, w := range tl.Warnings {
			m.Warnings = append(m.Warnings, side+": "+w)
		}
	}
	return m
}
