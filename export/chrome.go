package export

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/svmc/svmc/view"
)

// Chrome trace-event JSON (the format of chrome://tracing, read by
// Perfetto and speedscope):
//
//	{"traceEvents":[...], "displayTimeUnit":"ns", "otherData":{...}}
//
// One pid for the run, one tid per processor. Metadata events (ph "M") name
// the process and the threads and keep the threads in processor order.
// Regions, waits and holds are "B"/"E" pairs, written per thread in the
// order the processor opened and closed them, so that they nest exactly
// even where times are equal; every other record is a thread-scoped
// instant ("i", "s":"t") carrying the record; a message is a pair of flow
// events ("s" at its send, "f" at its receive), and so is a lock or
// critical section passed from one processor to another. Times ("ts") are the
// corrected times of the causally consistent order in microseconds, so
// they never decrease within a thread.

// ChromePID is the pid of the run.
const ChromePID = 1

type chromeEvent struct {
	Name string          `json:"name,omitempty"`
	Cat  string          `json:"cat,omitempty"`
	Ph   string          `json:"ph"`
	TS   json.RawMessage `json:"ts"`
	PID  int             `json:"pid"`
	TID  int             `json:"tid"`
	S    string          `json:"s,omitempty"`
	ID   int             `json:"id,omitempty"` // flow events
	BP   string          `json:"bp,omitempty"`
	Args any             `json:"args,omitempty"` // a map, or json.RawMessage (cached per site)
}

// WriteChrome writes tl as Chrome trace-event JSON.
func WriteChrome(w io.Writer, tl *view.Timeline) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &eventWriter{w: bw}
	bw.WriteString(`{"traceEvents":[` + "\n")
	name := "svmc " + tl.Trace
	if tl.Program != "" {
		name = "svmc " + tl.Program
	}
	ew.write(chromeEvent{Name: "process_name", Ph: "M", TS: json.RawMessage("0"), PID: ChromePID,
		Args: map[string]any{"name": name}})
	for p := 0; p < tl.Procs; p++ {
		ew.write(chromeEvent{Name: "thread_name", Ph: "M", TS: json.RawMessage("0"), PID: ChromePID, TID: p,
			Args: map[string]any{"name": tl.LaneTitle(p)}})
		ew.write(chromeEvent{Name: "thread_sort_index", Ph: "M", TS: json.RawMessage("0"), PID: ChromePID, TID: p,
			Args: map[string]any{"sort_index": p}})
	}
	// Flow events: a message from its send call (an "s" right after the
	// B of the call) to the step where its receive completed (an "f"
	// before that step, bound to the enclosing slice); a lock or critical
	// section handed from one processor to another, from the end of one
	// hold (before its E) to the start of the next (after its B). So each
	// thread's events stay in time order.
	type step struct{ proc, seq int }
	// A flow end is kept as a small reference (built into an event when
	// written): a trace has a flow per message.
	type flowEnd struct {
		id            int32
		start         bool
		lock, barrier bool
		i             int32 // message, or index into handoffs or releases
	}
	before, after := map[step][]flowEnd{}, map[step][]flowEnd{}
	id := int32(0)
	for i := range tl.Messages {
		m := &tl.Messages[i]
		id++
		after[step{m.From, m.SendSeq}] = append(after[step{m.From, m.SendSeq}], flowEnd{id: id, start: true, i: int32(i)})
		before[step{m.To, m.RecvSeq}] = append(before[step{m.To, m.RecvSeq}], flowEnd{id: id, i: int32(i)})
	}
	handoffs := lockHandoffs(tl)
	for k, h := range handoffs {
		a, b := &tl.Intervals[h[0]], &tl.Intervals[h[1]]
		id++
		before[step{a.Proc, a.Seq1}] = append(before[step{a.Proc, a.Seq1}], flowEnd{id: id, start: true, lock: true, i: int32(k)})
		after[step{b.Proc, b.Seq0}] = append(after[step{b.Proc, b.Seq0}], flowEnd{id: id, lock: true, i: int32(k)})
	}
	// Barriers: the last processor to arrive releases the others, a flow
	// from the start of its wait to the end of each other's.
	releases := barrierReleases(tl)
	for k, r := range releases {
		a, b := &tl.Intervals[r[0]], &tl.Intervals[r[1]]
		id++
		after[step{a.Proc, a.Seq0}] = append(after[step{a.Proc, a.Seq0}], flowEnd{id: id, start: true, barrier: true, i: int32(k)})
		before[step{b.Proc, b.Seq1}] = append(before[step{b.Proc, b.Seq1}], flowEnd{id: id, barrier: true, i: int32(k)})
	}
	ac := argCache{}
	flow := func(f flowEnd) {
		ev := chromeEvent{ID: int(f.id), PID: ChromePID}
		if f.barrier {
			r := releases[f.i]
			a, b := &tl.Intervals[r[0]], &tl.Intervals[r[1]]
			ev.Name, ev.Cat = "barrier release", "barrier"
			if f.start {
				ev.Ph, ev.TS, ev.TID, ev.Args = "s", ts(a.Start), a.Proc, map[string]any{"to": b.Proc}
			} else {
				ev.Ph, ev.BP, ev.TS, ev.TID = "f", "e", ts(b.End), b.Proc
			}
			ew.write(ev)
			return
		}
		if f.lock {
			h := handoffs[f.i]
			a, b := &tl.Intervals[h[0]], &tl.Intervals[h[1]]
			ev.Name, ev.Cat = "lock handoff", "lock"
			if f.start {
				ev.Ph, ev.TS, ev.TID, ev.Args = "s", ts(a.End), a.Proc, map[string]any{"to": b.Proc}
			} else {
				ev.Ph, ev.BP, ev.TS, ev.TID = "f", "e", ts(b.Start), b.Proc
			}
		} else {
			m := &tl.Messages[f.i]
			ev.Name, ev.Cat = "message", "message"
			if f.start {
				ev.Ph, ev.TS, ev.TID, ev.Args = "s", ts(m.Send), m.From, map[string]any{"to": m.To, "tag": m.Tag, "bytes": m.Bytes}
			} else {
				ev.Ph, ev.BP, ev.TS, ev.TID = "f", "e", ts(m.Recv), m.To
			}
		}
		ew.write(ev)
	}
	for _, op := range Replay(tl) {
		at := step{op.Proc, op.Seq}
		if op.Op != OpEnter {
			for _, f := range before[at] {
				flow(f)
			}
		}
		switch op.Op {
		case OpEnter:
			iv := &tl.Intervals[op.Index]
			ew.write(chromeEvent{Name: IntervalName(tl, iv), Cat: iv.Kind.String(), Ph: "B", TS: ts(iv.Start),
				PID: ChromePID, TID: iv.Proc, Args: ac.args(tl, iv)})
			for _, f := range after[at] {
				flow(f)
			}
		case OpLeave:
			iv := &tl.Intervals[op.Index]
			var args any
			if iv.Unclosed {
				args = map[string]any{"unclosed": "no " + iv.Kind.EndRecord() + " record: closed with its enclosing region or at the processor's last record"}
			} else if differs(iv.Clock1, iv.End) {
				args = map[string]any{"clock": round3(iv.Clock1)}
			}
			// The name is optional for "E" in the format, but DevTools'
			// trace engine reads it from every event.
			ew.write(chromeEvent{Name: IntervalName(tl, iv), Cat: iv.Kind.String(), Ph: "E", TS: ts(iv.End),
				PID: ChromePID, TID: iv.Proc, Args: args})
		case OpInstant:
			in := &tl.Instants[op.Index]
			args := map[string]any{"record": in.Record}
			if in.Site >= 0 {
				addSite(args, &tl.Sites[in.Site])
			}
			if differs(in.Clock, in.Time) {
				args["clock"] = round3(in.Clock)
			}
			ew.write(chromeEvent{Name: in.Name, Cat: "record", Ph: "i", S: "t", TS: ts(in.Time),
				PID: ChromePID, TID: in.Proc, Args: args})
		}
	}
	other, err := json.Marshal(map[string]any{
		"trace": tl.Trace, "program": tl.Program, "processors": tl.Procs, "records": tl.Records,
		"clock":            "µs since the run started, corrected for a causally consistent order",
		"clock_violations": tl.Order.Violations,
	})
	if err != nil {
		return err
	}
	if ew.err != nil {
		return ew.err
	}
	bw.WriteString("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":")
	bw.Write(other)
	bw.WriteString("}\n")
	return bw.Flush()
}

// lockHandoffs pairs each hold of a lock or critical section with the next
// hold of the same lock on another processor (interval indices), in time
// order: the lock passed from one to the other.
func lockHandoffs(tl *view.Timeline) [][2]int {
	byLock := map[string][]int{}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if !iv.Kind.IsHeld() || iv.Unclosed {
			continue
		}
		key := "lock " + strconv.Itoa(iv.Site)
		if iv.Kind == view.KindCriticalHeld {
			key = "critical " + tl.Sites[iv.Site].Label
		}
		byLock[key] = append(byLock[key], i)
	}
	var out [][2]int
	for _, hs := range byLock {
		sort.SliceStable(hs, func(a, b int) bool { return tl.Intervals[hs[a]].Start < tl.Intervals[hs[b]].Start })
		for k := 1; k < len(hs); k++ {
			a, b := &tl.Intervals[hs[k-1]], &tl.Intervals[hs[k]]
			if a.Proc != b.Proc && b.Start >= a.End {
				out = append(out, [2]int{hs[k-1], hs[k]})
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0] < out[b][0] })
	return out
}

// barrierReleases pairs, for each instance of a barrier (the waits of one
// site on different processors that overlap in time), the wait of the last
// processor to arrive with each other wait of the instance.
func barrierReleases(tl *view.Timeline) [][2]int {
	bySite := map[int][]int{}
	for i := range tl.Intervals {
		switch tl.Intervals[i].Kind {
		case view.KindBarrier, view.KindImplicitBarrier, view.KindCheckout:
			if !tl.Intervals[i].Unclosed {
				bySite[tl.Intervals[i].Site] = append(bySite[tl.Intervals[i].Site], i)
			}
		}
	}
	var out [][2]int
	for _, ivs := range bySite {
		sort.SliceStable(ivs, func(a, b int) bool { return tl.Intervals[ivs[a]].Start < tl.Intervals[ivs[b]].Start })
		for k := 0; k < len(ivs); {
			end, last := tl.Intervals[ivs[k]].End, ivs[k]
			j := k
			for ; j < len(ivs) && tl.Intervals[ivs[j]].Start <= end; j++ {
				end = max(end, tl.Intervals[ivs[j]].End)
				last = ivs[j]
			}
			for _, w := range ivs[k:j] {
				if w != last && tl.Intervals[w].Proc != tl.Intervals[last].Proc && tl.Intervals[w].End >= tl.Intervals[last].Start {
					out = append(out, [2]int{last, w})
				}
			}
			k = j
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a][1] < out[b][1] })
	return out
}

type eventWriter struct {
	w   *bufio.Writer
	n   int
	err error
}

func (e *eventWriter) write(ev chromeEvent) {
	if e.err != nil {
		return
	}
	data, err := json.Marshal(ev)
	if err != nil {
		e.err = err
		return
	}
	if e.n > 0 {
		e.w.WriteString(",\n")
	}
	e.n++
	e.w.Write(data)
}

// argCache keeps the args of intervals by site, kind and depth, encoded
// once: a trace has few sites and many intervals, and a map per event cost
// the export most of its memory.
type argCache map[[3]int]json.RawMessage

func (ac argCache) args(tl *view.Timeline, iv *view.Interval) any {
	if differs(iv.Clock0, iv.Start) {
		return intervalArgs(tl, iv) // carries its own clock
	}
	k := [3]int{iv.Site, int(iv.Kind), iv.Depth}
	if raw, ok := ac[k]; ok {
		return raw
	}
	raw, err := json.Marshal(intervalArgs(tl, iv))
	if err != nil {
		return intervalArgs(tl, iv)
	}
	ac[k] = raw
	return json.RawMessage(raw)
}

func intervalArgs(tl *view.Timeline, iv *view.Interval) map[string]any {
	args := map[string]any{"kind": iv.Kind.String(), "depth": iv.Depth}
	addSite(args, &tl.Sites[iv.Site])
	if differs(iv.Clock0, iv.Start) {
		args["clock"] = round3(iv.Clock0)
	}
	return args
}

func addSite(args map[string]any, s *view.Site) {
	args["function"] = s.Func
	args["sub"] = s.Sub
	args["dir"] = s.Dir
	if s.Label != "" {
		args["label"] = s.Label
	}
	if w := s.Where(); w != "" {
		args["source"] = w
	}
	if s.Text != "" {
		args["directive"] = s.Text
	}
}

// IntervalName is the name exports give an interval: the site's name for a
// region ("main", "pdo fill"), the kind and the site for waits and holds
// ("implicit barrier wait: pdo fill").
func IntervalName(tl *view.Timeline, iv *view.Interval) string {
	name := tl.Sites[iv.Site].Name
	if iv.Kind.IsRegion() {
		return name
	}
	return iv.Kind.String() + ": " + name
}

// ts formats a time in microseconds with nanosecond resolution.
func ts(us float64) json.RawMessage {
	return json.RawMessage(strconv.FormatFloat(round3(us), 'f', -1, 64))
}

func round3(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1000) / 1000
}

func differs(clock, t float64) bool { return math.Abs(clock-t) >= 0.0005 }
