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

// teams follows, per processor, how many regions it has open, the type
// of the one it opened last (a section's aps-info comes right after the
// section's region start) and the teams of the sections among them. The
// report reads every region record through it: two counters, no slice
// grown per record.
type teams struct {
	procs int // the run's processors (the team of "")
	state []procTeams
}

type procTeams struct {
	depth  int   // open regions
	last   int32 // the type of the region opened last, -1 once one closed
	frames []teamFrame
}

// observe updates the state of processor q with its next record e.
func (t *teams) observe(q int, e *Event) {
	switch e.Tag {
	case trace.TagTraceRegionStart:
		t.regionStart(q, e.A)
	case trace.TagTraceRegionStop:
		t.regionStop(q)
	case trace.TagAPSInfo:
		t.apsInfo(q, e.Arr)
	}
}

// at is processor q's state.
func (t *teams) at(q int) *procTeams {
	if q >= len(t.state) {
		t.state = append(t.state, make([]procTeams, q+1-len(t.state))...)
	}
	return &t.state[q]
}

func (t *teams) regionStart(q int, typ int32) {
	st := t.at(q)
	st.depth++
	st.last = typ
}

func (t *teams) regionStop(q int) {
	st := t.at(q)
	if st.depth == 0 {
		return
	}
	st.depth--
	st.last = -1
	for len(st.frames) > 0 && st.frames[len(st.frames)-1].depth > st.depth {
		st.frames = st.frames[:len(st.frames)-1]
	}
}

// apsInfo takes a section's aps-info only: a pdo's (its leader's) names
// the team the pdo runs on, which its members learnt from their section.
func (t *teams) apsInfo(q int, pids []int) {
	st := t.at(q)
	if st.depth == 0 || st.last != trace.RegionSection || len(pids) == 0 {
		return
	}
	f := teamFrame{depth: st.depth, key: t.key(pids), size: len(pids), pids: slices.Clone(pids)}
	if n := len(st.frames); n > 0 && st.frames[n-1].depth == f.depth {
		st.frames[n-1] = f
		return
	}
	st.frames = append(st.frames, f)
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
	if q < len(t.state) {
		if fr := t.state[q].frames; len(fr) > 0 {
			f := fr[len(fr)-1]
			return f.key, f.size
		}
	}
	return "", 0
}

// members is the team processor q's barriers wait for now, nil when it is
// every processor (the replay's slice: do not change it).
func (t *teams) members(q int) []int {
	if q < len(t.state) {
		if fr := t.state[q].frames; len(fr) > 0 && fr[len(fr)-1].key != "" {
			return fr[len(fr)-1].pids
		}
	}
	return nil
}
