package rtlib

import (
	"math"
	rtrace "runtime/trace"
	"sync/atomic"
	"time"
	"unsafe" // go:linkname nanotime and lockedOSThread, pubLenAddr

	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// MaxStage is the highest tracing stage (seed 002, Table 2; trace.Stage
// says at which stage each record is written, and record sites test
// p.on(tag)).
const MaxStage = request.MaxStage

// on reports whether records with tag are traced on p now: one bit test of
// p's current mask, which is the compiled request table's base mask of the
// processor (stage and GLOBAL requests) plus the LOCAL requests of every
// region p is inside (see pushRegion). Every record site tests it before
// building anything.
func (p *Proc) on(tag trace.Tag) bool { return p.mask&request.MaskOf(tag) != 0 }

// mapOn is on for the mapping records, which regions do not restrict
// (run.mapAlways).
func (p *Proc) mapOn(tag trace.Tag) bool {
	return (p.mask|p.r.mapAlways)&request.MaskOf(tag) != 0
}

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// lockedOSThread reports whether the calling goroutine is locked to its
// thread (runtime.LockOSThread; the runtime offers it to linkname).
//
//go:linkname lockedOSThread runtime.lockedOSThread
func lockedOSThread() bool

// now is the clock of the run: microseconds since it started.
func (p *Proc) now() float64 {
	return float64(nanotime()-p.r.startNano) / 1e3
}

// begin opens a record on p's buffer with node id node and the current clock.
func (p *Proc) begin(tag trace.Tag, node int) {
	p.buf.Begin(tag, node, p.now())
}

// end closes the open record, publishes it (see procTrace) and hands the
// chunk to the writer when it is full.
func (p *Proc) end() {
	p.buf.End()
	p.recorded()
}

// recorded publishes the record just appended whole (Buf.Rec3) and hands the
// chunk to the writer when it is full.
func (p *Proc) recorded() {
	p.publish()
	if len(p.buf.B) >= p.chunkLimit {
		p.flushFull()
	} else if cap(p.buf.B)-len(p.buf.B) < recordRoom {
		p.growBuf()
	}
}

// chunkSize is the most a processor writes into one buffer before it hands
// the buffer to the writer (SVM_TraceBuf_Size when that is smaller). The
// writer gives each buffer back, so a processor whose writer keeps up
// fills the same few chunks again while they are still in its cache and
// mapped: a goroutine's lane that wrote 1.5 MB into buffers of 1 MiB
// touched fresh memory for all of it (a page fault per 4 KiB) and left
// it as garbage. Smaller chunks reuse more but wake the writer's thread
// more often: at 64 KiB a processor tracing every call switched threads
// eight times as often as with 1 MiB buffers and spent a third more CPU.
const chunkSize = 256 << 10

// maxChunks bounds the chunks a processor's trace memory is cut into: a
// buffer size of gigabytes makes larger chunks, not a channel of millions.
const maxChunks = 256

// chunkOf is the chunk size for trace memory of bufSize bytes.
func chunkOf(bufSize int) int {
	return max(min(bufSize, chunkSize), bufSize/maxChunks)
}

// chunkSlots is how many chunks a processor may own: the one it fills and
// those at the writer, which hold at most bufSize bytes between them (two
// at least: one filling, one written).
func chunkSlots(bufSize int) int {
	c := chunkOf(bufSize)
	return max(2, (bufSize+c-1)/c+1)
}

// recordRoom is the room a buffer keeps for its next record: larger
// records (long names, arrays) make room for themselves by append.
const recordRoom = 4 << 10

// growBuf makes room for the next record: it doubles the buffer from
// 64 KiB up to the chunk's size. A processor's (or a goroutine lane's) first
// chunk grows so, since a thousand goroutines that trace a little each
// need not hold a full chunk each; the chunks it makes after a hand-over
// are full-size at once (freeChunk).
func (p *Proc) growBuf() {
	full := p.chunkLimit
	if full < math.MaxInt-recordRoom {
		full += recordRoom
	}
	n := min(max(2*cap(p.buf.B), 64<<10), full)
	if n <= cap(p.buf.B) {
		return
	}
	b := make([]byte, len(p.buf.B), n)
	copy(b, p.buf.B)
	p.buf.B = b
	p.publish()
}

// chars appends a char array field.
func (p *Proc) chars(s string) { p.buf.Chars(truncName(s)) }

// truncName cuts a name to maxName bytes.
func truncName(s string) string {
	if len(s) > maxName {
		return s[:maxName]
	}
	return s
}

// maxName bounds the names written in records.
const maxName = 1 << 10

// procTrace is the part of a processor's tracing state that other
// goroutines touch.
//
// Buffers and flushing: each processor appends to its own buffer, a chunk
// of chunkOf(SVM_TraceBuf_Size) bytes. When the chunk is
// full the processor hands it to the run's writer goroutine and goes on
// with a chunk the writer has given back, or with a new one while its
// chunks at the writer hold less than SVM_TraceBuf_Size bytes (chunkSlots).
// Only a processor whose chunks are all still being written waits, for the
// first to come back; no lock is shared between processors. After the
// swap the processor records
// kernel-trace-buffer-overflow and trace-overhead (the time it was held up,
// trace.OverheadFlush), both stamped with the time the buffer was found
// full.
//
// Publication: after every record the processor stores the length of its
// buffer (pubLen, by storeRelease: a plain store on amd64, where
// sync/atomic's full fence cost a tenth of a traced call; pubArr holds
// the buffer's memory, stored again when it changes). The bytes below
// the published length never change until the
// buffer is handed over. So when the run ends while a processor is still
// running (it did not reach a safe point within the bounded wait, or it is
// stuck in user code), the runtime seals the processor (state) and writes
// its records up to the published length: the trace ends with every record
// written so far, and the open record, if any, is left out. A sealed
// processor neither flushes nor publishes again.
type procTrace struct {
	pubLen atomic.Int64 // stored by storeRelease (pubLenAddr), loaded by Load
	pubArr bytesPtr
	state  atomic.Int32 // stRunning, stFlushing, stSealed
	pubCap int          // cap of the buffer whose memory pubArr holds
	noPub  bool         // sealed seen by the processor: publish no more
	spare  chan []byte  // chunks back from the writer (capacity: slots)
	made   int          // chunks the processor owns: the one it fills and those out
	slots  int          // the most it may own (chunkSlots)
	ctx    []ctxEntry   // the regions of a leader at its last dispatch (snapCtx)
	handed atomic.Int64 // chunks handed to the writer (flushFull)
	nrec   int64        // records in the chunks handed over
	nrecAt int64        // records counted by the last recordingRec
	// The writer's side, touched by its goroutine only (and by the end of
	// the run after it stopped): the chunks it wrote, and how much of the
	// chunk the processor fills it wrote already (drained).
	wDone int64
	wOff  int
}

const (
	stRunning int32 = iota
	stFlushing
	stSealed
)

// publish makes the records in p's buffer visible to the end of the run.
func (p *Proc) publish() {
	t := &p.tr
	if t.noPub {
		return
	}
	if cap(p.buf.B) != t.pubCap {
		t.setArr(p.buf.B)
	}
	storeRelease(t.pubLenAddr(), int64(len(p.buf.B)))
}

// pubLenAddr is the word of pubLen: an atomic.Int64 keeps it aligned for
// 64-bit atomics on 32-bit machines, and its value is its only field.
func (t *procTrace) pubLenAddr() *int64 { return (*int64)(unsafe.Pointer(&t.pubLen)) }

func (t *procTrace) setArr(b []byte) {
	t.pubArr.Store(&b)
	t.pubCap = cap(b)
}

// flushItem is a full buffer on its way to the writer.
type flushItem struct {
	p *Proc
	b []byte
}

// initChunks prepares the chunks of a processor whose trace memory is
// bufSize bytes; its first chunk is made when its first record needs room.
func (p *Proc) initChunks(bufSize int) {
	p.chunkLimit = chunkOf(bufSize)
	t := &p.tr
	t.slots = chunkSlots(bufSize)
	t.spare = make(chan []byte, t.slots)
	t.made = 1
}

// freeChunk is the chunk for the records after a hand-over: one the
// writer has given back; a new one of size bytes while the processor owns
// fewer than slots; else the first to come back.
func (t *procTrace) freeChunk(size int) []byte {
	select {
	case b := <-t.spare:
		return b
	default:
	}
	if t.made < t.slots {
		t.made++
		return make([]byte, 0, size)
	}
	return <-t.spare
}

// flushFull hands the full chunk to the writer, takes a free one and
// records the overflow and the time the processor was held up.
func (p *Proc) flushFull() {
	r := p.r
	t0 := nanotime()
	sw := p.st.Switch(stats.UserDeb)
	if !p.tr.state.CompareAndSwap(stRunning, stFlushing) {
		// Sealed: the trace is complete; what comes after is not part of it.
		// Fresh memory, as the end of the run may be reading the old.
		p.tr.noPub = true
		p.buf = trace.Buf{}
		p.st.Restore(sw)
		return
	}
	p.tr.nrec += int64(p.buf.Records())
	p.tr.handed.Add(1) // before the new chunk is published: drained reads it around them
	r.flushQ <- flushItem{p, p.buf.B}
	p.buf = trace.Buf{B: p.tr.freeChunk(p.chunkLimit + recordRoom)}
	if p.sv != nil {
		p.sv.kbytes = 0
	}
	p.tr.setArr(p.buf.B)
	storeRelease(p.tr.pubLenAddr(), 0)
	c0 := float64(t0-r.startNano) / 1e3
	d := float64(nanotime()-t0) / 1e3
	if p.on(trace.TagKernelTraceBufferOverflow) {
		p.buf.Begin(trace.TagKernelTraceBufferOverflow, p.id, c0)
		p.buf.End()
	}
	if p.on(trace.TagTraceOverhead) {
		p.buf.Begin(trace.TagTraceOverhead, p.id, c0)
		p.buf.Double(d)
		p.buf.Int(trace.OverheadFlush)
		p.buf.End()
	}
	p.publish()
	p.tr.state.Store(stRunning)
	p.st.Restore(sw)
}

// drainEvery is how often the writer also writes what the processors
// published in the chunks they are filling: a run killed by SIGKILL or the
// out-of-memory killer, which no handler sees, keeps its records up to
// that long before the kill (x505: a 2-processor run killed after 0.3 s
// left a trace of no records, its chunks of 256 KiB still filling).
const drainEvery = 100 * time.Millisecond

// writer writes the buffers the processors hand over, in the order they
// come, and gives each back to its processor; every drainEvery it writes
// what they published since in the chunks they fill.
func (r *run) writer() {
	defer close(r.writerDone)
	every := r.drainEvery
	if every <= 0 {
		every = drainEvery
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case it, ok := <-r.flushQ:
			if !ok {
				return
			}
			t := &it.p.tr
			r.write(it.b[t.wOff:])
			t.wOff = 0
			t.wDone++
			t.spare <- it.b[:0]
			// What a killed run loses is then only what the processors'
			// buffers hold since the last drain.
			if len(r.flushQ) == 0 {
				r.flushWriter()
			}
		case <-tick.C:
			wrote := false
			for _, p := range r.drainable() {
				if b := p.tr.drained(); len(b) > 0 {
					r.write(b)
					wrote = true
				}
			}
			if wrote {
				r.flushWriter()
			}
		}
	}
}

func (r *run) write(b []byte) {
	if len(b) == 0 {
		return
	}
	if err := r.w.WriteTrusted(b); err != nil {
		r.traceWriteErr(err)
	}
}

func (r *run) flushWriter() {
	if err := r.w.Flush(); err != nil {
		r.traceWriteErr(err)
	}
}

// drainable is every processor and goroutine lane that may hold records.
func (r *run) drainable() []*Proc {
	ls := &r.lanes
	ls.mu.Lock()
	lanes := ls.all
	ls.mu.Unlock()
	if len(lanes) == 0 {
		return r.procs
	}
	return append(r.procs[:len(r.procs):len(r.procs)], lanes...)
}

// drained returns the records the processor published in the chunk it
// fills beyond what the writer wrote of it, and counts them written. It
// returns nothing while a chunk the processor handed over has not been
// written (its records come first), during a hand-over, or once sealed:
// the length is read before the memory (a later array of the same chunk
// holds the same bytes, growBuf) and both between two looks at the
// hand-over count, so that they belong to one chunk.
func (t *procTrace) drained() []byte {
	if t.state.Load() != stRunning || t.handed.Load() != t.wDone {
		return nil
	}
	n := int(t.pubLen.Load())
	arr := t.pubArr.Load()
	if t.state.Load() != stRunning || t.handed.Load() != t.wDone || arr == nil || n > cap(*arr) || n <= t.wOff {
		return nil
	}
	b := (*arr)[t.wOff:n:n]
	t.wOff = n
	return b
}

// sealedBuf is the chunk a processor filled when it was sealed.
type sealedBuf struct {
	p *Proc
	b []byte
}

// unwritten is what the writer did not drain of the chunk; the writer has
// stopped, having written every chunk handed over before it.
func (sb sealedBuf) unwritten() []byte {
	return sb.b[min(sb.p.tr.wOff, len(sb.b)):]
}

// seal stops p's flushing and publication and returns the records it
// published, or ok false if p stayed in a flush for longer than wait or
// until hurry was closed.
func (p *Proc) seal(wait time.Duration, hurry <-chan struct{}) (b []byte, ok bool) {
	deadline := time.Now().Add(wait)
	for !p.tr.state.CompareAndSwap(stRunning, stSealed) {
		if p.tr.state.Load() == stSealed {
			break
		}
		select {
		case <-hurry:
			return nil, false
		default:
		}
		if time.Now().After(deadline) {
			return nil, false
		}
		time.Sleep(50 * time.Microsecond)
	}
	n := p.tr.pubLen.Load()
	arr := p.tr.pubArr.Load()
	if arr == nil || n == 0 {
		return nil, true
	}
	return (*arr)[:n:n], true
}

// region is an open trace region of a processor, with the mask in force
// outside it.
type region struct {
	at    Site
	typ   int
	outer request.Mask
	t0    float64        // clock of its start record (µs), or nanotime of a throttled subprogram's start
	how   uint8          // regionUntimed, regionTimed (start record written) or regionThrottled
	svm   int            // where its faults begin in the SVM layer's log (svm.go)
	gtr   *rtrace.Region // its user region in the Go execution trace (--gotrace)
}

const (
	regionUntimed uint8 = iota
	regionTimed
	regionThrottled
)

// regionNo is the region number (in its subprogram, as trace request files
// count) of the region directive dir of sub opens; 0 for the subprogram
// itself, -1 if unknown.
func (r *run) regionNo(at Site) int {
	if at.Dir == 0 {
		return 0
	}
	if uint(at.Sub) < uint(len(r.prog.Subs)) {
		if ds := r.prog.Subs[at.Sub].Dirs; uint(at.Dir) < uint(len(ds)) {
			return ds[at.Dir].Region
		}
	}
	return -1
}

// reqNode is the processor whose requests apply on p: a goroutine's lane
// traces as the processor that started it (its node id is beyond the
// request table's processors).
func (p *Proc) reqNode() int {
	if p.lane {
		return p.owner
	}
	return p.id
}

// pushRegion enters a trace region: the mask becomes the one the request
// table gives inside it, and trace-region-start is written if that mask
// has it. It does nothing when nothing can be traced on p (p.track).
func (p *Proc) pushRegion(at Site, typ int) {
	if !p.track {
		return
	}
	outer := p.mask
	if p.r.hasLocal {
		p.mask = p.r.req.Enter(p.reqNode(), at.Sub, p.r.regionNo(at), outer)
	}
	rg := region{at: at, typ: typ, outer: outer}
	if p.gt != nil {
		rg.gtr = p.goRegion(at, typ)
	}
	if p.on(trace.TagTraceRegionStart) {
		if typ == trace.RegionSubroutine && p.throttled(at.Sub) {
			rg.how, rg.t0 = regionThrottled, float64(nanotime())
		} else {
			rg.how, rg.t0 = regionTimed, p.now()
			p.regionRec(trace.TagTraceRegionStart, at, typ, rg.t0)
			if typ == trace.RegionSubroutine && uint(at.Sub) < uint(len(p.thr)) {
				th := &p.thr[at.Sub]
				th.recursive = th.recursive || th.tracedOpen > 0
				th.tracedOpen++
			}
		}
	}
	p.regions = append(p.regions, rg)
	if p.prof != nil {
		p.labelRegions()
	}
	if p.sv != nil && rg.how != regionThrottled {
		p.regions[len(p.regions)-1].svm = p.sv.regionStart(p, at)
	}
}

func (p *Proc) regionRec(tag trace.Tag, at Site, typ int, clock float64) {
	p.buf.Rec3(tag, p.id, clock, at.Sub, at.Dir, typ)
	p.recorded()
}

// site appends a site's subprogram and directive numbers.
func (p *Proc) site(at Site) {
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
}

// popRegion closes the innermost open region (at, typ) and every
// region opened inside it. It does nothing if no such region is open.
func (p *Proc) popRegion(at Site, typ int) {
	if !p.track {
		return
	}
	for i := len(p.regions) - 1; i >= 0; i-- {
		if rg := p.regions[i]; rg.at == at && rg.typ == typ {
			p.closeRegionsAbove(i)
			return
		}
	}
}

// closeRegionsAbove closes the open regions from the innermost down to
// index i: each one's trace-region-stop is tested against the mask inside
// it, then the mask outside it is restored.
func (p *Proc) closeRegionsAbove(i int) {
	for j := len(p.regions) - 1; j >= i; j-- {
		rg := &p.regions[j]
		if p.sv != nil && rg.how != regionThrottled {
			p.sv.regionEnd(p, rg.at, rg.svm, j == 0)
		}
		if p.id == 0 && p.on(trace.TagVarCheck) {
			p.varCheck(rg)
		}
		switch {
		case rg.how == regionThrottled:
			p.throttledCall(rg.at.Sub, float64(nanotime())-rg.t0)
		case p.on(trace.TagTraceRegionStop):
			t1 := p.now()
			p.regionRec(trace.TagTraceRegionStop, rg.at, rg.typ, t1)
			if rg.how == regionTimed && rg.typ == trace.RegionSubroutine && uint(rg.at.Sub) < uint(len(p.thr)) {
				th := &p.thr[rg.at.Sub]
				if th.tracedOpen--; th.tracedOpen == 0 && th.off {
					// The outermost traced call ends: the next call is
					// outermost (see throttle's recursive).
					p.fastLeft(rg.at.Sub)
				}
				p.tracedCall(rg.at.Sub, t1-rg.t0)
			}
		}
		p.mask = rg.outer
		if rg.gtr != nil {
			rg.gtr.End()
		}
	}
	if i < len(p.regions) {
		p.regions = p.regions[:i]
	}
	if p.prof != nil {
		p.labelRegions()
	}
}

// syncRec writes one of the four-field synchronisation records. Callers
// test p.on(tag).
func (p *Proc) syncRec(tag trace.Tag, at Site) {
	p.begin(tag, p.id)
	p.buf.Int(at.Sub)
	p.buf.Int(at.Dir)
	p.end()
}

// isLeader reports whether p writes the APS-global records.
func (p *Proc) isLeader() bool { return p.aps.leader == p }

// Enter opens the region of subprogram sub (trace-region-start, type
// subroutine, directive 0) and applies the LOCAL requests naming it.
func (p *Proc) Enter(sub int) {
	if !p.track {
		return
	}
	if uint(sub) < uint(len(p.gate)) && p.gate[sub] < 0 {
		p.gated(sub)
	}
	p.enterSub(sub)
}

func (p *Proc) enterSub(sub int) {
	if !p.enterThrottled(sub) {
		p.pushRegion(Site{Sub: sub}, trace.RegionSubroutine)
	}
}

// Exit closes the regions still open inside the innermost region of sub (a
// return out of a user region), then the subroutine region itself. Generated
// code calls it with defer.
func (p *Proc) Exit(sub int) {
	if !p.track || testRun.Load() && p.lentAway() {
		return
	}
	p.exitSub(sub)
}

func (p *Proc) exitSub(sub int) {
	if !p.exitThrottled(sub) {
		p.popRegion(Site{Sub: sub}, trace.RegionSubroutine)
	}
}

// RegionStart opens a trace region of type typ (trace.RegionUser, ...)
// at directive dir of sub.
func (p *Proc) RegionStart(sub, dir, typ int) {
	if !p.track {
		return
	}
	p.pushRegion(Site{Sub: sub, Dir: dir}, typ)
}

// RegionStop closes the region opened by RegionStart with the same
// arguments, and any region still open inside it.
func (p *Proc) RegionStop(sub, dir, typ int) {
	if !p.track {
		return
	}
	p.popRegion(Site{Sub: sub, Dir: dir}, typ)
}

// SharedVar is one shared variable: its number and address.
type SharedVar struct {
	Num int
	// Addr is the variable's address for variable-mapping; 0: its
	// storage's. svmc passes 0 for slices: taking a slice variable's
	// address keeps it in memory, and every access of a checked loop
	// would load it again (2.4x instead of 1.5x on a Jacobi sweep).
	Addr uintptr
	// Store is the variable's storage (a slice's backing array, an
	// array), kept in pages by the shared virtual memory layer.
	Store Storage
	// Rows are the storage of the rows of a slice of slices.
	Rows []Storage
}

// Shared makes each variable's storage a segment of the shared virtual
// memory layer (once per storage: a slice shared again after append gets a
// new segment), writing shared-segment-address for a new one (stage 6),
// and writes variable-mapping (stage 2): one row [number, addr>>32,
// addr&0xffffffff] per variable.
func (p *Proc) Shared(sub, dir int, vars ...SharedVar) {
	at := Site{Sub: sub, Dir: dir}
	for _, v := range vars {
		for _, st := range append([]Storage{v.Store}, v.Rows...) {
			if st.Size <= 0 {
				continue
			}
			g, fresh := p.r.segment(st, segVar{sub, v.Num})
			if fresh && p.exchangeable() {
				p.r.exchange(g.ID - 1)
			}
			if fresh && p.on(trace.TagSharedSegmentAddress) {
				p.begin(trace.TagSharedSegmentAddress, p.id)
				p.buf.Int(g.ID)
				p.buf.Int(int(int32(uint32(g.Base))))
				p.end()
			}
			if fresh && p.r.svmOn && p.track {
				p.begin(trace.TagSegmentVariable, p.id)
				p.buf.Int(g.ID)
				p.buf.Int(sub)
				p.buf.Int(v.Num)
				p.buf.Int(int(g.PageNumbers()[0]))
				p.buf.Int(g.Pages)
				p.buf.Int(g.Size)
				p.buf.Int(g.PageSize)
				p.end()
			}
		}
	}
	if !p.on(trace.TagVariableMapping) {
		return
	}
	p.begin(trace.TagVariableMapping, p.id)
	p.buf.Int(at.Sub)
	p.buf.Int(len(vars))
	p.buf.Int(3)
	for _, v := range vars {
		a := uint64(v.Addr)
		if a == 0 {
			a = uint64(v.Store.Addr)
		}
		p.buf.Int(v.Num)
		p.buf.Int(int(int32(uint32(a >> 32))))
		p.buf.Int(int(int32(uint32(a))))
	}
	p.end()
}

// ctxEntry is a region of the APS leader, as the request table names it.
type ctxEntry struct{ sub, region int }

// snapCtx records the regions the leader is in before it dispatches a task,
// so that the members running the task apply the LOCAL requests of those
// regions too (adoptCtx): a request for a region covers the parallel loops
// and barriers inside it on every processor, although only the leader
// executed the region's start in exclusive mode. The members read the
// snapshot before they reach the barrier that ends the task, and the leader
// takes the next one after it.
func (p *Proc) snapCtx() {
	if !p.r.hasLocal || !p.track {
		return
	}
	p.tr.ctx = p.tr.ctx[:0]
	for _, rg := range p.regions {
		p.tr.ctx = append(p.tr.ctx, ctxEntry{rg.at.Sub, p.r.regionNo(rg.at)})
	}
}

// adoptCtx applies the LOCAL requests of the regions the leader was in when
// it dispatched the task p is about to run, and returns the mask to go back
// to after the task.
func (p *Proc) adoptCtx(leader *Proc) request.Mask {
	old := p.mask
	if !p.r.hasLocal || !p.track {
		return old
	}
	m := old
	for _, c := range leader.tr.ctx {
		m = p.r.req.Enter(p.id, c.sub, c.region, m)
	}
	p.mask = m
	return old
}

// Tracked reports whether anything can be traced on p; it does not change
// during a run. A recursive function's instrumented form enters its plain
// clone when it is false (codegen/clones.go): nothing it would record can
// be asked for later in the run.
func (p *Proc) Tracked() bool { return p.track }

// Trace reports whether this call of subprogram sub takes its traced
// entry. Generated code begins every instrumented function with
//
//	if svm_p.Trace(sub) {
//		return svm_rt.EntryN_M(svm_p, sub, svm_F, args...) // Enter(sub), defer Exit(sub), F's body again
//	}
//
// (EntryN_M for N parameters and M results, entries.go; a function of its
// own, svm_svm_F, for a variadic or larger signature), so that the body
// holds no defer: a function with a defer is never inlined, and even a
// defer not taken cost small recursive functions half their time at stage
// 0 (BenchmarkSubprogramCall). It is short enough to be inlined: at stage
// 0 a load and a branch. When tracing, gate[sub] counts down the calls
// that may skip the entry: none while sub is traced, most of them once it
// is throttled; Enter re-arms it (gated, throttle.go).
func (p *Proc) Trace(sub int) bool {
	if !p.track {
		return false
	}
	g := &p.gate[sub]
	*g--
	return *g < 0
}
