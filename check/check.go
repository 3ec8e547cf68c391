// Package check is the trace correctness analyser of seed 003 for svmc
// programs: it reads a trace of message-passing calls (and of svmc's own
// synchronisation) and finds the errors of seed 003's list, each with its
// class (the seed's short name), the processors, the calls with their
// parameters and the source line of each. Within one processor: abend,
// abort, incomplete call, unfinished send / recv, nonfreed request,
// overlapping, send checksum. Between processors: nonpaired send / recv,
// recv checksum, wrong send size, wrong data type. Collectives: incomplete
// gop, unfinished gop, wrong recv size, wrong data type, diff reductions,
// wrong root process, different order. Hang-ups and deadlocks: real
// deadlock (a cycle of processors waiting for each other; waits left for
// different sync mutexes of the program when the run deadlocked), real
// hang-up (waiting for a processor that ended or waits elsewhere for ever;
// for one sync mutex no one unlocks),
// potential deadlock (a cycle that only buffering of standard sends broke
// in this run; a lock-order cycle that did not close this time).
//
// The checks need the message records of stage 3 (request word MsgInfo),
// and for the checksum classes a run with msg_checksum (svmc run --check
// turns on both). The analyser reads each processor's records once in a
// causally consistent order (package replay) and keeps only what is still
// open: pending sends, requests and calls, plus one small node per
// blocking operation for the potential-deadlock search.
package check

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// Error classes: seed 003's short names.
const (
	Abend            = "abend"
	Abort            = "abort"
	IncompleteCall   = "incomplete call"
	UnfinishedSend   = "unfinished send"
	UnfinishedRecv   = "unfinished recv"
	NonfreedRequest  = "nonfreed request"
	Overlapping      = "overlapping"
	SendChecksum     = "send checksum"
	NonpairedSend    = "nonpaired send"
	NonpairedRecv    = "nonpaired recv"
	RecvChecksum     = "recv checksum"
	WrongSendSize    = "wrong send size"
	WrongDataType    = "wrong data type"
	IncompleteGop    = "incomplete gop"
	UnfinishedGop    = "unfinished gop"
	WrongRecvSize    = "wrong recv size"
	DiffReductions   = "diff reductions"
	WrongRoot        = "wrong root process"
	DifferentOrder   = "different order"
	RealDeadlock     = "real deadlock"
	RealHangup       = "real hang-up"
	PotentialDeadlk  = "potential deadlock"
	PotentialHangup  = "potential hang-up"
	severityError    = "error"
	severityWarning  = "warning"
	defaultMaxErrors = 20
)

// Classes lists every class, in the protocol's order.
var Classes = []string{Abend, Abort, IncompleteCall, UnfinishedSend, UnfinishedRecv, NonfreedRequest, Overlapping,
	SendChecksum, NonpairedSend, NonpairedRecv, RecvChecksum, WrongSendSize, WrongDataType, IncompleteGop,
	UnfinishedGop, WrongRecvSize, DiffReductions, WrongRoot, DifferentOrder, RealDeadlock, RealHangup,
	PotentialDeadlk, PotentialHangup}

// Diagnosis is one error of the protocol.
type Diagnosis struct {
	Class      string   `json:"class"`
	Severity   string   `json:"severity"` // "error" or "warning"
	Processors []int    `json:"processors"`
	File       string   `json:"file"` // of the call a user must change
	Line       int      `json:"line"`
	Message    string   `json:"message"`
	Calls      []string `json:"calls,omitempty"` // the operations involved, with parameters and position
}

// Options control the analysis (seed 003 controls it through a parameter
// file; svmc check's flags and its --params file set these).
type Options struct {
	Prog *progdb.Program
	// MaxErrors bounds the diagnoses per processor (0: the default, 20;
	// negative: none); a line says when a processor reached it.
	MaxErrors int
	// Classes, when not empty, are the only classes checked.
	Classes []string
	// NoPotential turns the search for potential deadlocks off.
	NoPotential bool
	// TraceOut, if set, receives the trace as calls and returns, in the
	// consistent order (seed 003's Trace printing).
	TraceOut io.Writer
}

// Result is the analysis of one trace.
type Result struct {
	Procs      int
	Records    int64
	Ended      End
	ProcState  []string     // each processor's state at the end
	Lanes      int          // goroutine lanes with records (their processors' work)
	Diagnoses  []*Diagnosis // by processor, then position
	Suppressed map[int]int  // per processor: diagnoses beyond MaxErrors
	Calls      []CallCount  // per function
	Sites      []SitePoint  // the call sites seen
	Stages     []Stage
	// OpsCut: the trace has more blocking operations than MaxOps; the
	// search for potential deadlocks covered the first MaxOps.
	OpsCut bool
	// Checksums: the trace carries buffer checksums (svmc run --check);
	// without them the checksum classes cannot be found.
	Checksums bool
}

// End is how the run ended (its trace-end record).
type End struct {
	Recorded bool
	Status   int
	Message  string
}

// CallCount is the calls of one function, for the program and per
// processor, with their time.
type CallCount struct {
	Func    string
	Count   int64
	Time    float64
	PerProc []int64
	TimePP  []float64
}

// SitePoint is a source point of the program: a numbered call site.
type SitePoint struct {
	Site  int
	Func  string
	Where string
	Calls int64
}

// Stage is one of seed 003's stages with its time.
type Stage struct {
	Name    string
	Seconds float64
}

// call is one message-passing call as the analyser sees it.
type call struct {
	proc, kind, site, sub int
	seq                   int // position among the processor's calls
	t0, t1                float64
	peer, tag             int
	group, id, req        int
	elem                  string
	count                 int
	lo, hi                uint64 // buffer address range; hi < lo: none
	sum                   int
	rpeer, rtag, rcount   int
	rlo, rhi              uint64
	gsize, op             int
	open                  bool // entered, not (yet) returned
	// Completion (msg-call-stop, msg-request-done).
	src, mtag, mcount, mid, csum int
	done                         bool
	// A send's pairing.
	received bool
	recvBy   *call
	// A request's completion and the processor's blocking-op node.
	completedAt int // site of the Wait/Test that completed it
	node        int // index into blocking ops (potential deadlocks), -1
	before      int // the processor's blocking op before this call, -1
	overlapped  bool
	heard       float64 // a send: the latest send of its destination its sender had received
}

// procState is one processor's part of the analysis.
type procState struct {
	calls   int
	open    *call         // the call in progress
	reqs    map[int]*call // pending non-blocking operations by request id
	lastOp  int           // last blocking op node, -1
	waiting *syncWait     // an open wait of svmc's synchronisation
	held    []lockHold    // locks and critical sections held, innermost last
	ops     []int         // the processor's blocking op nodes
	errs    int
	ended   bool
	heard   map[int]float64 // per sender: the latest start of a send of it received here
	wild    []wildcard      // recent wildcard receives (races)
	mutex   *mutexWait      // an open wait for a sync mutex of the program
	// A goroutine lane (goroutine-start): the processor that started the
	// goroutine and where.
	lane    bool
	owner   int
	started string
}

// mutexWait is a wait for a sync mutex the program locks (wait-mutex-start):
// its mutex site and the mutex's address (low 32 bits).
type mutexWait struct {
	site int
	addr int32
	t0   float64
}

// wildcard is a completed receive from AnySource.
type wildcard struct {
	site, src, tag int
	t1             float64
	c              *call
	reported       bool
}

type syncWait struct {
	tag      trace.Tag
	sub, dir int
	t0       float64
	key      string // a lock's or critical section's (lockKey)
}

type lockHold struct {
	key      string // "lock ADDR" or "critical SUB/DIR"
	sub, dir int
}

// sendKey names a point-to-point message: its sender and message id.
type sendKey struct{ src, id int }

// analyser holds the state of one analysis.
type analyser struct {
	opt     Options
	attrs   []trace.Attr // the trace's stream attributes
	prog    *progdb.Program
	procs   []*procState
	res     *Result
	sends   map[sendKey]*call // sends whose receive is not seen yet
	colls   map[[2]int][]*call
	collOrd [][2]int
	allocs  []*call // calls kept for the end (open receives, requests)
	ops     []opNode
	lockOrd map[[2]string]lockEdge
	counts  map[string]*CallCount
	sites   map[int]*SitePoint
	classes map[string]bool
}

func (a *analyser) proc(p int) *procState {
	for len(a.procs) <= p {
		a.procs = append(a.procs, &procState{reqs: map[int]*call{}, lastOp: -1})
	}
	return a.procs[p]
}

// enabled reports whether class is checked.
func (a *analyser) enabled(class string) bool { return len(a.classes) == 0 || a.classes[class] }

// report adds a diagnosis of the processor that must change (procs[0]).
func (a *analyser) report(d *Diagnosis) {
	if !a.enabled(d.Class) {
		return
	}
	if d.Severity == "" {
		d.Severity = severityError
	}
	if len(d.Processors) > 0 && a.opt.MaxErrors >= 0 {
		ps := a.proc(d.Processors[0])
		limit := a.opt.MaxErrors
		if limit == 0 {
			limit = defaultMaxErrors
		}
		if ps.errs >= limit {
			if a.res.Suppressed == nil {
				a.res.Suppressed = map[int]int{}
			}
			a.res.Suppressed[d.Processors[0]]++
			return
		}
		ps.errs++
	}
	a.res.Diagnoses = append(a.res.Diagnoses, d)
}

// pos is the file and line of call site n.
func (a *analyser) pos(n int) (string, int) {
	if c := a.prog.Call(n); c != nil {
		return c.Pos.File, c.Pos.Line
	}
	return "", 0
}

func (a *analyser) where(n int) string {
	if c := a.prog.Call(n); c != nil {
		return c.Pos.String()
	}
	if n > 0 {
		return fmt.Sprintf("call site %d", n)
	}
	return "an unnumbered call"
}

// describe writes a call with its parameters and position, as the
// protocol lists operations.
func (a *analyser) describe(c *call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "processor %d: %s(", c.proc, trace.CallKindName(c.kind))
	switch c.kind {
	case trace.CallSend, trace.CallSsend, trace.CallIsend:
		fmt.Fprintf(&b, "to %d, tag %d, %d × %s", c.peer, c.tag, c.count, c.elem)
	case trace.CallRecv, trace.CallIrecv, trace.CallProbe:
		fmt.Fprintf(&b, "from %s, tag %s, %d × %s", peerText(c.peer), tagText(c.tag), c.count, c.elem)
	case trace.CallSendrecv:
		fmt.Fprintf(&b, "to %d, tag %d, %d × %s; from %s, tag %s, %d", c.peer, c.tag, c.count, c.elem, peerText(c.rpeer), tagText(c.rtag), c.rcount)
	case trace.CallWait, trace.CallTest:
		fmt.Fprintf(&b, "request %d", c.req)
	case trace.CallWaitAll:
		fmt.Fprintf(&b, "%d requests", c.count)
	default:
		if trace.IsCollective(c.kind) {
			if c.peer >= 0 {
				fmt.Fprintf(&b, "root %d, ", c.peer)
			}
			if c.op > 0 {
				fmt.Fprintf(&b, "%s, ", opName(c.op-1))
			}
			fmt.Fprintf(&b, "%d × %s", c.count, c.elem)
		}
	}
	if c.req > 0 && (c.kind == trace.CallIsend || c.kind == trace.CallIrecv) {
		fmt.Fprintf(&b, ") request %d", c.req)
	} else {
		b.WriteString(")")
	}
	fmt.Fprintf(&b, " at %s", a.where(c.site))
	return b.String()
}

func peerText(p int) string {
	if p < 0 {
		return "any"
	}
	return strconv.Itoa(p)
}

func tagText(t int) string {
	if t < 0 {
		return "any"
	}
	return strconv.Itoa(t)
}

func opName(op int) string {
	names := []string{"Sum", "Prod", "Min", "Max", "BAnd", "BOr", "BXor"}
	if op >= 0 && op < len(names) {
		return names[op]
	}
	return "op " + strconv.Itoa(op)
}

// newCall decodes a msg-call-start.
func newCall(e *replay.Event) *call {
	r := e.Rec
	c := &call{proc: int(e.Proc), kind: int(e.M.Kind), site: int(e.M.Site), sub: int(e.Sub), t0: e.Time,
		peer: int(e.M.Peer), tag: int(e.M.Tag), group: int(e.M.Group), id: int(e.M.ID), req: int(e.M.Req),
		count: int(e.M.Count), open: true, node: -1}
	c.elem = r.String("element type")
	c.sum = r.Int("checksum")
	c.lo, c.hi = addrRange(r, "buffer address")
	c.rpeer, c.rtag, c.rcount = r.Int("recv peer"), r.Int("recv tag"), r.Int("recv count")
	c.rlo, c.rhi = addrRange(r, "recv buffer address")
	if r.Desc.Index("group size") >= 0 {
		c.gsize, c.op = r.Int("group size"), r.Int("operation")
	}
	return c
}

// addrRange decodes [start_hi, start_lo, end_hi, end_lo]; hi < lo when the
// record has no buffer.
func addrRange(r *trace.Record, name string) (lo, hi uint64) {
	_, v := r.IntArray(name)
	if len(v) != 4 {
		return 1, 0
	}
	lo = uint64(uint32(v[0]))<<32 | uint64(uint32(v[1]))
	hi = uint64(uint32(v[2]))<<32 | uint64(uint32(v[3]))
	return lo, hi
}

func overlaps(alo, ahi, blo, bhi uint64) bool {
	return alo <= ahi && blo <= bhi && alo <= bhi && blo <= ahi
}

var posRE = regexp.MustCompile(`([\w./-]+\.go):(\d+)`)

// Stats of the calls: per function and per call site.
func (a *analyser) count(c *call) {
	fn := trace.CallKindName(c.kind)
	if pc := a.prog.Call(c.site); pc != nil {
		fn = pc.Func
	}
	cc := a.counts[fn]
	if cc == nil {
		cc = &CallCount{Func: fn}
		a.counts[fn] = cc
	}
	for len(cc.PerProc) <= c.proc {
		cc.PerProc = append(cc.PerProc, 0)
		cc.TimePP = append(cc.TimePP, 0)
	}
	d := max(0, c.t1-c.t0)
	cc.Count++
	cc.Time += d
	cc.PerProc[c.proc]++
	cc.TimePP[c.proc] += d
}

// site counts a call at its source point.
func (a *analyser) site(c *call) {
	sp := a.sites[c.site]
	if sp == nil {
		fn := trace.CallKindName(c.kind)
		if pc := a.prog.Call(c.site); pc != nil {
			fn = pc.Func
		}
		sp = &SitePoint{Site: c.site, Func: fn, Where: a.where(c.site)}
		a.sites[c.site] = sp
	}
	sp.Calls++
}

func sortDiagnoses(ds []*Diagnosis) {
	slices.SortStableFunc(ds, func(x, y *Diagnosis) int {
		px, py := -1, -1
		if len(x.Processors) > 0 {
			px = x.Processors[0]
		}
		if len(y.Processors) > 0 {
			py = y.Processors[0]
		}
		return cmp.Or(cmp.Compare(px, py), strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line))
	})
}
