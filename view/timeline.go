package view

import (
	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// Kind classifies an interval of the timeline. The first eight are the trace
// region types of the catalogue (trace.RegionProgram ... trace.RegionUser)
// with the same numbers, so a region's kind is its type code.
type Kind uint8

const (
	KindProgram Kind = iota
	KindSubroutine
	KindPSection
	KindSection
	KindPDO
	KindReplicated
	KindExclusive
	KindUser
	KindRegion // a region whose type code the catalogue does not name

	// Waiting: from a wait-*-start to its wait-*-stop.
	KindBarrier         // explicit barrier
	KindImplicitBarrier // the barrier that ends a pdo, psection, replicated or exclusive construct
	KindCheckout        // wait at a barrier_checkout (split barrier)
	KindLockWait
	KindCriticalWait

	// Holding: from the grant (wait-lock-stop, wait-crit-sec-stop) to the
	// release (release-lock, exit-crit-sec), so that who is inside a critical
	// section shows.
	KindLockHeld
	KindCriticalHeld

	// KindMeasure is a measured interval: from a measure-start to the
	// measure-finish of the same name and level (rtlib.MeasureStart /
	// MeasureFinish, seed 000 §9). Its site names it (Site.Kind "measure").
	KindMeasure

	// A message-passing call (rtlib.Send, Recv, ...) from its
	// msg-call-start to its msg-call-stop; collectives apart.
	KindMsgCall
	KindCollective

	// KindGoroutine is a goroutine's life on its lane (goroutine-start to
	// goroutine-end): a goroutine a processor started; its site is the go
	// statement.
	KindGoroutine

	NumKinds
)

// kindInfo describes a kind for the page and the exports.
type kindInfo struct {
	name       string // shown in the legend and tooltips
	start, end string // the records that open and close it
	color      string // CSS colour
}

var kinds = [NumKinds]kindInfo{
	KindProgram:         {"program", "trace-region-start", "trace-region-stop", "#9aa5b8"},
	KindSubroutine:      {"subroutine", "trace-region-start", "trace-region-stop", "#5b8fd0"},
	KindPSection:        {"psection", "trace-region-start", "trace-region-stop", "#5fb8b2"},
	KindSection:         {"section", "trace-region-start", "trace-region-stop", "#6cbf5a"},
	KindPDO:             {"pdo", "trace-region-start", "trace-region-stop", "#f5a03c"},
	KindReplicated:      {"replicated", "trace-region-start", "trace-region-stop", "#b98fd6"},
	KindExclusive:       {"exclusive", "trace-region-start", "trace-region-stop", "#c49a6c"},
	KindUser:            {"user", "trace-region-start", "trace-region-stop", "#e8cf4a"},
	KindRegion:          {"region", "trace-region-start", "trace-region-stop", "#cccccc"},
	KindBarrier:         {"barrier wait", "wait-barrier-start", "wait-barrier-stop", "#d62728"},
	KindImplicitBarrier: {"implicit barrier wait", "wait-barrier-start", "wait-barrier-stop", "#e0607e"},
	KindCheckout:        {"barrier checkout wait", "wait-bcheckout-start", "wait-bcheckout-stop", "#a8323e"},
	KindLockWait:        {"lock wait", "wait-lock-start", "wait-lock-stop", "#7b3fb0"},
	KindCriticalWait:    {"critical wait", "wait-crit-sec-start", "wait-crit-sec-stop", "#c2187a"},
	KindLockHeld:        {"lock held", "wait-lock-stop", "release-lock", "#d9c2ee"},
	KindCriticalHeld:    {"critical section", "wait-crit-sec-stop", "exit-crit-sec", "#f4b6d6"},
	KindMeasure:         {"measured interval", "measure-start", "measure-finish", "#3f3d99"},
	KindMsgCall:         {"message call", "msg-call-start", "msg-call-stop", "#2a9d8f"},
	KindCollective:      {"collective", "msg-call-start", "msg-call-stop", "#1f6f8b"},
	KindGoroutine:       {"goroutine", "goroutine-start", "goroutine-end", "#b7c7a0"},
}

func (k Kind) String() string {
	if k < NumKinds {
		return kinds[k].name
	}
	return "?"
}

// StartRecord and EndRecord name the records that open and close an
// interval of this kind.
func (k Kind) StartRecord() string { return kinds[k].start }
func (k Kind) EndRecord() string   { return kinds[k].end }

// IsRegion reports whether k is a trace region.
func (k Kind) IsRegion() bool { return k <= KindRegion }

// IsWait reports whether k is waiting (barrier, split barrier, lock,
// critical section).
func (k Kind) IsWait() bool { return k >= KindBarrier && k <= KindCriticalWait }

// IsHeld reports whether k is holding a lock or a critical section.
func (k Kind) IsHeld() bool { return k == KindLockHeld || k == KindCriticalHeld }

// IsMsg reports whether k is a message-passing call.
func (k Kind) IsMsg() bool { return k == KindMsgCall || k == KindCollective }

// IsMeasure reports whether k is a measured interval.
func (k Kind) IsMeasure() bool { return k == KindMeasure }

// style is how the page draws a kind: "region", "wait", "held" or
// "measure".
func (k Kind) style() string {
	switch {
	case k.IsWait():
		return "wait"
	case k.IsHeld():
		return "held"
	case k.IsMeasure():
		return "measure"
	case k.IsMsg():
		return "msg"
	}
	return "region"
}

func regionKind(code int) Kind {
	if code >= trace.RegionProgram && code <= trace.RegionUser {
		return Kind(code)
	}
	return KindRegion
}

// Timeline is a trace as intervals and instants per processor, in
// corrected time: the records of all processors were merged in a causally
// consistent order (replay.Order, seed 001) and every time is the
// record's corrected time, so that, for example, no processor leaves a
// barrier before the last one has entered it. Times are microseconds.
type Timeline struct {
	Trace   string // the trace file's name
	Program string // import path from the program information ("" if none)
	Procs   int    // lanes: the run's processors, or those seen
	Records int64
	// Start and End are the earliest and latest corrected time.
	Start, End float64
	Sites      []Site
	// Intervals are sorted by processor, then by opening order.
	Intervals []Interval
	// Instants are the records that are neither the start nor the end of
	// an interval, sorted by processor, then by their order in its stream.
	Instants []Instant
	// Messages are the point-to-point messages whose send and receive are
	// both in the trace, in the order their receives completed.
	Messages []Message
	// Marks are errors a checker found (MarkErrors), drawn on the lanes.
	Marks    []Mark
	Order    replay.OrderStats
	Warnings []string
	// Ended is how the run ended (its trace-end record; Recorded false
	// without one). trace-end and the runtime's statistics records
	// (stat-interval, stat-group) are written after the processors
	// stopped: they are counted in Records but are neither instants nor
	// part of Start .. End.
	Ended analysis.RunEnd
	// Lanes name the lanes ("P0", ... when empty); Note is text for the
	// side panel (Merge: two runs on one page).
	Lanes []string
	Note  string
	// Files are the program's source files (relative to its package
	// directory) from the program information; Sources their text where
	// ReadSources found it; Notes the findings and errors tied to source
	// lines (AddNote, MarkErrors), shown in the page's source view.
	Files   []string
	Sources map[string]string
	Notes   []Note
	// GC are the stop-the-world pauses of Go's collector during the run
	// (gc-pause records, svmc run --gotrace), drawn across every lane.
	GC []GCPause
	// Steps are the processors' events in the causally consistent order
	// the timeline was built in (seed 001: VISTOP's sequence of global
	// states): each opening and closing of an interval and each instant.
	// Intervals closed at the end of the trace close last.
	Steps []Step
}

// Step is one event of the consistent order: interval Interval opens
// (Open) or closes, or, with Interval −1, instant Instant happens.
type Step struct {
	Interval, Instant int
	Open              bool
}

// GCPause is one stop-the-world pause of the collector: it starts at Start
// (µs, the trace's clock) and lasts Dur µs.
type GCPause struct {
	Start, Dur float64
	N          int // the collection's number
}

// Site is where an interval or instant comes from in the program: a
// subprogram and one of its directives (Dir 0: the subprogram itself).
type Site struct {
	Sub, Dir int
	Name     string // short name for labels: "main", "pdo fill", "barrier main.go:45"
	Func     string // Go function ("F", "T.M"); "sub N" without program information
	Kind     string // directive kind ("pdo", "barrier", ...), "" for the subprogram
	SiteKind string // what the tools treat the directive as (progdb.Site*), "" for the subprogram
	Label    string // pdo label, trace_region or critical name
	Text     string // the directive's text
	File     string // relative to the package directory
	Line     int
	EndLine  int // last line of a region's source (0 unknown)
	Region   int // progdb region number, -1 if not a region or unknown
	// Level is a measured interval's enclosure level (1 outermost; 0 for
	// other sites). A measured interval's site has Kind "measure", Label
	// and Name its name, Sub and Dir 0 and no source position.
	Level int
}

// Where is "file:line", or "" without program information.
func (s *Site) Where() string {
	if s.File == "" {
		return ""
	}
	return s.File + ":" + itoa(s.Line)
}

// Interval is a region, a wait, a hold or a measured interval on one
// processor.
type Interval struct {
	Proc  int
	Kind  Kind
	Site  int // index into Timeline.Sites
	Depth int // nesting depth on its processor, 0 outermost
	// Start and End are corrected times; Clock0 and Clock1 the clocks the
	// opening and closing records carry (equal to Start and End unless the
	// order had to correct them).
	Start, End     float64
	Clock0, Clock1 float64
	// Seq0 and Seq1 place the opening and closing among the processor's
	// events (openings, closings and instants, numbered from 0), so that
	// exports can replay them in order even when times are equal.
	Seq0, Seq1 int
	// Unclosed: no record closed it; it ends where an enclosing region
	// stopped or where the processor's records end.
	Unclosed bool
	// Peer is a message-passing call's destination, source or root (its
	// "peer"; -1 any or none, and for every other kind).
	Peer int
	// Team: a barrier wait inside a section, the processors it waits for
	// (nil: every processor; replay.Interval.Team).
	Team []int
}

// Instant is a record drawn as a point in time (template-info, pdo-info,
// aps-info, barrier-checkin, ...).
type Instant struct {
	Proc   int
	Tag    trace.Tag
	Name   string // record name
	Site   int    // index into Timeline.Sites, -1 if the record names none
	Time   float64
	Clock  float64
	Seq    int    // see Interval.Seq0
	Record string // the record as trace.DumpLine prints it
}

// Message is one message: from the start of its send on processor From
// to the completion of its receive on processor To (corrected times).
type Message struct {
	From, To   int
	Send, Recv float64
	Tag        int
	Bytes      int64
	// SendSite and RecvSite index Timeline.Sites: the two calls.
	SendSite, RecvSite int
	// SendSeq is the opening step (Interval.Seq0) of the send call on
	// From, RecvSeq the step on To at which the receive completed (the
	// closing of Recv or Sendrecv, or the msg-request-done of an Irecv):
	// exports tie the message to them.
	SendSeq, RecvSeq int
}

// Mark is an error drawn on a processor's lane at a time.
type Mark struct {
	Proc    int
	Time    float64
	Class   string // the checker's class ("nonpaired send", ...)
	Message string
	Where   string // file:line
}

// Error is what MarkErrors needs of a checker's diagnosis.
type Error struct {
	Class, Message, File string
	Line                 int
	Procs                []int
}

// MarkErrors puts each error on the lanes of its processors: at the
// message call on that processor at the error's line (one still open at
// the end first, else the last), else at the processor's last interval.
func (tl *Timeline) MarkErrors(errs []Error) {
	for _, e := range errs {
		tl.AddNote(Note{File: e.File, Line: e.Line, Class: "error", Text: e.Class + ": " + e.Message})
		for _, p := range e.Procs {
			t, found := 0.0, false
			var last *Interval
			for i := range tl.Intervals {
				iv := &tl.Intervals[i]
				if iv.Proc != p {
					continue
				}
				if last == nil || iv.End > last.End {
					last = iv
				}
				s := &tl.Sites[iv.Site]
				if iv.Kind.IsMsg() && s.File == e.File && s.Line == e.Line {
					if iv.Unclosed || !found || iv.Start > t {
						t, found = iv.Start, true
					}
					if iv.Unclosed {
						break
					}
				}
			}
			if !found && last != nil {
				t = last.End
			}
			where := e.File
			if e.Line > 0 {
				where += ":" + itoa(e.Line)
			}
			tl.Marks = append(tl.Marks, Mark{Proc: p, Time: t, Class: e.Class, Message: e.Message, Where: where})
		}
	}
}

// Measures is the number of measured intervals.
func (tl *Timeline) Measures() int {
	n := 0
	for i := range tl.Intervals {
		if tl.Intervals[i].Kind.IsMeasure() {
			n++
		}
	}
	return n
}

// Waits is the number of wait intervals.
func (tl *Timeline) Waits() int {
	n := 0
	for i := range tl.Intervals {
		if tl.Intervals[i].Kind.IsWait() {
			n++
		}
	}
	return n
}
