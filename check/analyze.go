package check

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// MaxOps bounds the blocking operations kept for the search for potential
// deadlocks (about 60 bytes each).
var MaxOps = 1 << 20

// opNode is one blocking operation of a processor for the search for
// potential deadlocks: it completes after the processor's previous one
// (prev) and after deps, where a standard send counts as synchronous.
type opNode struct {
	proc, site, kind int32
	prev             int32
	deps             []int32
	syncDep          bool // a dep is a send that waits for its receive only in this model
}

type lockEdge struct {
	proc          int
	fromSite, dir [2]int // sub/dir of the held and of the requested lock
}

// Analyze reads the trace (binary SDDF through its index, ASCII as one
// stream) and returns the protocol's content.
func Analyze(ra io.ReaderAt, size int64, name string, opt Options) (*Result, error) {
	t0 := time.Now()
	rd, err := trace.NewNamedReader(io.NewSectionReader(ra, 0, size), name)
	if err != nil {
		return nil, err
	}
	if opt.Prog, err = replay.Info(opt.Prog, rd.Attrs(), name); err != nil {
		return nil, err
	}
	procs := replay.Processors(rd.Attrs())
	a := &analyser{opt: opt, attrs: rd.Attrs(), prog: opt.Prog, res: &Result{Procs: procs}, sends: map[sendKey]*call{},
		colls: map[[2]int][]*call{}, lockOrd: map[[2]string]lockEdge{}, counts: map[string]*CallCount{},
		sites: map[int]*SitePoint{}, classes: map[string]bool{}}
	for _, c := range opt.Classes {
		a.classes[c] = true
	}
	t1 := time.Now()
	_, err = replay.OrderFile(ra, size, name, replay.OrderOptions{Prog: opt.Prog, Procs: procs, Records: true}, func(e *replay.Event) error {
		a.res.Records++
		a.event(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// One pass reads the trace, reconstructs the consistent order, pairs
	// the operations and finds the errors that need no whole view.
	a.res.Stages = append(a.res.Stages,
		Stage{"Analyzer initialization and trace reading", t1.Sub(t0).Seconds()},
		Stage{"Trace reconstruction, event reference creation", time.Since(t1).Seconds()})
	a.finish()
	return a.res, nil
}

// event takes the next record of a processor.
func (a *analyser) event(e *replay.Event) {
	r := e.Rec
	if e.Tag == trace.TagTraceEnd {
		a.res.Ended = End{Recorded: true, Status: r.Int("status"), Message: r.String("message")}
		return
	}
	if replay.AfterRun(e.Tag) {
		return
	}
	p := int(e.Proc)
	ps := a.proc(p)
	if a.opt.TraceOut != nil {
		a.printRecord(e)
	}
	switch e.Tag {
	case trace.TagMsgCallStart:
		c := newCall(e)
		if c.sum != 0 {
			a.res.Checksums = true
		}
		a.callStart(ps, c)
	case trace.TagMsgCallStop:
		c := ps.open
		if c == nil {
			return
		}
		ps.open = nil
		c.open, c.t1 = false, e.Time
		c.src, c.mtag, c.mcount, c.mid, c.csum = int(e.M.Src), int(e.M.MTag), int(e.M.MCount), int(e.M.MID), r.Int("checksum")
		c.done = true
		a.count(c)
		if (c.kind == trace.CallRecv || c.kind == trace.CallSendrecv) && c.src >= 0 && c.mid > 0 {
			a.paired(c, c)
		}
	case trace.TagMsgRequestDone:
		q := ps.reqs[int(e.M.Req)]
		if q == nil {
			return
		}
		delete(ps.reqs, int(e.M.Req))
		q.done, q.completedAt = true, int(e.M.Site)
		q.src, q.mtag, q.mcount, q.mid, q.csum = int(e.M.Src), int(e.M.MTag), int(e.M.MCount), int(e.M.MID), r.Int("checksum")
		switch q.kind {
		case trace.CallIrecv:
			if q.src >= 0 && q.mid > 0 {
				a.paired(q, ps.open) // the Wait (or WaitAll, Test) is the blocking op
			}
		case trace.CallIsend:
			if q.sum != 0 && q.csum != 0 && q.sum != q.csum {
				f, l := a.pos(q.site)
				a.report(&Diagnosis{Class: SendChecksum, Processors: []int{q.proc}, File: f, Line: l,
					Message: fmt.Sprintf("the buffer of the Isend at %s changed before the send completed (at %s): the receiver may get either content", a.where(q.site), a.where(q.completedAt)),
					Calls:   []string{a.describe(q)}})
			}
		}
	case trace.TagTraceRegionStop:
		if r.Int("trace region type") == trace.RegionProgram {
			ps.ended = true
		}
	case trace.TagWaitBarrierStart, trace.TagWaitBCheckoutStart, trace.TagWaitLockStart, trace.TagWaitCritSecStart:
		ps.waiting = &syncWait{tag: e.Tag, sub: int(e.Sub), dir: int(e.Dir), t0: e.Time}
		if e.Tag == trace.TagWaitLockStart || e.Tag == trace.TagWaitCritSecStart {
			ps.waiting.key = a.lockKey(e)
			a.lockOrder(ps, p, ps.waiting.key, e)
		}
	case trace.TagWaitBarrierStop, trace.TagWaitBCheckoutStop:
		ps.waiting = nil
	case trace.TagGoroutineStart:
		ps.lane, ps.owner, ps.started = true, int(e.A), e.Name
	case trace.TagWaitMutexStart:
		ps.mutex = &mutexWait{site: int(e.Dir), addr: e.A, t0: e.Time}
	case trace.TagWaitMutexStop:
		ps.mutex = nil
	case trace.TagWaitLockStop, trace.TagWaitCritSecStop:
		key := a.lockKey(e)
		if w := ps.waiting; w != nil && w.key != "" {
			key = w.key
		}
		ps.waiting = nil
		if !a.atomic(int(e.Sub), int(e.Dir)) {
			ps.held = append(ps.held, lockHold{key: key, sub: int(e.Sub), dir: int(e.Dir)})
		}
	case trace.TagReleaseLock, trace.TagExitCritSec:
		if n := len(ps.held); n > 0 {
			ps.held = ps.held[:n-1]
		}
	}
}

// printRecord writes a message record as a call or a return (seed 003's
// Trace printing).
func (a *analyser) printRecord(e *replay.Event) {
	w := a.opt.TraceOut
	switch e.Tag {
	case trace.TagMsgCallStart:
		fmt.Fprintf(w, "%12.3f  %s\n", e.Time, a.describe(newCall(e)))
	case trace.TagMsgCallStop:
		fmt.Fprintf(w, "%12.3f  processor %d: return from %s at %s", e.Time, e.Proc, trace.CallKindName(int(e.M.Kind)), a.where(int(e.M.Site)))
		if e.M.Src >= 0 {
			fmt.Fprintf(w, " (source %d, tag %d, %d elements)", e.M.Src, e.M.MTag, e.M.MCount)
		}
		fmt.Fprintln(w)
	case trace.TagMsgRequestDone:
		fmt.Fprintf(w, "%12.3f  processor %d: request %d (%s) completed at %s\n", e.Time, e.Proc, e.M.Req, trace.CallKindName(int(e.M.Kind)), a.where(int(e.M.Site)))
	}
}

// lockKey names the lock a record asks for: a critical section by its
// name (one lock per name, whatever directive enters it), a LOCK by the
// address of its first variable (wait-lock-start's rows), else the site.
func (a *analyser) lockKey(e *replay.Event) string {
	if e.Tag == trace.TagWaitCritSecStart || e.Tag == trace.TagWaitCritSecStop {
		if s := a.prog.Sub(int(e.Sub)); s != nil {
			if d := s.Directive(int(e.Dir)); d != nil {
				return "critical section " + strconv.Quote(d.Label)
			}
		}
		return fmt.Sprintf("critical section of %d/%d", e.Sub, e.Dir)
	}
	if e.Tag == trace.TagWaitLockStart && len(e.Arr) >= 2 {
		return fmt.Sprintf("lock of the variable at %#x", uint64(uint32(e.Arr[0]))<<32|uint64(uint32(e.Arr[1])))
	}
	return fmt.Sprintf("lock of %d/%d", e.Sub, e.Dir)
}

// atomic reports whether a directive is an atomic update (its lock is
// held for no time and nests nothing).
func (a *analyser) atomic(sub, dir int) bool {
	if s := a.prog.Sub(sub); s != nil {
		if d := s.Directive(dir); d != nil {
			return d.Kind == "atomic"
		}
	}
	return false
}

// lockOrder records that a processor holding locks asks for another.
func (a *analyser) lockOrder(ps *procState, p int, want string, e *replay.Event) {
	for _, h := range ps.held {
		if h.key == want {
			continue
		}
		k := [2]string{h.key, want}
		if _, ok := a.lockOrd[k]; !ok {
			a.lockOrd[k] = lockEdge{proc: p, fromSite: [2]int{h.sub, h.dir}, dir: [2]int{int(e.Sub), int(e.Dir)}}
		}
	}
}

// callStart takes a msg-call-start.
func (a *analyser) callStart(ps *procState, c *call) {
	c.seq = ps.calls
	ps.calls++
	ps.open = c
	a.site(c)
	before := int32(ps.lastOp)
	// Buffers: Sendrecv's two, a collective's two, and every new buffer
	// against the pending non-blocking operations.
	a.overlapChecks(ps, c)
	switch c.kind {
	case trace.CallSend, trace.CallSsend, trace.CallSendrecv, trace.CallIsend:
		if c.id > 0 {
			a.sends[sendKey{c.proc, c.id}] = c
			c.heard = ps.heard[c.peer]
		}
	}
	switch c.kind {
	case trace.CallIsend, trace.CallIrecv:
		ps.reqs[c.req] = c
	}
	if trace.IsCollective(c.kind) {
		k := [2]int{c.group, c.id}
		if a.colls[k] == nil {
			a.collOrd = append(a.collOrd, k)
		}
		a.colls[k] = append(a.colls[k], c)
	}
	// The blocking operations, for the potential deadlocks. c.node is the
	// call's own node; a non-blocking call remembers the node before it
	// (its receive is posted, its send started, once that completed).
	switch c.kind {
	case trace.CallSend, trace.CallSsend, trace.CallRecv, trace.CallSendrecv, trace.CallWait, trace.CallWaitAll:
		if len(a.ops) >= MaxOps {
			// Memory stays bounded: the search for potential deadlocks
			// covers the first MaxOps blocking operations (the protocol
			// says so).
			a.res.OpsCut = true
			c.node, c.before = -1, -1
			ps.lastOp = -1
			return
		}
		n := int32(len(a.ops))
		a.ops = append(a.ops, opNode{proc: int32(c.proc), site: int32(c.site), kind: int32(c.kind), prev: before})
		ps.lastOp = int(n)
		c.node = int(n)
		c.before = int(before)
	default:
		c.node = -1
		c.before = int(before)
	}
}

// overlapChecks reports buffers that overlap where they must not.
func (a *analyser) overlapChecks(ps *procState, c *call) {
	bad := func(other *call, what string) {
		c.overlapped = true
		if other != nil {
			other.overlapped = true // what it then receives is no second error
		}
		f, l := a.pos(c.site)
		calls := []string{a.describe(c)}
		if other != nil && other != c {
			calls = append(calls, a.describe(other))
		}
		a.report(&Diagnosis{Class: Overlapping, Processors: []int{c.proc}, File: f, Line: l,
			Message: fmt.Sprintf("%s at %s: %s", trace.CallKindName(c.kind), a.where(c.site), what), Calls: calls})
	}
	if (c.kind == trace.CallSendrecv || trace.IsCollective(c.kind)) && overlaps(c.lo, c.hi, c.rlo, c.rhi) {
		what, mpi := "its send and receive buffers overlap", "MPI_IN_PLACE"
		if c.lo == c.rlo && c.hi == c.rhi {
			what = "its send and receive buffers are one slice"
		}
		if c.kind == trace.CallSendrecv {
			mpi = "MPI_Sendrecv_replace"
		}
		// svmc's calls run in place (rtlib copies the send buffer first),
		// so the result is right here; the program is still wrong for MPI.
		bad(c, what+": svmc runs the call in place (the send buffer copied first), but MPI forbids overlapping buffers ("+mpi+" is MPI's way)")
		return
	}
	recvBuf := func(x *call) (uint64, uint64) {
		switch x.kind {
		case trace.CallRecv, trace.CallIrecv:
			return x.lo, x.hi
		case trace.CallSendrecv:
			return x.rlo, x.rhi
		}
		if trace.IsCollective(x.kind) {
			return x.rlo, x.rhi
		}
		return 1, 0
	}
	clo, chi := recvBuf(c)
	for _, q := range ps.reqs {
		switch q.kind {
		case trace.CallIrecv:
			// Nothing may use the buffer of a pending receive.
			if overlaps(q.lo, q.hi, c.lo, c.hi) || overlaps(q.lo, q.hi, c.rlo, c.rhi) {
				bad(q, fmt.Sprintf("its buffer overlaps that of the pending Irecv (request %d, %s)", q.req, a.where(q.site)))
				return
			}
		case trace.CallIsend:
			// A pending send's buffer may be read, not written.
			if overlaps(q.lo, q.hi, clo, chi) {
				bad(q, fmt.Sprintf("it receives into the buffer of the pending Isend (request %d, %s)", q.req, a.where(q.site)))
				return
			}
		}
	}
}

// paired takes a completed receive (rc: the Recv, Sendrecv or Irecv whose
// completion names its message; op: the call that blocked for it) and
// pairs it with its send.
func (a *analyser) paired(rc, op *call) {
	k := sendKey{rc.src, rc.mid}
	s := a.sends[k]
	if s == nil {
		return // the send was not traced (a narrowed request)
	}
	delete(a.sends, k)
	s.received, s.recvBy = true, rc
	a.races(rc, s)
	if s.sum != 0 && rc.csum != 0 && s.sum != rc.csum && s.kind != trace.CallIsend && !rc.overlapped {
		f, l := a.pos(s.site)
		a.report(&Diagnosis{Class: RecvChecksum, Processors: []int{s.proc, rc.proc}, File: f, Line: l,
			Message: fmt.Sprintf("what processor %d received at %s differs from what processor %d sent at %s", rc.proc, a.where(rc.site), s.proc, a.where(s.site)),
			Calls:   []string{a.describe(s), a.describe(rc)}})
	}
	// Potential deadlocks: the receive completes after the send started;
	// modelled as synchronous, a blocking send completes after the
	// receive was posted.
	if op != nil && op.node >= 0 && s.before >= 0 {
		a.ops[op.node].deps = append(a.ops[op.node].deps, int32(s.before))
	}
	if (s.kind == trace.CallSend || s.kind == trace.CallSsend) && s.node >= 0 && rc.before >= 0 {
		n := &a.ops[s.node]
		n.deps = append(n.deps, int32(rc.before))
		if s.kind == trace.CallSend {
			n.syncDep = true
		}
	}
}

// maxWildcards bounds the wildcard receives a processor remembers for the
// race search.
const maxWildcards = 32

// races takes a receive rc that took send s. A wildcard receive is
// remembered; a receive from one source that takes a message an earlier
// wildcard receive of the processor could have taken instead (the sender
// had not heard from the receiver since: the send was not caused by
// anything after the wildcard) is a race: had the wildcard taken it, this
// receive would wait for a message that may never come (potential
// hang-up, seed 003; MBI's message race).
func (a *analyser) races(rc, s *call) {
	ps := a.proc(rc.proc)
	if ps.heard == nil {
		ps.heard = map[int]float64{}
	}
	ps.heard[s.proc] = max(ps.heard[s.proc], s.t0)
	src, tag := rc.peer, rc.tag
	if rc.kind == trace.CallSendrecv {
		src, tag = rc.rpeer, rc.rtag
	}
	if src < 0 {
		ps.wild = append(ps.wild, wildcard{site: rc.site, src: s.proc, tag: tag, t1: rc.t1, c: rc})
		if len(ps.wild) > maxWildcards {
			ps.wild = ps.wild[1:]
		}
		return
	}
	for i := range ps.wild {
		w := &ps.wild[i]
		if w.reported || w.src == s.proc || w.t1 > rc.t0 || w.tag >= 0 && w.tag != s.tag || s.heard >= w.t1 {
			continue
		}
		w.reported = true
		f, l := a.pos(w.site)
		a.report(&Diagnosis{Class: PotentialHangup, Severity: severityWarning, Processors: []int{rc.proc, s.proc, w.src}, File: f, Line: l,
			Message: fmt.Sprintf("the wildcard receive at %s took processor %d's message, but could as well have taken processor %d's (sent at %s), which the receive at %s (from %d only) took after it; in that order the later receive waits for a message that may never come",
				a.where(w.site), w.src, s.proc, a.where(s.site), a.where(rc.site), s.proc),
			Calls: []string{a.describe(w.c), a.describe(rc)}})
	}
}

// finish runs the searches that need the whole trace.
func (a *analyser) finish() {
	end := a.res.Ended
	if a.res.Procs == 0 {
		a.res.Procs = len(a.procs)
	}
	for len(a.procs) < a.res.Procs {
		a.proc(len(a.procs))
	}
	t0 := time.Now()
	explained := map[*call]bool{} // calls a diagnosis covers (one per cause)
	stopped := end.Recorded && end.Status != trace.EndNormal
	// A run a panic, a signal or a run-time error cut short: what it left
	// open is the consequence, not another error.
	cut := end.Recorded && (end.Status == trace.EndPanic || end.Status == trace.EndError ||
		end.Status == trace.EndInterrupt || end.Status == trace.EndTerminate || end.Status == trace.EndExit)
	// The run's own end.
	if end.Recorded {
		a.runEnd(explained)
	}
	// Collectives: instance by instance.
	a.collectiveChecks(explained)
	// Hang-ups and deadlocks of the processors blocked at the end; a run
	// killed without trace-end leaves its calls incomplete.
	t1 := time.Now()
	switch {
	case !end.Recorded:
		unfinished := map[[2]int]bool{}
		for p, ps := range a.procs {
			c := ps.open
			if c == nil {
				continue
			}
			f, l := a.pos(c.site)
			if k := [2]int{c.group, c.id}; trace.IsCollective(c.kind) && c.gsize > 0 && len(a.colls[k]) >= c.gsize {
				// Every member started it, and it did not finish.
				if !unfinished[k] {
					unfinished[k] = true
					var procs []int
					var calls []string
					for _, m := range a.colls[k] {
						procs = append(procs, m.proc)
						calls = append(calls, a.describe(m))
					}
					a.report(&Diagnosis{Class: UnfinishedGop, Processors: procs, File: f, Line: l,
						Message: fmt.Sprintf("every processor of its set started the %s at %s, and it did not finish: the run ended without closing its trace (killed?)", trace.CallKindName(c.kind), a.where(c.site)),
						Calls:   calls})
				}
				explained[c] = true
				continue
			}
			a.report(&Diagnosis{Class: IncompleteCall, Processors: []int{p}, File: f, Line: l,
				Message: fmt.Sprintf("processor %d entered %s at %s and never returned: the run ended without closing its trace (killed?)", p, trace.CallKindName(c.kind), a.where(c.site)),
				Calls:   []string{a.describe(c)}})
			explained[c] = true
		}
	case stopped && !cut:
		a.blocked(explained)
		if end.Status == trace.EndDeadlock {
			a.mutexDeadlock()
		}
	}
	tDeadlock := time.Since(t1)
	t2 := time.Now()
	// What was left open by processors that went on.
	for p, ps := range a.procs {
		for _, q := range sortedReqs(ps.reqs) {
			if explained[q] || (stopped && !ps.ended) || cut {
				continue
			}
			f, l := a.pos(q.site)
			switch {
			case q.kind == trace.CallIsend && q.received:
				a.report(&Diagnosis{Class: NonfreedRequest, Severity: severityWarning, Processors: []int{p}, File: f, Line: l,
					Message: fmt.Sprintf("the request of the Isend at %s was never completed by Wait or Test (its message was received)", a.where(q.site)),
					Calls:   []string{a.describe(q)}})
			case q.kind == trace.CallIsend:
				a.report(&Diagnosis{Class: UnfinishedSend, Processors: []int{p}, File: f, Line: l,
					Message: fmt.Sprintf("the Isend at %s was never completed (no Wait or successful Test) and no receive took its message", a.where(q.site)),
					Calls:   []string{a.describe(q)}})
				explained[q] = true
			default:
				a.report(&Diagnosis{Class: UnfinishedRecv, Processors: []int{p}, File: f, Line: l,
					Message: fmt.Sprintf("the Irecv at %s was never completed (no Wait or successful Test)", a.where(q.site)),
					Calls:   []string{a.describe(q)}})
				// The message it may have taken is no second error.
				for _, s := range a.sends {
					if s.peer == p && (q.peer < 0 || q.peer == s.proc) && (q.tag < 0 || q.tag == s.tag) {
						explained[s] = true
						break
					}
				}
			}
		}
	}
	// Messages no receive took.
	var left []*call
	for _, s := range a.sends {
		if !explained[s] {
			left = append(left, s)
		}
	}
	slices.SortFunc(left, func(x, y *call) int { return cmp.Or(cmp.Compare(x.proc, y.proc), cmp.Compare(x.seq, y.seq)) })
	for _, s := range left {
		if cut || stopped && !a.proc(s.peer).ended && a.isBlocked(s.peer) == nil && end.Status != trace.EndDeadlock {
			continue // the receiver may not have got to it
		}
		f, l := a.pos(s.site)
		a.report(&Diagnosis{Class: NonpairedSend, Processors: []int{s.proc, s.peer}, File: f, Line: l,
			Message: fmt.Sprintf("the message processor %d sent to processor %d with tag %d at %s was never received", s.proc, s.peer, s.tag, a.where(s.site)),
			Calls:   []string{a.describe(s)}})
	}
	tErrors := time.Since(t2) + t1.Sub(t0)
	// Potential deadlocks: only when the run did not really deadlock.
	t3 := time.Now()
	if !a.opt.NoPotential && !(end.Recorded && end.Status == trace.EndDeadlock) {
		a.potentialDeadlocks()
		a.lockCycles()
	}
	tDeadlock += time.Since(t3)
	a.res.Stages = append(a.res.Stages, Stage{"Error detection", tErrors.Seconds()}, Stage{"Deadlock detection", tDeadlock.Seconds()})
	a.finishStats()
	sortDiagnoses(a.res.Diagnoses)
}

func sortedReqs(m map[int]*call) []*call {
	var out []*call
	for _, q := range m {
		out = append(out, q)
	}
	slices.SortFunc(out, func(x, y *call) int { return cmp.Compare(x.req, y.req) })
	return out
}

// runEnd diagnoses the end of the run: a panic (abend), a signal (abort),
// or an error the runtime stopped the run for (a message its receive
// could not take, collectives that do not match).
func (a *analyser) runEnd(explained map[*call]bool) {
	end := a.res.Ended
	msg := end.Message
	file, line := "", 0
	if m := posRE.FindStringSubmatch(msg); m != nil {
		file, line = m[1], atoi(m[2])
		// The run's message names the file from where it started; one
		// of the program's files gets the program information's name
		// (another, a library's outside the program, keeps its own).
		if f := replay.MessageFile(a.attrs, file); a.prog != nil && slices.Contains(a.prog.Files, f) {
			file = f
		}
	}
	procs := procOf(msg)
	d := &Diagnosis{Processors: procs, File: file, Line: line, Message: msg}
	switch end.Status {
	case trace.EndPanic:
		d.Class = Abend
	case trace.EndInterrupt, trace.EndTerminate:
		d.Class, d.Severity = Abort, severityWarning
	case trace.EndError:
		collective := false
		for _, k := range []int{trace.CallBcast, trace.CallReduce, trace.CallAllreduce, trace.CallGather, trace.CallScatter,
			trace.CallAllgather, trace.CallAlltoall, trace.CallBarrier} {
			if strings.Contains(msg, ": "+trace.CallKindName(k)+":") {
				collective = true
			}
		}
		switch {
		case collective && (strings.Contains(msg, "does not fit the receive buffer") || strings.Contains(msg, "contributed")):
			d.Class = WrongRecvSize
		case strings.Contains(msg, "does not fit the receive buffer"):
			d.Class = WrongSendSize
		case strings.Contains(msg, "reached a receive buffer of"), strings.Contains(msg, "needs an integer element type"):
			d.Class = WrongDataType
		case strings.Contains(msg, "processors called different collectives"):
			d.Class = DifferentOrder
		case strings.Contains(msg, "contributed"), strings.Contains(msg, "elements, it needs"):
			d.Class = WrongRecvSize
		case strings.Contains(msg, "root ") && strings.Contains(msg, "is not a processor"):
			d.Class = WrongRoot
		default:
			d.Class = Abend // an error the runtime stopped the run for
		}
		// The receive that failed is explained, and its send.
		for _, ps := range a.procs {
			if c := ps.open; c != nil {
				f, l := a.pos(c.site)
				if f == file && l == line || trace.IsCollective(c.kind) {
					explained[c] = true
					for _, s := range a.sends {
						if s.peer == c.proc {
							explained[s] = true
						}
					}
				}
			}
		}
	default:
		return
	}
	a.report(d)
}

// procOf finds "processor N" in a runtime message.
func procOf(msg string) []int {
	i := strings.Index(msg, "processor ")
	if i < 0 {
		return nil
	}
	j := i + len("processor ")
	k := j
	for k < len(msg) && msg[k] >= '0' && msg[k] <= '9' {
		k++
	}
	if k == j {
		return nil
	}
	return []int{atoi(msg[j:k])}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// collectiveChecks compares the members of each collective instance.
func (a *analyser) collectiveChecks(explained map[*call]bool) {
	diagnosedGroup := map[int]bool{}
	for _, k := range a.collOrd {
		ms := a.colls[k]
		first := ms[0]
		if diagnosedGroup[first.group] || slices.ContainsFunc(ms, func(c *call) bool { return explained[c] }) {
			diagnosedGroup[first.group] = true
			continue // one diagnosis per cause: a group's first error
		}
		report := func(class string, c *call, what string) {
			f, l := a.pos(c.site)
			var calls []string
			var procs []int
			for _, m := range ms {
				calls = append(calls, a.describe(m))
				procs = append(procs, m.proc)
			}
			a.report(&Diagnosis{Class: class, Processors: procs, File: f, Line: l, Message: what, Calls: calls})
			for _, m := range ms {
				explained[m] = true
			}
			diagnosedGroup[first.group] = true
		}
		done := false
		for _, m := range ms[1:] {
			switch {
			case m.kind != first.kind:
				report(DifferentOrder, m, fmt.Sprintf("processor %d called %s at %s where processor %d called %s at %s (the same collective of their set)",
					m.proc, trace.CallKindName(m.kind), a.where(m.site), first.proc, trace.CallKindName(first.kind), a.where(first.site)))
			case m.peer != first.peer:
				report(WrongRoot, m, fmt.Sprintf("%s: processor %d gives root %d, processor %d root %d", trace.CallKindName(m.kind), m.proc, m.peer, first.proc, first.peer))
			case m.op != first.op:
				report(DiffReductions, m, fmt.Sprintf("%s: processor %d reduces with %s, processor %d with %s", trace.CallKindName(m.kind), m.proc, opName(m.op-1), first.proc, opName(first.op-1)))
			case m.elem != first.elem && m.count > 0 && first.count > 0:
				report(WrongDataType, m, fmt.Sprintf("%s: processor %d passes %s, processor %d %s", trace.CallKindName(m.kind), m.proc, m.elem, first.proc, first.elem))
			case m.count != first.count && m.kind != trace.CallScatter && m.kind != trace.CallGather:
				report(WrongRecvSize, m, fmt.Sprintf("%s: processor %d passes %d elements, processor %d %d", trace.CallKindName(m.kind), m.proc, m.count, first.proc, first.count))
			default:
				continue
			}
			done = true
			break
		}
		if done || first.gsize <= len(ms) {
			continue
		}
		// Not every member started it: known when the run stopped with
		// the members waiting (not cut short by an error elsewhere).
		if e := a.res.Ended; e.Recorded && e.Status != trace.EndDeadlock {
			continue
		}
		var missing []int
		in := map[int]bool{}
		for _, m := range ms {
			in[m.proc] = true
		}
		for p := 0; p < a.res.Procs && len(missing) < first.gsize-len(ms); p++ {
			if !in[p] {
				missing = append(missing, p)
			}
		}
		report(IncompleteGop, first, fmt.Sprintf("%s at %s: %d of its %d processors started it (not: %v)", trace.CallKindName(first.kind), a.where(first.site), len(ms), first.gsize, missing))
	}
}

func (a *analyser) finishStats() {
	for _, cc := range a.counts {
		a.res.Calls = append(a.res.Calls, *cc)
	}
	slices.SortFunc(a.res.Calls, func(x, y CallCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), strings.Compare(x.Func, y.Func))
	})
	for _, sp := range a.sites {
		a.res.Sites = append(a.res.Sites, *sp)
	}
	slices.SortFunc(a.res.Sites, func(x, y SitePoint) int { return cmp.Compare(x.Site, y.Site) })
	// The run's processors; records of node ids beyond them are goroutine
	// lanes (the processor's own work), counted apart.
	procs := a.procs
	if n := a.res.Procs; n > 0 && n < len(procs) {
		procs, a.res.Lanes = procs[:n], len(procs)-n
	}
	a.res.ProcState = make([]string, len(procs))
	for p, ps := range procs {
		switch {
		case ps.open != nil:
			a.res.ProcState[p] = "in " + strings.TrimPrefix(a.describe(ps.open), fmt.Sprintf("processor %d: ", p))
		case ps.waiting != nil:
			a.res.ProcState[p] = "waiting (" + trace.Lookup(ps.waiting.tag).Name + ") at " + a.dirWhere(ps.waiting.sub, ps.waiting.dir)
		case ps.ended:
			a.res.ProcState[p] = "ended"
		default:
			a.res.ProcState[p] = "stopped"
		}
	}
}

// dirWhere is the position of a directive.
func (a *analyser) dirWhere(sub, dir int) string {
	if s := a.prog.Sub(sub); s != nil {
		if d := s.Directive(dir); d != nil {
			return d.Pos.String()
		}
		return s.Pos.String()
	}
	return fmt.Sprintf("sub %d dir %d", sub, dir)
}
