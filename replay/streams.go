package replay

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/svmc/svmc/trace"
)

// Streams gives the processors' streams of an indexed binary trace apart,
// each from any of its buffer runs on (the runtime writes a processor's
// records a buffer at a time): what a view of a large trace needs to decode
// one part of the run without reading the rest. Records are decoded in the
// order their processor wrote them, with Time = Clock (no consistent order
// across processors).
type Streams struct {
	ra    io.ReaderAt
	data  []byte // the file where it lies (mapped), or nil
	name  string
	segs  []segment
	runs  [][]int // per node: the indices in segs of its runs, in file order
	attrs []trace.Attr
}

// Stop ends a Streams.Decode early when fn returns it; Decode then returns
// nil.
var Stop = errors.New("replay: stop")

// OpenStreams indexes a binary trace; it returns nil (and no error) for a
// trace it cannot index (ASCII, or damaged: a reader reports the damage).
func OpenStreams(ra io.ReaderAt, size int64, name string) (*Streams, error) {
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return nil, err
	}
	if rd.Format() != trace.Binary {
		return nil, nil
	}
	// The file stays mapped while the Streams are in use (a view serves
	// windows of it as long as it runs): it is released with the process.
	data, _ := mapped(ra, size)
	segs, n, err := indexOf(ra, size, data)
	if err != nil || segs == nil {
		return nil, err
	}
	s := &Streams{ra: ra, data: data, name: name, segs: segs, runs: make([][]int, n), attrs: rd.Attrs()}
	for i, sg := range segs {
		if sg.node >= 0 {
			s.runs[sg.node] = append(s.runs[sg.node], i)
		}
	}
	return s, nil
}

// Nodes is the number of streams (processors and goroutine lanes).
func (s *Streams) Nodes() int { return len(s.runs) }

// Runs is the number of buffer runs of stream q.
func (s *Streams) Runs(q int) int { return len(s.runs[q]) }

// Attrs are the trace's leading stream attributes.
func (s *Streams) Attrs() []trace.Attr { return s.attrs }

// Decode decodes stream q from its run k on, calling fn with each event and
// the run that holds it, until the stream ends or fn returns an error (Stop
// ends it without one). keep keeps every record in Event.Rec. The Event is
// reused: valid during the call (its Rec and Arr stay valid).
func (s *Streams) Decode(q, k int, keep bool, fn func(e *Event, run int) error) error {
	if q < 0 || q >= len(s.runs) || k < 0 || k > len(s.runs[q]) {
		return fmt.Errorf("replay: %s has no run %d of stream %d", s.name, k, q)
	}
	if k == len(s.runs[q]) {
		return nil
	}
	first := s.runs[q][k]
	// The stream: the shared packets (header, descriptors, attributes)
	// before the first run, and from there on the shared packets and q's
	// runs; starts holds the virtual offset at which each run begins.
	var mine []segment
	var starts []int64
	var at int64
	for i, sg := range s.segs {
		if sg.node < 0 || sg.node == int32(q) && i >= first {
			if sg.node >= 0 {
				starts = append(starts, at)
			}
			mine = append(mine, sg)
			at += sg.n
		}
	}
	rd, err := segmentReader(s.ra, s.data, mine, s.name)
	if err != nil {
		return err
	}
	dec := newDecoder()
	var e Event
	run := 0
	for {
		pos, err := dec.readEvent(rd, &e, keep)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var ce *trace.CorruptError
			if errors.As(err, &ce) {
				c := *ce
				c.Offset = fileOffset(mine, ce.Offset)
				return &c
			}
			return err
		}
		e.Proc = int32(q) // the stream's writer, whatever the node id says
		for run+1 < len(starts) && pos.off >= starts[run+1] {
			run++
		}
		if err := fn(&e, k+run); err != nil {
			if err == Stop {
				return nil
			}
			return err
		}
	}
}

// RunOf is the last run of stream q whose first record's clock is at most
// t, given the first clocks of its runs (ascending; a view collects them in
// a pass over the stream); 0 if none.
func RunOf(firstClocks []float64, t float64) int {
	k := sort.Search(len(firstClocks), func(i int) bool { return firstClocks[i] > t })
	return max(0, k-1)
}
