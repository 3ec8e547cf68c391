package analysis

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// ErrNoProgramInfo is returned by ProgramInfo for a trace without the
// "svmc program info" stream attribute.
var ErrNoProgramInfo = replay.ErrNoProgramInfo

// ProgramInfo decodes the program information a trace carries in its
// stream attributes (replay.ProgramInfo).
func ProgramInfo(attrs []trace.Attr, name string) (*progdb.Program, error) {
	return replay.ProgramInfo(attrs, name)
}

// attrInt returns the integer value of a stream attribute, or def.
func attrInt(attrs []trace.Attr, key string, def int) int {
	for _, a := range attrs {
		if a.Key == key {
			if n, err := strconv.Atoi(a.Value); err == nil {
				return n
			}
		}
	}
	return def
}

// Options configure Analyze.
type Options struct {
	// Prog is the program information; nil takes it from the trace's
	// stream attribute (and works without when there is none: rows are
	// then named by numbers).
	Prog *progdb.Program
	// Procs is N; 0 takes the trace's "processors" attribute, else the
	// processors seen.
	Procs int
	// FileOrder reads the records in file order instead of the causally
	// consistent order; the model is the same, the clock condition is not
	// checked and loop instances wait in memory until all their members'
	// records have been read.
	FileOrder bool
	// Lookahead bounds Order's look-ahead (DefaultLookahead if 0).
	Lookahead int
	// Progress, if set, is called every 1<<16 records with the number of
	// records read.
	Progress func(records int64)
	// Cost is the machine the locality analysis predicts for
	// (DefaultCost if zero).
	Cost CostModel
}

// Analyze builds the model of the trace rd reads. Records of a processor
// must be in the order it wrote them (as every svmc trace has them);
// processors may interleave in any way. Errors of the trace (a
// *trace.CorruptError with its byte offset) are returned as they are.
func Analyze(rd *trace.Reader, opt Options) (*Model, error) {
	return analyze(rd.Attrs(), opt, func(o replay.OrderOptions, fn func(*replay.Event) error) (replay.OrderStats, error) {
		if opt.FileOrder {
			n, err := replay.Decode(rd, false, fn)
			return replay.OrderStats{Records: n}, err
		}
		return replay.Order(rd, o, fn)
	})
}

// AnalyzeFile is Analyze for the trace file at path. A binary trace is read
// one processor at a time through an index of its buffer runs (see
// replay.OrderFile), so the causally consistent order needs no look-ahead.
func AnalyzeFile(path string, opt Options) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return AnalyzeReaderAt(f, fi.Size(), path, opt)
}

// AnalyzeReaderAt is AnalyzeFile for any random-access input of the given
// size; name is used in error messages.
func AnalyzeReaderAt(ra io.ReaderAt, size int64, name string, opt Options) (*Model, error) {
	return analyzeReaderAt(ra, size, name, opt, true)
}

// analyzeOrdered is AnalyzeReaderAt through the consistent order's merge
// whatever the clocks (tests and benchmarks compare the two paths).
func analyzeOrdered(ra io.ReaderAt, size int64, name string, opt Options) (*Model, error) {
	return analyzeReaderAt(ra, size, name, opt, false)
}

func analyzeReaderAt(ra io.ReaderAt, size int64, name string, opt Options, clock bool) (*Model, error) {
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return nil, err
	}
	if err := replay.CheckInfo(opt.Prog, rd.Attrs(), name); err != nil {
		return nil, err
	}
	if opt.FileOrder {
		m, err := Analyze(rd, opt)
		return analyzeTruncated(ra, size, name, opt, m, err)
	}
	// Where the processors' clocks agree with every causal edge (one
	// machine and one clock: svmc's common case) the consistent order
	// changes nothing the model depends on, and the model is built from
	// the processors' streams taken one by one, twice as fast; a trace
	// that needs the order (messages, page transfers, clocks that
	// contradict a barrier, lock or critical section) is read again
	// through it.
	if !clock {
		return analyzeConsistent(ra, size, name, rd.Attrs(), opt)
	}
	m, err := analyzeWith(rd.Attrs(), opt, func(o replay.OrderOptions, fn func(*replay.Event) error) (replay.OrderStats, error) {
		st, ok, err := replay.ClockOrderFile(ra, size, name, o, fn)
		if err == nil && !ok {
			err = errNeedsOrder
		}
		return st, err
	}, false, true)
	if !errors.Is(err, errNeedsOrder) {
		return analyzeTruncated(ra, size, name, opt, m, err)
	}
	return analyzeConsistent(ra, size, name, rd.Attrs(), opt)
}

// analyzeConsistent builds the model from the records in the consistent
// order (replay.OrderFile).
func analyzeConsistent(ra io.ReaderAt, size int64, name string, attrs []trace.Attr, opt Options) (*Model, error) {
	m, err := analyze(attrs, opt, func(o replay.OrderOptions, fn func(*replay.Event) error) (replay.OrderStats, error) {
		return replay.OrderFile(ra, size, name, o, fn)
	})
	return analyzeTruncated(ra, size, name, opt, m, err)
}

// errNeedsOrder says that a trace's records must be put in the consistent
// order (replay.ClockOrderFile gave up).
var errNeedsOrder = errors.New("analysis: the trace needs the consistent order")

// truncated reports whether err says the trace ends in the middle of a
// packet: a run killed while writing, or a file cut short.
func truncated(err error) (*trace.CorruptError, bool) {
	var ce *trace.CorruptError
	if errors.As(err, &ce) && strings.HasPrefix(ce.Msg, "unexpected end of input") {
		return ce, true
	}
	return nil, false
}

// analyzeTruncated passes m and err on, except for a truncated trace: it
// is analysed again in file order up to the damage, with a warning, as
// otf2-print reads a damaged archive. Damage of any other kind stays an
// error.
func analyzeTruncated(ra io.ReaderAt, size int64, name string, opt Options, m *Model, err error) (*Model, error) {
	ce, ok := truncated(err)
	if !ok {
		return m, err
	}
	rd, rerr := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if rerr != nil {
		return nil, err
	}
	src := &untilTruncation{rd: rd}
	m, err2 := analyze(rd.Attrs(), opt, func(o replay.OrderOptions, fn func(*replay.Event) error) (replay.OrderStats, error) {
		return replay.Order(src, o, fn)
	})
	if err2 != nil {
		return nil, err2
	}
	m.Warnings = append(m.Warnings, fmt.Sprintf("the trace is truncated (%v): the figures cover the %d records before the damage", ce, m.Records))
	return m, nil
}

// untilTruncation ends the records where the trace is truncated.
type untilTruncation struct{ rd *trace.Reader }

func (u *untilTruncation) Next() (*trace.Record, error) {
	r, err := u.rd.Next()
	if _, ok := truncated(err); ok {
		return nil, io.EOF
	}
	return r, err
}

// analyze runs order (the records in file order or in a causally
// consistent one) into a builder.
func analyze(attrs []trace.Attr, opt Options, order func(replay.OrderOptions, func(*replay.Event) error) (replay.OrderStats, error)) (*Model, error) {
	return analyzeWith(attrs, opt, order, true, false)
}

// analyzeWith is analyze with the model built by a goroutine of its own a
// batch of events behind order (piped: the merge, the decoders and the
// model each take about a third of a report's work) or in order's
// goroutine (the clock-order path, whose decoding is its only other work).
// lanesFirst: order brings every goroutine lane's records before the
// processors' (replay.ClockOrderFile), so the model keeps the leader's
// serial time as pieces only once it has seen a goroutine.
func analyzeWith(attrs []trace.Attr, opt Options, order func(replay.OrderOptions, func(*replay.Event) error) (replay.OrderStats, error), piped, lanesFirst bool) (*Model, error) {
	prog := opt.Prog
	if err := replay.CheckInfo(prog, attrs, "the trace"); err != nil {
		return nil, err
	}
	if prog == nil {
		p, err := ProgramInfo(attrs, "trace")
		if err != nil && err != ErrNoProgramInfo {
			return nil, err
		}
		prog = p
	}
	procs := opt.Procs
	if procs <= 0 {
		procs = attrInt(attrs, "processors", 0)
		if procs < 0 || procs > 1<<16 {
			procs = 0
		}
	}
	b := newBuilder(prog, procs, attrInt(attrs, "stage", -1))
	b.keepWaits = attrInt(attrs, "svmc gc pauses", 0) == 1
	b.lanesFirst = lanesFirst
	b.cpus = max(0, attrInt(attrs, "cpus", 0))
	for _, a := range attrs {
		if a.Key == "svmc started by" {
			b.startedBy = a.Value
		}
	}
	b.cost = opt.Cost
	if b.cost == (CostModel{}) {
		b.cost = DefaultCost
	}
	add := b.add
	if opt.Progress != nil {
		add = func(e *replay.Event) {
			b.add(e)
			if b.records&(1<<16-1) == 0 {
				opt.Progress(b.records)
			}
		}
	}
	var st replay.OrderStats
	var err error
	oo := replay.OrderOptions{Procs: procs, Lookahead: opt.Lookahead, Prog: prog}
	if piped {
		p := newPipe(add)
		st, err = order(oo, p.put)
		p.close()
	} else if opt.Progress == nil {
		// The order calls the builder directly: a closure around it was
		// a call more per record on the report's busiest goroutine.
		st, err = order(oo, b.addEvent)
	} else {
		st, err = order(oo, func(e *replay.Event) error { add(e); return nil })
	}
	if err != nil {
		return nil, err
	}
	m := b.model()
	if m.Stage == 0 && m.Records > 0 {
		m.Narrowed = true
		m.Warnings = append(m.Warnings, "the trace is narrowed (stage 0 with LOCAL requests): it holds the requested regions only, so T, the shares and the findings are of those regions, and nothing is concluded about the rest of the program")
	}
	if w := untracedWarning(m); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	if opt.FileOrder {
		return m, nil
	}
	m.Order = &st
	if st.Forced > 0 {
		m.Warnings = append(m.Warnings, forcedWarning(m, st.Forced))
	}
	return m, nil
}

// pipe hands events to a consumer goroutine in batches, in order.
type pipe struct {
	batch []replay.Event
	full  chan []replay.Event
	free  chan []replay.Event
	done  chan struct{}
}

const pipeBatch = 1024

func newPipe(consume func(*replay.Event)) *pipe {
	p := &pipe{full: make(chan []replay.Event, 4), free: make(chan []replay.Event, 6), done: make(chan struct{})}
	p.batch = make([]replay.Event, 0, pipeBatch)
	go func() {
		defer close(p.done)
		for b := range p.full {
			for i := range b {
				consume(&b[i])
			}
			select {
			case p.free <- b[:0]:
			default:
			}
		}
	}()
	return p
}

// put copies e (the merge reuses it; its Rec, Arr and M stay valid) into
// the batch.
func (p *pipe) put(e *replay.Event) error {
	p.batch = append(p.batch, *e)
	if len(p.batch) == pipeBatch {
		p.full <- p.batch
		select {
		case p.batch = <-p.free:
		default:
			p.batch = make([]replay.Event, 0, pipeBatch)
		}
	}
	return nil
}

// close hands over the last batch and waits for the consumer.
func (p *pipe) close() {
	if len(p.batch) > 0 {
		p.full <- p.batch
	}
	close(p.full)
	<-p.done
}

// forcedWarning says that forced constraints of the consistent order
// could not be met; in a trace cut short (no trace-end) each processor's
// records end where its last buffer was handed over, so the barrier
// instances after the earliest of those ends are incomplete: it says so
// with the ends.
func forcedWarning(m *Model, forced int64) string {
	msg := fmt.Sprintf("%d synchronisation constraints could not be met in the consistent order (incomplete barrier instances or lock records)", forced)
	if m.Ended.Recorded || len(m.PerProc) < 2 {
		return msg
	}
	first, last := -1, -1
	for p, pt := range m.PerProc {
		if pt.Records == 0 {
			continue
		}
		if first < 0 || pt.Last < m.PerProc[first].Last {
			first = p
		}
		if last < 0 || pt.Last > m.PerProc[last].Last {
			last = p
		}
	}
	if first < 0 || first == last {
		return msg
	}
	return fmt.Sprintf("%d synchronisation constraints could not be met in the consistent order: the trace was cut short (no trace-end), and the processors' records end at different times (processor %d's at %s, processor %d's at %s, where each handed over its last buffer), so the instances after the earliest end are incomplete",
		forced, first, Dur(m.PerProc[first].Last-m.Start), last, Dur(m.PerProc[last].Last-m.Start))
}
