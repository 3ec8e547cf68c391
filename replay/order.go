package replay

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// Source is a stream of trace records; *trace.Reader is one. Next returns
// io.EOF at the end.
type Source interface {
	Next() (*trace.Record, error)
}

// Default look-ahead limits of Order (records held in memory).
const (
	DefaultLookahead = 1 << 18
	maxBufferFactor  = 8
)

// OrderOptions configure Order. The zero value works.
type OrderOptions struct {
	// Procs is the number of processors of the run; 0 takes the trace's
	// "processors" attribute when the source is a *trace.Reader, else the
	// processors seen (Order then keeps the look-ahead full, since more
	// processors may come). It is the number of arrivals a barrier
	// instance waits for.
	Procs int
	// Lookahead is the number of records Order reads ahead to find the
	// next record of every processor before it emits the earliest one
	// (default DefaultLookahead). When every processor has a record
	// waiting, the emitted record is the earliest enabled one; beyond the
	// look-ahead Order emits the earliest it has, and a later record of a
	// processor it could not see may then carry an earlier Time (counted in
	// OrderStats.OutOfOrder; causality still holds).
	Lookahead int
	// MaxBuffer is the hard limit of records held while a causal
	// dependency is still unread (default 8 × Lookahead). Beyond it the
	// dependency is dropped and counted in OrderStats.Forced.
	MaxBuffer int
	// Prog identifies critical sections by name (one lock per name) and
	// atomic updates (a lock grant without release); nil: the trace's
	// "svmc program info" attribute when the source is a *trace.Reader,
	// else critical sections are identified by their directive.
	Prog *progdb.Program
	// Records keeps every record in Event.Rec (the records written after
	// the run are always kept).
	Records bool
	// Message classifies the message records a runtime may add (tags from
	// 2000 up; pdo-work #2001 is not one): ok reports that r is a message
	// event, send whether it is the send side, and key names the channel.
	// The k-th receive of a key is ordered after the k-th send of that key.
	// nil: MessageKey, svmc's message-passing records.
	Message func(r *trace.Record) (key string, send, ok bool)
	// RankLocal, when positive, is the number of processors per rank of
	// an MPI job whose critical sections and locks each stayed one rank's
	// own (no processor took a global lock): their holds order the
	// processors of one rank only. 0 takes the trace's "svmc rank-local
	// sync" attribute (trace.MergeRanks writes it).
	RankLocal int
}

// syncID names a lock or critical section: with OrderOptions.RankLocal,
// one per rank (-1 for a goroutine lane, whose rank the replay does not
// know: its holds order nothing else).
type syncID struct {
	rank int32
	lock lockKey
	crit string
}

// syncRank is the rank whose processors processor q's holds order, 0
// when all ranks share one lock.
func syncRank(opt *OrderOptions, q int) int32 {
	switch {
	case opt.RankLocal <= 0:
		return 0
	case opt.Procs > 0 && q >= opt.Procs:
		return -1
	}
	return int32(q / opt.RankLocal)
}

// OrderStats describes one ordering.
type OrderStats struct {
	Records int64 `json:"records"`
	// Violations counts records whose clock is earlier than that of a
	// causal predecessor (Time > Clock): the clock condition fails for them.
	Violations int64 `json:"violations"`
	// EdgeViolations counts synchronisation edges (barrier entry → exit,
	// release → grant, check-in → check-out, send → receive) whose target
	// has an earlier clock than its source.
	EdgeViolations int64 `json:"edge_violations"`
	// MaxCorrection is the largest Time − Clock (µs).
	MaxCorrection float64 `json:"max_correction_us"`
	// Forced counts causal constraints that could not be met and were
	// dropped: an incomplete barrier instance, a lock never released, a
	// dependency beyond MaxBuffer, a cycle between the processors' orders.
	// Which one is dropped follows VISTOP's heuristics (seed 001): first a
	// record whose predecessor is in no buffer (it will never come), then
	// one whose predecessor is still to come, each time the oldest.
	Forced int64 `json:"forced"`
	// OutOfOrder counts records emitted with a Time earlier than a record
	// emitted before them (the look-ahead was too short to see them).
	OutOfOrder int64 `json:"out_of_order"`
	// MaxBuffered is the largest number of records held at once.
	MaxBuffered int `json:"max_buffered"`
	// PerNode is true when the processors' streams were read separately
	// (an indexed binary file), so that no look-ahead was needed.
	PerNode bool `json:"per_node"`
	// ClockOrder is true when the processors' clocks already agreed with
	// every causal edge, so that the records were taken processor by
	// processor at their clocks (ClockOrderFile).
	ClockOrder bool `json:"clock_order,omitempty"`
}

// Order merges the per-processor streams of a trace into one causally
// consistent order (seed 001, VISTOP) and calls fn for every record in that
// order. Each processor's records keep their order; in addition
//
//   - every wait-barrier-stop of a barrier instance comes after every
//     wait-barrier-start of that instance (the k-th wait-barrier-start of a
//     (subprogram, directive) on each processor forms instance k),
//   - a wait-bcheckout-stop comes after the k-th barrier-checkin of every
//     processor, where k is its own latest check-in,
//   - a lock grant (wait-lock-stop) comes after the release-lock that
//     freed each of its locks (a lock is one row of wait-lock-start's
//     locking addresses), and while a lock is held no other processor's
//     grant of it is emitted,
//   - a critical-section entry (wait-crit-sec-stop) comes after the
//     exit-crit-sec of its previous holder,
//   - a message receive comes after its send (OrderOptions.Message).
//
// Among the records whose predecessors have been emitted the one with the
// smallest corrected time goes first (ties: clock, then processor), so
// concurrent records keep their time stamp order. The corrected time is
// Time = max(Clock, Time of the previous record of the processor, Time of
// the synchronisation predecessors): a forward-only (Lamport-style) clock
// correction.
//
// Memory: the records read ahead (bounded by OrderOptions.Lookahead, plus
// up to MaxBuffer while a causal dependency is still unread), and per
// barrier instance, lock and critical section in progress a few words.
// The runtime writes each processor's buffer (SVM_TraceBuf_Size, 1 MiB by
// default, about 28,000 records) as one run, so a look-ahead of N buffers'
// worth of records suffices for a trace whose processors fill their
// buffers at similar rates. OrderFile reads the processors' streams of a
// binary file separately and needs no look-ahead.
func Order(src Source, opt OrderOptions, fn func(*Event) error) (OrderStats, error) {
	if rd, ok := src.(*trace.Reader); ok {
		fillOptions(&opt, rd.Attrs())
	}
	o := newOrderer(opt)
	o.in = &windowInput{src: src}
	o.emit = fn
	err := o.run()
	return o.stats, err
}

// Decode calls fn for every record of src in file order, without ordering
// them: Time is Clock. records keeps every record in Event.Rec.
func Decode(src Source, records bool, fn func(*Event) error) (int64, error) {
	dec := newDecoder()
	var e Event
	var n int64
	rd, raw := src.(*trace.Reader)
	raw = raw && rd.Format() == trace.Binary
	for {
		var err error
		if raw {
			_, err = dec.readEvent(rd, &e, records)
		} else {
			var r *trace.Record
			if r, err = src.Next(); err == nil {
				if msg := dec.decode(r, &e, records); msg != "" {
					err = badRecord(src, r, msg)
				}
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		e.Seq = n
		n++
		if err := fn(&e); err != nil {
			return n, err
		}
	}
}

// errStop ends an iteration the consumer left early.
var errStop = errors.New("replay: iteration stopped")

// Ordered is Order as an iterator over the events and a final error:
//
//	for ev, err := range replay.Ordered(rd, replay.OrderOptions{}, &st) { ... }
//
// The *Event is valid for one step only. When the loop ends, stats (if not
// nil) holds the statistics of the records emitted so far.
func Ordered(src Source, opt OrderOptions, stats *OrderStats) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		st, err := Order(src, opt, func(e *Event) error {
			if !yield(e, nil) {
				return errStop
			}
			return nil
		})
		if stats != nil {
			*stats = st
		}
		if err != nil && err != errStop {
			yield(nil, err)
		}
	}
}

// fillOptions takes the number of processors and the program information
// from the stream attributes when the options leave them out.
func fillOptions(opt *OrderOptions, attrs []trace.Attr) {
	if opt.Procs == 0 {
		opt.Procs = Processors(attrs)
	}
	if opt.Prog == nil {
		opt.Prog, _ = ProgramInfo(attrs, "the trace") // unreadable: replay without it
	}
	if opt.RankLocal == 0 {
		for _, a := range attrs {
			if a.Key == trace.AttrRankLocalSync {
				opt.RankLocal, _ = strconv.Atoi(a.Value)
			}
		}
	}
}

// item is a record waiting in a processor's queue.
type item struct {
	e    Event
	msg  string // channel of a message record
	kind uint8  // msgSend, msgRecv or 0
	b    *batch // the decoder's batch that holds it (parallel.go), nil: the orderer's
}

const (
	msgSend = 1
	msgRecv = 2
)

// deque is a FIFO ring of items. It holds pointers: an item stays where
// it was decoded (a decoder's batch, or the orderer's own, see newItem)
// until it is emitted, rather than being copied in and out.
type deque struct {
	buf  []*item
	head int
	n    int
}

func (d *deque) push(it *item) {
	if d.n == len(d.buf) {
		nb := make([]*item, max(16, 2*len(d.buf)))
		for i := 0; i < d.n; i++ {
			nb[i] = d.buf[(d.head+i)&(len(d.buf)-1)]
		}
		d.buf, d.head = nb, 0
	}
	d.buf[(d.head+d.n)&(len(d.buf)-1)] = it
	d.n++
}

func (d *deque) front() *item { return d.buf[d.head] }

func (d *deque) pop() *item {
	it := d.buf[d.head]
	d.buf[d.head] = nil
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
	if d.n == 0 && len(d.buf) > 1<<12 {
		d.buf, d.head = nil, 0 // give a burst's memory back
	}
	return it
}

// newItem is an item of the orderer's own, for a record it decodes
// itself.
func (o *orderer) newItem() *item {
	if n := len(o.spare); n > 0 {
		it := o.spare[n-1]
		o.spare = o.spare[:n-1]
		return it
	}
	return new(item)
}

// release gives an emitted (or refused) item back: to the orderer, or to
// its decoder once every item of its batch was emitted.
func (o *orderer) release(it *item) {
	if b := it.b; b != nil {
		if b.live--; b.live == 0 && b.exhausted {
			b.recycle()
		}
		return
	}
	if len(o.spare) < 1<<12 {
		*it = item{}
		o.spare = append(o.spare, it)
	}
}

// waitList is a resource that heads of queues can block on.
type waitList struct {
	waiters []int32
}

// barInst is one barrier (or split-barrier) instance.
type barInst struct {
	waitList
	entries, exits int
	want           int // the arrivals that complete it (0: every processor)
	maxL, maxT     float64
}

// barSite holds the instances of one barrier site (or all check-ins) that
// are in progress: instance k is insts[k-base]. Instances retire in order
// once every processor has left them; at most maxOpenInstances stay open
// (an incomplete one is retired when the window is full).
type barSite struct {
	count []int // entries emitted per processor
	base  int
	insts []*barInst
	want  int // its team's size (0: every processor)
}

const maxOpenInstances = 1 << 12

func (bs *barSite) entries(q int) int {
	if q < len(bs.count) {
		return bs.count[q]
	}
	return 0
}

// inst returns instance k, creating it; nil if it has retired.
func (bs *barSite) inst(k int) *barInst {
	i := k - bs.base
	if i < 0 {
		return nil
	}
	for len(bs.insts) <= i {
		bs.insts = append(bs.insts, nil)
	}
	if bs.insts[i] == nil {
		bs.insts[i] = &barInst{want: bs.want, maxL: math.Inf(-1), maxT: math.Inf(-1)}
	}
	return bs.insts[i]
}

// enter counts processor q's entry and returns its instance.
func (bs *barSite) enter(q int) *barInst {
	for len(bs.count) <= q {
		bs.count = append(bs.count, 0)
	}
	k := bs.count[q]
	bs.count[q]++
	return bs.inst(k)
}

// current is the instance of q's latest entry (nil: none, or retired).
func (bs *barSite) current(q int) *barInst {
	k := bs.entries(q)
	if k == 0 {
		return nil
	}
	return bs.inst(k - 1)
}

// exit counts an exit from b and retires finished instances.
func (bs *barSite) exit(b *barInst, expected int) {
	b.exits++
	for len(bs.insts) > 0 && (bs.insts[0] == nil || bs.insts[0].exits >= expected || len(bs.insts) > maxOpenInstances) {
		bs.insts[0] = nil
		bs.insts = bs.insts[1:]
		bs.base++
	}
}

// lockState is one lock, critical section or message channel.
type lockState struct {
	waitList
	holder     int32 // -1 free
	relL, relT float64
	queue      []float64 // channels: pairs of (Time, Clock) of sends not yet received
}

type lockKey [4]int32

type sdKey struct{ sub, dir int32 }

// held is a lock or critical section a processor holds.
type held struct {
	sub, dir int32
	locks    []*lockState
}

const (
	stEmpty = iota
	stEnabled
	stBlocked
)

// nodeOrd is the ordering state of one processor.
type nodeOrd struct {
	status    uint8
	any       bool // a record has been emitted
	done      bool // its stream has ended
	lastL     float64
	lastT     float64
	key       float64 // heap key while enabled
	blockedOn *waitList
	lockReq   []*lockState // locks of the latest wait-lock-start
	held      []held
}

type orderer struct {
	opt       OrderOptions
	pi        Prog
	dec       *decoder
	in        input
	q         []deque
	st        []nodeOrd
	nlive     int    // processors 0..nlive-1 are expected to write records
	lanes     []bool // goroutine lanes seen (node N + i), by goroutine-start
	emptyLive int    // live processors whose queue is empty and stream not ended
	buffered  int
	eof       bool
	heap      []int32
	bars      map[barKey]*barSite   // and split barriers' check-ins at {-1, -1, team}
	recentBar [][4]barSeen          // per processor, its latest barrier sites (barLookup)
	teams     teams                 // the team each processor's barriers wait for
	locks     map[syncID]*lockState // and critical sections
	chans     map[string]*lockState
	stats     OrderStats
	maxL      float64
	emit      func(e *Event) error
	spare     []*item // items of the orderer's own, free (newItem)
	customMsg bool    // OrderOptions.Message is the caller's: every record from tag 2000 needs its Record
}

func newOrderer(opt OrderOptions) *orderer {
	custom := opt.Message != nil
	if opt.Message == nil {
		opt.Message = MessageKey
	}
	if opt.Lookahead <= 0 {
		opt.Lookahead = DefaultLookahead
	}
	if opt.MaxBuffer < opt.Lookahead {
		opt.MaxBuffer = maxBufferFactor * opt.Lookahead
	}
	o := &orderer{
		opt:       opt,
		pi:        Prog{opt.Prog},
		dec:       newDecoder(),
		bars:      make(map[barKey]*barSite),
		locks:     make(map[syncID]*lockState),
		chans:     make(map[string]*lockState),
		maxL:      math.Inf(-1),
		customMsg: custom,
	}
	o.grow(opt.Procs)
	return o
}

// grow makes processors 0..n-1 known (and live): processors, and the
// goroutine lanes after them.
func (o *orderer) grow(n int) {
	for len(o.q) < n {
		o.q = append(o.q, deque{})
		o.st = append(o.st, nodeOrd{})
		if o.eof {
			o.st[len(o.st)-1].done = true
		} else {
			o.emptyLive++
		}
	}
	// Goroutine lanes (node ids from Procs on) take part in no barrier.
	if o.opt.Procs > 0 {
		n = min(n, o.opt.Procs)
	}
	if n > o.nlive {
		o.nlive = n
	}
	o.teams.procs = o.nlive
}

// expected is the number of arrivals that complete a barrier instance of
// every processor (a split barrier's).
func (o *orderer) expected() int { return o.nlive }

// need is the number of arrivals that complete b: its team's.
func (o *orderer) need(b *barInst) int {
	if b.want > 0 {
		return b.want
	}
	return o.expected()
}

// input feeds records into the queues.
type input interface {
	// read reads at least one record, for processor q when the input
	// reads the processors separately (perNode), else for any. It returns
	// io.EOF when that stream (or the whole input) has ended.
	read(o *orderer, q int) error
	perNode() bool
}

// windowInput reads one interleaved stream.
type windowInput struct{ src Source }

func (w *windowInput) perNode() bool { return false }

func (w *windowInput) read(o *orderer, _ int) error {
	if rd, ok := w.src.(*trace.Reader); ok && rd.Format() == trace.Binary {
		return o.readRaw(rd, -1, o.dec)
	}
	r, err := w.src.Next()
	if err != nil {
		return err
	}
	if msg := o.add(r, -1, o.dec); msg != "" {
		return badRecord(w.src, r, msg)
	}
	return nil
}

// readRaw reads the next record of a binary stream into the queues
// (forced into stream node when node >= 0): decoded where it lies when its
// Event needs no Record (raw.go), else as add does.
func (o *orderer) readRaw(rd *trace.Reader, node int, dec *decoder) error {
	desc, f, err := rd.NextData()
	if err != nil {
		return err
	}
	if !needsRecord(desc.Tag, o.opt.Records, o.customMsg) {
		it := o.newItem()
		msg := dec.decodeRaw(desc, f, &it.e)
		if msg == "" {
			msg = o.enqueue(it, nil, node)
		}
		if msg != "" {
			o.release(it)
			return badRecord(rd, rd.Record(desc, f), msg)
		}
		return nil
	}
	r := rd.Record(desc, f)
	if msg := o.add(r, node, dec); msg != "" {
		return badRecord(rd, r, msg)
	}
	return nil
}

// add queues record r (forced into stream node when node >= 0), decoded
// by the stream's decoder. It returns what makes r unusable (see decode),
// or a processor beyond the run's.
func (o *orderer) add(r *trace.Record, node int, dec *decoder) string {
	it := o.newItem()
	msg := dec.decode(r, &it.e, o.opt.Records)
	if msg == "" {
		msg = o.enqueue(it, r, node)
	}
	if msg != "" {
		o.release(it)
	}
	return msg
}

// badLane says what is wrong with a record of tag of node p in a run of
// procs processors (0: unknown) where p has written before (started) or
// not: node ids from procs on are goroutine lanes, at most MaxLanes, each
// beginning with goroutine-start.
func badLane(p, procs int, started bool, tag trace.Tag) string {
	if procs <= 0 || p < procs {
		return ""
	}
	if p-procs >= trace.MaxLanes || !started && tag != trace.TagGoroutineStart {
		return fmt.Sprintf("processor %d, but the run had %d", p, procs)
	}
	return ""
}

// enqueue queues the decoded item it of record r (nil when it was decoded
// raw: then OrderOptions.Message is svmc's own, see needsRecord).
func (o *orderer) enqueue(it *item, r *trace.Record, node int) string {
	if node >= 0 {
		it.e.Proc = int32(node)
	}
	if p := int(it.e.Proc); o.opt.Procs > 0 && p >= o.opt.Procs {
		l := p - o.opt.Procs
		if msg := badLane(p, o.opt.Procs, l < len(o.lanes) && o.lanes[l], it.e.Tag); msg != "" {
			return msg
		}
		for len(o.lanes) <= p-o.opt.Procs {
			o.lanes = append(o.lanes, false)
		}
		o.lanes[p-o.opt.Procs] = true
	}
	if it.e.Tag >= 2000 && it.e.Tag != trace.TagPDOWork {
		var key string
		var send, ok bool
		if o.customMsg {
			key, send, ok = o.opt.Message(r)
		} else {
			key, send, ok = eventMessageKey(&it.e)
		}
		if ok {
			it.msg = key
			if send {
				it.kind = msgSend
			} else {
				it.kind = msgRecv
			}
		}
	}
	w := int(it.e.Proc)
	if w >= len(o.q) {
		o.grow(w + 1)
	}
	d := &o.q[w]
	d.push(it)
	o.buffered++
	if o.buffered > o.stats.MaxBuffered {
		o.stats.MaxBuffered = o.buffered
	}
	if d.n == 1 {
		if !o.st[w].done {
			o.emptyLive--
		}
		o.tryEnable(w)
	}
	return ""
}

// badRecord is the error for record r of src that add or decode refused:
// with its offset and number when src can tell them.
func badRecord(src any, r *trace.Record, msg string) error {
	if b, ok := src.(interface {
		BadRecord(*trace.Record, string) error
	}); ok {
		return b.BadRecord(r, msg)
	}
	return fmt.Errorf("trace: record %q: %s", r.Desc.Name, msg)
}

// run merges until every stream has ended.
func (o *orderer) run() error {
	perNode := o.in.perNode()
	o.stats.PerNode = perNode
	for {
		// Fill: give every live processor a queued record if possible.
		if perNode {
			for q := range o.q {
				if o.q[q].n == 0 && !o.st[q].done {
					if err := o.readNode(q); err != nil {
						return err
					}
				}
			}
		} else {
			// Without the number of processors more may come: keep the
			// look-ahead full.
			for !o.eof && (o.emptyLive > 0 || o.buffered == 0 || o.opt.Procs <= 0) && o.buffered < o.opt.Lookahead {
				if err := o.readAny(); err != nil {
					return err
				}
			}
		}
		if q, predL, predT, ok := o.popEnabled(); ok {
			if err := o.emitHead(q, predL, predT); err != nil {
				return err
			}
			continue
		}
		if o.buffered == 0 && (perNode || o.eof) {
			return nil
		}
		if !perNode && !o.eof && (o.emptyLive > 0 || o.buffered == 0) && o.buffered < o.opt.MaxBuffer {
			// A dependency may be in the part not read yet.
			if err := o.readAny(); err != nil {
				return err
			}
			continue
		}
		if o.buffered == 0 {
			return nil
		}
		if err := o.force(); err != nil {
			return err
		}
	}
}

func (o *orderer) readAny() error {
	err := o.in.read(o, -1)
	if err == io.EOF {
		o.eof = true
		for q := range o.st {
			if !o.st[q].done {
				o.st[q].done = true
				if o.q[q].n == 0 {
					o.emptyLive--
				}
			}
		}
		return nil
	}
	return err
}

func (o *orderer) readNode(q int) error {
	err := o.in.read(o, q)
	if err == io.EOF {
		if !o.st[q].done {
			o.st[q].done = true
			if o.q[q].n == 0 {
				o.emptyLive--
			}
		}
		return nil
	}
	return err
}

// heap of enabled processors ordered by (key, clock of head, processor).

func (o *orderer) less(a, b int32) bool {
	sa, sb := &o.st[a], &o.st[b]
	if sa.key != sb.key {
		return sa.key < sb.key
	}
	ta, tb := o.q[a].front().e.Clock, o.q[b].front().e.Clock
	if ta != tb {
		return ta < tb
	}
	return a < b
}

func (o *orderer) heapPush(q int32) {
	h := append(o.heap, q)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !o.less(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	o.heap = h
}

func (o *orderer) heapPop() int32 {
	h := o.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && o.less(h[r], h[l]) {
			m = r
		}
		if !o.less(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	o.heap = h
	return top
}

// check reports whether the head of q may be emitted, with the largest
// Time and Clock of its synchronisation predecessors, or the resource it
// waits for.
func (o *orderer) check(q int) (ok bool, predL, predT float64, wl *waitList) {
	it := o.q[q].front()
	s := &o.st[q]
	predL, predT = math.Inf(-1), math.Inf(-1)
	switch it.e.Tag {
	case trace.TagWaitBarrierStop, trace.TagWaitBCheckoutStop:
		b := o.barOf(q, &it.e)
		if b == nil {
			return true, predL, predT, nil
		}
		if b.entries < o.need(b) {
			return false, 0, 0, &b.waitList
		}
		return true, b.maxL, b.maxT, nil
	case trace.TagWaitLockStop:
		for _, l := range s.lockReq {
			if l.holder >= 0 && int(l.holder) != q {
				return false, 0, 0, &l.waitList
			}
			predL, predT = max(predL, l.relL), max(predT, l.relT)
		}
		return true, predL, predT, nil
	case trace.TagWaitCritSecStop:
		l := o.crit(q, it.e.Sub, it.e.Dir)
		if l.holder >= 0 && int(l.holder) != q {
			return false, 0, 0, &l.waitList
		}
		return true, l.relL, l.relT, nil
	}
	if it.kind == msgRecv {
		c := o.channel(it.msg)
		if len(c.queue) == 0 {
			return false, 0, 0, &c.waitList
		}
		return true, c.queue[0], c.queue[1], nil
	}
	return true, predL, predT, nil
}

// barSite is the barrier site of processor q's barrier at sub, dir: that
// of q's team there.
func (o *orderer) barSite(q int, sub, dir int32) *barSite {
	team, size := o.teams.team(q)
	k := barKey{sub, dir, team}
	if bs := o.barLookup(q, k); bs != nil {
		return bs
	}
	bs := &barSite{want: size}
	o.bars[k] = bs
	o.recentBar[q][0] = barSeen{k, bs}
	return bs
}

// barSeen is a barrier site a processor's records named lately.
type barSeen struct {
	k  barKey
	bs *barSite
}

// barLookup finds site k among processor q's latest ones, moving it first,
// or in the map (nil if it is not there). A loop's entries and exits come
// in runs of one site and a time step's loops take turns, so the map,
// whose key holds a string (its hash took 8% of a report's time), is
// rarely asked (as streamCheck.site does for the clock check).
func (o *orderer) barLookup(q int, k barKey) *barSite {
	for len(o.recentBar) <= q {
		o.recentBar = append(o.recentBar, [4]barSeen{})
	}
	r := &o.recentBar[q]
	for i := range r {
		if r[i].bs != nil && r[i].k == k {
			x := r[i]
			copy(r[1:i+1], r[:i])
			r[0] = x
			return x.bs
		}
	}
	bs := o.bars[k]
	copy(r[1:], r[:len(r)-1])
	r[0] = barSeen{k, bs}
	return bs
}

// checkSite holds the split barriers of processor q's team: an instance
// is a processor's latest check-in, whatever the site.
func (o *orderer) checkSite(q int) *barSite { return o.barSite(q, -1, -1) }

// barOf is the barrier instance an exit (wait-barrier-stop) or check-out
// (wait-bcheckout-stop) of q leaves: that of q's latest entry at the same
// site, or of q's latest check-in. nil if there is none.
func (o *orderer) barOf(q int, e *Event) *barInst {
	if e.Tag == trace.TagWaitBCheckoutStop {
		return o.checkSite(q).current(q)
	}
	team, _ := o.teams.team(q)
	bs := o.barLookup(q, barKey{e.Sub, e.Dir, team})
	if bs == nil {
		return nil
	}
	return bs.current(q)
}

func (o *orderer) crit(q int, sub, dir int32) *lockState {
	return o.sync(syncID{rank: syncRank(&o.opt, q), crit: o.pi.CriticalKey(int(sub), int(dir))})
}

func (o *orderer) channel(key string) *lockState {
	l := o.chans[key]
	if l == nil {
		l = &lockState{holder: -1}
		o.chans[key] = l
	}
	return l
}

func (o *orderer) lock(q int, k lockKey) *lockState {
	return o.sync(syncID{rank: syncRank(&o.opt, q), lock: k})
}

func (o *orderer) sync(id syncID) *lockState {
	l := o.locks[id]
	if l == nil {
		l = &lockState{holder: -1, relL: math.Inf(-1), relT: math.Inf(-1)}
		o.locks[id] = l
	}
	return l
}

// tryEnable puts the head of q into the heap, or blocks it.
func (o *orderer) tryEnable(q int) {
	s := &o.st[q]
	ok, predL, _, wl := o.check(q)
	if !ok {
		s.status = stBlocked
		s.blockedOn = wl
		wl.waiters = append(wl.waiters, int32(q))
		return
	}
	t := o.q[q].front().e.Clock
	L := max(t, predL)
	if s.any {
		L = max(L, s.lastL)
	}
	s.key = L
	s.status = stEnabled
	s.blockedOn = nil
	o.heapPush(int32(q))
}

// wake re-examines the processors blocked on wl.
func (o *orderer) wake(wl *waitList) {
	ws := wl.waiters
	wl.waiters = nil
	for _, q := range ws {
		s := &o.st[q]
		if s.status == stBlocked && s.blockedOn == wl {
			o.tryEnable(int(q))
		}
	}
}

// popEnabled returns the enabled head with the smallest corrected time,
// re-checking it (a lock may have been taken since it was enabled).
func (o *orderer) popEnabled() (q int, predL, predT float64, ok bool) {
	for len(o.heap) > 0 {
		q := int(o.heapPop())
		ok, predL, predT, wl := o.check(q)
		if ok {
			return q, predL, predT, true
		}
		s := &o.st[q]
		s.status = stBlocked
		s.blockedOn = wl
		wl.waiters = append(wl.waiters, int32(q))
	}
	return 0, 0, 0, false
}

// force emits a blocked head, dropping the constraint it waits for, when
// no head can go (VISTOP's heuristics, seed 001): an event whose missing
// predecessor is in no buffer goes first — that predecessor will never come,
// so emitting it now widens the difference between the modelled and the
// real state no further —; an event whose predecessor is still to come
// (the look-ahead finds it in a buffer) goes only when there is no other,
// since emitting it puts it before its cause; ties go by time stamp.
func (o *orderer) force() error {
	best, bestComing := -1, false
	for q := range o.q {
		if o.q[q].n == 0 || o.st[q].status != stBlocked {
			continue
		}
		coming, err := o.predecessorComing(q)
		if err != nil {
			return err
		}
		switch {
		case best < 0, bestComing && !coming:
		case coming && !bestComing, o.q[q].front().e.Clock >= o.q[best].front().e.Clock:
			continue
		}
		best, bestComing = q, coming
	}
	if best < 0 {
		return errors.New("replay: order: internal error: nothing to emit")
	}
	o.stats.Forced++
	predL, predT := math.Inf(-1), math.Inf(-1)
	it := o.q[best].front()
	switch it.e.Tag {
	case trace.TagWaitBarrierStop, trace.TagWaitBCheckoutStop:
		if b := o.barOf(best, &it.e); b != nil {
			predL, predT = b.maxL, b.maxT
		}
	}
	return o.emitHead(best, predL, predT)
}

// predecessorComing reports whether the record the blocked head of q waits
// for is in a buffer (VISTOP's look-ahead): the barrier entry of a
// processor missing from its instance, the release of the lock or critical
// section it waits for, the send of its receive. Reading the processors'
// streams separately, it reads each other stream ahead (up to
// OrderOptions.Lookahead records queued) until it finds one.
func (o *orderer) predecessorComing(q int) (bool, error) {
	it := o.q[q].front()
	var want func(x *item) bool
	switch it.e.Tag {
	case trace.TagWaitBarrierStop:
		want = func(x *item) bool {
			return x.e.Tag == trace.TagWaitBarrierStart && x.e.Sub == it.e.Sub && x.e.Dir == it.e.Dir
		}
	case trace.TagWaitBCheckoutStop:
		want = func(x *item) bool { return x.e.Tag == trace.TagBarrierCheckin }
	case trace.TagWaitLockStop:
		want = func(x *item) bool { return x.e.Tag == trace.TagReleaseLock }
	case trace.TagWaitCritSecStop:
		want = func(x *item) bool { return x.e.Tag == trace.TagExitCritSec }
	default:
		if it.kind != msgRecv {
			return false, nil
		}
		want = func(x *item) bool { return x.kind == msgSend && x.msg == it.msg }
	}
	perNode := o.in.perNode()
	for p := range o.q {
		if p == q {
			continue
		}
		for i := 0; ; {
			d := &o.q[p]
			if i < d.n {
				if want(d.buf[(d.head+i)&(len(d.buf)-1)]) {
					return true, nil
				}
				i++
				continue
			}
			if !perNode || o.st[p].done || d.n == 0 || d.n >= o.opt.Lookahead {
				break
			}
			if err := o.readNode(p); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// emitHead emits the head of q after predecessors with the given Time and
// Clock.
func (o *orderer) emitHead(q int, predL, predT float64) error {
	s := &o.st[q]
	d := &o.q[q]
	it := d.front()
	t := it.e.Clock
	L := max(t, predL)
	if s.any {
		L = max(L, s.lastL)
	}
	if t < predT {
		o.stats.EdgeViolations++
	}
	if L > t {
		o.stats.Violations++
		o.stats.MaxCorrection = max(o.stats.MaxCorrection, L-t)
	}
	if L < o.maxL {
		o.stats.OutOfOrder++
	} else {
		o.maxL = L
	}
	s.any, s.lastL, s.lastT = true, L, t
	o.stats.Records++
	o.apply(q, it, L)
	var err error
	if o.emit != nil {
		it.e.Time, it.e.Seq = L, o.stats.Records-1
		err = o.emit(&it.e)
	}
	o.release(d.pop())
	o.buffered--
	s.status = stEmpty
	s.blockedOn = nil
	if d.n > 0 {
		o.tryEnable(q)
	} else if !s.done {
		o.emptyLive++
	}
	return err
}

// apply updates the synchronisation state with an emitted record.
func (o *orderer) apply(q int, it *item, L float64) {
	s := &o.st[q]
	e := &it.e
	t := e.Clock
	switch e.Tag {
	case trace.TagTraceRegionStart, trace.TagTraceRegionStop, trace.TagAPSInfo:
		o.teams.observe(q, e)
	case trace.TagWaitBarrierStart, trace.TagBarrierCheckin:
		bs := o.checkSite(q)
		if e.Tag == trace.TagWaitBarrierStart {
			bs = o.barSite(q, e.Sub, e.Dir)
		}
		if b := bs.enter(q); b != nil {
			b.entries++
			b.maxL, b.maxT = max(b.maxL, L), max(b.maxT, t)
			if b.entries >= o.need(b) {
				o.wake(&b.waitList)
			}
		}
	case trace.TagWaitBarrierStop, trace.TagWaitBCheckoutStop:
		if b := o.barOf(q, e); b != nil {
			bs := o.checkSite(q)
			if e.Tag == trace.TagWaitBarrierStop {
				bs = o.barSite(q, e.Sub, e.Dir)
			}
			bs.exit(b, o.need(b))
		}
	case trace.TagWaitLockStart:
		s.lockReq = s.lockReq[:0]
		cols := e.Cols
		if cols <= 0 || len(e.Arr) == 0 {
			s.lockReq = append(s.lockReq, o.lock(q, lockKey{-1, e.Sub, e.Dir, 0}))
			break
		}
		for r := 0; r+cols <= len(e.Arr); r += cols {
			var k lockKey
			for c := 0; c < cols && c < 4; c++ {
				k[c] = int32(e.Arr[r+c])
			}
			s.lockReq = append(s.lockReq, o.lock(q, k))
		}
	case trace.TagWaitLockStop:
		if o.pi.IsAtomic(int(e.Sub), int(e.Dir)) {
			for _, l := range s.lockReq {
				l.relL, l.relT = L, t
				o.wake(&l.waitList)
			}
			break
		}
		for _, l := range s.lockReq {
			l.holder = int32(q)
		}
		s.held = append(s.held, held{e.Sub, e.Dir, append([]*lockState(nil), s.lockReq...)})
	case trace.TagReleaseLock:
		for i := len(s.held) - 1; i >= 0; i-- {
			h := s.held[i]
			if h.sub != e.Sub || h.dir != e.Dir {
				continue
			}
			for _, l := range h.locks {
				if l.holder == int32(q) {
					l.holder = -1
				}
				l.relL, l.relT = L, t
				o.wake(&l.waitList)
			}
			s.held = append(s.held[:i], s.held[i+1:]...)
			break
		}
	case trace.TagWaitCritSecStop:
		l := o.crit(q, e.Sub, e.Dir)
		l.holder = int32(q)
	case trace.TagExitCritSec:
		l := o.crit(q, e.Sub, e.Dir)
		if l.holder == int32(q) {
			l.holder = -1
		}
		l.relL, l.relT = L, t
		o.wake(&l.waitList)
	}
	switch it.kind {
	case msgSend:
		c := o.channel(it.msg)
		c.queue = append(c.queue, L, t)
		o.wake(&c.waitList)
	case msgRecv:
		if c := o.channel(it.msg); len(c.queue) >= 2 {
			c.queue = c.queue[2:]
			if len(c.queue) == 0 && len(c.waiters) == 0 {
				// svmc's keys name one message each: a channel that is
				// empty and awaited by nobody is forgotten, so the order
				// holds what is in flight, not every message of the run.
				delete(o.chans, it.msg)
			}
		}
	}
}
