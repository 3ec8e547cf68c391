package replay

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/svmc/svmc/trace"
)

// The consistent order costs a report most of its time (queues, a heap of
// the processors, the matching of every synchronisation), and changes
// nothing where the processors' clocks already agree with every causal
// edge: then each record's corrected time is its clock, and the records can
// be taken in the order of their clocks, merged from the processors'
// streams decoded side by side without the order's matching. That is
// svmc's common case: one machine, one monotonic clock. ClockOrderFile
// checks it as it goes and gives up (ok false) where it cannot vouch for
// it.

// ClockOrderFile calls fn for every record of an indexed binary trace, in
// the order of their clocks (the streams of goroutine lanes first, then
// the processors' merged by clock, each processor's in the order it wrote
// them), with Time = Clock, provided that is what the
// consistent order (OrderFile) would give: every processor's clock rises,
// every barrier and split barrier instance is entered by every processor
// of the run before any of them leaves it, the holds of every lock and
// critical section (grant to release) follow one another by their clocks,
// and the trace has no message or serviced page fault records (whose edges
// it does not check). When that does not hold it returns ok false as soon
// as it knows (the holds, at the end): the caller starts again with
// OrderFile, having discarded what fn was given. The stats are those
// OrderFile gives such a trace (no correction, nothing forced).
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
	c := newClockCheck(procs, len(ni.readers), Prog{opt.Prog}.HasSections(), &opt)
	var seq int64
	emit := func(q int, e *Event) error {
		e.Proc = int32(q)
		e.Time, e.Seq = e.Clock, seq
		seq++
		return fn(e)
	}
	// The lanes first: a tool sets the goroutines' lives against their
	// processors' time (analysis's serial time), so it knows them before.
	for q := procs; q < len(ni.readers); q++ {
		rdq, dec := ni.readers[q], ni.decs[q]
		first := true
		for {
			var e Event
			pos, err := dec.readEvent(rdq, &e, false)
			if err == io.EOF {
				break
			}
			if err != nil {
				return st, false, ni.mapErr(q, err)
			}
			if msg := badLane(q, opt.Procs, !first, e.Tag); msg != "" {
				return st, false, ni.mapErr(q, rdq.BadRecordAt(descOf(rdq, pos.tag), pos.off, pos.num, msg))
			}
			first = false
			if !c.streams[q].take(&e) {
				return st, false, nil
			}
			if err := emit(q, &e); err != nil {
				return st, false, err
			}
		}
	}
	// The processors in clock order, record by record (ties to the lower
	// processor): a tool's model joins the processors' records where one
	// depends on another's (a segment's variable, written by processor 0,
	// before processor 1's page faults in it; the end of a loop instance
	// once every processor has passed it), and keeps what it knows of an
	// unfinished loop or barrier until every processor has passed it.
	// Taking a batch at a time let a processor whose first record came
	// earlier run a batch ahead of a record it depended on.
	p := newParallel(ni, procs, false)
	p.checks = c.streams[:procs]
	p.run()
	defer p.stop()
	next := make([]*batch, procs)
	at := make([]int, procs) // the next item of each processor's batch
	// head is the clock of each processor's next item, -Inf where its
	// batch is done (fetch the next first): the choice below reads one
	// array instead of following every batch to its item.
	head := make([]float64, procs)
	setHead := func(q int) {
		head[q] = math.Inf(-1)
		if at[q] < len(next[q].items) {
			head[q] = next[q].items[at[q]].e.Clock
		}
	}
	for q := range procs {
		next[q] = <-p.feeds[q]
		if !c.fold(q, next[q]) {
			return st, false, nil
		}
		setHead(q)
	}
	for {
		q, bound := -1, math.Inf(1)
		for r, b := range next {
			if b == nil {
				continue
			}
			switch c := head[r]; {
			case q < 0:
				q = r
			case c < head[q]:
				bound = min(bound, head[q])
				q = r
			default:
				bound = min(bound, c)
			}
		}
		if q < 0 {
			break
		}
		b := next[q]
		k := at[q]
		for ; k < len(b.items); k++ {
			e := &b.items[k].e
			if e.Clock > bound {
				break
			}
			if err := emit(q, e); err != nil {
				return st, false, err
			}
		}
		at[q] = k
		if k < len(b.items) {
			head[q] = b.items[k].e.Clock
			continue
		}
		if b.err != nil {
			switch b.err {
			case io.EOF:
			case errUnordered:
				return st, false, nil
			default:
				return st, false, ni.mapErr(q, b.err)
			}
			next[q] = nil
			continue
		}
		b.recycle()
		next[q], at[q] = <-p.feeds[q], 0
		if !c.fold(q, next[q]) {
			return st, false, nil
		}
		setHead(q)
	}
	if !c.complete() {
		return st, false, nil
	}
	st.Records, st.PerNode, st.ClockOrder = seq, true, true
	return st, true, nil
}

// The check runs in two parts. Each stream's decoder checks what the
// stream's own order tells (streamCheck: its clock rises, it has no
// message records, the holds of its locks, the barrier records it
// collects); the merge then folds the barrier records of every stream
// (clockCheck), a batch at a time. Run record by record by the merge, the
// whole check took a tenth of the report's busiest goroutine.

// errUnordered ends a stream's batches where its check failed.
var errUnordered = errors.New("replay: the records are not in clock order")

// streamCheck is what the decoder of one stream checks of its records.
type streamCheck struct {
	q, procs int
	sections bool // the program has sections: follow the teams (a program without pays nothing for them)
	last     float64
	teams    teams
	holds    clockHolds // the stream's holds (the merge joins them at the end)
	sites    map[barKey]int32
	// recent are the sites of the latest barrier records, the latest
	// first: a loop's entries and exits come in runs of one site, and a
	// time step's loops take turns, so that the map (whose key holds a
	// string) is rarely asked.
	recent [4]recentSite
	// Since the last batch: the barrier sites numbered, in order, and the
	// barrier records (the batch takes them to the merge).
	newSites []clockSite
	bars     []barRec
}

type recentSite struct {
	key  barKey
	site int32 // -1: none yet
}

// clockSite is a barrier site a stream numbered, with its team's size (0:
// all the run's processors).
type clockSite struct {
	key  barKey
	size int
}

// barRec is a barrier record: its site's number in its stream, entry or
// exit, and its clock.
type barRec struct {
	site  int32
	entry bool
	clock float64
}

// clockCheck is the merge's part: the barrier instances of every stream.
type clockCheck struct {
	procs   int
	streams []*streamCheck
	bars    map[barKey]*clockBars
	sites   [][]*clockBars // per stream, its sites by their numbers
}

// newClockCheck makes the check of a trace's streams, the first procs of
// them the processors'.
func newClockCheck(procs, streams int, sections bool, opt *OrderOptions) *clockCheck {
	c := &clockCheck{procs: procs, bars: map[barKey]*clockBars{}, sites: make([][]*clockBars, procs)}
	for q := range streams {
		s := &streamCheck{q: q, procs: procs, sections: sections, last: math.Inf(-1),
			teams: teams{procs: procs}, sites: map[barKey]int32{},
			holds: clockHolds{pi: Prog{opt.Prog}, opt: opt, holds: map[syncID][]hold{}, open: map[syncID][]int{}}}
		for i := range s.recent {
			s.recent[i].site = -1
		}
		c.streams = append(c.streams, s)
	}
	return c
}

// clockBars is one barrier site of one team: per processor its entries
// and exits, and the instances not every member has left yet, with the
// latest entry and the earliest exit of each.
type clockBars struct {
	size     int // the team's members
	in, out  []int
	base     int // the instances dropped
	done     int // the instances every member left, not dropped yet (the first in the slices)
	maxStart []float64
	minStop  []float64
	left     []int // exits per instance
}

// take checks the next record e of the stream; false: the trace needs the
// consistent order.
func (s *streamCheck) take(e *Event) bool {
	if AfterRun(e.Tag) {
		return true // written after the run: no processor's time
	}
	if e.Clock < s.last {
		return false
	}
	s.last = e.Clock
	q := s.q
	switch e.Tag {
	case trace.TagMsgCallStart, trace.TagMsgCallStop, trace.TagMsgRequestDone,
		trace.TagReadPageFaultServiced, trace.TagWritePageFaultServiced:
		// A page fault serviced names the processor that sent the page:
		// an edge too, and tools follow the pages' last writers across
		// processors.
		return false
	case trace.TagTraceRegionStart:
		if s.sections && q < s.procs {
			s.teams.regionStart(q, e.A)
		}
	case trace.TagTraceRegionStop:
		if s.sections && q < s.procs {
			s.teams.regionStop(q)
		}
	case trace.TagAPSInfo:
		if s.sections && q < s.procs {
			s.teams.apsInfo(q, e.Arr)
		}
	case trace.TagWaitBarrierStart, trace.TagWaitBarrierStop, trace.TagBarrierCheckin, trace.TagWaitBCheckoutStop:
		if q >= s.procs {
			return false // a lane takes part in no barrier
		}
		// A split barrier's instance is a processor's latest check-in,
		// whatever the site (as the consistent order counts them).
		team, size := s.teams.team(q)
		k := barKey{e.Sub, e.Dir, team}
		entry := e.Tag == trace.TagWaitBarrierStart || e.Tag == trace.TagBarrierCheckin
		if e.Tag == trace.TagBarrierCheckin || e.Tag == trace.TagWaitBCheckoutStop {
			k.sub, k.dir = -1, -1
		}
		s.bars = append(s.bars, barRec{s.site(k, size), entry, e.Clock})
	case trace.TagWaitLockStart, trace.TagWaitLockStop, trace.TagReleaseLock,
		trace.TagWaitCritSecStop, trace.TagExitCritSec:
		if q >= s.procs {
			return false
		}
		s.holds.take(q, e)
	}
	return true
}

// site numbers barrier site k of the stream (size: its team's).
func (s *streamCheck) site(k barKey, size int) int32 {
	r := &s.recent
	for i := range r {
		if r[i].site >= 0 && r[i].key == k {
			if i > 0 {
				x := r[i]
				copy(r[1:i+1], r[:i])
				r[0] = x
			}
			return r[0].site
		}
	}
	site, ok := s.sites[k]
	if !ok {
		site = int32(len(s.sites))
		s.sites[k] = site
		s.newSites = append(s.newSites, clockSite{k, size})
	}
	copy(r[1:], r[:len(r)-1])
	r[0] = recentSite{k, site}
	return site
}

// hand moves what the stream's check collected since the last batch into
// b (swapping buffers: neither side copies).
func (s *streamCheck) hand(b *batch) {
	b.sites, s.newSites = s.newSites, b.sites[:0]
	b.bars, s.bars = s.bars, b.bars[:0]
}

// fold takes the barrier records of stream q's batch b; false: an instance
// was left before every member entered it.
func (c *clockCheck) fold(q int, b *batch) bool {
	for _, ns := range b.sites {
		bs := c.bars[ns.key]
		if bs == nil {
			size := ns.size
			if size == 0 {
				size = c.procs
			}
			bs = &clockBars{size: size, in: make([]int, c.procs), out: make([]int, c.procs)}
			c.bars[ns.key] = bs
		}
		c.sites[q] = append(c.sites[q], bs)
	}
	sites := c.sites[q]
	for _, r := range b.bars {
		if !sites[r.site].take(q, r.entry, r.clock) {
			return false
		}
	}
	return true
}

// clockHolds collects the holds of every lock and critical section (grant
// to release, by the clocks) for the check at the end that they do not
// overlap: then every grant comes after the release before it and the
// consistent order would repair nothing.
type clockHolds struct {
	pi    Prog
	opt   *OrderOptions
	req   [][]syncID // per processor, the locks of its pending request
	held  [][]heldHold
	holds map[syncID][]hold
	open  map[syncID][]int // per critical section, per processor: its open hold, -1 none
}

type hold struct{ from, to float64 }

type heldHold struct {
	sub, dir int32
	keys     []syncID
	at       []int // the holds' indexes
}

func (h *clockHolds) take(q int, e *Event) {
	for len(h.req) <= q {
		h.req, h.held = append(h.req, nil), append(h.held, nil)
	}
	switch e.Tag {
	case trace.TagWaitLockStart:
		h.req[q] = h.req[q][:0]
		cols := e.Cols
		if cols <= 0 || len(e.Arr) == 0 {
			h.req[q] = append(h.req[q], syncID{rank: syncRank(h.opt, q), lock: lockKey{-1, e.Sub, e.Dir, 0}})
			break
		}
		for r := 0; r+cols <= len(e.Arr); r += cols {
			var k lockKey
			for c := 0; c < cols && c < 4; c++ {
				k[c] = int32(e.Arr[r+c])
			}
			h.req[q] = append(h.req[q], syncID{rank: syncRank(h.opt, q), lock: k})
		}
	case trace.TagWaitLockStop:
		atomic := h.pi.IsAtomic(int(e.Sub), int(e.Dir))
		hh := heldHold{sub: e.Sub, dir: e.Dir}
		for _, k := range h.req[q] {
			hs := h.holds[k]
			if atomic {
				hs = append(hs, hold{e.Clock, e.Clock}) // released as it is granted
			} else {
				hh.keys, hh.at = append(hh.keys, k), append(hh.at, len(hs))
				hs = append(hs, hold{e.Clock, math.Inf(1)})
			}
			h.holds[k] = hs
		}
		if !atomic {
			h.held[q] = append(h.held[q], hh)
		}
	case trace.TagReleaseLock:
		for i := len(h.held[q]) - 1; i >= 0; i-- {
			hh := h.held[q][i]
			if hh.sub != e.Sub || hh.dir != e.Dir {
				continue
			}
			for j, k := range hh.keys {
				h.holds[k][hh.at[j]].to = e.Clock
			}
			h.held[q] = append(h.held[q][:i], h.held[q][i+1:]...)
			break
		}
	case trace.TagWaitCritSecStop, trace.TagExitCritSec:
		k := syncID{rank: syncRank(h.opt, q), crit: h.pi.CriticalKey(int(e.Sub), int(e.Dir))}
		op := h.open[k]
		for len(op) <= q {
			op = append(op, -1)
		}
		h.open[k] = op
		if e.Tag == trace.TagWaitCritSecStop {
			op[q] = len(h.holds[k])
			h.holds[k] = append(h.holds[k], hold{e.Clock, math.Inf(1)})
		} else if op[q] >= 0 {
			h.holds[k][op[q]].to = e.Clock
			op[q] = -1
		}
	}
}

// ordered reports whether the holds of every lock follow one another by
// their clocks. A hold never released (a run that ended in it) lasts to
// the end.
func (h *clockHolds) ordered() bool {
	for _, hs := range h.holds {
		slices.SortFunc(hs, func(a, b hold) int { return cmp.Compare(a.from, b.from) })
		for i := 1; i < len(hs); i++ {
			if hs[i].from < hs[i-1].to {
				return false
			}
		}
	}
	return true
}

func (bs *clockBars) take(q int, entry bool, clock float64) bool {
	procs := bs.size
	if entry {
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
		bs.maxStart[k] = max(bs.maxStart[k], clock)
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
	bs.minStop[k] = min(bs.minStop[k], clock)
	if bs.maxStart[k] > bs.minStop[k] {
		return false
	}
	if bs.left[k]++; bs.left[k] == procs {
		// Everyone left it: every entry came before every exit. The
		// instances every member left are dropped from the front once
		// they are half the window, by moving the rest down (slicing off
		// the front made every append reallocate; moving at every
		// instance was quadratic in a window that holds a batch of one
		// stream's records, hundreds of instances).
		d := bs.done
		for d < len(bs.left) && bs.left[d] == procs {
			d++
		}
		bs.done = d
		if d >= 64 && 2*d >= len(bs.left) {
			n := copy(bs.maxStart, bs.maxStart[d:])
			copy(bs.minStop, bs.minStop[d:])
			copy(bs.left, bs.left[d:])
			bs.maxStart, bs.minStop, bs.left = bs.maxStart[:n], bs.minStop[:n], bs.left[:n]
			bs.base += d
			bs.done = 0
		}
	}
	return true
}

// complete reports whether every barrier instance was entered and left by
// every processor.
func (c *clockCheck) complete() bool {
	all := clockHolds{holds: map[syncID][]hold{}}
	for _, s := range c.streams {
		for k, hs := range s.holds.holds {
			all.holds[k] = append(all.holds[k], hs...)
		}
	}
	if !all.ordered() {
		return false
	}
	for _, bs := range c.bars {
		if bs.done < len(bs.left) {
			return false
		}
		left := bs.base + bs.done // the instances every member left
		for q := range bs.in {
			// A team's site: its members entered and left every instance,
			// the others none.
			if bs.in[q] != bs.out[q] || (bs.in[q] != left && (bs.in[q] != 0 || bs.size == len(bs.in))) {
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
