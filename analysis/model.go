package analysis

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// Model is what one pass over a trace learns. Times are microseconds. The
// JSON field names are stable (see doc.go).
type Model struct {
	Program string `json:"program,omitempty"` // import path from the program information
	Procs   int    `json:"procs"`             // N, processors of the run
	Stage   int    `json:"stage"`             // tracing stage (-1 unknown)
	CPUs    int    `json:"cpus,omitempty"`    // the run's GOMAXPROCS (trace attribute "cpus"; 0 unknown)
	// StartedBy says which process started this run where it would have
	// written that process's trace (trace attribute "svmc started by":
	// its trace is FILE.child-PID); "" for a run svmc or a user started.
	StartedBy string `json:"started_by,omitempty"`
	Records   int64  `json:"records"`
	// StuckMutexes: at the end of a run that deadlocked or was stopped,
	// the number of different sync mutexes that waits still went on for
	// (two or more: likely a lock-order inversion).
	StuckMutexes int `json:"stuck_mutexes,omitempty"`
	// Narrowed: a stage-0 trace with records, which only LOCAL requests
	// can give: it covers the requested regions only.
	Narrowed bool `json:"narrowed,omitempty"`
	// Start and End are the earliest and latest clock of any record;
	// Duration = End − Start is the run time T of the formulas.
	Start    float64 `json:"start_us"`
	End      float64 `json:"end_us"`
	Duration float64 `json:"duration_us"`

	Time    Characteristics `json:"time"`
	PerProc []ProcTime      `json:"per_proc"`
	Regions []*RegionStat   `json:"regions"`
	Loops   []*LoopStat     `json:"loops"`
	Waits   []*WaitStat     `json:"waits"`
	// GC is the garbage collector's pauses (nil unless the run was asked
	// for the Go runtime's context).
	GC *GCStats `json:"gc,omitempty"`
	// Goroutines are the goroutines each processor started, from their
	// lanes (svmc run's trace gives a goroutine of a traced processor a
	// lane of its own); their time is the processor's, not N's.
	Goroutines []GoroutineStat `json:"goroutines,omitempty"`
	// Serial is the leader's exclusive-mode time per region: code the
	// other processors idle through.
	Serial []*SerialStat `json:"serial,omitempty"`
	// Order describes the causally consistent order the pass read the
	// records in (nil when the pass read them in file order).
	Order    *replay.OrderStats `json:"order,omitempty"`
	Warnings []string           `json:"warnings,omitempty"`

	// Measures are the measured intervals (MeasureStart / MeasureFinish)
	// per name and level, in the order of their first entry.
	Measures []*MeasureStat `json:"measures,omitempty"`
	// Stats are the runtime's interval statistics (stat-interval and
	// stat-group records, SVMC_STATS=1) by interval id: its figures, not
	// the trace's (see StatInterval).
	Stats []*StatInterval `json:"stats,omitempty"`
	// Ended is how the run ended (the trace-end record).
	Ended RunEnd `json:"end"`
	// Throttled are the subprograms whose tracing the runtime throttled
	// (trace-throttled, throttled-calls): their calls after throttling are
	// in Regions (their time counted as inclusive and exclusive), but no
	// record of theirs is in the trace.
	Throttled []*ThrottleStat `json:"throttled,omitempty"`
	// Plain are the subprograms svmc left as written, small enough for
	// the Go compiler to inline (progdb's plain): they have no region, and
	// their time is their callers'.
	Plain []Site `json:"plain,omitempty"`
	// Messages is the message passing (nil when the trace has none).
	Messages *MessageStats `json:"messages,omitempty"`
	// Locality is the SVM layer's page faults and travel (nil when the
	// trace has no page records: below stage 4).
	Locality *Locality `json:"locality,omitempty"`
	// VarChecks are the checksums of shared variables at region exits
	// (var-check, request word VarCheck), in the order processor 0 wrote
	// them: svmc diff compares two runs' values with them.
	VarChecks []VarCheck `json:"var_checks,omitempty"`
	// Ranks are the ranks of an MPI job whose traces were merged
	// (rank-info records), by rank.
	Ranks []RankStat `json:"ranks,omitempty"`

	prog *progdb.Program
}

// RankStat is one rank of an MPI job: its processors, the shift that moved
// its clocks onto rank 0's and its error bound, the shared storage it sent
// at the ends of pdos and replicated regions, and the program's messages
// it sent to other ranks.
type RankStat struct {
	Rank         int     `json:"rank"`
	Of           int     `json:"ranks"` // the job's ranks
	PerRank      int     `json:"procs_per_rank"`
	Shift        float64 `json:"shift_us"`
	Err          float64 `json:"error_us"`
	Exchanges    int     `json:"exchanges"`
	BytesSent    float64 `json:"bytes_sent"`
	Messages     int     `json:"messages"`
	MessageBytes float64 `json:"message_bytes"`
	// EndShift is the shift measured again at the run's normal end (the
	// merge drifts the shift linearly to it); EndErr its error bound, −1
	// where it was not measured.
	EndShift float64 `json:"end_shift_us"`
	EndErr   float64 `json:"end_error_us"`
	// Locks is the critical sections, locks and atomic updates the rank's
	// processors took between ranks, Published the bytes they published.
	Locks     int     `json:"global_locks"`
	Published float64 `json:"bytes_published"`
	// Pages the rank fetched from their homes (lazy pages of fully checked
	// shared variables) and their bytes, with the bytes of stale pages
	// the ranks made current together in exclusive code; Served the pages
	// it sent as a home; Synced the stale pages made current together.
	Pages     int     `json:"pages_fetched"`
	PageBytes float64 `json:"page_bytes_received"`
	Served    int     `json:"pages_served"`
	Synced    int     `json:"stale_pages_synchronised"`
	// Prefetched: of Pages, those asked for at a construct's start
	// because its last run fetched them.
	Prefetched int `json:"pages_prefetched"`
}

// Prog returns the program information the model was built with (nil if
// none).
func (m *Model) Prog() *progdb.Program { return m.prog }

// Characteristics are the Lib-DVM execution characteristics (seed 000
// §11) of the whole run, summed over processors: Total = N × T =
// Productive + Lost, Lost = Imbalance + Sync + Messages + Overhead + Serial.
type Characteristics struct {
	Total      float64 `json:"total_us"`      // N × T
	Productive float64 `json:"productive_us"` // useful work
	Lost       float64 `json:"lost_us"`
	// Imbalance is the waiting at implicit barriers that unequal work
	// explains: per loop instance and member min(wait_p, max busy −
	// busy_p); the implicit barriers of psection, replicated and exclusive
	// regions count whole.
	Imbalance float64 `json:"imbalance_us"`
	// Sync is the waiting at explicit barriers, locks, critical sections
	// and split barriers, plus the implicit-barrier waiting imbalance
	// does not explain (members that started the loop late, barrier
	// latency).
	Sync     float64 `json:"sync_us"`
	Overhead float64 `json:"overhead_us"` // TraceOverhead + PDOStartup + Dispatch + Join + Outside
	Serial   float64 `json:"serial_us"`   // non-leaders idle while the leader runs exclusive code
	// Goroutines is the part of Productive that is the leader's
	// goroutines' work in time the processor idled outside constructs
	// (SerialStat.Covered, shared among the idle processors).
	Goroutines float64 `json:"goroutines_us,omitempty"`
	// Messages is the time in message-passing calls, all of it lost as
	// Lib-DVM counts it (seed 000 §11.1.2); MessageStats.Waits says how
	// much of it is waiting for a late partner.
	Messages float64 `json:"messages_us"`
	// The parts of Overhead.
	TraceOverhead float64 `json:"trace_overhead_us"` // trace-overhead records (buffer flushes)
	// LaneTraceOverhead is the trace-overhead of the goroutines' lanes:
	// time the goroutines a processor started spent handing their trace
	// to the writer, within that processor's productive time (their
	// work), so not a part of Overhead.
	LaneTraceOverhead float64 `json:"lane_trace_overhead_us,omitempty"`
	// Recording is the time the processors spent recording the trace as
	// the runtime estimates it (trace-overhead records of type
	// recording): within the times above, spread through the run, so
	// not a part of Overhead; untraced, the program runs about that
	// much faster.
	Recording  float64 `json:"recording_us,omitempty"`
	PDOStartup float64 `json:"pdo_startup_us"` // pdo-info startup times (planning the schedule)
	Dispatch   float64 `json:"dispatch_us"`    // fetching the chunks of self-scheduled pdos (pdo-work)
	// Join is the time processors idle outside any construct spent
	// before entering a pdo instance another member had already begun:
	// the team's wake-up, not serial code (the leader was in the loop).
	Join       float64 `json:"join_us"`
	Outside    float64 `json:"outside_us"` // before a processor's first and after its last record
	Efficiency float64 `json:"efficiency"` // Productive / Total
}

// ProcTime is the characteristics of one processor (Total = T).
type ProcTime struct {
	Proc int `json:"proc"`
	Characteristics
	Records int64 `json:"records"`
	// Last is the clock of the processor's last record (µs); 0 for none.
	Last float64 `json:"last_us,omitempty"`
}

// RegionStat is one trace region (subprogram, directive, type) over all
// processors. Inclusive time counts the outermost activation of a region
// only (a recursive call is not counted twice); exclusive time is inclusive
// time minus the inclusive time of the regions directly inside.
type RegionStat struct {
	Site
	Type    string       `json:"type"`   // trace.RegionTypeName
	Code    int          `json:"code"`   // trace region type
	Region  int          `json:"region"` // progdb region number, -1 unknown
	Calls   int64        `json:"calls"`  // summed over processors
	Incl    float64      `json:"incl_us"`
	Excl    float64      `json:"excl_us"`
	PerProc []RegionProc `json:"per_proc"`
}

// RegionProc is a region on one processor.
type RegionProc struct {
	Calls int64   `json:"calls"`
	Incl  float64 `json:"incl_us"`
	Excl  float64 `json:"excl_us"`
}

// LoopStat is one parallel loop (pdo) site.
type LoopStat struct {
	Site
	// OnGoroutines is what the loop ran on goroutines the processors
	// started, each time all its iterations on one of them (nil if
	// never); the rest of LoopStat is its runs on the processors.
	OnGoroutines *LoopOnGoroutines `json:"on_goroutines,omitempty"`
	Region       int               `json:"region"`   // progdb region number, -1 unknown
	Strategy     string            `json:"strategy"` // from the program information ("?" if it has none)
	Space        []LoopRange       `json:"space,omitempty"`
	Instances    int64             `json:"instances"` // executions of the loop
	// Iterations of the whole iteration space, summed over instances
	// (from pdo-iteration-space; 0 if not traced).
	Iterations int64      `json:"iterations"`
	PerProc    []LoopProc `json:"per_proc"`
	// BusySource is "pdo-work" when the busy times come from pdo-work
	// records, "regions" when they are estimated from region start to the
	// arrival at the implicit barrier.
	BusySource string  `json:"busy_source"`
	BusyMax    float64 `json:"busy_max_us"`  // max over processors of their summed busy time
	BusyMean   float64 `json:"busy_mean_us"` // mean over the processors that took part
	// Imbalance is BusyMax / BusyMean (1 = balanced).
	Imbalance float64 `json:"imbalance"`
	// Lost is Σ over instances Σ over members min(wait_p, max busy −
	// busy_p): the time the members lose waiting at the implicit barrier
	// for the busiest one.
	Lost float64 `json:"lost_us"`
	// APSTime is Σ over instances (members × the longest member's loop
	// time); LostShare = Lost / APSTime.
	APSTime   float64 `json:"aps_time_us"`
	LostShare float64 `json:"lost_share"`
	Startup   float64 `json:"startup_us"` // Σ pdo-info startup times
	Time      float64 `json:"time_us"`    // Σ over instances of the longest member's loop time
	// Dispatch is the time the processors spent fetching chunks (self-
	// scheduling), part of their busy time; Chunks the chunks fetched.
	Dispatch float64 `json:"dispatch_us"`
	Chunks   int64   `json:"chunks"`
	// Join is Σ over instances and members of the time a member idle
	// before the loop entered it after the instance's first member
	// (Characteristics.Join); Late counts those entries.
	Join float64 `json:"join_us"`
	Late int64   `json:"late_entries"`
	// JoinWait is the implicit-barrier waiting of the other members that
	// those late entries caused (beyond what unequal busy times explain):
	// a member waits at the end for one that began late.
	JoinWait float64 `json:"join_wait_us"`
}

// LoopRange is one loop of the iteration space (last instance).
type LoopRange struct {
	Lo    int `json:"lo"`
	Hi    int `json:"hi"`
	Step  int `json:"step"`
	Count int `json:"count"`
}

// LoopProc is a loop on one processor, summed over instances.
type LoopProc struct {
	Instances  int64   `json:"instances"`
	Iterations int64   `json:"iterations"` // -1 unknown (no pdo-work)
	Busy       float64 `json:"busy_us"`
	Wait       float64 `json:"wait_us"` // at the implicit barrier
	Time       float64 `json:"time_us"` // in the loop region
	Join       float64 `json:"join_us"` // idle before entering instances others had begun
}

// Wait kinds.
const (
	WaitBarrier  = "barrier"
	WaitImplicit = "implicit barrier"
	WaitLock     = "lock"
	WaitCritical = "critical"
	WaitCheckout = "split barrier"
	WaitMutex    = "mutex" // a sync.Mutex or RWMutex of the program's own
)

// WaitStat is the waiting at one synchronisation site.
type WaitStat struct {
	Site
	Wait    string    `json:"wait"` // one of the Wait* kinds
	Count   int64     `json:"count"`
	Total   float64   `json:"total_us"`
	Max     float64   `json:"max_us"`      // longest single wait
	Hold    float64   `json:"hold_us"`     // locks and critical sections: time held
	PerProc []float64 `json:"per_proc_us"` // total wait per processor
	Counts  []int64   `json:"per_proc_count"`
	// GC is the part of the waits during which Go's garbage collector had
	// stopped the world (gc-pause records, svmc run --gotrace).
	GC float64 `json:"gc_us,omitempty"`
	// Unfinished counts the waits still going on when a deadlocked run
	// ended (counted to its end).
	Unfinished int64 `json:"unfinished,omitempty"`
	// Goroutines counts the waits of goroutines the processors started
	// (on their lanes; counted in their processor's column), of Count.
	Goroutines int64 `json:"goroutine_waits,omitempty"`
	// Within is the parallel construct most of the processors' waits
	// happened in when it lies in another subprogram than the site (a
	// pdo whose body calls the method that locks); nil otherwise.
	Within *ConstructRef `json:"within,omitempty"`
}

// ConstructRef names a parallel construct: its site, progdb region and
// trace region type.
type ConstructRef struct {
	Site
	Region int `json:"region"`
	Code   int `json:"region_code"`
}

// mostWithin is the construct of within with the most time.
func mostWithin(within map[regKey]float64) (regKey, bool) {
	var best regKey
	found := false
	for k, t := range within {
		if !found || t > within[best] || t == within[best] && (k.sub < best.sub || k.sub == best.sub && k.dir < best.dir) {
			best, found = k, true
		}
	}
	return best, found
}

// GCStats are the stop-the-world pauses of Go's garbage collector during
// the run (gc-pause records: svmc run --gotrace; the Go runtime keeps the
// last 256).
type GCStats struct {
	Pauses  int     `json:"pauses"`
	Total   float64 `json:"total_us"`
	Longest float64 `json:"longest_us"`
	// InWaits is the time the pauses overlap the processors' waits (per
	// wait site in WaitStat.GC): waiting the collector caused, not the
	// program.
	InWaits float64 `json:"in_waits_us"`
}

// ThrottleStat is a subprogram the runtime stopped tracing on some
// processors because it was called very often for very little time each.
type ThrottleStat struct {
	Site
	PerProc []ThrottleProc `json:"per_proc"`
	// Untraced and UntracedTime sum the calls made after throttling, and
	// their inclusive time, over the processors.
	Untraced     int64   `json:"untraced_calls"`
	UntracedTime float64 `json:"untraced_us"`
}

// ThrottleProc is a throttled subprogram on one processor (zero where it
// was not throttled).
type ThrottleProc struct {
	Throttled    bool    `json:"throttled"`
	At           float64 `json:"at_us"`   // clock of trace-throttled
	Traced       int64   `json:"traced"`  // calls traced before
	Mean         float64 `json:"mean_us"` // their mean inclusive time
	Untraced     int64   `json:"untraced_calls"`
	UntracedTime float64 `json:"untraced_us"`
}

// SerialStat is the leader's exclusive-mode time in one region.
type SerialStat struct {
	Site
	Code   int     `json:"code"`
	Region int     `json:"region"`
	Time   float64 `json:"time_us"` // leader's time here, outside parallel constructs
	Lost   float64 `json:"lost_us"` // the other processors' idle time attributed to it
	// After and Before are the parallel constructs of the region the
	// serial code runs between (nil: the region's start, its end).
	After  *Site `json:"after,omitempty"`
	Before *Site `json:"before,omitempty"`
	// Goroutines is the part of Time during which goroutines the leader
	// started were alive on their lanes: the other processors' cores may
	// have run them.
	Goroutines float64 `json:"goroutines_us,omitempty"`
	// Covered is the other processors' idle time during it that running
	// goroutines of the leader could fill: while k ran (in their regions,
	// not waiting for a mutex), min(k−1, N−1) processors (one is taken to
	// run on the leader's core, which may be waiting for it). It is not
	// lost: the processors' Goroutines.
	Covered float64 `json:"covered_us,omitempty"`
}

// ---- builder ----

type regKey struct{ sub, dir, typ int32 }

// serialKey is serial code of the leader: in region reg, after the
// parallel construct after (dir 0: from the region's start) and before the
// one before (dir 0: to the region's end). Either may lie in a subprogram
// the region calls.
type serialKey struct {
	reg           regKey
	after, before sdKey
}

type sdKey struct{ sub, dir int32 }

type regAgg struct {
	key     regKey
	perProc []RegionProc
}

// LoopOnGoroutines is a pdo's runs on goroutines: a pdo reached from a
// goroutine that is not a processor runs all its iterations on it.
type LoopOnGoroutines struct {
	Runs       int64   `json:"runs"`
	Iterations int64   `json:"iterations"`
	Busy       float64 `json:"busy_us"`
	Procs      []int   `json:"procs"` // the processors that started the goroutines
}

type loopAgg struct {
	key        sdKey
	perProc    []LoopProc
	pending    instWindow
	next       []int // per processor: instances started
	instances  int64
	iterations int64
	space      []LoopRange
	lost       float64
	apsTime    float64
	time       float64
	startup    float64
	dispatch   float64
	chunks     int64
	join       float64
	late       int64
	joinWait   float64
	fromWork   bool
	fromRegion bool
	onGo       LoopOnGoroutines
}

type loopInst struct {
	first    float64 // clock of its first member's entry
	expected int
	members  int
	maxBusy  float64
	sumBusy  float64
	maxTime  float64
	parts    []part
}

// part is one member's busy time, implicit-barrier wait and lateness
// (its entry after the instance's first member's) in an instance.
type part struct {
	node             int32
	busy, wait, late float64
}

type waitKey struct {
	sub, dir int32
	kind     replay.WaitKind
}

type waitIv struct {
	key    waitKey
	c0, c1 float64
}

type gcPause struct{ start, dur float64 }

type waitAgg struct {
	key        waitKey
	perProc    []float64
	counts     []int64
	max        float64
	hold       float64
	unfinished int64 // waits still going on when a deadlocked run ended
	goroutines int64 // waits on lanes
	// within is the processors' wait time by the innermost parallel
	// construct it happened in (WaitStat.Within).
	within map[regKey]float64
}

// Time buckets of a processor.
const (
	bRun = iota
	bSerial
	bImplicit
	bSync
	bMsg
	nBuckets
)

// frame is an open region of a processor: the replay's interval with what
// the model adds to it.
type frame struct {
	iv    *replay.Interval
	key   regKey
	child float64
	mode  int8 // 1 parallel work, 0 exclusive mode
	pdo   *pdoExec
	// The leader's serial time in this frame since the last parallel
	// construct it or a subprogram it called ran (lastPar; dir 0 since the
	// frame began): see serialFrame.
	serialT float64
	serialP [][2]float64 // its pieces, set against the goroutines' lives (lanes.go)
	lastPar sdKey
}

// pdoExec is one processor's part of one instance of a loop.
type pdoExec struct {
	loop    *loopAgg
	k       int
	start   float64
	arrival float64 // first wait-barrier-start of the loop's site, -1 none
	end     float64
	wait    float64 // at the implicit barrier
	busy    float64 // from pdo-work, -1 none
	iters   int64
}

// (The chunks and dispatch time of pdo-work go to the loop directly.)

type nodeState struct {
	id          int
	seen        bool
	first, last float64
	blockedEnd  bool // blocked from its last record until trace-end (chargeBlockedEnd)
	records     int64
	stack       []frame // the open regions
	buckets     [nBuckets]float64
	traceOv     float64
	recording   float64 // trace-overhead of type recording, the lanes' included
	laneTraceOv float64 // the trace-overhead of its goroutines' lanes
	startup     float64
	dispatch    float64  // fetching chunks (pdo-work)
	join        float64  // idle before entering a pdo instance begun by another (lateJoin)
	pending     *pdoExec // closed loop part waiting for a late pdo-work
	imb         float64  // implicit-barrier waiting explained by imbalance (pdo)
	implOther   float64  // implicit-barrier waiting of other constructs
}

// builder builds the Model from a replay of the trace (a replay.Handler):
// the replay pairs the records into regions, waits, holds and measured
// intervals; the builder attributes each processor's time between its
// records to the state it was in and aggregates.
type builder struct {
	replay.Nop
	// Finished loop parts and instances, kept for the next ones: a loop
	// instance per processor is the commonest thing in a trace.
	freeExec []*pdoExec
	freeInst []*loopInst
	pi       progInfo
	rp       *replay.Replayer
	nprocs   int // from the attribute or option, 0 unknown
	stage    int
	nodes    []*nodeState
	// startClock is the earliest clock of a processor's record so far
	// (started: there was one): where a processor that began late was idle
	// from.
	started    bool
	startClock float64
	regions    map[regKey]*regAgg
	regMemo    [64]struct { // the last aggregates by a hash of their key: a map lookup per region end cost 8% of the report
		k regKey
		a *regAgg
	}
	waitMemo [32]struct {
		k waitKey
		w *waitAgg
	}
	loops    map[sdKey]*loopAgg
	loopMemo [16]struct { // as regMemo, for the loop of a pdo region
		k sdKey
		l *loopAgg
	}
	waits map[waitKey]*waitAgg
	// keepWaits: the trace will end with gc-pause records, so the waits'
	// intervals are kept to set against them.
	keepWaits bool
	// lanesFirst: the order brings the lanes before the processors
	// (analyzeWith).
	lanesFirst bool
	cpus       int // the run's GOMAXPROCS (0 unknown)
	startedBy  string
	waitIvs    []waitIv
	gcPauses   []gcPause
	untracedGo map[int]int // goroutines-untraced: per processor
	ranks      []RankStat
	serial     map[serialKey]float64
	// serialMemo holds the latest serial keys' time not yet added to
	// serial, the latest first (a loop of pdos called one after another
	// takes turns between a few keys; hashing the key at every pdo was a
	// few per cent of the report).
	serialMemo [4]serialAcc
	hasPar     map[int32]bool // subprograms with a pdo or psection directive
	records    int64
	leader     int
	nonMono    int64
	unmatch    int64
	unclosed   int64

	throttled      map[int32][]ThrottleProc // per subprogram, per processor
	measures       map[measKey]*measAgg
	measUnmatched  int64
	measUnfinished int64
	stats          map[int]*StatInterval
	end            *RunEnd
	endClock       float64 // of trace-end
	// stuckMutexes are the mutexes waits still went on for at a blocked end.
	stuckMutexes map[int32]bool
	msgs         msgBuilder
	svm          *svmBuilder // page records (locality.go); nil without
	varChecks    []VarCheck
	cost         CostModel
	// Goroutine lanes (lanes.go), by node id.
	lanes    map[int]*laneState
	goStats  map[int]*GoroutineStat
	goWhere  map[goKey]*GoStmt
	laneIDs  map[[2]int]bool            // processor, lane
	goLives  [][2]float64               // the leader's goroutines' lives (end +Inf until goroutine-end)
	goBusy   [][2]float64               // their time in instrumented code (outermost lane regions)
	goWaits  [][2]float64               // their mutex waits within it
	serialGo map[serialKey][][2]float64 // the leader's serial time as pieces
	// callers counts the outermost traced calls of each subprogram on
	// each processor by the region they were made in (untracedInCallers).
	callers    map[callerKey]*int
	callerMemo [32]struct { // the last counters by a hash of their key (a map update per call)
		k callerKey
		c *int
	}
}

// countCaller counts one outermost traced call of k.sub on k.proc made in
// region k.parent.
func (b *builder) countCaller(k callerKey) {
	m := &b.callerMemo[(uint(k.sub)*7+uint(k.proc)*13+uint(k.parent.sub)*3+uint(k.parent.dir))%uint(len(b.callerMemo))]
	if m.c == nil || m.k != k {
		c := b.callers[k]
		if c == nil {
			c = new(int)
			b.callers[k] = c
		}
		m.k, m.c = k, c
	}
	*m.c++
}

type callerKey struct {
	sub    int32
	proc   int
	parent regKey
}

// untracedInCallers takes the time of a subprogram's calls after the
// runtime throttled it (throttle) out of the exclusive time of the regions
// that made them. Which regions did is not recorded: the time is shared
// as the outermost traced calls were (a recursion throttled in main keeps
// main's exclusive time to main's own code, instead of the recursion's).
func (b *builder) untracedInCallers() {
	type subProc struct {
		sub  int32
		proc int
	}
	calls := map[subProc]int{}
	for k, c := range b.callers {
		calls[subProc{k.sub, k.proc}] += *c
	}
	for k, c := range b.callers {
		tps := b.throttled[k.sub]
		if k.proc >= len(tps) || tps[k.proc].UntracedTime <= 0 {
			continue
		}
		tp := tps[k.proc]
		if a := b.regions[k.parent]; a != nil && k.proc < len(a.perProc) {
			rp := &a.perProc[k.proc]
			rp.Excl = max(0, rp.Excl-tp.UntracedTime*float64(*c)/float64(calls[subProc{k.sub, k.proc}]))
		}
	}
}

func newBuilder(prog *progdb.Program, nprocs, stage int) *builder {
	b := &builder{
		pi:      progInfo{prog},
		nprocs:  nprocs,
		stage:   stage,
		regions: make(map[regKey]*regAgg),
		loops:   make(map[sdKey]*loopAgg),
		waits:   make(map[waitKey]*waitAgg),
		serial:  make(map[serialKey]float64),
		hasPar:  make(map[int32]bool),
		callers: make(map[callerKey]*int),

		measures: make(map[measKey]*measAgg),
		stats:    make(map[int]*StatInterval),
	}
	b.rp = replay.New(prog, b)
	return b
}

// add takes the next record of processor e.Proc (records of one processor
// must come in the order it wrote them; processors may interleave freely).
func (b *builder) add(e *replay.Event) {
	b.records++
	b.rp.Add(e)
}

// addEvent is add as an order's callback.
func (b *builder) addEvent(e *replay.Event) error {
	b.add(e)
	return nil
}

func (b *builder) node(id int) *nodeState {
	for len(b.nodes) <= id {
		b.nodes = append(b.nodes, &nodeState{id: len(b.nodes)})
	}
	return b.nodes[id]
}

// procs is N: the attribute's value, or the processors seen.
func (b *builder) procs() int { return max(b.nprocs, len(b.nodes)) }

func growRP(s []RegionProc, n int) []RegionProc {
	for len(s) <= n {
		s = append(s, RegionProc{})
	}
	return s
}

// Before attributes the time since the processor's previous record to the
// state it was in.
func (b *builder) Before(e *replay.Event) {
	if b.lane(int(e.Proc), e.Tag) != nil {
		return // a goroutine's lane: no processor's time
	}
	n := b.node(int(e.Proc))
	t := e.Clock
	n.records++
	if !n.seen {
		n.seen, n.first, n.last = true, t, t
		if b.started && b.startClock < t && n.id != b.leader && e.Tag == trace.TagTraceRegionStart && e.A == trace.RegionProgram {
			// The processor's goroutine began after the run had (the Go
			// scheduler ran it late: a GC cycle, a busy machine). It was
			// idle from the start as it would have been started, so the
			// time until its next record is its idle time there: serial
			// while the leader runs exclusive code, late to a pdo the
			// others began (lateJoin), not time outside the run.
			n.first, n.last = b.startClock, b.startClock
			return
		}
	}
	if !b.started || t < b.startClock {
		b.started, b.startClock = true, t
	}
	if n.pending != nil && e.Tag != trace.TagPDOWork {
		b.finishPDO(n, n.pending)
		n.pending = nil
	}
	if e.Tag == trace.TagTemplateDist && e.Node != e.Proc {
		return // written by the leader for another processor: no time of the writer's own
	}
	d := t - n.last
	if d < 0 {
		b.nonMono++
		d = 0
	} else {
		n.last = t
	}
	if d > 0 {
		bk := b.bucket(n)
		if bk == bSerial && e.Tag == trace.TagTraceRegionStart && e.A == trace.RegionPDO {
			// Idle until a loop another member began: late to the fork.
			if j := b.lateJoin(n, e, t-d); j > 0 {
				n.join += j
				d -= j
			}
		}
		n.buckets[bk] += d
		if bk == bRun && n.id == b.leader && b.topMode(n) == 0 && len(n.stack) > 0 {
			fr := &n.stack[b.serialFrame(n)]
			fr.serialT += d
			// Kept before any goroutine was seen unless the lanes came
			// first: a stream read in order may bring the lanes' records
			// after the processors' (an ASCII trace), and their lives are
			// set against these pieces once the trace has been read. One
			// piece per stretch of serial code.
			if len(b.goLives) > 0 || !b.lanesFirst {
				fr.serialP = addPiece(fr.serialP, t-d, t)
			}
		}
	}
}

func (b *builder) Open(iv *replay.Interval, e *replay.Event) {
	if l := b.lane(iv.Proc, e.Tag); l != nil {
		b.laneOpen(l, iv)
		return
	}
	n := b.node(iv.Proc)
	switch iv.Kind {
	case replay.KindRegion:
		b.regionStart(n, iv)
	case replay.KindWait:
		if iv.Wait == replay.WaitImplicit {
			if fr := topPDO(n); fr != nil && int(fr.key.sub) == iv.Sub && int(fr.key.dir) == iv.Dir && fr.pdo.arrival < 0 {
				fr.pdo.arrival = iv.Clock0
			}
		}
	case replay.KindMeasure:
		b.measAgg(measKey{int32(iv.Level), iv.Name}, iv.Clock0)
	case replay.KindMsg:
		b.msgs.start(iv, e)
	}
}

func (b *builder) Close(iv *replay.Interval, e *replay.Event) {
	if l := b.laneOf(iv.Proc); l != nil {
		b.laneClose(l, iv, e)
		return
	}
	n := b.node(iv.Proc)
	switch iv.Kind {
	case replay.KindRegion:
		if e == nil {
			b.unclosed++ // still open at the processor's last record
		}
		if b.svm != nil {
			b.svm.exit(regKey{int32(iv.Sub), int32(iv.Dir), int32(iv.Code)}, n.id)
		}
		b.regionStop(n, iv)
	case replay.KindWait:
		if !iv.Unclosed {
			b.waitStop(n, iv)
		} else if n.blockedEnd && e == nil {
			until := *iv
			until.Clock1 = b.endClock
			b.waitStop(n, &until)
			b.unfinishedWait(iv)
		}
	case replay.KindHold:
		b.holdStop(iv)
	case replay.KindMeasure:
		b.measureFinish(n, iv, e)
	case replay.KindMsg:
		b.msgs.stop(iv, e)
	}
}

func (b *builder) Instant(e *replay.Event, _ int) {
	if replay.AfterRun(e.Tag) {
		b.runRecord(e)
		return
	}
	if l := b.laneOf(int(e.Proc)); l != nil {
		// A goroutine's lane: the calls it made after throttling count
		// as its processor's, as its regions do; its other events not.
		switch {
		case e.Tag == trace.TagThrottledCalls && l.owner >= 0:
			b.throttle(b.node(l.owner), e)
		case e.Tag == trace.TagTraceOverhead && l.owner >= 0 && e.A == trace.OverheadRecording:
			b.node(l.owner).recording += e.F
		case e.Tag == trace.TagTraceOverhead && l.owner >= 0:
			b.node(l.owner).laneTraceOv += e.F
		case e.Tag == trace.TagPDOWork:
			// A pdo reached from a goroutine runs all its iterations on
			// it (rtlib: it is no processor).
			g := &b.loop(sdKey{e.Sub, e.Dir}).onGo
			g.Runs++
			g.Iterations += int64(e.A)
			g.Busy += e.F
			if l.owner >= 0 && !slices.Contains(g.Procs, l.owner) {
				g.Procs = append(g.Procs, l.owner)
			}
		}
		return
	}
	if replay.Unmatched(e) {
		if e.Tag == trace.TagMeasureFinish {
			b.measUnmatched++
		} else {
			b.unmatch++
		}
		return
	}
	n := b.node(int(e.Proc))
	switch e.Tag {
	case trace.TagPDOWork:
		b.pdoWork(n, e)
	case trace.TagPDOInfo:
		n.startup += e.F
		n.buckets[b.bucket(n)] -= e.F
		if l := b.loopOf(e); l != nil {
			l.startup += e.F
		}
	case trace.TagAPSInfo:
		if fr := topPDO(n); fr != nil && len(e.Arr) > 0 {
			if in := fr.pdo.loop.pending.get(fr.pdo.k); in != nil {
				in.expected = len(e.Arr)
			}
		}
	case trace.TagPDOIterationSpace:
		if l := b.loopOf(e); l != nil {
			l.space = l.space[:0]
			total := int64(1)
			cols := e.Cols
			for r := 0; cols >= 3 && r+cols <= len(e.Arr); r += cols {
				lr := LoopRange{Lo: e.Arr[r], Hi: e.Arr[r+1], Step: e.Arr[r+2]}
				lr.Count = rangeCount(lr.Lo, lr.Hi, lr.Step)
				l.space = append(l.space, lr)
				total *= int64(lr.Count)
			}
			if len(l.space) > 0 {
				l.iterations += total
			}
		}
	case trace.TagTraceOverhead:
		if e.A == trace.OverheadRecording {
			n.recording += e.F // an estimate for the whole run, not an interval
			break
		}
		n.traceOv += e.F
		n.buckets[b.bucket(n)] -= e.F
	case trace.TagTraceThrottled, trace.TagThrottledCalls:
		b.throttle(n, e)
	case trace.TagMsgRequestDone:
		b.msgs.done(e)
	case trace.TagReadPageFaultSum, trace.TagWritePageFaultSum, trace.TagPageTravel,
		trace.TagReadPageFaultServiced, trace.TagWritePageFaultServiced, trace.TagSegmentVariable:
		b.svmRecord(n, e)
	case trace.TagVarCheck:
		b.varChecks = append(b.varChecks, VarCheck{Sub: int(e.Sub), Dir: int(e.Dir), Var: e.Rec.Int("variable number"),
			Instance: e.Rec.Int("instance"), Checksum: uint32(int32(e.Rec.Int("checksum"))), Bytes: e.Rec.Int("bytes")})
	}
}

// throttle takes trace-throttled (when a subprogram stopped being traced
// on processor n) and throttled-calls (the calls it made afterwards, which
// count in the subprogram's region as inclusive and exclusive time: their
// insides are unknown).
func (b *builder) throttle(n *nodeState, e *replay.Event) {
	if b.throttled == nil {
		b.throttled = map[int32][]ThrottleProc{}
	}
	tp := b.throttled[e.Sub]
	for len(tp) <= n.id {
		tp = append(tp, ThrottleProc{})
	}
	b.throttled[e.Sub] = tp
	p := &tp[n.id]
	calls := int64(e.Rec.Int("calls"))
	if e.Tag == trace.TagTraceThrottled {
		p.Throttled, p.At, p.Traced, p.Mean = true, e.Clock, calls, e.Rec.Double("mean inclusive microseconds")
		return
	}
	us := e.Rec.Double("inclusive microseconds")
	p.Untraced += calls
	p.UntracedTime += us
	k := regKey{e.Sub, 0, trace.RegionSubroutine}
	a := b.region(k)
	a.perProc = growRP(a.perProc, n.id)
	rp := &a.perProc[n.id]
	rp.Calls += calls
	rp.Incl += us
	rp.Excl += us
}

func rangeCount(lo, hi, step int) int {
	switch {
	case step > 0 && hi >= lo:
		return (hi-lo)/step + 1
	case step < 0 && lo >= hi:
		return (lo-hi)/(-step) + 1
	}
	return 0
}

// bucket is the state a processor is in between two of its records: the
// replay's innermost open interval tells whether it waits.
func (b *builder) bucket(n *nodeState) int {
	if open := b.rp.Open(n.id); len(open) > 0 {
		top := open[len(open)-1]
		if top.Kind == replay.KindMsg {
			return bMsg
		}
		if top.Kind == replay.KindWait {
			if top.Wait == replay.WaitImplicit {
				return bImplicit
			}
			return bSync
		}
	}
	if n.id != b.leader && b.topMode(n) == 0 {
		return bSerial
	}
	return bRun
}

func (b *builder) topMode(n *nodeState) int8 {
	if len(n.stack) == 0 {
		return 0
	}
	return n.stack[len(n.stack)-1].mode
}

func topPDO(n *nodeState) *frame {
	for i := len(n.stack) - 1; i >= 0; i-- {
		if n.stack[i].pdo != nil {
			return &n.stack[i]
		}
	}
	return nil
}

func (b *builder) loop(k sdKey) *loopAgg {
	m := &b.loopMemo[(uint(k.sub)*7+uint(k.dir))%uint(len(b.loopMemo))]
	if m.l != nil && m.k == k {
		return m.l
	}
	l := b.loops[k]
	if l == nil {
		l = &loopAgg{key: k}
		b.loops[k] = l
	}
	m.k, m.l = k, l
	return l
}

// loopOf is the loop a pdo-info or pdo-iteration-space record describes.
func (b *builder) loopOf(e *replay.Event) *loopAgg {
	return b.loop(sdKey{e.Sub, e.Dir})
}

func (b *builder) regionStart(n *nodeState, iv *replay.Interval) {
	k := regKey{int32(iv.Sub), int32(iv.Dir), int32(iv.Code)}
	if n.id == b.leader && len(n.stack) > 0 && (iv.Code == trace.RegionPDO || iv.Code == trace.RegionPSection) {
		// Every open frame's serial span ends here: a caller's code
		// before the call is serial code before this construct.
		for j := range n.stack {
			b.flushSerial(&n.stack[j], sdKey{k.sub, k.dir})
		}
	}
	fr := frame{iv: iv, key: k, mode: b.topMode(n)}
	switch iv.Code {
	case trace.RegionPDO, trace.RegionPSection, trace.RegionSection, trace.RegionReplicated:
		fr.mode = 1
	case trace.RegionExclusive:
		fr.mode = 0
	}
	t := iv.Clock0
	if iv.Code == trace.RegionPDO {
		l := b.loop(sdKey{k.sub, k.dir})
		if topPDO(n) != nil {
			// A pdo inside a pdo body runs serially on this processor:
			// an instance of its own, with one member.
			fr.pdo = b.newExec(pdoExec{loop: l, k: -1, start: t, arrival: -1, busy: -1, iters: -1})
			l.instances++
		} else {
			for len(l.next) <= n.id {
				l.next = append(l.next, 0)
			}
			k := l.next[n.id]
			l.next[n.id]++
			fr.pdo = b.newExec(pdoExec{loop: l, k: k, start: t, arrival: -1, busy: -1, iters: -1})
			if l.pending.get(k) == nil {
				in := b.newInst()
				in.first = t
				l.pending.set(k, in)
				l.instances++
			}
		}
	}
	n.stack = append(n.stack, fr)
}

// lateJoin is the part of processor n's idle time since from that lies
// after the first entry, by another member, of the pdo instance e starts
// on n (all of it when n's last record came after that entry); it
// charges it to the loop too.
func (b *builder) lateJoin(n *nodeState, e *replay.Event, from float64) float64 {
	l := b.loops[sdKey{e.Sub, e.Dir}]
	if l == nil {
		return 0
	}
	k := 0 // the instance n enters: its count of entries so far
	if n.id < len(l.next) {
		k = l.next[n.id]
	}
	in := l.pending.get(k)
	if in == nil || in.first >= e.Clock {
		return 0
	}
	j := e.Clock - max(in.first, from) // n's own last record may come after the loop began
	if j <= 0 {
		return 0
	}
	l.join += j
	l.late++
	for len(l.perProc) <= n.id {
		l.perProc = append(l.perProc, LoopProc{Iterations: -1})
	}
	l.perProc[n.id].Join += j
	return j
}

func (b *builder) newExec(v pdoExec) *pdoExec {
	if k := len(b.freeExec); k > 0 {
		p := b.freeExec[k-1]
		b.freeExec = b.freeExec[:k-1]
		*p = v
		return p
	}
	p := new(pdoExec) // not &v: that would move v to the heap on every call
	*p = v
	return p
}

func (b *builder) newInst() *loopInst {
	if k := len(b.freeInst); k > 0 {
		in := b.freeInst[k-1]
		b.freeInst = b.freeInst[:k-1]
		*in = loopInst{parts: in.parts[:0]}
		return in
	}
	return &loopInst{}
}

// regionStop closes the processor's innermost open region (the replay
// closes regions from the innermost).
func (b *builder) regionStop(n *nodeState, iv *replay.Interval) {
	j := len(n.stack) - 1
	if j < 0 || n.stack[j].iv != iv {
		return // opened before a damaged part the replay skipped
	}
	fr := &n.stack[j]
	t := iv.Clock1
	if iv.Unclosed && n.blockedEnd && b.endClock > t {
		t = b.endClock // open on a processor blocked until the run ended
	}
	incl := max(0, t-iv.Clock0)
	a := b.region(fr.key)
	a.perProc = growRP(a.perProc, n.id)
	rp := &a.perProc[n.id]
	rp.Calls++
	rp.Excl += max(0, incl-fr.child)
	outer := true
	for k := 0; k < j; k++ {
		if n.stack[k].key == fr.key {
			outer = false
			break
		}
	}
	if outer {
		rp.Incl += incl
		if j > 0 && fr.key.typ == trace.RegionSubroutine {
			b.countCaller(callerKey{fr.key.sub, n.id, n.stack[j-1].key})
		}
	}
	if j > 0 {
		n.stack[j-1].child += incl
	}
	if fr.pdo != nil {
		fr.pdo.end = t
		if n.pending != nil {
			b.finishPDO(n, n.pending)
		}
		n.pending = fr.pdo
	}
	b.flushSerial(fr, sdKey{})
	n.stack = n.stack[:j]
	if n.id == b.leader && j > 0 && (fr.key.typ == trace.RegionPDO || fr.key.typ == trace.RegionPSection) {
		for i := range n.stack {
			n.stack[i].lastPar = sdKey{fr.key.sub, fr.key.dir}
		}
	}
}

// serialFrame is the frame the leader's serial time is charged to: the
// innermost one of a subprogram that has parallel constructs (the code
// between them is what the other processors wait through, also when it
// calls a helper), else the innermost frame.
func (b *builder) serialFrame(n *nodeState) int {
	for j := len(n.stack) - 1; j >= 0; j-- {
		sub := n.stack[j].key.sub
		has, ok := b.hasPar[sub]
		if !ok {
			if s := b.pi.sub(int(sub)); s != nil {
				for _, d := range s.Directives {
					has = has || d.Kind == "pdo" || d.Kind == "psection"
				}
			}
			b.hasPar[sub] = has
		}
		if has {
			return j
		}
	}
	return len(n.stack) - 1
}

// flushSerial charges a frame's serial time since its last parallel
// construct to the span that ends at construct before (dir 0: the frame's end).
func (b *builder) flushSerial(fr *frame, before sdKey) {
	if fr.serialT > 0 {
		k := serialKey{fr.key, fr.lastPar, before}
		b.addSerial(k, fr.serialT)
		if len(fr.serialP) > 0 {
			if b.serialGo == nil {
				b.serialGo = map[serialKey][][2]float64{}
			}
			b.serialGo[k] = append(b.serialGo[k], fr.serialP...)
		}
		fr.serialT, fr.serialP = 0, fr.serialP[:0]
	}
}

func (b *builder) pdoWork(n *nodeState, e *replay.Event) {
	var p *pdoExec
	if fr := topPDO(n); fr != nil && fr.key.sub == e.Sub && fr.key.dir == e.Dir {
		p = fr.pdo
	} else if n.pending != nil && n.pending.loop.key == (sdKey{e.Sub, e.Dir}) {
		p = n.pending
	}
	if p == nil {
		b.unmatch++
		return
	}
	p.busy = e.F
	p.iters = int64(e.A)
	if e.G > 0 {
		// Fetching chunks is scheduling overhead, not productive work; it
		// is part of the busy time (an estimate beyond it, from a trace
		// of an older runtime on a loaded machine, is cut to it).
		g := min(e.G, max(e.F, 0))
		n.dispatch += g
		n.buckets[b.bucket(n)] -= g
		p.loop.dispatch += g
		p.loop.chunks += int64(e.Cols)
	}
}

// finishPDO adds one processor's part of a loop instance; p is done with.
func (b *builder) finishPDO(n *nodeState, p *pdoExec) {
	b.addPart(n, p)
	b.freeExec = append(b.freeExec, p)
}

func (b *builder) addPart(n *nodeState, p *pdoExec) {
	l := p.loop
	for len(l.perProc) <= n.id {
		l.perProc = append(l.perProc, LoopProc{Iterations: -1})
	}
	lp := &l.perProc[n.id]
	busy := p.busy
	if busy >= 0 {
		l.fromWork = true
		if lp.Iterations < 0 {
			lp.Iterations = 0
		}
		lp.Iterations += p.iters
	} else {
		l.fromRegion = true
		end := p.end
		if p.arrival >= 0 {
			end = p.arrival
		}
		busy = max(0, end-p.start)
	}
	time := max(0, p.end-p.start)
	lp.Instances++
	lp.Busy += busy
	lp.Time += time
	if p.k < 0 {
		in := b.newInst()
		in.members, in.maxBusy, in.sumBusy, in.maxTime = 1, busy, busy, time
		b.finishInstance(l, -1, in)
		return
	}
	in := l.pending.get(p.k)
	if in == nil {
		return
	}
	in.members++
	wait := p.wait
	if p.arrival < 0 {
		wait = -1 // no barrier records (stage < 3): the wait is unknown
	}
	in.parts = append(in.parts, part{int32(n.id), busy, wait, max(0, p.start-in.first)})
	in.sumBusy += busy
	in.maxBusy = max(in.maxBusy, busy)
	in.maxTime = max(in.maxTime, time)
	exp := in.expected
	if exp == 0 {
		exp = b.procs()
	}
	if in.members >= exp {
		b.finishInstance(l, p.k, in)
	}
}

func (b *builder) finishInstance(l *loopAgg, k int, in *loopInst) {
	// A member loses to the imbalance what it waits at the implicit
	// barrier, up to its difference to the busiest member: one that starts
	// late (descheduled, slow to wake) has less busy time but does not wait
	// for the others.
	maxLate := 0.0
	for _, pt := range in.parts {
		maxLate = max(maxLate, pt.late)
	}
	for _, pt := range in.parts {
		lost := max(0, in.maxBusy-pt.busy)
		if pt.wait >= 0 {
			lost = min(lost, pt.wait)
			// The rest of its wait, up to how much later than it the
			// latest member began, waited for that member's late start.
			if maxLate > pt.late {
				l.joinWait += min(pt.wait-lost, maxLate-pt.late)
			}
		}
		l.lost += lost
		b.node(int(pt.node)).imb += lost
	}
	if len(in.parts) == 0 {
		l.lost += float64(in.members)*in.maxBusy - in.sumBusy
	}
	l.apsTime += float64(in.members) * in.maxTime
	l.time += in.maxTime
	if k >= 0 {
		l.pending.del(k)
	}
	b.freeInst = append(b.freeInst, in)
}

func (b *builder) wait(k waitKey) *waitAgg {
	m := &b.waitMemo[(uint(k.sub)*7+uint(k.dir)*3+uint(k.kind))%uint(len(b.waitMemo))]
	if m.w != nil && m.k == k {
		return m.w
	}
	w := b.waits[k]
	if w == nil {
		w = &waitAgg{key: k}
		b.waits[k] = w
	}
	m.k, m.w = k, w
	return w
}

// region is the aggregate of region k, made on first use.
func (b *builder) region(k regKey) *regAgg {
	m := &b.regMemo[(uint(k.sub)*7+uint(k.dir)*3+uint(k.typ))%uint(len(b.regMemo))]
	if m.a != nil && m.k == k {
		return m.a
	}
	a := b.regions[k]
	if a == nil {
		a = &regAgg{key: k}
		b.regions[k] = a
	}
	m.k, m.a = k, a
	return a
}

// waitStop counts a finished wait at its site; the wait at a loop's
// implicit barrier is the member's wait in that instance.
func (b *builder) waitStop(n *nodeState, iv *replay.Interval) {
	d, w := b.addWait(n.id, iv, iv.Clock1)
	if k, ok := innerConstruct(n); ok && d > 0 {
		if w.within == nil {
			w.within = map[regKey]float64{}
		}
		w.within[k] += d
	}
	if iv.Wait == replay.WaitImplicit {
		if fr := topPDO(n); fr != nil && int(fr.key.sub) == iv.Sub && int(fr.key.dir) == iv.Dir {
			l := fr.pdo.loop
			for len(l.perProc) <= n.id {
				l.perProc = append(l.perProc, LoopProc{Iterations: -1})
			}
			l.perProc[n.id].Wait += d
			fr.pdo.wait += d
		} else {
			n.implOther += d
		}
	}
}

// innerConstruct is the innermost parallel construct (pdo, psection,
// section, replicated region) open on processor n.
func innerConstruct(n *nodeState) (regKey, bool) {
	for i := len(n.stack) - 1; i >= 0; i-- {
		switch n.stack[i].key.typ {
		case trace.RegionPDO, trace.RegionPSection, trace.RegionSection, trace.RegionReplicated:
			return n.stack[i].key, true
		}
	}
	return regKey{}, false
}

// goCoverage is, per stretch of the leader's serial code, the other
// processors' time that its running goroutines could fill (see
// SerialStat.Covered), and the other processors' serial time.
func (b *builder) goCoverage(N int) (covered map[serialKey]float64, othersSerial float64) {
	if N < 2 || len(b.goBusy) == 0 || len(b.serialGo) == 0 {
		return nil, 0
	}
	steps := countSteps(b.goBusy, b.goWaits)
	// The leader's own time counts as its work already, though it may
	// only wait for its goroutines (wg.Wait, a channel): one running
	// goroutine is taken to be on the leader's core, the others on the
	// idle processors'. A program whose main computes beside one
	// goroutine is so under-credited; one that waits for a single busy
	// goroutine is not called efficient.
	for i := range steps {
		steps[i].n--
	}
	covered = map[serialKey]float64{}
	for k, ps := range b.serialGo {
		covered[k] = coverage(ps, steps, N-1)
	}
	for _, n := range b.nodes {
		if n.seen && n.id != b.leader && n.id < N {
			othersSerial += n.buckets[bSerial]
		}
	}
	return covered, othersSerial
}

// endBlocked reports whether the run deadlocked or was stopped, so that
// what is open at the end lasted until trace-end (RunEnd.Blocked).
func (b *builder) endBlocked() bool { return b.end != nil && b.end.Blocked() }

// holdStop counts a closed hold of a lock or critical section (of a
// processor or a goroutine) at its site.
func (b *builder) holdStop(iv *replay.Interval) {
	if !iv.Unclosed {
		b.wait(waitKey{int32(iv.Sub), int32(iv.Dir), iv.Wait}).hold += iv.Clock1 - iv.Clock0
	}
}

// unfinishedWait counts wait iv, still going on when the run ended
// blocked, at its site, and its mutex among the ones waited for.
func (b *builder) unfinishedWait(iv *replay.Interval) {
	b.wait(waitKey{int32(iv.Sub), int32(iv.Dir), iv.Wait}).unfinished++
	if iv.Wait == replay.WaitMutex {
		if b.stuckMutexes == nil {
			b.stuckMutexes = map[int32]bool{}
		}
		b.stuckMutexes[iv.Mutex] = true
	}
}

// addWait adds wait iv, ending at clock end, to processor proc's column
// of its site's row and returns its length and the row.
func (b *builder) addWait(proc int, iv *replay.Interval, end float64) (float64, *waitAgg) {
	d := max(0, end-iv.Clock0)
	w := b.wait(waitKey{int32(iv.Sub), int32(iv.Dir), iv.Wait})
	for len(w.perProc) <= proc {
		w.perProc = append(w.perProc, 0)
		w.counts = append(w.counts, 0)
	}
	w.perProc[proc] += d
	w.counts[proc]++
	if b.keepWaits && d > 0 {
		b.waitIvs = append(b.waitIvs, waitIv{w.key, iv.Clock0, end})
	}
	w.max = max(w.max, d)
	return d, w
}

// chargeBlockedEnd counts the time a processor spent blocked between its
// last record and trace-end when the run was stopped while processors
// waited: a deadlock (every processor was blocked; one whose wait left no
// record, below stage 3, counts as waiting too), or a signal or time limit
// (the processors in a wait). Without it a run that hung for seconds
// showed the efficiency of the part before the hang.
func (b *builder) chargeBlockedEnd() {
	if b.end == nil || !b.end.Blocked() {
		return
	}
	deadlock := b.end.Status == trace.EndDeadlock
	for _, n := range b.nodes {
		if !n.seen || b.endClock <= n.last {
			continue
		}
		bk := b.bucket(n)
		if bk == bRun || bk == bSerial {
			if !deadlock {
				continue
			}
			bk = bSync
		}
		n.buckets[bk] += b.endClock - n.last
		n.last = b.endClock
		n.blockedEnd = true
	}
}

// model finishes the pass: it closes what is still open at each
// processor's last record and computes the derived numbers.
func (b *builder) model() *Model {
	b.chargeBlockedEnd()
	b.rp.Finish()
	b.flushSerialMemo()
	N := b.procs()
	m := &Model{Procs: N, Stage: b.stage, CPUs: b.cpus, StartedBy: b.startedBy, Records: b.records, prog: b.pi.p}
	m.Goroutines = b.goroutines()
	m.StuckMutexes = len(b.stuckMutexes)
	if b.pi.p != nil {
		m.Program = b.pi.p.Package
	}
	first := true
	for _, n := range b.nodes {
		if !n.seen {
			continue
		}
		if n.pending != nil {
			b.finishPDO(n, n.pending)
			n.pending = nil
		}
		if first || n.first < m.Start {
			m.Start = n.first
		}
		if first || n.last > m.End {
			m.End = n.last
		}
		first = false
	}
	m.Duration = m.End - m.Start
	T := m.Duration

	// Loop instances some member never finished (an APS smaller than N,
	// or a truncated trace) count with the members seen.
	for _, l := range b.loops {
		for k, in := range l.pending.all() {
			if in.members > 0 {
				b.finishInstance(l, k, in)
			}
		}
	}

	// The idle processors' serial time that the leader's goroutines
	// could run in: per stretch of serial code, while k of them ran (in
	// instrumented code, their regions, and not waiting for a mutex; a
	// goroutine blocked elsewhere, on a channel or in a WaitGroup, leaves
	// no record), min(k−1, N−1) idle processors' cores had work (one
	// goroutine is on the leader's core: goCoverage). That time is theirs
	// as work of the leader's goroutines.
	covered, othersSerial := b.goCoverage(N)
	var covTotal float64
	for _, c := range covered {
		covTotal += c
	}

	// Characteristics per processor.
	m.PerProc = make([]ProcTime, N)
	for p := 0; p < N; p++ {
		pt := &m.PerProc[p]
		pt.Proc = p
		pt.Total = T
		if p >= len(b.nodes) || !b.nodes[p].seen {
			pt.Outside = T
		} else {
			n := b.nodes[p]
			pt.Records, pt.Last = n.records, n.last
			pt.Productive = n.buckets[bRun]
			pt.Serial = n.buckets[bSerial]
			// Implicit-barrier waiting is imbalance as far as unequal
			// busy times explain it, the rest is synchronisation.
			impl := max(0, n.buckets[bImplicit])
			pt.Imbalance = min(impl, n.imb+n.implOther)
			pt.Sync = n.buckets[bSync] + impl - pt.Imbalance
			pt.Messages = n.buckets[bMsg]
			pt.TraceOverhead = n.traceOv
			pt.LaneTraceOverhead = n.laneTraceOv
			pt.Recording = n.recording
			pt.PDOStartup = n.startup
			pt.Dispatch = n.dispatch
			pt.Join = n.join
			pt.Outside = (n.first - m.Start) + (m.End - n.last)
			if p != b.leader && covTotal > 0 && othersSerial > 0 {
				g := min(pt.Serial, covTotal*pt.Serial/othersSerial)
				pt.Serial -= g
				pt.Productive += g
				pt.Goroutines = g
			}
		}
		pt.Overhead = pt.TraceOverhead + pt.PDOStartup + pt.Dispatch + pt.Join + pt.Outside
		pt.Lost = pt.Imbalance + pt.Sync + pt.Messages + pt.Overhead + pt.Serial
		pt.Efficiency = ratio(pt.Productive, pt.Total)
		c := &m.Time
		c.Total += pt.Total
		c.Productive += pt.Productive
		c.Goroutines += pt.Goroutines
		c.Imbalance += pt.Imbalance
		c.Sync += pt.Sync
		c.Messages += pt.Messages
		c.Serial += pt.Serial
		c.TraceOverhead += pt.TraceOverhead
		c.LaneTraceOverhead += pt.LaneTraceOverhead
		c.Recording += pt.Recording
		c.PDOStartup += pt.PDOStartup
		c.Dispatch += pt.Dispatch
		c.Join += pt.Join
		c.Outside += pt.Outside
	}
	c := &m.Time
	c.Overhead = c.TraceOverhead + c.PDOStartup + c.Dispatch + c.Join + c.Outside
	c.Lost = c.Imbalance + c.Sync + c.Messages + c.Overhead + c.Serial
	c.Efficiency = ratio(c.Productive, c.Total)

	b.untracedInCallers()
	// Regions.
	for _, a := range b.regions {
		st, num := b.pi.regionSite(int(a.key.sub), int(a.key.dir), int(a.key.typ))
		r := &RegionStat{Site: st, Type: regionTypeName(int(a.key.typ)), Code: int(a.key.typ), Region: num,
			PerProc: growRP(a.perProc, N-1)}
		for _, rp := range r.PerProc {
			r.Calls += rp.Calls
			r.Incl += rp.Incl
			r.Excl += rp.Excl
		}
		m.Regions = append(m.Regions, r)
	}
	slices.SortFunc(m.Regions, func(x, y *RegionStat) int {
		return cmp.Or(cmp.Compare(y.Incl, x.Incl), cmp.Compare(y.Excl, x.Excl), siteCmp(x.Site, y.Site), cmp.Compare(x.Code, y.Code))
	})

	// Loops.
	for _, l := range b.loops {
		if l.instances == 0 && l.onGo.Runs == 0 {
			continue // pdo-info of a loop that ran serially, without a region
		}
		st, num := b.pi.regionSite(int(l.key.sub), int(l.key.dir), trace.RegionPDO)
		ls := &LoopStat{Site: st, Region: num, Strategy: b.pi.strategy(st.Sub, st.Dir), Space: l.space,
			Instances: l.instances, Iterations: l.iterations, Lost: l.lost, APSTime: l.apsTime,
			Time: l.time, Startup: l.startup, Dispatch: l.dispatch, Chunks: l.chunks, Join: l.join, Late: l.late, JoinWait: l.joinWait}
		if l.onGo.Runs > 0 {
			g := l.onGo
			slices.Sort(g.Procs)
			ls.OnGoroutines = &g
		}
		ls.PerProc = l.perProc
		for len(ls.PerProc) < N {
			ls.PerProc = append(ls.PerProc, LoopProc{Iterations: -1})
		}
		switch {
		case l.fromWork && l.fromRegion:
			ls.BusySource = "pdo-work+regions"
		case l.fromWork:
			ls.BusySource = "pdo-work"
		default:
			ls.BusySource = "regions"
		}
		var sum float64
		members := 0
		for _, lp := range ls.PerProc {
			if lp.Instances == 0 {
				continue
			}
			members++
			sum += lp.Busy
			ls.BusyMax = max(ls.BusyMax, lp.Busy)
		}
		if members > 0 {
			ls.BusyMean = sum / float64(members)
		}
		ls.Imbalance = 1
		if ls.BusyMean > 0 {
			ls.Imbalance = ls.BusyMax / ls.BusyMean
		}
		ls.LostShare = ratio(ls.Lost, ls.APSTime)
		m.Loops = append(m.Loops, ls)
	}
	slices.SortFunc(m.Loops, func(x, y *LoopStat) int {
		return cmp.Or(cmp.Compare(y.Time, x.Time), siteCmp(x.Site, y.Site))
	})

	// Waits.
	gcByKey := b.gcInWaits(m)
	for _, w := range b.waits {
		site := b.pi.site(int(w.key.sub), int(w.key.dir))
		if w.key.kind == replay.WaitMutex {
			site = b.pi.mutexSite(int(w.key.dir))
		}
		ws := &WaitStat{Site: site, Wait: w.key.kind.String(), Max: w.max, Hold: w.hold, GC: gcByKey[w.key], Unfinished: w.unfinished, Goroutines: w.goroutines}
		if k, ok := mostWithin(w.within); ok && int(k.sub) != site.Sub {
			st, num := b.pi.regionSite(int(k.sub), int(k.dir), int(k.typ))
			if num >= 0 {
				ws.Within = &ConstructRef{Site: st, Region: num, Code: int(k.typ)}
			}
		}
		ws.PerProc = w.perProc
		ws.Counts = w.counts
		for len(ws.PerProc) < N {
			ws.PerProc = append(ws.PerProc, 0)
			ws.Counts = append(ws.Counts, 0)
		}
		for p := range ws.PerProc {
			ws.Total += ws.PerProc[p]
			ws.Count += ws.Counts[p]
		}
		m.Waits = append(m.Waits, ws)
	}
	slices.SortFunc(m.Waits, func(x, y *WaitStat) int {
		return cmp.Or(cmp.Compare(y.Total, x.Total), siteCmp(x.Site, y.Site), cmp.Compare(x.Wait, y.Wait))
	})

	// Serial time per region of the leader, and the others' idle time
	// attributed to it in proportion.
	var serialSum float64
	for _, t := range b.serial {
		serialSum += t
	}
	lives := unionOf(b.goLives)
	// The idle time is attributed in proportion to what goroutines left
	// of it: (N−1) × t minus the time they covered.
	var idleSum float64
	for k, t := range b.serial {
		idleSum += max(0, t*float64(N-1)-covered[k])
	}
	for k, t := range b.serial {
		st, num := b.pi.regionSite(int(k.reg.sub), int(k.reg.dir), int(k.reg.typ))
		s := &SerialStat{Site: st, Code: int(k.reg.typ), Region: num, Time: t, Goroutines: overlap(b.serialGo[k], lives), Covered: covered[k]}
		if k.after.dir > 0 {
			a := b.pi.site(int(k.after.sub), int(k.after.dir))
			s.After = &a
		}
		if k.before.dir > 0 {
			bf := b.pi.site(int(k.before.sub), int(k.before.dir))
			s.Before = &bf
		}
		switch {
		case covTotal > 0 && idleSum > 0:
			s.Lost = c.Serial * max(0, t*float64(N-1)-covered[k]) / idleSum
		case covTotal > 0: // goroutines covered all of it
		case serialSum > 0:
			s.Lost = c.Serial * t / serialSum
		}
		m.Serial = append(m.Serial, s)
	}
	slices.SortFunc(m.Serial, func(x, y *SerialStat) int {
		return cmp.Or(cmp.Compare(y.Time, x.Time), siteCmp(x.Site, y.Site), cmp.Compare(x.Code, y.Code),
			cmp.Compare(x.After.dir(), y.After.dir()), cmp.Compare(x.Before.dir(), y.Before.dir()))
	})

	for sub, tp := range b.throttled {
		ts := &ThrottleStat{Site: b.pi.site(int(sub), 0), PerProc: tp}
		for len(ts.PerProc) < N {
			ts.PerProc = append(ts.PerProc, ThrottleProc{})
		}
		for _, p := range ts.PerProc {
			ts.Untraced += p.Untraced
			ts.UntracedTime += p.UntracedTime
		}
		m.Throttled = append(m.Throttled, ts)
	}
	slices.SortFunc(m.Throttled, func(x, y *ThrottleStat) int {
		return cmp.Or(cmp.Compare(y.Untraced, x.Untraced), siteCmp(x.Site, y.Site))
	})
	if b.pi.p != nil {
		for _, s := range b.pi.p.Subprograms {
			if s.Plain {
				m.Plain = append(m.Plain, b.pi.site(s.Num, 0))
			}
		}
	}
	b.finishMeasures(m)
	m.Messages = b.msgs.build(b.pi, N)
	m.VarChecks = b.varChecks
	if b.svm != nil {
		m.Locality = b.svm.locality(b, b.cost)
		m.Locality.predict(m.Regions)
	}
	if b.nonMono > 0 {
		m.Warnings = append(m.Warnings, strconv.FormatInt(b.nonMono, 10)+" records have a clock earlier than the previous record of their processor")
	}
	if b.unmatch > 0 {
		m.Warnings = append(m.Warnings, strconv.FormatInt(b.unmatch, 10)+" stop records without a matching start (region, wait or pdo-work)")
	}
	if b.unclosed > 0 {
		m.Warnings = append(m.Warnings, strconv.FormatInt(b.unclosed, 10)+" regions still open at the end of their processor's records (closed there)")
	}
	if b.nprocs > 0 && len(b.nodes) > b.nprocs {
		m.Warnings = append(m.Warnings, "records of processor "+strconv.Itoa(len(b.nodes)-1)+" in a trace of "+strconv.Itoa(b.nprocs)+" processors")
	}
	return m
}

func siteCmp(a, b Site) int {
	return cmp.Or(cmp.Compare(a.Sub, b.Sub), cmp.Compare(a.Dir, b.Dir))
}

func ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(b) {
		return 0
	}
	return a / b
}

// dir is the directive number of a span's end, 0 for none.
func (s *Site) dir() int {
	if s == nil {
		return 0
	}
	return s.Dir
}

// Span says where serial code runs in its region: "between the pdo at
// main.go:20 and the pdo at main.go:31", "after ...", "before ...", or "".
func (s *SerialStat) Span() string {
	at := func(x *Site) string { return fmt.Sprintf("the %s at %s:%d", x.Kind, x.File, x.Line) }
	switch {
	case s.After != nil && s.Before != nil && s.After.Sub == s.Before.Sub && s.After.Dir == s.Before.Dir:
		return "between two runs of " + at(s.After) // a loop's function called twice
	case s.After != nil && s.Before != nil:
		return "between " + at(s.After) + " and " + at(s.Before)
	case s.After != nil:
		return "after " + at(s.After)
	case s.Before != nil:
		return "before " + at(s.Before)
	}
	return ""
}

// VarCheck is one var-check record: the checksum of shared variable Var
// of subprogram Sub at the Instance-th exit of the region of directive
// Dir (0: the subprogram).
type VarCheck struct {
	Sub      int    `json:"sub"`
	Dir      int    `json:"dir"`
	Var      int    `json:"var"`
	Instance int    `json:"instance"`
	Checksum uint32 `json:"checksum"`
	Bytes    int    `json:"bytes"`
}

// gcInWaits sums the collector's pauses into m.GC and returns, per wait
// site, the time they overlap its waits.
func (b *builder) gcInWaits(m *Model) map[waitKey]float64 {
	if !b.keepWaits && len(b.gcPauses) == 0 {
		return nil
	}
	g := &GCStats{Pauses: len(b.gcPauses)}
	pauses := make([][2]float64, len(b.gcPauses))
	for i, p := range b.gcPauses {
		g.Total += p.dur
		g.Longest = max(g.Longest, p.dur)
		pauses[i] = [2]float64{p.start, p.start + p.dur}
	}
	stopped := unionOf(pauses)
	out := map[waitKey]float64{}
	for _, w := range b.waitIvs {
		if o := within(w.c0, w.c1, stopped); o > 0 {
			out[w.key] += o
			g.InWaits += o
		}
	}
	m.GC = g
	return out
}

type serialAcc struct {
	k    serialKey
	t    float64
	used bool
}

// addSerial adds t to the serial time of k.
func (b *builder) addSerial(k serialKey, t float64) {
	m := &b.serialMemo
	for i := range m {
		if m[i].used && m[i].k == k {
			x := m[i]
			x.t += t
			copy(m[1:i+1], m[:i])
			m[0] = x
			return
		}
	}
	if last := m[len(m)-1]; last.used {
		b.serial[last.k] += last.t
	}
	copy(m[1:], m[:len(m)-1])
	m[0] = serialAcc{k, t, true}
}

// flushSerialMemo adds what serialMemo holds to serial.
func (b *builder) flushSerialMemo() {
	for i := range b.serialMemo {
		if a := &b.serialMemo[i]; a.used {
			b.serial[a.k] += a.t
			*a = serialAcc{}
		}
	}
}

// instWindow holds a loop's instances that some member has not finished,
// by instance number. The numbers rise and few are open at once, so a
// slice from the oldest open one replaces a map, whose inserts, lookups
// and deletes were a tenth of the model's time.
type instWindow struct {
	base int         // the number of ins[0]
	ins  []*loopInst // nil: finished, or not begun
}

func (w *instWindow) get(k int) *loopInst {
	if i := k - w.base; i >= 0 && i < len(w.ins) {
		return w.ins[i]
	}
	return nil
}

func (w *instWindow) set(k int, in *loopInst) {
	if len(w.ins) == 0 {
		w.base = k
	}
	if k < w.base {
		// Older than the oldest open one (a member far behind): room at
		// the front.
		w.ins = append(make([]*loopInst, w.base-k), w.ins...)
		w.base = k
	}
	for len(w.ins) <= k-w.base {
		w.ins = append(w.ins, nil)
	}
	w.ins[k-w.base] = in
}

func (w *instWindow) del(k int) {
	i := k - w.base
	if i < 0 || i >= len(w.ins) {
		return
	}
	w.ins[i] = nil
	for len(w.ins) > 0 && w.ins[len(w.ins)-1] == nil {
		w.ins = w.ins[:len(w.ins)-1]
	}
	d := 0
	for d < len(w.ins) && w.ins[d] == nil {
		d++
	}
	if d > 0 && 2*d >= len(w.ins) {
		n := copy(w.ins, w.ins[d:])
		clear(w.ins[n:])
		w.ins = w.ins[:n]
		w.base += d
	}
}

// all yields the open instances in number order (a copy: the caller may
// finish them as it goes).
func (w *instWindow) all() iter.Seq2[int, *loopInst] {
	ins, base := slices.Clone(w.ins), w.base
	return func(yield func(int, *loopInst) bool) {
		for i, in := range ins {
			if in != nil && !yield(base+i, in) {
				return
			}
		}
	}
}
