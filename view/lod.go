package view

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// A trace of tens of millions of records cannot be drawn record by record:
// Build would hold every interval (5 M records took 18 s and 2.3 GB), and a
// page would carry them all. Its level-of-detail timeline (LOD) is made in
// one pass over the processors' streams, each by a goroutine of its own and
// with no consistent order across them (times are the records' clocks):
//
//   - per lane, nesting depth and one of Buckets equal parts of the run,
//     the kind of interval that covers most of it and how much of it is
//     covered, and per lane and part the number of records: the page
//     draws these summaries, a bucket a bar, when a part of the run shows
//     more records than it can draw;
//   - per lane and buffer run (the runtime writes a processor's records a
//     buffer at a time) its first clock and the intervals open where it
//     starts: Window decodes the runs that hold a part of the run from
//     there, and builds the ordinary timeline of that part, which svmc
//     view --serve hands to the page as one zooms in.

// LODBuckets is the default number of parts of the run the summaries have.
const LODBuckets = 4096

// LODLimit is the most records a window may hold for Window to build it.
const LODLimit = 400_000

// LOD is the level-of-detail timeline of a large trace.
type LOD struct {
	Trace      string
	Prog       *progdb.Program
	Procs      int // lanes: processors and goroutine lanes
	Start, End float64
	Records    int64
	Buckets    int
	// Limit is the most records a window holds (Window, the page's
	// fetches): LODLimit unless changed.
	Limit int
	Lanes []LODLane
	GC    []GCPause
	Ended analysis.RunEnd // how the run ended (its trace-end record)
	st    *replay.Streams
	runs  [][]lodRun // per lane and run
}

// LODLane is one lane's summaries.
type LODLane struct {
	Name string
	// Rows are per nesting depth and bucket the kind covering most of the
	// bucket (-1: none) and the part of the bucket covered, in percent.
	Rows [][]LODCell
	// Records per bucket; Busy, Wait: time inside regions and not
	// waiting, and waiting, summed over the run.
	Records    []int32
	Busy, Wait float64
}

// LODCell is one bucket of one row.
type LODCell struct {
	Kind  int8
	Cover uint8
}

type lodRun struct {
	first float64
	open  []replay.Interval
	seq   int
}

// BuildLOD makes the level-of-detail timeline of a binary trace in
// buckets parts (0: LODBuckets).
func BuildLOD(ra io.ReaderAt, size int64, name string, opt Options, buckets int) (*LOD, error) {
	st, err := replay.OpenStreams(ra, size, name)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("%s: the view of a large trace reads binary traces (svmc trace convert --to binary)", name)
	}
	if opt.Prog, err = replay.Info(opt.Prog, st.Attrs(), name); err != nil {
		return nil, err
	}
	if buckets <= 0 {
		buckets = LODBuckets
	}
	l := &LOD{Trace: name, Prog: opt.Prog, Procs: st.Nodes(), Buckets: buckets, Limit: LODLimit, st: st,
		Ended: analysis.RunEnd{Status: -1, StatusName: analysis.EndStatusName(-1), NotStopped: []int{}},
		Lanes: make([]LODLane, st.Nodes()), runs: make([][]lodRun, st.Nodes())}
	if procs := replay.Processors(st.Attrs()); procs > l.Procs {
		l.Procs = procs
		l.Lanes = append(l.Lanes, make([]LODLane, procs-st.Nodes())...)
		l.runs = append(l.runs, make([][]lodRun, procs-st.Nodes())...)
	}
	if err := l.span(); err != nil {
		return nil, err
	}
	// The streams, side by side.
	sums := make([]*lodSum, st.Nodes())
	errs := make([]error, st.Nodes())
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), st.Nodes()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range next {
				sums[q], errs[q] = l.summarize(q)
			}
		}()
	}
	for q := range st.Nodes() {
		next <- q
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	owners := map[int]int{}
	for q, s := range sums {
		l.Records += s.records
		l.GC = append(l.GC, s.gc...)
		if s.ended != nil {
			l.Ended = *s.ended
		}
		l.runs[q] = s.runs
		l.Lanes[q] = s.lane(l)
		if s.owner >= 0 {
			owners[s.owner]++
			l.Lanes[q].Name = "P" + strconv.Itoa(s.owner) + "/g" + strconv.Itoa(owners[s.owner])
		}
	}
	for q := range l.Lanes {
		if l.Lanes[q].Name == "" {
			l.Lanes[q].Name = "P" + strconv.Itoa(q)
		}
	}
	return l, nil
}

// span finds the run's first and last clock: the first record of each
// stream, and the last run of each.
func (l *LOD) span() error {
	l.Start, l.End = math.Inf(1), math.Inf(-1)
	for q := range l.st.Nodes() {
		if err := l.st.Decode(q, 0, false, func(e *replay.Event, _ int) error {
			if replay.AfterRun(e.Tag) {
				return nil
			}
			l.Start = min(l.Start, e.Clock)
			return replay.Stop
		}); err != nil {
			return err
		}
		if err := l.st.Decode(q, max(0, l.st.Runs(q)-1), false, func(e *replay.Event, _ int) error {
			if !replay.AfterRun(e.Tag) {
				l.End = max(l.End, e.Clock)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if l.Start > l.End {
		l.Start, l.End = 0, 0
	}
	return nil
}

// bucket is the bucket of time t (clamped).
func (l *LOD) bucket(t float64) int {
	w := l.End - l.Start
	if w <= 0 {
		return 0
	}
	return min(max(int(float64(l.Buckets)*(t-l.Start)/w), 0), l.Buckets-1)
}

// lodSum is the pass over one stream (a replay.Handler).
type lodSum struct {
	replay.Nop
	l       *LOD
	cover   [][]float32 // per depth: bucket*NumKinds + kind
	records int64
	counts  []int32
	runs    []lodRun
	gc      []GCPause
	ended   *analysis.RunEnd
	owner   int // a goroutine lane's processor, -1
	busy    float64
	wait    float64
}

func (l *LOD) summarize(q int) (*lodSum, error) {
	s := &lodSum{l: l, counts: make([]int32, l.Buckets), owner: -1}
	rp := replay.New(l.Prog, s)
	run := -1
	err := l.st.Decode(q, 0, false, func(e *replay.Event, k int) error {
		s.records++
		if replay.AfterRun(e.Tag) {
			s.afterRun(e)
			return nil
		}
		for run < k { // a run begins: what is open before its first record
			run++
			open := rp.Open(q)
			cp := lodRun{first: e.Clock, seq: rp.Seq(q), open: make([]replay.Interval, len(open))}
			for i, iv := range open {
				cp.open[i] = *iv
			}
			s.runs = append(s.runs, cp)
		}
		s.counts[l.bucket(e.Clock)]++
		rp.Add(e)
		return nil
	})
	rp.Finish()
	return s, err
}

func (s *lodSum) afterRun(e *replay.Event) {
	switch e.Tag {
	case trace.TagTraceEnd:
		if e.Rec != nil {
			end := analysis.RunEndOf(e.Rec)
			s.ended = &end
		}
	case trace.TagGCPause:
		if r := e.Rec; r != nil {
			s.gc = append(s.gc, GCPause{Start: e.Clock, Dur: r.Double("duration microseconds"), N: r.Int("gc number")})
		}
	}
}

func (s *lodSum) Open(iv *replay.Interval, e *replay.Event) {
	if iv.Kind == replay.KindGoroutine {
		s.owner = iv.Code
	}
}

// Close adds the interval's time to the buckets it covers.
func (s *lodSum) Close(iv *replay.Interval, _ *replay.Event) {
	l := s.l
	k := intervalKind(iv)
	d := iv.Depth
	if k.IsWait() {
		s.wait += iv.End - iv.Start
	}
	if d == 0 && (k.IsRegion() || k == KindGoroutine) { // a goroutine's life counts as busy, as in Summarize
		s.busy += iv.End - iv.Start
	}
	for len(s.cover) <= d {
		s.cover = append(s.cover, nil)
	}
	if s.cover[d] == nil {
		s.cover[d] = make([]float32, l.Buckets*int(NumKinds))
	}
	row := s.cover[d]
	w := (l.End - l.Start) / float64(l.Buckets)
	b0, b1 := l.bucket(iv.Start), l.bucket(iv.End)
	for b := b0; b <= b1; b++ {
		lo := max(iv.Start, l.Start+float64(b)*w)
		hi := min(iv.End, l.Start+float64(b+1)*w)
		if hi > lo {
			row[b*int(NumKinds)+int(k)] += float32(hi - lo)
		} else if b0 == b1 {
			row[b*int(NumKinds)+int(k)] += float32(w) * 1e-3 // an instant-long interval: still seen
		}
	}
}

// lane turns the sums into the lane's summaries.
func (s *lodSum) lane(l *LOD) LODLane {
	ln := LODLane{Records: s.counts, Busy: s.busy - s.wait, Wait: s.wait}
	w := (l.End - l.Start) / float64(l.Buckets)
	for _, row := range s.cover {
		cells := make([]LODCell, l.Buckets)
		for b := range cells {
			cells[b].Kind = -1
			if row == nil {
				continue
			}
			var tot, best float32
			for k := range int(NumKinds) {
				v := row[b*int(NumKinds)+k]
				tot += v
				if v > best {
					best, cells[b].Kind = v, int8(k)
				}
			}
			if w > 0 {
				cells[b].Cover = uint8(min(100, math.Ceil(100*float64(tot)/w)))
			}
		}
		ln.Rows = append(ln.Rows, cells)
	}
	return ln
}

// RecordsIn is the number of records in the buckets that meet [t0, t1].
func (l *LOD) RecordsIn(t0, t1 float64) int64 {
	var n int64
	for q := range l.Lanes {
		c := l.Lanes[q].Records
		if c == nil {
			continue
		}
		for b := l.bucket(t0); b <= l.bucket(t1); b++ {
			n += int64(c[b])
		}
	}
	return n
}

// ErrWindowTooLarge is Window's error for a part of the run that holds
// more records than it builds.
var ErrWindowTooLarge = errors.New("view: too many records in the window")

// Window builds the ordinary timeline of the part [t0, t1] of the run
// (absolute clocks): the intervals that meet it and the records in it, of
// every lane, decoded from the buffer run that holds t0 on. Its Start and
// End are the whole run's, so that its times fit the summaries; an
// interval still open at t1 ends there. It holds at most limit records
// (0: LODLimit), else ErrWindowTooLarge.
func (l *LOD) Window(t0, t1 float64, limit int) (*Timeline, error) {
	if limit <= 0 {
		limit = LODLimit
	}
	if n := l.RecordsIn(t0, t1); n > int64(limit) {
		return nil, fmt.Errorf("%w: about %d, at most %d", ErrWindowTooLarge, n, limit)
	}
	b := newBuilder(l.Trace, l.Prog)
	b.window = &windowCut{t0: t0, t1: t1, stopped: map[int]bool{}}
	rp := replay.New(l.Prog, b)
	for q := range l.st.Nodes() {
		runs := l.runs[q]
		if len(runs) == 0 {
			continue
		}
		firsts := make([]float64, len(runs))
		for k := range runs {
			firsts[k] = runs[k].first
		}
		k := replay.RunOf(firsts, t0)
		rp.Resume(q, runs[k].open, runs[k].seq)
		err := l.st.Decode(q, k, true, func(e *replay.Event, _ int) error {
			if replay.AfterRun(e.Tag) {
				return nil
			}
			if e.Clock > t1 {
				b.window.stopped[q] = true
				return replay.Stop
			}
			b.tl.Records++
			rp.Add(e)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	rp.Finish()
	tl := b.finish(l.Procs, replay.OrderStats{})
	tl.Start, tl.End = l.Start, l.End
	tl.Lanes = make([]string, l.Procs)
	for q := range tl.Lanes {
		tl.Lanes[q] = l.Lanes[q].Name
	}
	tl.Steps = nil
	// What lies before t0 was decoded only to know what is open there.
	ivs := tl.Intervals[:0]
	for _, iv := range tl.Intervals {
		if iv.End >= t0 {
			ivs = append(ivs, iv)
		}
	}
	tl.Intervals = ivs
	ins := tl.Instants[:0]
	for _, in := range tl.Instants {
		if in.Time >= t0 && in.Time <= t1 {
			ins = append(ins, in)
		}
	}
	tl.Instants = ins
	ms := tl.Messages[:0]
	for _, m := range tl.Messages {
		if m.Recv >= t0 && m.Send <= t1 {
			ms = append(ms, m)
		}
	}
	tl.Messages = ms
	tl.Warnings = nil
	return tl, nil
}

// windowCut is the part of the run a builder builds (LOD.Window): an
// interval its lane's decoding stopped inside ends at t1, not at the last
// record decoded.
type windowCut struct {
	t0, t1  float64
	stopped map[int]bool
}
