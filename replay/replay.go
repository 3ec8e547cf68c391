package replay

import (
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// Kind is what an interval of a processor is.
type Kind uint8

const (
	KindRegion    Kind = iota // a trace region; Interval.Code is its type
	KindWait                  // waiting: Interval.Wait says for what
	KindHold                  // holding a lock or a critical section (Wait: WaitLock or WaitCritical)
	KindMeasure               // a measured interval (Level, Name)
	KindMsg                   // a message-passing call: Code its call kind, Dir its call site
	KindGoroutine             // a goroutine's life on its lane: Code its processor, Level its number, Name its go statement
)

// WaitKind is what a processor waits for, or holds.
type WaitKind uint8

const (
	WaitNone     WaitKind = iota
	WaitBarrier           // an explicit barrier
	WaitImplicit          // the barrier that ends a pdo, psection, replicated or exclusive construct
	WaitCheckout          // a barrier_checkout (split barrier)
	WaitLock              // a lock (or an atomic update's)
	WaitCritical          // a critical section
	// WaitMutex is a wait for a sync mutex of the program's own: the
	// interval's Dir is the lock statement's number among the program
	// information's mutex sites (which give its subprogram), its Sub 0.
	WaitMutex
)

var waitNames = [...]string{"", "barrier", "implicit barrier", "split barrier", "lock", "critical", "mutex"}

func (k WaitKind) String() string {
	if int(k) < len(waitNames) {
		return waitNames[k]
	}
	return "?"
}

// Interval is what a processor is in from one of its records to another:
// a region (trace-region-start to -stop), a wait (wait-*-start to -stop),
// a hold (the grant of a lock or critical section to its release) or a
// measured interval (measure-start to measure-finish of the same level and
// name).
type Interval struct {
	Proc  int
	Kind  Kind
	Wait  WaitKind // KindWait, KindHold
	Code  int      // KindRegion: the trace region type
	Sub   int      // the site: subprogram and directive (0, 0 for a measured interval)
	Dir   int
	Level int    // KindMeasure: enclosure level, 1 outermost
	Name  string // KindMeasure: its name
	// Mutex: a WaitMutex wait's mutex (its address's low 32 bits), which
	// tells the mutexes locked at one site apart.
	Mutex int32
	// Depth is the number of the processor's intervals that were open when
	// it opened: 0 outermost.
	Depth int
	// Start and End are corrected times (Event.Time), Clock0 and Clock1 the
	// clocks of the records that open and close it.
	Start, End     float64
	Clock0, Clock1 float64
	// Seq0 and Seq1 place the opening and the closing among the processor's
	// steps (openings, closings and instants, numbered from 0).
	Seq0, Seq1 int
	// Unclosed: no record of its own closed it; it ended with an enclosing
	// interval, or where the processor's records end.
	Unclosed bool
	// Index is the handler's: an index into a list of its own, say.
	Index int
	// Team: a barrier or split-barrier wait inside a section, the
	// processors of the section's team it waits for (nil: every
	// processor; aps-info, teams.go).
	Team []int
}

// Handler receives a replay. The *Interval is the replay's: it is valid
// from Open until Close returns (the replay reuses it afterwards), so that
// a replay allocates nothing per interval.
type Handler interface {
	// Before is called for every record of a processor before the replay
	// applies it, while the processor's open intervals are still those
	// before the record.
	Before(e *Event)
	// Open reports an interval that the record e opens.
	Open(iv *Interval, e *Event)
	// Close reports an interval that ends. e is the record that closes it
	// (or that closed an enclosing interval, iv.Unclosed), nil when Finish
	// closes it at the processor's last record.
	Close(iv *Interval, e *Event)
	// Instant reports a record that neither opens nor closes an interval
	// (template-info, pdo-info, ...): among them closing records with
	// nothing open to close (see Unmatched), and the records the runtime
	// writes after the run (AfterRun; without Before, since they belong
	// to no processor's time). seq places it among the processor's steps.
	Instant(e *Event, seq int)
}

// Nop is a Handler that does nothing; handlers embed it for the calls they
// do not need.
type Nop struct{}

func (Nop) Before(*Event)             {}
func (Nop) Open(*Interval, *Event)    {}
func (Nop) Close(*Interval, *Event)   {}
func (Nop) Instant(e *Event, seq int) {}

// Unmatched reports whether an Instant is a closing record that found
// nothing open to close: a region, wait or measured interval stop without
// its start. (A release without a grant is not: an atomic update releases
// nothing, and a lock may have been taken before tracing began.)
func Unmatched(e *Event) bool {
	switch e.Tag {
	case trace.TagTraceRegionStop, trace.TagWaitBarrierStop, trace.TagWaitBCheckoutStop,
		trace.TagWaitLockStop, trace.TagWaitCritSecStop, trace.TagMeasureFinish, trace.TagMsgCallStop:
		return true
	}
	return false
}

// Replayer turns each processor's records into its intervals. The
// intervals of a processor nest: a record that closes an interval closes
// those opened inside it and still open too (Unclosed), so that a timeline
// can draw them by depth and an export can replay them as enters and
// leaves. A measured interval therefore nests with the regions around it:
// one still open when its enclosing region ends ends there, unfinished.
// Records of a processor must come in the order it wrote them (as every
// order of package replay gives them); processors may interleave freely.
// This is the one place that decides which barrier is an implicit one and
// that an atomic update holds nothing.
type Replayer struct {
	prog  Prog
	h     Handler
	procs []*procState
	teams teams // the section teams the processors are in (Interval.Team)
	// withTeams: Interval.Team is filled (TrackTeams); the report needs
	// no teams and reads every region record without following them.
	withTeams bool
}

// TrackTeams makes the barrier waits the replay opens carry their team
// (Interval.Team): the processors a barrier inside a section waits for.
func (r *Replayer) TrackTeams() { r.withTeams = true }

type procState struct {
	stack        []*Interval // the open intervals, outermost first
	free         []*Interval // closed ones, for reuse
	seq          int
	lastT, lastC float64 // time and clock of the latest record
}

// New returns a replayer that reports to h; prog (may be nil) tells which
// directives end with an implicit barrier and which are atomic updates.
func New(prog *progdb.Program, h Handler) *Replayer {
	return &Replayer{prog: Prog{prog}, h: h}
}

// MaxProcs bounds the processor numbers a trace may name and a replay
// accepts: svmc runs at most 4096 on one machine; the bound leaves room for
// other writers while keeping what a reader allocates per processor small.
const MaxProcs = 1 << 16

func (r *Replayer) proc(p int) *procState {
	for len(r.procs) <= p {
		r.procs = append(r.procs, &procState{})
	}
	return r.procs[p]
}

// Open returns the processor's open intervals, outermost first (the
// replay's slice: do not change it).
func (r *Replayer) Open(p int) []*Interval {
	if p < len(r.procs) {
		return r.procs[p].stack
	}
	return nil
}

// Seq is the number processor p's next step will take (see Interval.Seq0).
func (r *Replayer) Seq(p int) int {
	if p < len(r.procs) {
		return r.procs[p].seq
	}
	return 0
}

// Resume makes processor p's open intervals those of a checkpoint (copies
// of what Open returned then, outermost first) and seq its next step
// number, as if its records up to there had been replayed: for replaying a
// part of a trace (Streams). The handler is told Open for each, outermost
// first, with a nil Event.
func (r *Replayer) Resume(p int, open []Interval, seq int) {
	ps := r.proc(p)
	for j := len(ps.stack) - 1; j >= 0; j-- {
		ps.free = append(ps.free, ps.stack[j])
	}
	ps.stack = ps.stack[:0]
	ps.seq = seq
	for i := range open {
		iv := new(Interval)
		*iv = open[i]
		iv.Proc = p
		ps.stack = append(ps.stack, iv)
		r.h.Open(iv, nil)
	}
	if n := len(open); n > 0 {
		ps.lastT, ps.lastC = open[n-1].Start, open[n-1].Clock0
	}
}

// Procs is the number of processors seen (the highest number + 1).
func (r *Replayer) Procs() int { return len(r.procs) }

// Add replays the next record of processor e.Proc (0 <= e.Proc < MaxProcs).
func (r *Replayer) Add(e *Event) {
	if AfterRun(e.Tag) {
		r.h.Instant(e, -1)
		return
	}
	ps := r.proc(int(e.Proc))
	r.h.Before(e)
	ps.lastT, ps.lastC = e.Time, e.Clock
	sub, dir := int(e.Sub), int(e.Dir)
	switch e.Tag {
	case trace.TagTraceRegionStart:
		if r.withTeams {
			r.teams.regionStart(int(e.Proc), e.A)
		}
		r.open(ps, e, Interval{Kind: KindRegion, Code: int(e.A), Sub: sub, Dir: dir})
	case trace.TagTraceRegionStop:
		if r.withTeams {
			r.teams.regionStop(int(e.Proc))
		}
		r.closeOrInstant(ps, e, KindRegion, WaitNone, int(e.A))
	case trace.TagWaitBarrierStart:
		k := WaitBarrier
		if r.implicit(ps, sub, dir) {
			k = WaitImplicit
		}
		r.open(ps, e, Interval{Kind: KindWait, Wait: k, Sub: sub, Dir: dir, Team: r.teams.members(int(e.Proc))})
	case trace.TagWaitBarrierStop:
		if !r.close(ps, e, KindWait, WaitBarrier, 0) && !r.close(ps, e, KindWait, WaitImplicit, 0) {
			r.instant(ps, e)
		}
	case trace.TagWaitBCheckoutStart:
		r.open(ps, e, Interval{Kind: KindWait, Wait: WaitCheckout, Sub: sub, Dir: dir, Team: r.teams.members(int(e.Proc))})
	case trace.TagWaitBCheckoutStop:
		r.closeOrInstant(ps, e, KindWait, WaitCheckout, 0)
	case trace.TagWaitLockStart:
		r.open(ps, e, Interval{Kind: KindWait, Wait: WaitLock, Sub: sub, Dir: dir})
	case trace.TagWaitCritSecStart:
		r.open(ps, e, Interval{Kind: KindWait, Wait: WaitCritical, Sub: sub, Dir: dir})
	case trace.TagWaitLockStop:
		r.closeOrInstant(ps, e, KindWait, WaitLock, 0)
		// An atomic update takes its lock and gives it back without a
		// release-lock record: it holds nothing afterwards.
		if !r.prog.IsAtomic(sub, dir) {
			r.open(ps, e, Interval{Kind: KindHold, Wait: WaitLock, Sub: sub, Dir: dir})
		}
	case trace.TagWaitCritSecStop:
		r.closeOrInstant(ps, e, KindWait, WaitCritical, 0)
		r.open(ps, e, Interval{Kind: KindHold, Wait: WaitCritical, Sub: sub, Dir: dir})
	case trace.TagReleaseLock:
		if !r.close(ps, e, KindHold, WaitLock, 0) {
			r.instant(ps, e)
		}
	case trace.TagExitCritSec:
		if !r.close(ps, e, KindHold, WaitCritical, 0) {
			r.instant(ps, e)
		}
	case trace.TagWaitMutexStart:
		r.open(ps, e, Interval{Kind: KindWait, Wait: WaitMutex, Sub: sub, Dir: dir, Mutex: e.A})
	case trace.TagWaitMutexStop:
		r.closeOrInstant(ps, e, KindWait, WaitMutex, 0)
	case trace.TagMeasureStart:
		r.open(ps, e, Interval{Kind: KindMeasure, Level: int(e.A), Name: e.Name})
	case trace.TagMeasureFinish:
		r.closeOrInstant(ps, e, KindMeasure, WaitNone, 0)
	case trace.TagGoroutineStart:
		r.open(ps, e, Interval{Kind: KindGoroutine, Code: int(e.A), Level: e.Cols, Name: e.Name})
	case trace.TagGoroutineEnd:
		r.closeOrInstant(ps, e, KindGoroutine, WaitNone, 0)
	case trace.TagMsgCallStart:
		r.open(ps, e, Interval{Kind: KindMsg, Code: int(e.M.Kind), Sub: sub, Dir: dir})
	case trace.TagMsgCallStop:
		r.closeOrInstant(ps, e, KindMsg, WaitNone, int(e.M.Kind))
	case trace.TagAPSInfo:
		if r.withTeams {
			r.teams.apsInfo(int(e.Proc), e.Arr)
		}
		r.instant(ps, e)
	default:
		r.instant(ps, e)
	}
}

// implicit reports whether a barrier is the implicit one that ends a
// construct: one of the processor's open regions was opened by the same
// directive, or the program information says the directive ends with one.
func (r *Replayer) implicit(ps *procState, sub, dir int) bool {
	if dir != 0 {
		for i := len(ps.stack) - 1; i >= 0; i-- {
			iv := ps.stack[i]
			if iv.Kind == KindRegion && iv.Sub == sub && iv.Dir == dir {
				switch iv.Code {
				case trace.RegionPDO, trace.RegionPSection, trace.RegionReplicated, trace.RegionExclusive:
					return true
				}
			}
		}
	}
	implicit, _ := r.prog.ImplicitBarrier(sub, dir)
	return implicit
}

func (r *Replayer) open(ps *procState, e *Event, v Interval) {
	var iv *Interval
	if n := len(ps.free); n > 0 {
		iv, ps.free = ps.free[n-1], ps.free[:n-1]
	} else {
		iv = new(Interval)
	}
	*iv = v
	iv.Proc = int(e.Proc)
	iv.Depth = len(ps.stack)
	iv.Start, iv.Clock0, iv.Seq0 = e.Time, e.Clock, ps.seq
	ps.seq++
	ps.stack = append(ps.stack, iv)
	r.h.Open(iv, e)
}

func (r *Replayer) instant(ps *procState, e *Event) {
	r.h.Instant(e, ps.seq)
	ps.seq++
}

func (r *Replayer) closeOrInstant(ps *procState, e *Event, k Kind, w WaitKind, code int) {
	if !r.close(ps, e, k, w, code) {
		r.instant(ps, e)
	}
}

// close closes the innermost open interval the record e closes (kind, wait
// kind, site; a region's type; a measured interval's level and name); the
// intervals of the same stack opened inside it and still open end with it,
// Unclosed. It reports false when nothing open matches.
func (r *Replayer) close(ps *procState, e *Event, k Kind, w WaitKind, code int) bool {
	s := ps.stack
	for i := len(s) - 1; i >= 0; i-- {
		iv := s[i]
		if iv.Kind != k || iv.Wait != w {
			continue
		}
		if k == KindMeasure {
			if iv.Level != int(e.A) || iv.Name != e.Name {
				continue
			}
		} else if iv.Sub != int(e.Sub) || iv.Dir != int(e.Dir) || (k == KindRegion || k == KindMsg) && iv.Code != code {
			continue
		}
		for j := len(s) - 1; j > i; j-- {
			r.end(ps, s[j], e, e.Time, e.Clock, true)
		}
		r.end(ps, iv, e, e.Time, e.Clock, false)
		ps.stack = s[:i]
		return true
	}
	return false
}

func (r *Replayer) end(ps *procState, iv *Interval, e *Event, t, clock float64, unclosed bool) {
	iv.End, iv.Clock1, iv.Seq1, iv.Unclosed = t, clock, ps.seq, unclosed
	ps.seq++
	r.h.Close(iv, e)
	ps.free = append(ps.free, iv)
}

// Finish closes what is still open at each processor's last record
// (Unclosed, from the innermost).
func (r *Replayer) Finish() {
	for _, ps := range r.procs {
		for j := len(ps.stack) - 1; j >= 0; j-- {
			r.end(ps, ps.stack[j], nil, ps.lastT, ps.lastC, true)
		}
		ps.stack = nil
	}
}
