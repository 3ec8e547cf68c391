package export

import (
	"io"
	"strconv"

	"github.com/google/pprof/profile"

	"github.com/svmc/svmc/view"
)

// WritePprof writes the timeline as a pprof profile (gzipped protocol
// buffers, what `go tool pprof` reads): one sample per processor and
// stack of nested regions, valued by the time spent in the innermost one
// (its exclusive time, in nanoseconds) and by the number of times it was
// entered. A region is a function of the profile named by its site ("main",
// "main: pdo fill", "main: barrier") at its source line, so that -top,
// -list and -http show where the processors' time went; the processor and
// the kind of the innermost interval (run, wait, ...) are sample labels
// (-tagfocus processor=^2$; a bare number would be read as a numeric tag).
func WritePprof(w io.Writer, tl *view.Timeline) error {
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "time", Unit: "nanoseconds"}, {Type: "entries", Unit: "count"}},
		PeriodType:        &profile.ValueType{Type: "time", Unit: "nanoseconds"},
		DefaultSampleType: "time",
		Period:            1,
		Comments:          []string{"svmc trace " + tl.Trace},
	}
	locs := map[int]*profile.Location{}
	loc := func(site int) *profile.Location {
		if l := locs[site]; l != nil {
			return l
		}
		s := &tl.Sites[site]
		name := s.Func
		if s.Dir > 0 {
			name += ": " + s.Name
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: s.File, StartLine: int64(s.Line)}
		p.Function = append(p.Function, f)
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f, Line: int64(s.Line)}}}
		p.Location = append(p.Location, l)
		locs[site] = l
		return l
	}
	type key struct {
		proc  int
		kind  view.Kind
		stack string
	}
	samples := map[key]*profile.Sample{}
	var stack []int // interval indices, outermost first
	var child []float64
	flush := func(i int) {
		iv := &tl.Intervals[i]
		excl := max(0, iv.End-iv.Start-child[len(child)-1])
		var ls []*profile.Location
		ks := ""
		for j := len(stack) - 1; j >= 0; j-- {
			site := tl.Intervals[stack[j]].Site
			ls = append(ls, loc(site))
			ks += strconv.Itoa(site) + ","
		}
		k := key{iv.Proc, iv.Kind, ks}
		s := samples[k]
		if s == nil {
			s = &profile.Sample{Location: ls, Value: []int64{0, 0},
				// A string label: pprof's encoding drops a numeric 0.
				Label: map[string][]string{"kind": {iv.Kind.String()}, "processor": {strconv.Itoa(iv.Proc)}}}
			if owner, lane := tl.LaneOwner(iv.Proc); lane > 0 {
				// A goroutine's time is its processor's (as in svmc
				// report): -tagfocus processor=^0$ takes it in too.
				s.Label["processor"] = []string{strconv.Itoa(owner)}
				s.Label["goroutine lane"] = []string{strconv.Itoa(lane)}
			}
			samples[k] = s
			p.Sample = append(p.Sample, s)
		}
		s.Value[0] += int64(excl * 1e3)
		s.Value[1]++
	}
	pop := func() {
		i := stack[len(stack)-1]
		flush(i)
		d := tl.Intervals[i].End - tl.Intervals[i].Start
		stack, child = stack[:len(stack)-1], child[:len(child)-1]
		if len(child) > 0 {
			child[len(child)-1] += d
		}
	}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if len(stack) > 0 && tl.Intervals[stack[0]].Proc != iv.Proc {
			for len(stack) > 0 {
				pop()
			}
		}
		for len(stack) > iv.Depth {
			pop()
		}
		stack, child = append(stack, i), append(child, 0)
	}
	for len(stack) > 0 {
		pop()
	}
	p.DurationNanos = int64((tl.End - tl.Start) * 1e3)
	if err := p.CheckValid(); err != nil {
		return err
	}
	return p.Write(w)
}
