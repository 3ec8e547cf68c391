package view

import (
	"cmp"
	"slices"
)

// Summary is what the page's side panel shows.
type Summary struct {
	// From and To are the part of the run summarised (absolute µs; the
	// whole run: Timeline.Start and End), RunTime To − From.
	From, To float64
	RunTime  float64
	PerProc  []ProcSummary
	// Top are the regions with the largest inclusive time summed over
	// processors, largest first; TopWaits the wait sites; Measures the
	// measured intervals (per name and level).
	Top      []SiteTotal
	TopWaits []SiteTotal
	Measures []SiteTotal
	// GCPauses are the collector's stop-the-world pauses that meet the
	// window, GCTime their time in it.
	GCPauses int
	GCTime   float64
}

// ProcSummary splits a processor's share of the run time: Busy inside its
// regions and not waiting, Wait at barriers, locks and critical sections,
// Idle the rest (outside any region: before the program starts on it,
// after it ends).
type ProcSummary struct {
	Proc             int
	Busy, Wait, Idle float64
	Regions, Waits   int
	// Messages sent (their send started in the window) and received
	// (their receive completed in it), and their bytes.
	Sent, Received           int
	SentBytes, ReceivedBytes int64
}

// SiteTotal is one site's time summed over processors.
type SiteTotal struct {
	Site  int
	Kind  Kind
	Calls int
	Time  float64
}

// Summarize computes the summary of tl with at most top rows per table.
func Summarize(tl *Timeline, top int) *Summary { return SummarizeWindow(tl, tl.Start, tl.End, top) }

// SummarizeWindow computes the summary of the part [a, b] of the run
// (absolute corrected times, µs): every interval clipped to the window, a
// region or wait counted as a call when it overlaps it, the messages whose
// send started (sent) or whose receive completed (received) in it. The
// page's selection (view.js, windowStats) computes the same.
func SummarizeWindow(tl *Timeline, a, b float64, top int) *Summary {
	w := totalsOf(tl, a, b)
	w.s.Top = topOf(w.regions, top)
	w.s.TopWaits = topOf(w.waits, top)
	w.s.Measures = topOf(w.measures, top)
	return w.s
}

// totals is a window's summary before its tables are cut to their top
// rows, and the time of each region site per processor.
type totals struct {
	s                        *Summary
	regions, waits, measures map[siteKind]*SiteTotal
	siteProc                 map[[2]int]float64 // region site, processor: time not waiting
}

func totalsOf(tl *Timeline, a, b float64) *totals {
	s := &Summary{From: a, To: b, RunTime: max(b-a, 0), PerProc: make([]ProcSummary, tl.Procs)}
	regions := map[siteKind]*SiteTotal{}
	waits := map[siteKind]*SiteTotal{}
	measures := map[siteKind]*SiteTotal{}
	siteProc := map[[2]int]float64{}
	// open[d] is the site of the open region at depth d of the current
	// processor (-1 for other intervals), so that a recursive activation is
	// counted once and busy time is that of the outermost regions (a
	// measured interval may enclose regions).
	var open []int
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		ps := &s.PerProc[iv.Proc]
		if i == 0 || tl.Intervals[i-1].Proc != iv.Proc {
			open = open[:0]
		}
		open = append(open[:min(iv.Depth, len(open))], -1)
		busyKind := iv.Kind.IsRegion() || iv.Kind == KindGoroutine // a goroutine's life is its lane's busy time
		if busyKind {
			open[len(open)-1] = iv.Site
		}
		d, in := clip(iv.Start, iv.End, a, b)
		if !in {
			continue
		}
		inRegion := slices.ContainsFunc(open[:len(open)-1], func(s int) bool { return s >= 0 })
		switch {
		case busyKind:
			ps.Regions++
			if !inRegion {
				ps.Busy += d
			}
			if slices.Contains(open[:len(open)-1], iv.Site) {
				break // inside an activation of itself: counted there
			}
			add(regions, siteKind{iv.Site, iv.Kind}, d)
			siteProc[[2]int{iv.Site, iv.Proc}] += d
		case iv.Kind.IsWait():
			ps.Waits++
			ps.Wait += d
			if inRegion {
				ps.Busy -= d
			}
			add(waits, siteKind{iv.Site, iv.Kind}, d)
			for q, site := range open[:len(open)-1] {
				if site >= 0 && !slices.Contains(open[:q], site) {
					siteProc[[2]int{site, iv.Proc}] -= d
				}
			}
		case iv.Kind.IsMeasure():
			add(measures, siteKind{iv.Site, iv.Kind}, d)
		}
	}
	for i := range tl.Messages {
		m := &tl.Messages[i]
		if m.From < len(s.PerProc) && m.Send >= a && m.Send <= b {
			s.PerProc[m.From].Sent++
			s.PerProc[m.From].SentBytes += m.Bytes
		}
		if m.To < len(s.PerProc) && m.Recv >= a && m.Recv <= b {
			s.PerProc[m.To].Received++
			s.PerProc[m.To].ReceivedBytes += m.Bytes
		}
	}
	for _, g := range tl.GC {
		if d, in := clip(g.Start, g.Start+g.Dur, a, b); in {
			s.GCPauses++
			s.GCTime += d
		}
	}
	for p := range s.PerProc {
		ps := &s.PerProc[p]
		ps.Proc = p
		ps.Busy = max(ps.Busy, 0)
		ps.Idle = max(s.RunTime-ps.Busy-ps.Wait, 0)
	}
	return &totals{s, regions, waits, measures, siteProc}
}

// clip is the part of [s, e] within [a, b] and whether the interval meets
// the window (an interval of no length meets it when it lies inside).
func clip(s, e, a, b float64) (float64, bool) {
	if s == e {
		return 0, s >= a && s <= b
	}
	if e <= a || s >= b {
		return 0, false
	}
	return min(e, b) - max(s, a), true
}

type siteKind struct {
	site int
	kind Kind
}

func add(m map[siteKind]*SiteTotal, k siteKind, d float64) {
	st := m[k]
	if st == nil {
		st = &SiteTotal{Site: k.site, Kind: k.kind}
		m[k] = st
	}
	st.Calls++
	st.Time += d
}

func topOf(m map[siteKind]*SiteTotal, n int) []SiteTotal {
	var out []SiteTotal
	for _, st := range m {
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b SiteTotal) int {
		return cmp.Or(cmp.Compare(b.Time, a.Time), cmp.Compare(a.Site, b.Site), cmp.Compare(a.Kind, b.Kind))
	})
	return out[:min(n, len(out))]
}
