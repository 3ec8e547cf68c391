package view

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// Options configure Build. The zero value works.
type Options struct {
	// Prog is the program information; nil takes it from the trace's
	// stream attribute "svmc program info" (and works without: sites are
	// then named by numbers).
	Prog *progdb.Program
	// Procs is the number of processors of the run; 0 takes the trace's
	// "processors" attribute, else the processors seen.
	Procs int
}

// BuildFile is Build for a trace file.
func BuildFile(path string, opt Options) (*Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a trace file", path)
	}
	return Build(f, fi.Size(), path, opt)
}

// Build reads a trace (ASCII or binary SDDF; name is used in messages) and
// turns it into a timeline. The records of all processors are merged in a
// causally consistent order first (replay.OrderFile) and replayed into
// each processor's intervals (replay.Replayer); each processor's records
// keep the order it wrote them in. Errors of a damaged trace name the file
// and the byte offset (the trace reader's errors).
func Build(ra io.ReaderAt, size int64, name string, opt Options) (*Timeline, error) {
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return nil, err
	}
	if opt.Prog, err = replay.Info(opt.Prog, rd.Attrs(), name); err != nil {
		return nil, err
	}
	procs := opt.Procs
	if procs == 0 {
		procs = replay.Processors(rd.Attrs())
	}
	b := newBuilder(name, opt.Prog)
	rp := replay.New(opt.Prog, b)
	rp.TrackTeams() // the state animation names a barrier's partners
	stats, err := replay.OrderFile(ra, size, name, replay.OrderOptions{Prog: opt.Prog, Procs: procs, Records: true}, func(e *replay.Event) error {
		if e.Proc < 0 || e.Proc >= maxProcs {
			return fmt.Errorf("%s: record %q #%d: node id %d is not a processor number (0..%d)", name, e.Rec.Desc.Name, b.tl.Records+1, e.Proc, maxProcs-1)
		}
		b.tl.Records++
		rp.Add(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rp.Finish()
	return b.finish(max(procs, rp.Procs()), stats), nil
}

// maxProcs bounds the node ids the view accepts (a lane each).
const maxProcs = replay.MaxProcs

// builder makes the timeline of a replay (a replay.Handler).
type builder struct {
	tl        *Timeline
	order     []procSeq   // the events in the consistent order (finish makes them Steps)
	laneOwner map[int]int // goroutine lanes: their processors
	sites     *sites
	sends     map[[2]int]sendInfo // by sender and message id
	start     float64
	end       float64
	unmatch   int
	unclosed  int
	window    *windowCut // LOD.Window's part of the run, nil for the whole
	// endT and endC are the time and clock of trace-end (NaN without it).
	endT, endC float64
}

func newBuilder(name string, prog *progdb.Program) *builder {
	tl := &Timeline{Trace: name, Ended: analysis.RunEnd{Status: -1, StatusName: analysis.EndStatusName(-1), NotStopped: []int{}}}
	if prog != nil {
		tl.Program = prog.Package
		tl.Files = prog.Files
	}
	return &builder{tl: tl, sites: newSites(prog), start: math.Inf(1), end: math.Inf(-1), endT: math.NaN(), endC: math.NaN()}
}

// Before takes the time of every record of a processor.
func (b *builder) Before(e *replay.Event) {
	b.start, b.end = min(b.start, e.Time), max(b.end, e.Time)
}

// intervalKind is the timeline's kind of a replayed interval.
func intervalKind(iv *replay.Interval) Kind {
	switch iv.Kind {
	case replay.KindRegion:
		return regionKind(iv.Code)
	case replay.KindMeasure:
		return KindMeasure
	case replay.KindHold:
		if iv.Wait == replay.WaitCritical {
			return KindCriticalHeld
		}
		return KindLockHeld
	case replay.KindMsg:
		if trace.IsCollective(iv.Code) {
			return KindCollective
		}
		return KindMsgCall
	case replay.KindGoroutine:
		return KindGoroutine
	}
	switch iv.Wait {
	case replay.WaitImplicit:
		return KindImplicitBarrier
	case replay.WaitCheckout:
		return KindCheckout
	case replay.WaitLock, replay.WaitMutex:
		return KindLockWait
	case replay.WaitCritical:
		return KindCriticalWait
	}
	return KindBarrier
}

func (b *builder) Open(iv *replay.Interval, e *replay.Event) {
	var site int
	switch iv.Kind {
	case replay.KindRegion:
		site = b.sites.get(iv.Sub, iv.Dir, iv.Code)
	case replay.KindMeasure:
		site = b.sites.measure(iv.Level, iv.Name)
	case replay.KindMsg:
		site = b.sites.call(iv.Sub, iv.Dir, iv.Code)
		if e != nil { // nil: opened before the part a window replays
			b.msgOpen(iv, e, site)
		}
	case replay.KindGoroutine:
		site = b.sites.goStmt(iv.Name)
		if b.laneOwner == nil {
			b.laneOwner = map[int]int{}
		}
		b.laneOwner[iv.Proc] = iv.Code
	default:
		if iv.Wait == replay.WaitMutex {
			site = b.sites.mutex(iv.Dir)
			break
		}
		site = b.sites.get(iv.Sub, iv.Dir, -1)
	}
	peer := -1
	if iv.Kind == replay.KindMsg && e != nil {
		peer = int(e.M.Peer)
	}
	iv.Index = len(b.tl.Intervals)
	b.order = append(b.order, procSeq{iv.Proc, iv.Seq0})
	b.tl.Intervals = append(b.tl.Intervals, Interval{
		Proc: iv.Proc, Kind: intervalKind(iv), Site: site, Depth: iv.Depth,
		Start: iv.Start, Clock0: iv.Clock0, Seq0: iv.Seq0, Peer: peer, Team: iv.Team,
	})
}

func (b *builder) Close(iv *replay.Interval, e *replay.Event) {
	if iv.Kind == replay.KindMsg && e != nil && !iv.Unclosed {
		switch iv.Code {
		case trace.CallRecv, trace.CallSendrecv:
			b.received(iv.Proc, e, b.tl.Intervals[iv.Index].Site, iv.Seq1)
		}
	}
	out := &b.tl.Intervals[iv.Index]
	out.End, out.Clock1, out.Seq1, out.Unclosed = iv.End, iv.Clock1, iv.Seq1, iv.Unclosed
	if e == nil && b.window != nil && b.window.stopped[iv.Proc] {
		// Still open where the window ends: it goes on.
		out.End, out.Clock1, out.Unclosed = max(out.End, b.window.t1), max(out.Clock1, b.window.t1), false
		b.order = append(b.order, procSeq{iv.Proc, iv.Seq1})
		return
	}
	if e == nil && b.endedBlocked() && b.endC > out.Clock1 {
		// The run deadlocked or was stopped with this still open: it
		// lasted until the end (still drawn as unclosed).
		out.End, out.Clock1 = max(out.End, b.endT), b.endC
	}
	b.order = append(b.order, procSeq{iv.Proc, iv.Seq1})
	if iv.Unclosed {
		b.unclosed++
	}
}

// endedBlocked reports whether trace-end says the run deadlocked or was
// stopped by a signal: what was open then went on to the end.
func (b *builder) endedBlocked() bool {
	return b.tl.Ended.Blocked() && !math.IsNaN(b.endC)
}

func (b *builder) Instant(e *replay.Event, seq int) {
	r := e.Rec
	switch r.Desc.Tag {
	case trace.TagStatInterval, trace.TagStatGroup:
		return // the runtime's statistics, written after the run: no event of a processor
	case trace.TagTraceEnd:
		b.tl.Ended = analysis.RunEndOf(r)
		b.endT, b.endC = e.Time, e.Clock
		return
	case trace.TagGCPause:
		b.tl.GC = append(b.tl.GC, GCPause{Start: e.Clock, Dur: r.Double("duration microseconds"), N: r.Int("gc number")})
		return
	}
	if replay.Unmatched(e) {
		b.unmatch++
	}
	if r.Desc.Tag == trace.TagMsgRequestDone && e.M.Kind == trace.CallIrecv {
		b.received(int(e.Proc), e, b.sites.call(int(e.Sub), int(e.M.Site), trace.CallWait), seq)
	}
	site := -1
	switch {
	case r.Desc.Tag == trace.TagReadPageFaultServiced || r.Desc.Tag == trace.TagWritePageFaultServiced:
		if n := r.Int("instruction address"); n > 0 {
			site = b.sites.access(n)
		}
	case r.Desc.Index("subprogram number") >= 0:
		site = b.sites.get(int(e.Sub), int(e.Dir), -1)
	}
	b.order = append(b.order, procSeq{int(e.Proc), seq})
	b.tl.Instants = append(b.tl.Instants, Instant{
		Proc: int(e.Proc), Tag: r.Desc.Tag, Name: r.Desc.Name, Site: site,
		Time: e.Time, Clock: e.Clock, Seq: seq, Record: trace.DumpLine(r),
	})
}

type sendInfo struct {
	to, tag, site, seq int
	t                  float64
	bytes              int64
}

// msgOpen remembers the start of a send for its message line.
func (b *builder) msgOpen(iv *replay.Interval, e *replay.Event, site int) {
	switch iv.Code {
	case trace.CallSend, trace.CallSsend, trace.CallIsend, trace.CallSendrecv:
		if e.M.ID > 0 {
			if b.sends == nil {
				b.sends = map[[2]int]sendInfo{}
			}
			b.sends[[2]int{iv.Proc, int(e.M.ID)}] = sendInfo{to: int(e.M.Peer), tag: int(e.M.Tag), site: site, seq: iv.Seq0, t: iv.Start, bytes: e.M.Bytes}
		}
	}
}

// received draws the line of the message a receive completed (matched
// source and message id in e) at e's time.
func (b *builder) received(proc int, e *replay.Event, site, seq int) {
	k := [2]int{int(e.M.Src), int(e.M.MID)}
	s, ok := b.sends[k]
	if !ok || e.M.Src < 0 {
		return
	}
	delete(b.sends, k)
	b.tl.Messages = append(b.tl.Messages, Message{From: k[0], To: proc, Send: s.t, Recv: e.Time, Tag: s.tag, Bytes: s.bytes,
		SendSite: s.site, RecvSite: site, SendSeq: s.seq, RecvSeq: seq})
}

// finish sorts the timeline and says what was odd about the trace.
func (b *builder) finish(procs int, stats replay.OrderStats) *Timeline {
	tl := b.tl
	tl.Procs = procs
	tl.Sites = b.sites.list
	tl.Order = stats
	if tl.Records == 0 {
		b.start, b.end = 0, 0
	}
	if b.endedBlocked() {
		b.end = max(b.end, b.endT) // the run went on, blocked, until then
	}
	tl.Start, tl.End = b.start, b.end
	slices.SortStableFunc(tl.Intervals, func(x, y Interval) int {
		return cmp.Or(cmp.Compare(x.Proc, y.Proc), cmp.Compare(x.Seq0, y.Seq0))
	})
	slices.SortStableFunc(tl.Instants, func(x, y Instant) int {
		return cmp.Or(cmp.Compare(x.Proc, y.Proc), cmp.Compare(x.Seq, y.Seq))
	})
	b.steps()
	b.laneNames()
	if tl.Ended.Abnormal() || tl.Ended.Incomplete() {
		tl.Warnings = append([]string{tl.Ended.Summary()}, tl.Warnings...)
	}
	if b.unmatch > 0 {
		tl.Warnings = append(tl.Warnings, fmt.Sprintf("%d closing records without an open region, wait or measured interval (drawn as events)", b.unmatch))
	}
	if b.unclosed > 0 {
		tl.Warnings = append(tl.Warnings, fmt.Sprintf("%d regions, waits or measured intervals without a closing record (closed with the enclosing one or at the processor's last record)", b.unclosed))
	}
	if stats.Violations > 0 {
		tl.Warnings = append(tl.Warnings, fmt.Sprintf("%d records carry a clock earlier than a causal predecessor; they are drawn at the corrected time (largest correction %.3f µs)", stats.Violations, stats.MaxCorrection))
	}
	if stats.Forced > 0 {
		tl.Warnings = append(tl.Warnings, fmt.Sprintf("%d synchronisation constraints could not be met (incomplete barrier, lock never released) and were dropped from the order", stats.Forced))
	}
	return tl
}

// procSeq names an event by its processor and its place among the
// processor's events (Interval.Seq0, Seq1, Instant.Seq).
type procSeq struct{ proc, seq int }

// steps turns the order of the events into Steps of the sorted intervals
// and instants.
func (b *builder) steps() {
	tl := b.tl
	at := make(map[procSeq]Step, 2*len(tl.Intervals)+len(tl.Instants))
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		at[procSeq{iv.Proc, iv.Seq0}] = Step{Interval: i, Instant: -1, Open: true}
		at[procSeq{iv.Proc, iv.Seq1}] = Step{Interval: i, Instant: -1}
	}
	for j := range tl.Instants {
		at[procSeq{tl.Instants[j].Proc, tl.Instants[j].Seq}] = Step{Interval: -1, Instant: j}
	}
	tl.Steps = make([]Step, 0, len(b.order))
	for _, ps := range b.order {
		if st, ok := at[ps]; ok {
			tl.Steps = append(tl.Steps, st)
		}
	}
	b.order = nil
}

// GoLanes is the number of the timeline's lanes that are goroutines
// (laneNames), not processors.
func (tl *Timeline) GoLanes() int {
	n := 0
	for _, name := range tl.Lanes {
		if strings.Contains(name, "/g") {
			n++
		}
	}
	return n
}

// LaneOwner is the processor lane p belongs to and, for a goroutine's lane
// (laneNames' P0/g1), its number among that processor's lanes (0 for a
// processor's own).
func (tl *Timeline) LaneOwner(p int) (owner, lane int) {
	if p >= len(tl.Lanes) {
		return p, 0
	}
	name := tl.Lanes[p]
	o, g, ok := strings.Cut(strings.TrimPrefix(name, "P"), "/g")
	if !ok {
		return p, 0
	}
	owner, err1 := strconv.Atoi(o)
	lane, err2 := strconv.Atoi(g)
	if err1 != nil || err2 != nil {
		return p, 0
	}
	return owner, lane
}

// LaneTitle names lane p for other tools: "processor 1", or "processor 0
// goroutine lane 2" for a goroutine's lane.
func (tl *Timeline) LaneTitle(p int) string {
	owner, lane := tl.LaneOwner(p)
	if lane == 0 {
		return "processor " + itoa(p)
	}
	return "processor " + itoa(owner) + " goroutine lane " + itoa(lane)
}

// laneNames names the lanes of goroutines (rtlib/lanes.go) after their
// processor: P0/g1 is processor 0's first lane.
func (b *builder) laneNames() {
	if len(b.laneOwner) == 0 {
		return
	}
	tl := b.tl
	tl.Lanes = make([]string, tl.Procs)
	lanes := map[int]int{}
	for p := range tl.Lanes {
		owner, ok := b.laneOwner[p]
		if !ok {
			tl.Lanes[p] = "P" + itoa(p)
			continue
		}
		lanes[owner]++
		tl.Lanes[p] = "P" + itoa(owner) + "/g" + itoa(lanes[owner])
	}
}
