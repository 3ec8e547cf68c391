package replay

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/svmc/svmc/trace"
)

// The consistent order costs a report most of its time (queues, a heap of
// the processors, the matching of every synchronisation), and changes
// nothing where the processors' clocks already agree with every causal
// edge: then each record's corrected time is its clock, and a tool whose
// result does not depend on how the processors' records interleave can take
// them processor by processor. That is svmc's common case: one machine, one
// monotonic clock. ClockOrderFile checks it as it goes and gives up (ok
// false) where it cannot vouch for it.

// ClockOrderFile calls fn for every record of an indexed binary trace,
// processor by processor (each in the order it wrote them; the streams of
// goroutine lanes first, then the processors' a batch at a time, the
// earliest batch first), with Time = Clock, provided that is what the
// consistent order (OrderFile) would give: every processor's clock rises,
// every barrier instance is entered by every processor of the run before
// any of them leaves it, and the trace has no message, lock, critical
// section, split barrier or serviced page fault records (whose edges it
// does not check). When that does not hold it returns ok false as soon as
// it knows: the caller starts again with OrderFile, having discarded what
// fn was given. The stats are those OrderFile gives such a trace (no
// correction, nothing forced).
func ClockOrderFile(ra io.ReaderAt, size int64, name string, opt OrderOptions, fn func(*Event) error) (st OrderStats, ok bool, err error) {
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return st, false, err
	}
	if rd.Format() != trace.Binary || opt.Records || opt.Message != nil {
		return st, false, nil
	}
	data, release := mapped(ra, size)
	defer release()
	ni, err := newNodeInput(ra, size, name, data)
	if err != nil || ni == nil {
		return st, false, err
	}
	fillOptions(&opt, rd.Attrs())
	procs := len(ni.readers)
	if opt.Procs > 0 {
		procs = min(procs, opt.Procs)
	}
	c := clockCheck{procs: procs, last: make([]float64, len(ni.readers)), bars: map[sdKey]*clockBars{}}
	for q := range c.last {
		c.last[q] = math.Inf(-1)
	}
	var seq int64
	emit := func(q int, e *Event) (bool, error) {
		e.Proc = int32(q)
		if !c.take(q, e) {
			return false, nil
		}
		e.Time, e.Seq = e.Clock, seq
		seq++
		return true, fn(e)
	}
	// The lanes first: a tool sets the goroutines' lives against their
	// processors' time (analysis's serial time), so it knows them before.
	for q := procs; q < len(ni.readers); q++ {
		rdq, dec := ni.readers[q], ni.decs[q]
		first := true
		for {
			d, f, err := rdq.NextData()
			if err == io.EOF {
				break
			}
			if err != nil {
				return st, false, ni.mapErr(q, err)
			}
			var e Event
			if needsRecord(d.Tag, false, false) {
				r := rdq.Record(d, f)
				if msg := dec.decode(r, &e, false); msg != "" {
					return st, false, ni.mapErr(q, rdq.BadRecord(r, msg))
				}
			} else if msg := dec.decodeRaw(d, f, &e); msg != "" {
				return st, false, ni.mapErr(q, rdq.BadRecord(rdq.Record(d, f), msg))
			}
			if first && e.Tag != trace.TagGoroutineStart && opt.Procs > 0 {
				off, num := rdq.LastRecord()
				return st, false, ni.mapErr(q, rdq.BadRecordAt(d, off, num, fmt.Sprintf("processor %d, but the run had %d", q, opt.Procs)))
			}
			first = false
			if ok, err := emit(q, &e); !ok || err != nil {
				return st, false, err
			}
		}
	}
	// The processors, a batch at a time, the one whose next batch starts
	// earliest first: a tool keeps what it knows of an unfinished loop or
	// barrier until every processor has passed it, so the processors are
	// kept within a batch of each other in time (taken in turn, one that
	// writes twice the records of another would fall ever further behind).
	p := startParallel(ni, procs, false)
	defer p.stop()
	next := make([]*batch, procs)
	for q := range procs {
		next[q] = <-p.feeds[q]
	}
	for {
		q := -1
		for r, b := range next {
			if b != nil && (q < 0 || b.start() < next[q].start()) {
				q = r
			}
		}
		if q < 0 {
			break
		}
		b := next[q]
		for i := range b.items {
			if ok, err := emit(q, &b.items[i].e); !ok || err != nil {
				return st, false, err
			}
		}
		if b.err != nil {
			if b.err != io.EOF {
				return st, false, ni.mapErr(q, b.err)
			}
			next[q] = nil
			continue
		}
		b.recycle()
		next[q] = <-p.feeds[q]
	}
	if !c.complete() {
		return st, false, nil
	}
	st.Records, st.PerNode, st.ClockOrder = seq, true, true
	return st, true, nil
}

// clockCheck is what ClockOrderFile checks of the records as they pass.
type clockCheck struct {
	procs int
	last  []float64 // per stream, the latest clock
	bars  map[sdKey]*clockBars
}

// clockBars is one barrier site: per processor its entries and exits, and
// the instances not every processor has left yet, with the latest entry
// and the earliest exit of each.
type clockBars struct {
	in, out  []int
	base     int
	maxStart []float64
	minStop  []float64
	left     []int // exits per instance
}

// take checks e of stream q; false: the trace needs the consistent order.
func (c *clockCheck) take(q int, e *Event) bool {
	if AfterRun(e.Tag) {
		return true // written after the run: no processor's time
	}
	if e.Clock < c.last[q] {
		return false
	}
	c.last[q] = e.Clock
	switch e.Tag {
	case trace.TagMsgCallStart, trace.TagMsgCallStop, trace.TagMsgRequestDone,
		trace.TagWaitLockStart, trace.TagWaitLockStop, trace.TagReleaseLock,
		trace.TagWaitCritSecStart, trace.TagWaitCritSecStop, trace.TagExitCritSec,
		trace.TagBarrierCheckin, trace.TagWaitBCheckoutStart, trace.TagWaitBCheckoutStop,
		trace.TagReadPageFaultServiced, trace.TagWritePageFaultServiced:
		// A page fault serviced names the processor that sent the page:
		// an edge too, and tools follow the pages' last writers across
		// processors.
		return false
	case trace.TagWaitBarrierStart, trace.TagWaitBarrierStop:
		if q >= c.procs {
			return false // a lane takes part in no barrier
		}
		bs := c.bars[sdKey{e.Sub, e.Dir}]
		if bs == nil {
			bs = &clockBars{in: make([]int, c.procs), out: make([]int, c.procs)}
			c.bars[sdKey{e.Sub, e.Dir}] = bs
		}
		return bs.take(q, e, c.procs)
	}
	return true
}

func (bs *clockBars) take(q int, e *Event, procs int) bool {
	if e.Tag == trace.TagWaitBarrierStart {
		k := bs.in[q] - bs.base
		bs.in[q]++
		if k < 0 {
			return false
		}
		for len(bs.maxStart) <= k {
			bs.maxStart = append(bs.maxStart, math.Inf(-1))
			bs.minStop = append(bs.minStop, math.Inf(1))
			bs.left = append(bs.left, 0)
		}
		bs.maxStart[k] = max(bs.maxStart[k], e.Clock)
		return bs.maxStart[k] <= bs.minStop[k]
	}
	if bs.out[q] >= bs.in[q] {
		return false // an exit without its entry
	}
	k := bs.out[q] - bs.base
	bs.out[q]++
	if k < 0 || k >= len(bs.minStop) {
		return false
	}
	bs.minStop[k] = min(bs.minStop[k], e.Clock)
	if bs.maxStart[k] > bs.minStop[k] {
		return false
	}
	if bs.left[k]++; bs.left[k] == procs {
		// Everyone left it: every entry came before every exit.
		for len(bs.left) > 0 && bs.left[0] == procs {
			bs.maxStart, bs.minStop, bs.left = bs.maxStart[1:], bs.minStop[1:], bs.left[1:]
			bs.base++
		}
	}
	return true
}

// complete reports whether every barrier instance was entered and left by
// every processor.
func (c *clockCheck) complete() bool {
	for _, bs := range c.bars {
		if len(bs.left) > 0 {
			return false
		}
		for q := range bs.in {
			if bs.in[q] != bs.base || bs.out[q] != bs.base {
				return false
			}
		}
	}
	return true
}

// mapErr places an error of stream q's reader in the file.
func (ni *nodeInput) mapErr(q int, err error) error {
	var ce *trace.CorruptError
	if errors.As(err, &ce) {
		c := *ce
		c.Offset = fileOffset(ni.segs[q], ce.Offset)
		if c.Where != "" {
			c.Where += fmt.Sprintf(" of processor %d", q)
		}
		return &c
	}
	return err
}

// start is the clock of a batch's first record; an empty batch (its
// stream's end) comes first.
func (b *batch) start() float64 {
	if len(b.items) == 0 {
		return math.Inf(-1)
	}
	return b.items[0].e.Clock
}
