package rtlib

import (
	"sync"
	"sync/atomic"

	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/rtlib/internal/team"
	"github.com/svmc/svmc/trace"
)

// Proc is one processor of a run; generated code passes it around as svmP.
// Its methods must be called on the goroutine it belongs to.
type Proc struct {
	id       int
	r        *run
	aps      *aps
	apsIndex int // position in aps.members
	detached bool
	beside   bool       // detached: a test's goroutine while another test holds processor 0 (OnLeader)
	lane     bool       // the lane of a goroutine a processor started (lanes.go); detached too
	tagOnly  bool       // a starter (lanes.go): says which processor started a goroutine, nothing else
	startTag *Proc      // this processor's starter, made when it first starts a goroutine untraced
	owner    int        // a lane's processor
	gseq     int        // a lane's goroutine number in the run
	inTask   bool       // running a task dispatched to the APS (a PDO body)
	rethrown *bodyPanic // the last panic of a pdo's iteration raised again on p
	told     seenKey    // the last construct detachedConstruct spoke of
	serial   []*Iter    // serialPDO's Iters, one per nesting level
	nSerial  int
	goid     atomic.Int64 // the goroutine's id, to find its stack (the time limit, a deadlock of goroutines)
	measPos  string       // position of the MeasureFinish call being made (MeasureFinishAt)

	buf        trace.Buf
	chunkLimit int // bytes of a chunk: handed to the writer when it holds that many (chunkSize)
	regions    []region
	thr        []throttle // per subprogram, when throttling is on (throttle.go)
	gate       []int32    // per subprogram, calls left before the traced entry (Trace)

	// Tracing, output, measuring and statistics (tracing.go, output.go,
	// measure.go, stats.go).
	mask  request.Mask // records traced now: on(tag) tests it
	prof  *procLabels  // CPU profile labels (profile.go), nil without a profile
	gt    *goTracer    // Go execution trace (profile.go), nil without one
	track bool         // something may be traced: keep the region stack
	tr    procTrace
	out   procOut
	meas  []measure
	loop  loopFrame
	st    *stats.Proc // nil when statistics are off

	yields int // current rounds of yielding in await (adaptive)
	blocks int // waits that ended blocked (await's last resort; tests read it)

	mode execMode   // exclusive or replicated (modes.go)
	sync procSync   // locks held, critical sections (locks.go)
	gl   procGlobal // the same between ranks (ranklock.go)
	msg  procMsg    // message passing (message.go)
	sv   *svmProc   // the SVM layer's access checks (svm.go); nil when it is off
	rp   *pageCache // the lazy pages between ranks (rankpages.go); nil without

	varInst map[Site]int // exits of each region with var-check records (varcheck.go)

	// The wait this processor is in (deadlock.go): described by plain
	// fields, published in the atomics below only when the wait blocks.
	wk      waitKind
	wat     Site
	wpeerID int
	wseq    uint64
	wstate  atomic.Uint64
	wsite   atomic.Uint64
	wpeer   atomic.Int32

	waiter  team.Waiter // await sleeps here (its flag on a cache line of its own)
	exited  chan struct{}
	endOnce sync.Once // ended
	// inBody counts the construct bodies running on the processor
	// (callBody, callSection): a test's t.Fatal in one, or in a function
	// it calls, ends the body's share rather than the goroutine (teststop.go).
	inBody int
}

// ID returns the processor number, 0..NProcs()-1. A goroutine a processor
// started answers that processor's number when it has a lane (lanes.go),
// another detached Proc (see Current) 0.
func (p *Proc) ID() int {
	if p.lane {
		return p.owner
	}
	return p.id
}

// NProcs returns the number of processors of the run (the directive
// expression nprocs()).
func (p *Proc) NProcs() int { return p.r.n }

// Site is a place in the program that records and messages name: a
// subprogram and one of its directives (Dir 0: the subprogram itself).
// Generated code passes the two numbers; inside the runtime they travel
// together.
type Site struct{ Sub, Dir int }
