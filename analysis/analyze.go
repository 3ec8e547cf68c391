package analysis

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// progAttr is the stream attribute that carries the program information.
const progAttr = "svmc program info"

// ErrNoProgramInfo is returned by ProgramInfo for a trace without the
// "svmc program info" stream attribute.
var ErrNoProgramInfo = errors.New(`the trace has no program information (stream attribute "svmc program info")`)

// ProgramInfo decodes the program information a trace carries in its
// stream attributes. It rejects program information files of a version it
// does not know (progdb's error); it returns ErrNoProgramInfo when there is
// none. name is used in error messages.
func ProgramInfo(attrs []trace.Attr, name string) (*progdb.Program, error) {
	for _, a := range attrs {
		if a.Key == progAttr {
			return progdb.Unmarshal([]byte(a.Value), name+`: stream attribute "svmc program info"`)
		}
	}
	return nil, ErrNoProgramInfo
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
}

// Analyze builds the model of the trace rd reads. Records of a processor
// must be in the order it wrote them (as every svmc trace has them);
// processors may interleave in any way. Errors of the trace (a
// *trace.CorruptError with its byte offset) are returned as they are.
func Analyze(rd *trace.Reader, opt Options) (*Model, error) {
	return analyze(rd.Attrs(), opt, func(o *orderer) { o.in = &windowInput{src: rd} }, rd)
}

// AnalyzeFile is Analyze for the trace file at path. A binary trace is read
// one processor at a time through an index of its buffer runs (see
// OrderFile), so the causally consistent order needs no look-ahead.
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
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return nil, err
	}
	if opt.FileOrder || rd.Format() != trace.Binary {
		return Analyze(rd, opt)
	}
	ni, err := newNodeInput(ra, size, name)
	if err != nil || ni == nil {
		return Analyze(rd, opt) // not indexable: the reader reports the damage
	}
	return analyze(rd.Attrs(), opt, func(o *orderer) {
		o.grow(len(ni.readers))
		o.in = ni
	}, nil)
}

func analyze(attrs []trace.Attr, opt Options, setInput func(*orderer), fileOrder *trace.Reader) (*Model, error) {
	prog := opt.Prog
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
	var count int64
	progress := func() {
		count++
		if opt.Progress != nil && count&(1<<16-1) == 0 {
			opt.Progress(count)
		}
	}
	if opt.FileOrder && fileOrder != nil {
		dec := newDecoder()
		var e ev
		for {
			r, err := fileOrder.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			dec.decode(r, &e)
			b.add(&e)
			progress()
		}
		return b.model(), nil
	}
	o := newOrderer(OrderOptions{Procs: procs, Lookahead: opt.Lookahead, Prog: prog}, false)
	setInput(o)
	o.emit = func(it *item, q int, L float64) error {
		b.add(&it.e)
		progress()
		return nil
	}
	if err := o.run(); err != nil {
		return nil, err
	}
	m := b.model()
	st := o.stats
	m.Order = &st
	if st.Forced > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%d synchronisation constraints could not be met in the consistent order (incomplete barrier instances or lock records)", st.Forced))
	}
	return m, nil
}
