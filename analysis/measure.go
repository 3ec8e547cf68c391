package analysis

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// MeasureStat is one measured interval (MeasureStart / MeasureFinish, seed
// 000 §9): the entries of one name at one enclosure level, summed over the
// processors that made them. The elapsed time of an entry is the
// "elapsed microseconds" of its measure-finish (the runtime's measurement
// from MeasureStart to MeasureFinish), else the difference of the two
// records' clocks.
type MeasureStat struct {
	Name    string  `json:"name"`
	Level   int     `json:"level"`   // enclosure level on the processor, 1 outermost
	Entries int64   `json:"entries"` // finished entries, summed over processors
	Elapsed float64 `json:"elapsed_us"`
	Mean    float64 `json:"mean_us"` // Elapsed / Entries
	Max     float64 `json:"max_us"`  // the longest single entry
	// Unfinished counts measure-start records without a matching
	// measure-finish (still open at the end of their processor's records,
	// or left open when an enclosing interval finished); they are not in
	// Entries and Elapsed.
	Unfinished int64         `json:"unfinished,omitempty"`
	First      float64       `json:"first_us"` // clock of the earliest measure-start
	PerProc    []MeasureProc `json:"per_proc"`
}

// MeasureProc is a measured interval on one processor.
type MeasureProc struct {
	Entries int64   `json:"entries"`
	Elapsed float64 `json:"elapsed_us"`
}

// StatInterval is a stat-interval record: the runtime's own summary
// characteristics of one interval of its interval matrix (seed 000 §11.1.3,
// written with SVMC_STATS=1; interval 0 is the whole program), with the
// elements of its matrix (stat-group records). They are not computed from
// the trace: a call that k processors make together counts 1/k call, its
// time t counts t/k productive and (k−1)t/k lost (Lib-DVM's (n−1)/n rule),
// and an interval includes the intervals nested in it.
type StatInterval struct {
	ID      int    `json:"id"`
	Parent  int    `json:"parent"` // -1 for the program
	Level   int    `json:"level"`  // 0 for the program
	Name    string `json:"name"`
	Entries int    `json:"entries"`
	Procs   int    `json:"procs"`
	// Exec is the longest processor's wall time in the interval (the whole
	// run for the program); ProcTime = Procs × Exec.
	Exec             float64 `json:"execution_us"`
	ProcTime         float64 `json:"processor_time_us"`
	UserProductive   float64 `json:"user_productive_us"`   // the user program's own code
	UserLost         float64 `json:"user_lost_us"`         //
	SystemProductive float64 `json:"system_productive_us"` // runtime functions it called
	SystemLost       float64 `json:"system_lost_us"`       //
	Productive       float64 `json:"productive_us"`        // user + system
	Lost             float64 `json:"lost_us"`              // user + system
	Idle             float64 `json:"idle_us"`              // waiting for work
	SystemCalls      float64 `json:"system_calls"`         // runtime calls made directly by the user program
	Efficiency       float64 `json:"efficiency"`           // Productive / ProcTime
	// Dissync is RMT, the real dissynchronisation of message passing
	// (seed 000 §11.1.3); the groups' RMTi are their message-passing
	// element's productive time.
	Dissync float64 `json:"dissync_us,omitempty"`
	// TimeVar and PotSync are the time variation and potential
	// dissynchronisation of the barriers (Lib-DVM's IsTimeVariation).
	TimeVar float64     `json:"time_variation_us,omitempty"`
	PotSync float64     `json:"potential_dissync_us,omitempty"`
	Groups  []StatGroup `json:"groups"` // its interval matrix, by caller group, then group
	// ByGroup sums the matrix by group (seed 000 §11.1.3), groups with
	// figures only, UserGrp left out.
	ByGroup []StatGroupSum `json:"by_group"`
}

// StatGroupSum is one group's figures of seed 000 §11.1.3: the calls the
// user program made of it directly (the UserGrp row, per processor), the
// productive and lost time of those calls and everything they called (its
// row: SPTi, SLTi), and its own time wherever it was called from (its
// column). For MsgPasGrp productive time is real dissynchronisation.
type StatGroupSum struct {
	Group         int     `json:"group"`
	Name          string  `json:"group_name"`
	DirectCalls   float64 `json:"direct_calls"`
	Productive    float64 `json:"productive_us"`
	Lost          float64 `json:"lost_us"`
	OwnProductive float64 `json:"own_productive_us"`
	OwnTime       float64 `json:"own_time_us"`
}

// StatGroup is one element IM[caller][group] of an interval matrix: the
// calls of the group's functions made from the caller group, their
// productive and lost time.
type StatGroup struct {
	Caller     int     `json:"caller_group"`
	CallerName string  `json:"caller_name"`
	Group      int     `json:"group"`
	Name       string  `json:"group_name"`
	Calls      float64 `json:"calls"`
	Productive float64 `json:"productive_us"`
	Lost       float64 `json:"lost_us"`
}

// RunEnd is how the run ended: the trace-end record the runtime writes
// when it closes the trace.
type RunEnd struct {
	// Recorded is false when the trace has no trace-end record (the run
	// was killed before it closed the trace, the trace is truncated, or an
	// older svmc wrote it); Status is then -1.
	Recorded   bool   `json:"recorded"`
	Status     int    `json:"status"`      // trace.EndNormal ... trace.EndExit
	StatusName string `json:"status_name"` // EndStatusName(Status)
	Message    string `json:"message"`
	// NotStopped are the processors that had not stopped when the runtime
	// took their buffers over.
	NotStopped []int `json:"not_stopped"`
	// LostRecords is the number of records that could not be written; -1
	// when a processor's buffer could not be taken over (unknown).
	LostRecords int `json:"lost_records"`
}

// Blocked reports whether the run was ended while its processors waited:
// a deadlock, or a signal or time limit. What was open then lasted until
// trace-end (the report and the view count and draw it so).
func (e *RunEnd) Blocked() bool {
	if !e.Recorded {
		return false
	}
	switch e.Status {
	case trace.EndDeadlock, trace.EndInterrupt, trace.EndTerminate:
		return true
	}
	return false
}

// Abnormal reports whether the run did not end normally.
func (e *RunEnd) Abnormal() bool { return e.Recorded && e.Status != trace.EndNormal }

// Incomplete reports whether records are missing: lost, or of processors
// that had not stopped.
func (e *RunEnd) Incomplete() bool { return e.LostRecords != 0 || len(e.NotStopped) > 0 }

// EndStatusName names a trace-end status.
func EndStatusName(status int) string {
	switch status {
	case trace.EndNormal:
		return "normal"
	case trace.EndError:
		return "error"
	case trace.EndPanic:
		return "panic"
	case trace.EndDeadlock:
		return "deadlock"
	case trace.EndInterrupt:
		return "interrupt"
	case trace.EndExit:
		return "exit"
	case trace.EndTerminate:
		return "terminate"
	case -1:
		return "not recorded"
	}
	return "status " + strconv.Itoa(status)
}

// Summary is one line on how the run ended, "" when it ended normally and
// nothing was lost. The zero RunEnd (of a Model built by hand) says
// nothing either.
// oneLine puts the runtime's message of a run's end on one line: the
// items of a list (lines indented by two spaces, as "  processor 0:
// running in main.step at main.go:11" after a time limit or a deadlock)
// after "; ", any other line (a panic's "\tat main.go:22") after a blank.
func oneLine(msg string) string {
	var b strings.Builder
	for _, line := range strings.Split(msg, "\n") {
		text := strings.Join(strings.Fields(line), " ")
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
				b.WriteString("; ")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(text)
	}
	return b.String()
}

func (e *RunEnd) Summary() string {
	if !e.Recorded && e.Status == 0 {
		return ""
	}
	if !e.Recorded {
		return "the trace has no trace-end record: the runtime did not close it (the run was killed or the trace is truncated), or an older svmc wrote it"
	}
	if !e.Abnormal() && !e.Incomplete() {
		return ""
	}
	var s string
	if e.Abnormal() {
		s = "the run ended abnormally (" + e.StatusName + ")"
		if msg := oneLine(e.Message); msg != "" {
			s += ": " + msg
		}
	} else {
		s = "the run ended normally"
	}
	if len(e.NotStopped) > 0 {
		s += "; " + procList(e.NotStopped) + " had not stopped when the trace was closed"
	}
	switch {
	case e.LostRecords < 0:
		s += "; records were lost (a processor's buffer could not be taken over)"
	case e.LostRecords > 0:
		s += "; " + strconv.Itoa(e.LostRecords) + " records were lost"
	}
	return s
}

func procList(ps []int) string {
	s := "processor"
	if len(ps) > 1 {
		s += "s"
	}
	for i, p := range ps {
		switch {
		case i == 0:
			s += " "
		case i == len(ps)-1:
			s += " and "
		default:
			s += ", "
		}
		s += strconv.Itoa(p)
	}
	return s
}

// ---- builder ----

type measKey struct {
	level int32
	name  string
}

type measAgg struct {
	key        measKey
	first      float64
	max        float64
	unfinished int64
	perProc    []MeasureProc
}

func (b *builder) measAgg(k measKey, t float64) *measAgg {
	a := b.measures[k]
	if a == nil {
		a = &measAgg{key: k, first: t}
		b.measures[k] = a
	}
	a.first = min(a.first, t)
	return a
}

// measureFinish counts a measured interval the replay closed: a finished
// entry, or one left open (Unclosed: an enclosing interval finished, or the
// processor's records ended).
func (b *builder) measureFinish(n *nodeState, iv *replay.Interval, e *replay.Event) {
	k := measKey{int32(iv.Level), iv.Name}
	if iv.Unclosed {
		b.measures[k].unfinished++
		b.measUnfinished++
		return
	}
	d := e.F
	if d < 0 {
		d = max(0, iv.Clock1-iv.Clock0)
	}
	a := b.measures[k]
	for len(a.perProc) <= n.id {
		a.perProc = append(a.perProc, MeasureProc{})
	}
	a.perProc[n.id].Entries++
	a.perProc[n.id].Elapsed += d
	a.max = max(a.max, d)
}

// runRecord takes a record the runtime writes once the processors have
// stopped (statistics, trace-end, rank-info): it belongs to no processor's
// time.
func (b *builder) runRecord(e *replay.Event) {
	switch e.Tag {
	case trace.TagStatInterval:
		si := decodeStatInterval(e.Rec)
		if old := b.stats[si.ID]; old != nil {
			si.Groups = old.Groups // stat-group records that came first
		}
		b.stats[si.ID] = si
	case trace.TagStatGroup:
		sg := decodeStatGroup(e.Rec)
		si := b.stats[sg.interval]
		if si == nil {
			si = &StatInterval{ID: sg.interval, Parent: -1, Name: "interval " + strconv.Itoa(sg.interval), Groups: []StatGroup{}}
			b.stats[si.ID] = si
		}
		si.Groups = append(si.Groups, sg.g)
	case trace.TagGoroutinesUntraced:
		if b.untracedGo == nil {
			b.untracedGo = map[int]int{}
		}
		b.untracedGo[intField(e.Rec, "processor", 0)] += intField(e.Rec, "goroutines", 0)
	case trace.TagGCPause:
		b.gcPauses = append(b.gcPauses, gcPause{start: e.Clock, dur: floatField(e.Rec, "duration microseconds")})
	case trace.TagRankInfo:
		b.ranks = append(b.ranks, RankStat{Rank: intField(e.Rec, "rank", 0), Of: intField(e.Rec, "ranks", 0), PerRank: intField(e.Rec, "processors per rank", 1),
			Shift: floatField(e.Rec, "shift microseconds"), Err: floatField(e.Rec, "error microseconds"),
			Exchanges: intField(e.Rec, "exchanges", 0), BytesSent: floatField(e.Rec, "bytes sent"),
			Messages: intField(e.Rec, "messages sent", 0), MessageBytes: floatField(e.Rec, "message bytes sent"),
			EndShift: floatField(e.Rec, "end shift microseconds"), EndErr: endErr(e.Rec),
			Locks: intField(e.Rec, "global locks taken", 0), Published: floatField(e.Rec, "bytes published"),
			Pages: intField(e.Rec, "pages fetched", 0), PageBytes: floatField(e.Rec, "page bytes received"),
			Served: intField(e.Rec, "pages served", 0), Synced: intField(e.Rec, "stale pages synchronised", 0),
			Prefetched: intField(e.Rec, "pages prefetched", 0)})
	case trace.TagTraceEnd:
		b.end = decodeEnd(e.Rec)
		b.endClock = e.Clock
	}
}

// finishMeasures adds the measured intervals, the statistics and the end of
// the run to m.
func (b *builder) finishMeasures(m *Model) {
	m.Ranks = b.ranks
	slices.SortFunc(m.Ranks, func(x, y RankStat) int { return cmp.Compare(x.Rank, y.Rank) })
	N := m.Procs
	for _, a := range b.measures {
		ms := &MeasureStat{Name: a.key.name, Level: int(a.key.level), Max: a.max, Unfinished: a.unfinished, First: a.first, PerProc: a.perProc}
		for len(ms.PerProc) < N {
			ms.PerProc = append(ms.PerProc, MeasureProc{})
		}
		for _, mp := range ms.PerProc {
			ms.Entries += mp.Entries
			ms.Elapsed += mp.Elapsed
		}
		if ms.Entries > 0 {
			ms.Mean = ms.Elapsed / float64(ms.Entries)
		}
		m.Measures = append(m.Measures, ms)
	}
	slices.SortFunc(m.Measures, func(x, y *MeasureStat) int {
		return cmp.Or(cmp.Compare(x.First, y.First), cmp.Compare(x.Level, y.Level), cmp.Compare(x.Name, y.Name))
	})
	if b.measUnmatched > 0 {
		m.Warnings = append(m.Warnings, strconv.FormatInt(b.measUnmatched, 10)+" measure-finish records without a matching measure-start (not counted)")
	}
	if b.measUnfinished > 0 {
		m.Warnings = append(m.Warnings, strconv.FormatInt(b.measUnfinished, 10)+" measure-start records without a matching measure-finish (not counted)")
	}

	names := map[int]string{}
	for _, si := range b.stats {
		for _, g := range si.Groups {
			if g.Name != "" {
				names[g.Group] = g.Name
			}
		}
	}
	for _, si := range b.stats {
		for i := range si.Groups {
			g := &si.Groups[i]
			g.CallerName = names[g.Caller]
			if g.CallerName == "" {
				g.CallerName = "group " + strconv.Itoa(g.Caller)
			}
		}
		slices.SortStableFunc(si.Groups, func(x, y StatGroup) int {
			return cmp.Or(cmp.Compare(x.Caller, y.Caller), cmp.Compare(x.Group, y.Group))
		})
		si.ByGroup = sumByGroup(si.Groups, names)
		m.Stats = append(m.Stats, si)
	}
	slices.SortFunc(m.Stats, func(x, y *StatInterval) int { return cmp.Compare(x.ID, y.ID) })

	if b.end != nil {
		m.Ended = *b.end
	} else {
		m.Ended = RunEnd{Status: -1, StatusName: EndStatusName(-1), NotStopped: []int{}}
	}
}

// sumByGroup sums an interval matrix by group: rows (what the user
// program's direct calls of a group cost) and columns (the group's own
// time); the UserGrp row (group 0 calls) gives the direct calls.
func sumByGroup(elems []StatGroup, names map[int]string) []StatGroupSum {
	const user = trace.StatUserGrp
	by := map[int]*StatGroupSum{}
	get := func(g int) *StatGroupSum {
		if by[g] == nil {
			name := names[g]
			if name == "" {
				name = "group " + strconv.Itoa(g)
			}
			by[g] = &StatGroupSum{Group: g, Name: name}
		}
		return by[g]
	}
	for _, e := range elems {
		if e.Caller == user && e.Group != user {
			get(e.Group).DirectCalls += e.Calls
			continue
		}
		if e.Group == user {
			continue
		}
		if e.Caller != user {
			r := get(e.Caller)
			r.Productive += e.Productive
			r.Lost += e.Lost
		}
		c := get(e.Group)
		c.OwnProductive += e.Productive
		c.OwnTime += e.Productive + e.Lost
	}
	out := []StatGroupSum{}
	for _, g := range by {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y StatGroupSum) int { return cmp.Compare(x.Group, y.Group) })
	return out
}

// endErr is a rank-info's "end error microseconds", −1 where the shift was
// not measured at the end (or the trace predates the field).
func endErr(r *trace.Record) float64 {
	if r.Value("end error microseconds") == nil {
		return -1
	}
	return floatField(r, "end error microseconds")
}
