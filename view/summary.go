package view

import (
	"cmp"
	"slices"
)

// Summary is what the page's side panel shows.
type Summary struct {
	RunTime float64 // End − Start, µs
	PerProc []ProcSummary
	// Top are the regions with the largest inclusive time summed over
	// processors, largest first; TopWaits the wait sites; Measures the
	// measured intervals (per name and level).
	Top      []SiteTotal
	TopWaits []SiteTotal
	Measures []SiteTotal
}

// ProcSummary splits a processor's share of the run time: Busy inside its
// regions and not waiting, Wait at barriers, locks and critical sections,
// Idle the rest (outside any region: before the program starts on it,
// after it ends).
type ProcSummary struct {
	Proc             int
	Busy, Wait, Idle float64
	Regions, Waits   int
}

// SiteTotal is one site's time summed over processors.
type SiteTotal struct {
	Site  int
	Kind  Kind
	Calls int
	Time  float64
}

// Summarize computes the summary of tl with at most top rows per table.
func Summarize(tl *Timeline, top int) *Summary {
	s := &Summary{RunTime: tl.End - tl.Start, PerProc: make([]ProcSummary, tl.Procs)}
	regions := map[siteKind]*SiteTotal{}
	waits := map[siteKind]*SiteTotal{}
	measures := map[siteKind]*SiteTotal{}
	// open[d] is the site of the open region at depth d of the current
	// processor (-1 for other intervals), so that a recursive activation is
	// counted once and busy time is that of the outermost regions (a
	// measured interval may enclose regions).
	var open []int
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		ps := &s.PerProc[iv.Proc]
		ps.Proc = iv.Proc
		d := iv.End - iv.Start
		if i == 0 || tl.Intervals[i-1].Proc != iv.Proc {
			open = open[:0]
		}
		open = append(open[:min(iv.Depth, len(open))], -1)
		inRegion := slices.ContainsFunc(open[:len(open)-1], func(s int) bool { return s >= 0 })
		switch {
		case iv.Kind.IsRegion():
			ps.Regions++
			if !inRegion {
				ps.Busy += d
			}
			open[len(open)-1] = iv.Site
			if slices.Contains(open[:len(open)-1], iv.Site) {
				break // inside an activation of itself: counted there
			}
			add(regions, siteKind{iv.Site, iv.Kind}, d)
		case iv.Kind.IsWait():
			ps.Waits++
			ps.Wait += d
			if inRegion {
				ps.Busy -= d
			}
			add(waits, siteKind{iv.Site, iv.Kind}, d)
		case iv.Kind.IsMeasure():
			add(measures, siteKind{iv.Site, iv.Kind}, d)
		}
	}
	for p := range s.PerProc {
		ps := &s.PerProc[p]
		ps.Proc = p
		ps.Busy = max(ps.Busy, 0)
		ps.Idle = max(s.RunTime-ps.Busy-ps.Wait, 0)
	}
	s.Top = topOf(regions, top)
	s.TopWaits = topOf(waits, top)
	s.Measures = topOf(measures, top)
	return s
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
