package replay

import (
	"slices"
	"strconv"

	"github.com/svmc/svmc/trace"
)

// Teams. A barrier instance waits for the processors of one team: all of
// the run's outside sections, and inside a section the processors that
// run it, its active processor set, which every member writes on its own
// stream (aps-info after the section's trace-region-start). A psection in
// a section (a recursion of psections, a pdo on a section's team) ends
// with a barrier of that team alone, at the same site as the same
// construct on another team: counted as one instance of every processor,
// the barrier of processor 0's team {0} was matched with that of {1}, and
// the consistent order "repaired" one by the other's clock.

// barKey is the barrier site of an instance and its team ("" all the
// run's processors, else teamKey of its pids).
type barKey struct {
	sub, dir int32
	team     string
}

// teamFrame is the team of a section a processor is in.
type teamFrame struct {
	depth int // the processor's open regions, the section's included
	key   string
	size  int
	pids  []int
}

// teams follows, per processor, the types of its open regions and the
// teams of the sections among them.
type teams struct {
	procs  int // the run's processors (the team of "")
	types  [][]int32
	frames [][]teamFrame
}

// observe updates the state of processor q with its next record e.
func (t *teams) observe(q int, e *Event) {
	switch e.Tag {
	case trace.TagTraceRegionStart:
		for len(t.types) <= q {
			t.types, t.frames = append(t.types, nil), append(t.frames, nil)
		}
		t.types[q] = append(t.types[q], e.A)
	case trace.TagTraceRegionStop:
		if q >= len(t.types) || len(t.types[q]) == 0 {
			return
		}
		t.types[q] = t.types[q][:len(t.types[q])-1]
		fr := t.frames[q]
		for len(fr) > 0 && fr[len(fr)-1].depth > len(t.types[q]) {
			fr = fr[:len(fr)-1]
		}
		t.frames[q] = fr
	case trace.TagAPSInfo:
		// A section's only: a pdo's aps-info (its leader's) names the team
		// the pdo runs on, which its members learnt from their section.
		if q >= len(t.types) || len(t.types[q]) == 0 || t.types[q][len(t.types[q])-1] != trace.RegionSection || len(e.Arr) == 0 {
			return
		}
		f := teamFrame{depth: len(t.types[q]), key: t.key(e.Arr), size: len(e.Arr), pids: slices.Clone(e.Arr)}
		if fr := t.frames[q]; len(fr) > 0 && fr[len(fr)-1].depth == f.depth {
			fr[len(fr)-1] = f
			return
		}
		t.frames[q] = append(t.frames[q], f)
	}
}

// key names a team by its pids; "" when it is every processor of the
// run, so that a section that spans them all meets the barriers outside.
func (t *teams) key(pids []int) string {
	if len(pids) == t.procs {
		seen := make([]bool, t.procs)
		all := true
		for _, p := range pids {
			all = all && p >= 0 && p < t.procs && !seen[p]
			if all {
				seen[p] = true
			}
		}
		if all {
			return ""
		}
	}
	b := make([]byte, 0, 4*len(pids))
	for i, p := range pids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return string(b)
}

// team is the team processor q's barriers wait for now, and its size
// (0: all the run's processors).
func (t *teams) team(q int) (string, int) {
	if q < len(t.frames) {
		if fr := t.frames[q]; len(fr) > 0 {
			f := fr[len(fr)-1]
			return f.key, f.size
		}
	}
	return "", 0
}

// members is the team processor q's barriers wait for now, nil when it is
// every processor (the replay's slice: do not change it).
func (t *teams) members(q int) []int {
	if q < len(t.frames) {
		if fr := t.frames[q]; len(fr) > 0 && fr[len(fr)-1].key != "" {
			return fr[len(fr)-1].pids
		}
	}
	return nil
}
