package view

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/progdb"
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
// causally consistent order first (analysis.OrderFile); each processor's
// records keep the order it wrote them in. Errors of a damaged trace name
// the file and the byte offset (the trace reader's errors).
func Build(ra io.ReaderAt, size int64, name string, opt Options) (*Timeline, error) {
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return nil, err
	}
	if opt.Prog == nil {
		p, err := analysis.ProgramInfo(rd.Attrs(), name)
		if err != nil && err != analysis.ErrNoProgramInfo {
			return nil, err
		}
		opt.Prog = p
	}
	procs := opt.Procs
	for _, a := range rd.Attrs() {
		if a.Key == "processors" && procs == 0 {
			if n, err := strconv.Atoi(a.Value); err == nil && n > 0 && n <= 1<<16 {
				procs = n
			}
		}
	}
	b := newBuilder(name, opt.Prog)
	stats, err := analysis.OrderFile(ra, size, name, analysis.OrderOptions{Prog: opt.Prog, Procs: procs}, b.add)
	if err != nil {
		return nil, err
	}
	return b.finish(procs, stats), nil
}

// maxProcs bounds the node ids the view accepts (a lane each).
const maxProcs = 1 << 16

// open is an interval not closed yet.
type open struct {
	iv       int       // index into Timeline.Intervals
	end      trace.Tag // the record that closes it
	sub, dir int       // a measured interval: its level, 0
	code     int       // region type, -1 for waits and holds, -2 for measured intervals
	name     string    // a measured interval's name
}

type procState struct {
	stack []open
	seq   int
	last  float64 // corrected time of the latest record
	clock float64 // and its clock
}

type builder struct {
	tl       *Timeline
	sites    *sites
	procs    []*procState
	start    float64
	end      float64
	unmatch  int
	unclosed int
}

func newBuilder(name string, prog *progdb.Program) *builder {
	tl := &Timeline{Trace: name, Ended: analysis.RunEnd{Status: -1, StatusName: analysis.EndStatusName(-1), NotStopped: []int{}}}
	if prog != nil {
		tl.Program = prog.Package
	}
	return &builder{tl: tl, sites: newSites(prog), start: math.Inf(1), end: math.Inf(-1)}
}

func (b *builder) proc(n int) *procState {
	for len(b.procs) <= n {
		b.procs = append(b.procs, &procState{})
	}
	return b.procs[n]
}

// field returns the int scalar field called name and whether it exists.
func field(r *trace.Record, name string) (int, bool) {
	i := r.Desc.Index(name)
	if i < 0 || i >= len(r.Values) || r.Desc.Fields[i].Dims != 0 {
		return 0, false
	}
	return r.Values[i].Int, true
}

// add takes the next event of the causally consistent order.
func (b *builder) add(e *analysis.Event) error {
	r := e.Record
	if e.Node < 0 || e.Node >= maxProcs {
		return fmt.Errorf("%s: record %q #%d: node id %d is not a processor number (0..%d)", b.tl.Trace, r.Desc.Name, b.tl.Records+1, e.Node, maxProcs-1)
	}
	b.tl.Records++
	switch r.Desc.Tag {
	case trace.TagStatInterval, trace.TagStatGroup:
		return nil // the runtime's statistics, written after the run: no event of a processor
	case trace.TagTraceEnd:
		b.tl.Ended = analysis.RunEndOf(r)
		return nil
	}
	ps := b.proc(e.Node)
	t := e.Time
	ps.last, ps.clock = t, e.Clock
	b.start, b.end = min(b.start, t), max(b.end, t)
	sub, hasSub := field(r, "subprogram number")
	dir, _ := field(r, "directive number")
	switch tag := r.Desc.Tag; tag {
	case trace.TagTraceRegionStart:
		code, _ := field(r, "trace region type")
		b.push(e, regionKind(code), b.sites.get(sub, dir, code), open{end: trace.TagTraceRegionStop, sub: sub, dir: dir, code: code})
	case trace.TagWaitBarrierStart:
		k := KindBarrier
		if b.implicit(ps, sub, dir) {
			k = KindImplicitBarrier
		}
		b.pushWait(e, k, trace.TagWaitBarrierStop, sub, dir)
	case trace.TagWaitBCheckoutStart:
		b.pushWait(e, KindCheckout, trace.TagWaitBCheckoutStop, sub, dir)
	case trace.TagWaitLockStart:
		b.pushWait(e, KindLockWait, trace.TagWaitLockStop, sub, dir)
	case trace.TagWaitCritSecStart:
		b.pushWait(e, KindCriticalWait, trace.TagWaitCritSecStop, sub, dir)
	case trace.TagMeasureStart:
		level, _ := field(r, "level")
		name := r.String("name")
		b.push(e, KindMeasure, b.sites.measure(level, name), open{end: trace.TagMeasureFinish, sub: level, code: -2, name: name})
	case trace.TagMeasureFinish:
		level, _ := field(r, "level")
		if !b.pop(e, open{end: tag, sub: level, code: -2, name: r.String("name")}) {
			b.unmatch++
			b.instant(e, false, 0, 0)
		}
	case trace.TagTraceRegionStop:
		code, _ := field(r, "trace region type")
		b.popOrWarn(e, tag, hasSub, sub, dir, code)
	case trace.TagWaitBarrierStop, trace.TagWaitBCheckoutStop:
		b.popOrWarn(e, tag, hasSub, sub, dir, -1)
	case trace.TagWaitLockStop:
		b.popOrWarn(e, tag, hasSub, sub, dir, -1)
		// An atomic update takes the lock and gives it back without a
		// release-lock record: nothing is held afterwards.
		if d := b.sites.directive(sub, dir); d == nil || d.Site != progdb.SiteAtomic {
			b.pushWait(e, KindLockHeld, trace.TagReleaseLock, sub, dir)
		}
	case trace.TagWaitCritSecStop:
		b.popOrWarn(e, tag, hasSub, sub, dir, -1)
		b.pushWait(e, KindCriticalHeld, trace.TagExitCritSec, sub, dir)
	case trace.TagReleaseLock, trace.TagExitCritSec:
		if !b.pop(e, open{end: tag, sub: sub, dir: dir, code: -1}) {
			// A release without a grant (an atomic update, or a lock
			// taken before tracing began): an event, not an error.
			b.instant(e, hasSub, sub, dir)
		}
	default:
		b.instant(e, hasSub, sub, dir)
	}
	return nil
}

// implicit reports whether a barrier is the implicit one that ends a
// construct: its directive is the construct's, or one of the processor's
// open regions was opened by the same directive.
func (b *builder) implicit(ps *procState, sub, dir int) bool {
	if d := b.sites.directive(sub, dir); d != nil {
		return d.ImplicitBarrier
	}
	for i := len(ps.stack) - 1; i >= 0; i-- {
		o := ps.stack[i]
		if o.code >= 0 && o.sub == sub && o.dir == dir && dir != 0 {
			return true
		}
	}
	return false
}

func (b *builder) pushWait(e *analysis.Event, k Kind, end trace.Tag, sub, dir int) {
	b.push(e, k, b.sites.get(sub, dir, -1), open{end: end, sub: sub, dir: dir, code: -1})
}

func (b *builder) push(e *analysis.Event, k Kind, site int, o open) {
	ps := b.proc(e.Node)
	o.iv = len(b.tl.Intervals)
	b.tl.Intervals = append(b.tl.Intervals, Interval{
		Proc: e.Node, Kind: k, Site: site, Depth: len(ps.stack),
		Start: e.Time, Clock0: e.Clock, Seq0: ps.seq,
	})
	ps.seq++
	ps.stack = append(ps.stack, o)
}

// popOrWarn is pop for records that must close something: one that does
// not is counted and drawn as an instant.
func (b *builder) popOrWarn(e *analysis.Event, tag trace.Tag, hasSub bool, sub, dir, code int) {
	if !b.pop(e, open{end: tag, sub: sub, dir: dir, code: code}) {
		b.unmatch++
		b.instant(e, hasSub, sub, dir)
	}
}

// pop closes the innermost open interval that the record closes (same
// closing record, sub, dir, code and name as k); the intervals opened
// inside it and still open end with it, marked unclosed. It reports false
// when nothing open matches.
func (b *builder) pop(e *analysis.Event, k open) bool {
	ps := b.proc(e.Node)
	for i := len(ps.stack) - 1; i >= 0; i-- {
		o := ps.stack[i]
		if o.end != k.end || o.sub != k.sub || o.dir != k.dir || o.code != k.code || o.name != k.name {
			continue
		}
		for j := len(ps.stack) - 1; j > i; j-- {
			b.close(ps, ps.stack[j], e.Time, e.Clock, true)
		}
		b.close(ps, o, e.Time, e.Clock, false)
		ps.stack = ps.stack[:i]
		return true
	}
	return false
}

func (b *builder) close(ps *procState, o open, t, clock float64, unclosed bool) {
	iv := &b.tl.Intervals[o.iv]
	iv.End, iv.Clock1, iv.Seq1, iv.Unclosed = t, clock, ps.seq, unclosed
	ps.seq++
	if unclosed {
		b.unclosed++
	}
}

func (b *builder) instant(e *analysis.Event, hasSub bool, sub, dir int) {
	ps := b.proc(e.Node)
	site := -1
	if hasSub {
		site = b.sites.get(sub, dir, -1)
	}
	b.tl.Instants = append(b.tl.Instants, Instant{
		Proc: e.Node, Tag: e.Record.Desc.Tag, Name: e.Record.Desc.Name, Site: site,
		Time: e.Time, Clock: e.Clock, Seq: ps.seq, Record: trace.DumpLine(e.Record),
	})
	ps.seq++
}

// finish closes what is still open at each processor's last record and
// sorts the timeline.
func (b *builder) finish(procs int, stats analysis.OrderStats) *Timeline {
	tl := b.tl
	for _, ps := range b.procs {
		for j := len(ps.stack) - 1; j >= 0; j-- {
			b.close(ps, ps.stack[j], ps.last, ps.clock, true)
		}
		ps.stack = nil
	}
	tl.Procs = max(procs, len(b.procs))
	tl.Sites = b.sites.list
	tl.Order = stats
	if tl.Records == 0 {
		b.start, b.end = 0, 0
	}
	tl.Start, tl.End = b.start, b.end
	slices.SortStableFunc(tl.Intervals, func(x, y Interval) int {
		return cmp.Or(cmp.Compare(x.Proc, y.Proc), cmp.Compare(x.Seq0, y.Seq0))
	})
	slices.SortStableFunc(tl.Instants, func(x, y Instant) int {
		return cmp.Or(cmp.Compare(x.Proc, y.Proc), cmp.Compare(x.Seq, y.Seq))
	})
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
