package rtlib

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/svmc/svmc/internal/safetext"
	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/rtlib/internal/msg"
	"github.com/svmc/svmc/rtlib/internal/output"
	"github.com/svmc/svmc/rtlib/internal/params"
	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/rtlib/internal/svm"
	"github.com/svmc/svmc/rtlib/internal/team"
	"github.com/svmc/svmc/trace"
)

// Program is the program information generated code hands to Main.
type Program struct {
	Info  string // program information file (progdb JSON), stream attribute "svmc program info"
	Main  int    // subprogram number of func main
	Subs  []Sub  // indexed by subprogram number; index 0 unused
	Calls []Call // message-passing call sites by number; index 0 unused
	// NoTimers: svmc found that no package of the program makes a timer,
	// so goroutines blocked on channels wait for each other only (the
	// watchdog ends their deadlock as Go would).
	NoTimers bool
}

// Sub is one subprogram.
type Sub struct {
	Name, File string
	Line       int
	Dirs       []Dir // indexed by directive number; index 0 unused
}

// Dir is one directive of a subprogram.
type Dir struct {
	Kind      string
	Line, Col int
	Label     string
	// Region is the number of the trace region the directive opens (its
	// number in the subprogram, as trace request files name it), 0 if none.
	Region int
}

// Params are the parameters of one run.
type Params struct {
	NProcs int // processors, >= 1
	// Stage is the tracing stage 0..6. It overrides the request file's
	// SVM_TraceStage (Main resolves the default; see ParamsFromEnv).
	// Nothing is recorded without Trace.
	Stage  int
	Trace  io.Writer    // the trace stream; nil: no trace
	Format trace.Format // 0 means trace.Binary
	// TraceName names the trace in messages (the file's path); optional.
	TraceName string
	// Request is the trace request file (package request, loaded with its
	// includes); nil: the stage alone decides. Run checks its names
	// against the program information file (errors, or warnings with
	// Lenient) and compiles it for NProcs.
	Request *request.File
	Lenient bool
	// BufSize is SVM_TraceBuf_Size: a processor's buffer is handed to the
	// trace writer when it holds this many bytes. 0 means 1 MiB.
	BufSize int
	// KernelBufSize is SVM_Kernel_TraceBuf_Size: when the SVM layer's page
	// records in a processor's buffer reach it, the buffer is handed to the
	// writer (kernel-trace-buffer-overflow); 0: only the buffer size bounds
	// them.
	KernelBufSize int
	// Stats turns the statistics (interval matrices) on: written to the
	// trace at the end of the run, or printed to Stderr without a trace.
	Stats bool
	// MaxIntervalLevel is the deepest measured interval the statistics
	// keep (Lib-DVM's MaxIntervalLevel); deeper ones count in their
	// enclosing interval. 0: no limit.
	MaxIntervalLevel int
	// StatFile, with Stats, is a file the statistics are also written to
	// as text at the end of the run (Lib-DVM's StatFileName); "" none.
	StatFile string
	// Stderr receives the runtime's informational messages; nil: os.Stderr.
	Stderr io.Writer
	// UserStdout and UserStderr route the user program's output (Proc.Stdout,
	// Proc.Stderr). KeepOld keeps the files of an earlier run: output is
	// appended to them, and no file of OutEach patterns is removed.
	UserStdout, UserStderr Output
	KeepOld                bool
	// TimeLimit stops the run after this long as SIGTERM does, with a
	// TimeLimitError saying what each processor was doing; 0: none.
	TimeLimit time.Duration
	// StopWait bounds how long a failing run waits for the other processors
	// to reach a safe point; 0 means 2 seconds.
	StopWait time.Duration
	// Deadlock is how long every processor must be blocked before the run
	// is declared deadlocked: negative off, 0 the default (deadlock.go).
	Deadlock time.Duration
	// ThrottleCalls and ThrottleUs throttle the tracing of subprograms: one
	// called ThrottleCalls times on a processor with a mean inclusive time
	// under ThrottleUs µs stops being traced there (trace-throttled), its
	// further calls are counted (throttled-calls), unless a LOCAL request
	// names it. Either 0: no throttling (Main's defaults are 100000 and
	// 10).
	ThrottleCalls, ThrottleUs int
	// MsgBuffer is the bytes of standard sends a processor may have
	// buffered and not yet received: 0 the default (DefaultMsgBuffer),
	// negative none (every Send waits for its receive). MsgChecksum: the
	// message records carry a CRC-32 of each buffer.
	MsgBuffer   int
	MsgChecksum bool
	// MsgPerturb adds random yields before message-passing calls, to try
	// other schedules of a non-deterministic program.
	MsgPerturb bool
	// PageSize is the page size of the shared virtual memory layer in
	// bytes (a power of two; 0: DefaultPageSize); SVMModel its consistency
	// model, "rc" (the default) or "sc".
	PageSize int
	// PageBudget bounds the copies of other processors' pages a processor
	// keeps (0: no limit): beyond it the oldest is paged out (page-out).
	PageBudget int
	SVMModel   string
	// InfoOff are the classes of informational messages not printed
	// (params.InfoClasses: mapping, goroutines, requests, measure, messages, user).
	InfoOff []string
	// NoSynchrTime turns off Lib-DVM's IsSynchrTime: the statistics do not
	// count the real dissynchronisation of message passing (no clock is
	// read for it).
	NoSynchrTime bool
	// TimeVariation turns on Lib-DVM's IsTimeVariation: with Stats, every
	// barrier instance adds the spread of its members' arrivals (time
	// variation) and what they lost to the last one (potential
	// dissynchronisation) to the statistics.
	TimeVariation bool
	// StatBufLength bounds a processor's statistics (Lib-DVM's
	// StatBufLength, bytes; 0 none): measured intervals beyond it count in
	// the enclosing one, and an informational message says which.
	StatBufLength int
	// TimeExpendPrint (Lib-DVM's, 0..5) prints the TaskInter matrix of the
	// whole run at its end to the informational messages; StatGrpName is
	// the group modes 4 and 5 show (a trace.StatGroups number).
	TimeExpendPrint, StatGrpName int
	// CPUProfile is a file for a CPU profile of the run whose samples
	// carry the labels svmc_processor and svmc_region (profile.go); ""
	// none.
	CPUProfile string
	// GoTrace is a file for the Go execution trace of the run
	// (runtime/trace) with svmc's regions as user regions of a task per
	// processor (profile.go); "" none.
	GoTrace string
	// ActiveWait, when positive, is how long a waiting processor keeps
	// yielding the CPU (runtime.Gosched) before it blocks (wait_policy
	// active, OpenMP's OMP_WAIT_POLICY): its thread stays running, so a
	// pdo after serial code starts without the wake-up of a blocked
	// thread, which takes 0.1-1 ms where idle CPUs sleep (a virtual
	// machine). 0: block after a short spin (passive).
	ActiveWait time.Duration

	signals <-chan os.Signal // Main: stop the run on these
	ranks   rankNet          // Main: the processors are an MPI job's ranks (ranks.go)
	perRank int              // and each rank runs this many of them (1 if 0)
	// eagerPages: every shared variable travels eagerly between ranks
	// (rank_pages = eager; rankpages.go).
	eagerPages bool
	// onMain: Main runs processor 0 on the goroutine that reads it (the
	// program's main goroutine) instead of one of its own.
	onMain chan<- func()
}

// DefaultPageSize is the default of Params.PageSize.
const DefaultPageSize = 4096

// DefaultMsgBuffer is the default of Params.MsgBuffer.
const DefaultMsgBuffer = 1 << 20

// DefaultBufSize is the default SVM_TraceBuf_Size.
const DefaultBufSize = 1 << 20

// run is the state of one execution of a program.
type run struct {
	prog       *Program
	n          int
	stage      int
	start      time.Time
	startNano  int64 // nanotime at start
	w          *trace.Writer
	traceName  string // the trace's file as the user named it ("": not known)
	bufLimit   int
	stderr     io.Writer
	stopWait   time.Duration
	spin       int           // loads spun by a waiter before yielding
	waiterGoid int64         // the goroutine that called Run, which waits for it (goDeadlock)
	minYields  int           // least rounds of runtime.Gosched before blocking
	activeWait time.Duration // Params.ActiveWait
	adaptive   bool          // barrier waits adapt their yielding (see await)
	quickJoin  bool          // nothing observes a member's wait at a pdo's end (aps.arrive)
	thrCalls   int64         // throttling (throttle.go): calls, 0 off
	thrUs      float64       // and mean inclusive µs
	recCost    recordingCost // what recording costs (recording.go)
	standalone bool

	req      *request.Table // compiled trace requests (nil without a trace)
	hasLocal bool           // req has LOCAL requests: enter regions even at stage 0
	// infoFirst: pdo-info is traced somewhere in the run, so a pdo reached
	// in replicated mode waits for its leader's dispatch even where every
	// member could set its share up alone (Table 1: pdo-info at the PDO,
	// before any member's iterations). It is the same on every processor.
	infoFirst bool
	// mapAlways are the mapping records (template-info, template-dist,
	// proc-arrangement) written wherever the program is: seed 002 §4.2.1
	// traces them "through the whole program regardless of the currently
	// defined trace regions", so a request for one anywhere (or for the
	// pdo-info that refers to them) turns it on everywhere.
	mapAlways request.Mask

	flushQ     chan flushItem // full buffers to the writer goroutine
	drainEvery time.Duration  // 0: drainEvery (a test's writer drains more often)
	writerDone chan struct{}

	stats       *stats.Run // nil: statistics off
	maxLevel    int        // MaxIntervalLevel, 0 none
	statsOut    bool       // Stats: the interval statistics are written at the end
	timeVar     bool       // TimeVariation (with Stats)
	statBuf     int        // StatBufLength
	statFile    string     // StatFile
	taskInter   int        // TimeExpendPrint, 0 off
	statGrp     int        // its StatGrpName
	profFile    *os.File   // the CPU profile being written, nil for none
	goTraceFile *os.File   // the Go execution trace being written, nil for none
	gcPauses    bool       // write gc-pause records at the end (GoTrace with a trace)
	outs        output.Files

	procs []*Proc
	aps   *aps
	locks lockTable // critical sections, LOCK variables, atomic stripes (locks.go)

	// The shared virtual memory layer (svm.go): the pages of the shared
	// variables, by their storage.
	svm        *svm.Space
	svmOn      bool // a request may trace page records: the access checks run the protocol
	kernelBuf  int  // SVM_Kernel_TraceBuf_Size: page records a buffer holds before it is flushed (0: no bound)
	segs       map[Storage]*svm.Segment
	segTab     segTabPtr
	infoOff    map[string]bool // classes of informational messages silenced
	synchrTime bool            // Lib-DVM's IsSynchrTime
	pageSize   int

	net         *msg.Net // message passing (message.go)
	msgChecksum bool
	msgPerturb  bool

	nextTemplate atomic.Int64
	nextProcs    atomic.Int64
	sections     map[string]*Procs // arrangement sections (ProcsSection), under mu
	lanes        laneSet           // the lanes of the processors' goroutines (lanes.go)

	mu       sync.Mutex
	infoSeen map[seenKey]bool // the sites a message was printed for, once each
	measSeen map[string]bool  // unfinished measured intervals reported
	failErr  error
	writeErr error

	failCh   chan struct{} // closed on the first failure
	hurry    chan struct{} // closed on a second signal: wait for no processor any more
	aborting atomic.Bool
	live     atomic.Int32
	allDone  chan struct{} // closed when every processor goroutine ended
	done     atomic.Bool   // Run returned

	// ranks: the processors are the ranks of an MPI job and this process
	// is rank (ranks.go); twins are the shared storage before a pdo.
	ranks    rankNet
	lastType string         // arrive's last element type name (the transport calls it under its lock)
	taken    func(*msg.Msg) // msgTaken, the Taken of the messages arrive delivers
	rank     int
	perRank  int        // this rank runs processors rank·perRank to (rank+1)·perRank − 1
	crowded  bool       // this machine's ranks' processors may outnumber its cores (localRanks)
	stdin    *stdinFeed // os.Stdin's feed between ranks (rankstdin.go)
	outEach  bool       // a processor's output has a file of its own (--stdout each)
	twins    [][]byte   // kept from pdo to pdo, one per exchanged segment
	// exchanged are the segments (indices of the segment table) the ranks
	// exchange, in the order every rank made them; exStores their
	// storage at the current pdo.
	exchanged []int
	exStores  []Storage
	twinned   bool   // twins holds this pdo's copies
	diffOut   []byte // this rank's diffs, kept from pdo to pdo
	// shift, shiftErr: this rank's clock against rank 0's; exchanges,
	// sent: the pdo ends' exchanges of shared storage (rank-info).
	shift, shiftErr  float64
	endShift, endErr float64 // the same at the run's normal end (endClocks)
	endMeasured      bool
	exchanges        int
	sent             int64
	// acks are the synchronous sends to other ranks waiting for their
	// acknowledgement; rankBar the barrier of this rank's processors in a
	// replicated region (rankmsg.go).
	acks    ackTable
	rankBar rankLocal
	// postsOut, postsIn count the messages of any kind posted to and taken
	// from other ranks; dead is rank 0's view of the ranks' watchdogs
	// (rankdead.go).
	postsOut, postsIn atomic.Int64
	dead              rankDead
	// endedIn counts the rankEnded (rank 0) or rankAllEnded posts taken;
	// ranksEnded is closed once every rank ended (endRanks).
	endedIn    atomic.Uint64
	ranksEnded chan struct{}
	// msgBuf is msg_buffer: a standard send of more bytes waits.
	msgBuf int64
	// msgsOut, msgBytesOut count the program's messages to other ranks.
	msgsOut, msgBytesOut atomic.Int64
	// decided: rank 0's processor 0's decisions, in order (ranks other
	// than 0): the sources it took its messages from any source from, its
	// Tests' answers, its clock readings (ranktime.go).
	decideMu  sync.Mutex
	decided   []int64
	decideGen atomic.Uint64
	// loopSeq numbers the dynamic pdos between ranks; loops holds rank
	// 0's counters of those running (ranks.go).
	loopSeq atomic.Int64
	loops   loopTable
	// rsync: critical sections, locks and atomics between ranks
	// (ranklock.go).
	rsync      rankSync
	eagerPages bool
	// pages are the lazy pages between ranks (rankpages.go); nil when no
	// shared variable is kept so (one rank, none fully checked).
	pages       *rankPages
	lazyVars    map[segVar]bool
	accessSites int      // access numbers + 1 (the pages' caches)
	accessPoss  []string // file:line:col of each access (rankpages.go)
}

// activeRun is the run that detached Procs (see Current) belong to.
var activeRun runPtr

// standaloneRun serves detached Procs when no run is active.
var standaloneRun = sync.OnceValue(func() *run {
	r := &run{prog: &Program{}, n: 1, start: time.Now(), startNano: nanotime(), stderr: os.Stderr, standalone: true, infoSeen: map[seenKey]bool{}}
	r.aps = newAPS(r, []*Proc{{id: 0, r: r, detached: true}})
	r.net = msg.New(1, DefaultMsgBuffer)
	r.svm, r.pageSize = svm.New(1, svm.RC), DefaultPageSize
	return r
})

// InterruptError is the end of a run stopped by a signal (SIGINT, SIGTERM).
type InterruptError struct {
	Signal os.Signal
	// InJob: the process is rank Rank of an MPI job, whose mpirun stops
	// every rank when one ends with an error (the message says so).
	InJob bool
	Rank  int
}

func (e *InterruptError) Error() string {
	if e.InJob {
		return fmt.Sprintf("rank %d interrupted (%s): mpirun stops every rank of the job when one ends with an error, or when the job is stopped; another rank's message above says why", e.Rank, sigName(e.Signal))
	}
	return "interrupted (" + sigName(e.Signal) + ")"
}

// ExitCode is 128 + the signal number: 130 for SIGINT, 143 for SIGTERM.
func (e *InterruptError) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE: the output pipe was closed"
	}
	return s.String()
}

// Main runs prog with the run-time parameters (see ParamsFromEnv: the
// environment, the parameter file SVMC_PARAMS, the flags of svmc run). With
// SVMC_PRINT_PARAMS=1 it prints the effective parameters and their sources
// and exits 0 without running. It returns normally when body returned; on
// an error it prints "svmc: " and the error on stderr and exits with status
// 2. SIGINT, SIGTERM and SIGHUP stop the processors at their next safe point (with
// the bounded wait of a failure), complete the trace and exit with 130,
// 143 or 129 after "svmc: interrupted (SIGINT): trace written to FILE".
func Main(prog *Program, body func(p *Proc)) {
	if params.IsTrue(getenv("SVMC_PRINT_PARAMS")) {
		if err := PrintParams(os.Stdout); err != nil {
			fatal(err)
		}
		os.Exit(0)
	}
	for _, w := range params.Unknown(os.Environ()) {
		fmt.Fprintln(os.Stderr, "svmc: warning: "+safetext.Escape(w))
	}
	var net rankNet
	if openRanks != nil {
		var err error
		if net, err = openRanks(); err != nil {
			fatal(err)
		}
	}
	par, closeAll, err := paramsFromEnv(net)
	if err != nil {
		var re *params.RequestError
		if errors.As(err, &re) {
			// The names of what parsed are checked too: every error of
			// the file in one run.
			if pi, perr := progInfoOf(prog); perr == nil {
				err = request.WithNames(re.File, re.Errs, pi, re.Lenient)
			}
		}
		fatal(err)
	}
	sig := make(chan os.Signal, 2)
	watchSignals(sig) // signals.go: SIGINT and SIGTERM unless the program takes them
	par.signals = sig
	if initPanic != nil {
		body = raiseInitPanic(initPanic) // initpanic.go
	}
	// Processor 0 runs on the main goroutine, as main does under go run:
	// a program that locked it to the main thread in init
	// (runtime.LockOSThread, which GUI toolkits and some C libraries
	// need) keeps it there. The run is watched, and the process ended, from
	// a goroutine of its own, which the main goroutine cannot stop: a
	// processor 0 stuck in the program's code, or leaving by
	// runtime.Goexit (os.Exit), still lets the run end.
	onMain := make(chan func(), 1)
	par.onMain = onMain
	ended := make(chan struct{})
	go func() {
		endMain(par, net, closeAll, Run(prog, par, body))
		close(ended)
	}()
	(<-onMain)()
	// A run that ended well had processor 0 return here: Main returns
	// (svmc test's TestMain exits with the tests' status after it).
	<-ended
}

// endMain ends the process Main started as the run's end err says: the
// exit status, the message, the MPI job. It returns only when the run
// ended well (err nil).
func endMain(par Params, net rankNet, closeAll func() error, err error) {
	// The handler stays until the process exits: restoring the default
	// action would let a late signal kill it before the trace has its name.
	// svmc run's parent-death signal comes once per thread of the dying
	// svmc that was the program's parent, spread out under load.
	if cerr := closeAll(); err == nil && cerr != nil {
		err = cerr
	}
	if testPanicking.Load() {
		select {} // svmc test: the panicking test ends the process (completeOnPanic)
	}
	var xe *ExitError
	if net != nil {
		// A rank that ends in error ends the job: mpirun stops the others
		// (with SIGTERM: they complete their traces).
		if errors.As(err, &xe) && xe.Code == 0 || err == nil {
			if cerr := net.Close(); cerr != nil {
				fatal(cerr)
			}
		}
	}
	if errors.As(err, &xe) {
		os.Exit(xe.Code)
	}
	var te *TimeLimitError
	if errors.As(err, &te) {
		msg := err.Error()
		if par.TraceName != "" {
			msg += "\ntrace written to " + par.TraceName
		}
		printErr(msg)
		os.Exit(te.ExitCode())
	}
	var ie *InterruptError
	if errors.As(err, &ie) {
		msg := "svmc: " + ie.Error()
		if par.TraceName != "" {
			msg += ": trace written to " + par.TraceName
		}
		// A closed output pipe (| head) ends a Go program silently.
		if ie.Signal != syscall.SIGPIPE {
			fmt.Fprintln(os.Stderr, safetext.Escape(msg))
		}
		os.Exit(ie.ExitCode())
	}
	if err != nil {
		fatal(err)
	}
}

// fatal prints err, every line that does not start with a blank prefixed by
// "svmc: ", and exits with status 2.
func fatal(err error) {
	printErr(err.Error())
	os.Exit(2)
}

// printErr prints a message on stderr, every line that does not start
// with a blank prefixed by "svmc: ".
func printErr(msg string) {
	var b strings.Builder
	for _, line := range strings.Split(safetext.Escape(msg), "\n") {
		if line != "" && line[0] != ' ' && line[0] != '\t' {
			b.WriteString("svmc: ")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	os.Stderr.WriteString(b.String())
}

// Run executes body on processor 0 of a team of par.NProcs processors and
// returns when body returned and the team stopped, or when a processor failed
// (a run-time error the user caused, *Error, or a panic, *PanicError) or a
// signal of Main arrived (*InterruptError), after the other processors
// stopped at a safe point or par.StopWait passed. The trace, if any, is
// complete when Run returns, ending with trace-end: the records of the
// processors that did not stop are written up to the last one they
// completed. The underlying writer is not closed. Run never calls os.Exit.
func Run(prog *Program, par Params, body func(p *Proc)) error {
	if prog == nil {
		prog = &Program{}
	}
	if par.NProcs < 1 {
		return &Error{Proc: -1, Msg: fmt.Sprintf("%d processors: want a positive number", par.NProcs)}
	}
	if par.Stage < 0 || par.Stage > MaxStage {
		return &Error{Proc: -1, Msg: fmt.Sprintf("stage %d: want a stage 0..%d", par.Stage, MaxStage)}
	}
	r := &run{
		prog:       prog,
		n:          par.NProcs,
		bufLimit:   par.BufSize,
		stderr:     par.Stderr,
		stopWait:   par.StopWait,
		infoSeen:   map[seenKey]bool{},
		failCh:     make(chan struct{}),
		allDone:    make(chan struct{}),
		ranksEnded: make(chan struct{}),
		hurry:      make(chan struct{}),
		ranks:      par.ranks,
		eagerPages: par.eagerPages,
		rank:       rankOf(par.ranks),
		perRank:    max(par.perRank, 1),
		waiterGoid: goid(),
	}
	if r.ranks != nil && r.n != r.ranks.Size()*r.perRank {
		return &Error{Proc: -1, Msg: fmt.Sprintf("%d processors in a job of %d ranks of %d processors each", r.n, r.ranks.Size(), r.perRank)}
	}
	r.synchrTime = !par.NoSynchrTime
	r.infoOff = map[string]bool{}
	for _, c := range par.InfoOff {
		r.infoOff[c] = true
	}
	r.pageSize = par.PageSize
	if r.pageSize <= 0 {
		r.pageSize = DefaultPageSize
	}
	if r.pageSize&(r.pageSize-1) != 0 {
		return &Error{Proc: -1, Msg: fmt.Sprintf("page size %d is not a power of two", r.pageSize)}
	}
	model := svm.RC
	if par.SVMModel == "sc" {
		model = svm.SC
	}
	r.svm = svm.New(r.n, model)
	msgBuf := int64(par.MsgBuffer)
	switch {
	case msgBuf == 0:
		msgBuf = DefaultMsgBuffer
	case msgBuf < 0:
		msgBuf = 0
	}
	r.net, r.msgChecksum, r.msgPerturb = msg.New(r.n, msgBuf), par.MsgChecksum, par.MsgPerturb
	r.msgBuf = msgBuf
	if r.bufLimit <= 0 {
		r.bufLimit = DefaultBufSize
	}
	if r.stderr == nil {
		r.stderr = os.Stderr
	}
	if r.stopWait <= 0 {
		r.stopWait = 2 * time.Second
	}
	if par.Trace != nil || par.Request != nil {
		// A request file is checked even when no trace is written.
		tab, err := r.compileRequests(&par)
		if err != nil {
			return err
		}
		if par.Trace != nil {
			r.req, r.hasLocal, r.stage = tab, tab.HasLocal(), par.Stage
		}
	}
	r.svmOn = r.req.Uses(svmTags)
	r.infoFirst = r.req.Uses(request.MaskOf(trace.TagPDOInfo))
	for _, tag := range []trace.Tag{trace.TagTemplateInfo, trace.TagTemplateDist, trace.TagProcArrangement} {
		if r.infoFirst || r.req.Uses(request.MaskOf(tag)) {
			r.mapAlways |= request.MaskOf(tag)
		}
	}
	r.kernelBuf = par.KernelBufSize
	if par.Trace != nil && par.ThrottleCalls > 0 && par.ThrottleUs > 0 {
		r.thrCalls, r.thrUs = int64(par.ThrottleCalls), float64(par.ThrottleUs)
	}
	r.spin, r.minYields = team.SpinPolicy(r.n)
	r.activeWait = par.ActiveWait
	r.adaptive = r.n <= runtime.GOMAXPROCS(0)
	if r.ranks != nil {
		local := localRanks()
		r.crowded = local <= 0 || local*r.perRank > runtime.NumCPU()
	}
	r.startPages()
	r.procs = make([]*Proc, r.n)
	for i := range r.procs {
		p := &Proc{
			id:     i,
			r:      r,
			yields: r.minYields,
			exited: make(chan struct{}),
		}
		if r.req != nil {
			p.mask = r.req.Base(i)
			p.track = r.hasLocal || p.mask != 0
		}
		if r.pages != nil {
			p.rp = &pageCache{pg: r.pages, sites: make([]pageSpan, r.accessSites)}
		}
		if r.svmOn {
			p.sv = &svmProc{space: r.svm, r: r, shift: uint(bits.TrailingZeros(uint(r.pageSize))), budget: par.PageBudget}
		}
		p.waiter.Init()
		if r.thrCalls > 0 {
			p.thr = make([]throttle, len(prog.Subs))
		}
		p.gate = make([]int32, len(prog.Subs))
		p.initChunks(r.bufLimit)
		r.procs[i] = p
	}
	r.aps = newAPS(r, r.procs)
	if err := r.openOutputs(&par); err != nil {
		return &Error{Proc: -1, Msg: err.Error()}
	}
	if par.GoTrace != "" {
		r.gcPauses = par.Trace != nil
		if err := r.startGoTrace(par.GoTrace); err != nil {
			return &Error{Proc: -1, Msg: err.Error()}
		}
		defer r.stopGoTrace() // a run that fails to start
	}
	if par.CPUProfile != "" {
		if err := r.startProfile(par.CPUProfile); err != nil {
			return &Error{Proc: -1, Msg: err.Error()}
		}
		defer r.stopProfile() // a run that fails to start
	}
	defer r.routeLog()()
	if par.Trace != nil {
		f := par.Format
		if f == 0 {
			f = trace.Binary
		}
		attrs := []trace.Attr{
			{Key: "svmc program info", Value: prog.Info},
			{Key: "processors", Value: strconv.Itoa(r.n)},
			{Key: "stage", Value: strconv.Itoa(par.Stage)},
			{Key: "format version", Value: "1"},
			// The CPUs the run had: the report tells more processors
			// than CPUs from a machine's slow wake-ups.
			{Key: "cpus", Value: strconv.Itoa(runtime.GOMAXPROCS(0))},
		}
		if startDir != "" {
			// The run's messages (the trace-end record's among them)
			// name files from where it started (srcpos.go): the tools
			// map them back to the program information's names.
			attrs = append(attrs, trace.Attr{Key: trace.AttrProgramDir, Value: BuildDir}, trace.Attr{Key: trace.AttrStartDir, Value: startDir})
		}
		if note := childNote(); note != "" {
			attrs = append(attrs, trace.Attr{Key: "svmc started by", Value: note})
		}
		if par.GoTrace != "" {
			// gc-pause records come at the end: the tools keep the
			// waits' intervals to set against them.
			attrs = append(attrs, trace.Attr{Key: "svmc gc pauses", Value: "1"})
		}
		w, err := trace.NewWriter(par.Trace, f, attrs)
		if err != nil {
			r.outs.Close()
			return traceErr(par.TraceName, err, false)
		}
		if err := w.Flush(); err != nil { // the header is on disk before anything runs
			r.outs.Close()
			return traceErr(par.TraceName, err, false)
		}
		r.w, r.traceName = w, par.TraceName
		r.flushQ = make(chan flushItem, 4*r.n) // a send waits only when the writer is that far behind
		r.writerDone = make(chan struct{})
		go r.writer()
		r.recCost = r.calibrate()
	}
	r.live.Store(int32(r.n))
	prev := activeRun.Swap(r)
	defer activeRun.CompareAndSwap(r, prev)

	r.start = time.Now()
	r.startNano = nanotime()
	if r.ranks != nil && r.w != nil {
		// The ranks' clocks are compared before this one starts: the
		// round trips take milliseconds.
		clock := func() float64 { return float64(nanotime()) / 1e3 }
		begin := func() float64 {
			r.start, r.startNano = time.Now(), nanotime()
			return float64(r.startNano) / 1e3
		}
		var err error
		if r.shift, r.shiftErr, err = r.ranks.ClockShift(clock, begin); err != nil {
			return &Error{Proc: -1, Msg: fmt.Sprintf("the ranks' clocks: %v", err)}
		}
	}
	if r.spread() {
		if err := r.stdinStart(); err != nil {
			return &Error{Proc: -1, Msg: fmt.Sprintf("standard input between ranks: %v", err)}
		}
		r.taken = r.msgTaken // made once: a method value per message was an allocation
		r.ranks.Listen(r.arrive, r.rankFail)
	}
	r.maxLevel, r.statFile, r.statBuf = par.MaxIntervalLevel, absPath(par.StatFile), par.StatBufLength
	if par.Stats || par.TimeExpendPrint > 0 {
		// Every processor starts in the user program (package stats).
		r.stats = stats.NewRun(r.n, r.startNano, nanotime)
		r.stats.SetBuffer(par.StatBufLength)
		r.statsOut = par.Stats
		r.timeVar = par.Stats && par.TimeVariation
		if par.TimeExpendPrint > 0 {
			r.stats.KeepTaskInter()
			r.taskInter, r.statGrp = par.TimeExpendPrint, par.StatGrpName
		}
		for _, p := range r.procs {
			p.st = r.stats.Proc(p.id)
		}
	}
	r.quickJoin = r.stats == nil && !r.svmOn && r.ranks == nil && !slices.ContainsFunc(r.procs, func(p *Proc) bool { return p.track })
	r.startWatchdog(par.Deadlock)
	if par.TimeLimit > 0 {
		limit := time.AfterFunc(par.TimeLimit, func() { r.fail(r.timeLimitError(par.TimeLimit)) })
		defer limit.Stop()
	}
	for _, p := range r.procs {
		if p.id == 0 && par.onMain != nil {
			par.onMain <- func() { startProc(r, p, body) }
			continue
		}
		go startProc(r, p, body)
	}
	sigDone := make(chan struct{})
	if par.signals != nil {
		go r.onSignals(par.signals, sigDone)
	}
	select {
	case <-r.allDone:
		r.endRanks()
	case <-r.failCh:
		if r.exitsAtOnce() {
			break
		}
		t := time.NewTimer(r.stopWait)
		select {
		case <-r.allDone:
		case <-t.C:
		case <-r.hurry:
		}
		t.Stop()
	}
	end := nanotime()
	r.finish(end)
	close(sigDone)
	r.done.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failErr != nil {
		return r.failErr
	}
	r.warnUnreceived()
	return r.writeErr
}

// exitsAtOnce reports whether the run ends at once, without waiting for
// the processors to stop at a safe point: the program called os.Exit and
// nothing the processors hold is to be written (no trace, statistics, SVM
// layer or ranks: quickJoin). Plain Go's os.Exit ends every goroutine where
// it is; a processor in a long pdo reaches no safe point before the loop
// ends (x549: a watchdog goroutine's os.Exit took 314-383 ms against plain
// Go's 72-80).
func (r *run) exitsAtOnce() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var xe *ExitError
	return r.quickJoin && r.w == nil && errors.As(r.failErr, &xe)
}

// warnUnreceived says, a line per send site, which messages no receive
// took before the program ended normally (x243: a worker's progress
// messages the master never read, which svmc check alone reported). Between
// ranks a rank's mailboxes hold only part of the picture: svmc check of
// the merged trace says it there.
func (r *run) warnUnreceived() {
	if r.net == nil || r.spread() || !r.infoOn("messages") {
		return
	}
	left, _ := r.net.Pending()
	type key struct{ site, tag, dst int }
	var order []key
	count := map[key][]int{} // the senders
	for _, m := range left {
		k := key{m.Site, m.Tag, m.Dst}
		if count[k] == nil {
			order = append(order, k)
		}
		count[k] = append(count[k], m.Src)
	}
	for _, k := range order {
		at := r.callPos(k.site)
		if at == "" {
			at = "(a send svmc did not number)"
		}
		from := count[k]
		slices.Sort(from)
		from = slices.Compact(from)
		names := make([]string, len(from))
		for i, q := range from {
			names[i] = strconv.Itoa(q)
		}
		senders := "processor " + names[0]
		if len(names) > 1 {
			senders = "processors " + strings.Join(names, ", ")
		}
		fmt.Fprintf(r.stderr, "svmc: %s: %d message(s) sent here by %s to processor %d with tag %d were never received: no receive took them before the program ended (svmc check of a trace lists them)\n",
			at, len(count[k]), senders, k.dst, k.tag)
	}
}

// onSignals handles Main's signals until done is closed, that is until the
// trace is complete. The first stops the run as a failure does: the
// processors stop at their next safe point, waited for up to stop_wait.
// The second ends that wait: the trace is completed at once with what the
// processors handed over. Only a third ends the process without the trace.
// A signal within sameSignal of the previous one counts with it: a
// process-group kill (timeout(1), kill -TERM -PGID) reaches the program
// twice, directly and passed on by svmc run.
func (r *run) onSignals(sigs <-chan os.Signal, done <-chan struct{}) {
	const sameSignal = 250 * time.Millisecond
	var last time.Time
	for n := 0; ; {
		var s os.Signal
		select {
		case s = <-sigs:
		case <-done:
			return
		}
		if programTakes(s) {
			continue // the program handles it (signals.go) and decides when to end
		}
		if n > 0 && time.Since(last) < sameSignal {
			continue
		}
		last = time.Now()
		switch n++; n {
		case 1:
			r.fail(&InterruptError{Signal: s, InJob: r.ranks != nil, Rank: r.rank})
			if r.ranks != nil {
				// mpirun stops the other ranks when one fails, and
				// kills them soon after: a rank waiting in MPI for the
				// dead one never reaches a safe point.
				close(r.hurry)
			}
		case 2:
			fmt.Fprintf(os.Stderr, "svmc: %s again: completing the trace without waiting for the processors\n", sigName(s))
			close(r.hurry)
		default:
			fmt.Fprintf(os.Stderr, "svmc: %s a third time: exiting without completing the trace\n", sigName(s))
			os.Exit((&InterruptError{Signal: s}).ExitCode())
		}
	}
}

// finish completes the trace and the statistics after the processors
// stopped (or the bounded wait passed) and closes the output files.
func (r *run) finish(end int64) {
	r.stopProfile() // the samples end with the processors
	r.stopGoTrace()
	stopped := make([]bool, r.n)
	for i, p := range r.procs {
		select {
		case <-p.exited:
			stopped[i] = true
		default:
		}
	}
	var sums []*stats.Summary
	if r.stats != nil && r.statsOut {
		sums = r.stats.Summarize(stopped, float64(end-r.startNano))
	}
	if r.stats != nil {
		if name := r.stats.Overflow; name != "" && r.infoOn("measure") {
			fmt.Fprintf(r.stderr, "svmc: statistics: the buffer of %d bytes per processor (stat_buf_length) holds %d intervals; %q and the later ones count in their enclosing interval\n",
				r.statBuf, max(1, r.statBuf/stats.AccBytes), name)
		}
		if r.taskInter > 0 {
			m, idle := r.stats.TaskInter(stopped)
			stats.PrintTaskInter(r.stderr, &m, idle, float64(end-r.startNano), r.taskInter, r.statGrp)
		}
	}
	if r.stdin != nil && !r.failedRun() {
		r.stdinEnd() // traced or not: before the ranks close
	}
	if r.w != nil {
		// Seal every processor, so that none hands over a buffer any more,
		// then let the writer finish with the buffers it has.
		var notStopped []int
		lost := 0
		bufs := make([]sealedBuf, r.n)
		for i, p := range r.procs {
			b, ok := p.seal(r.stopWait, r.hurry)
			if !ok {
				lost = -1
			}
			bufs[i] = sealedBuf{p, b}
			if !stopped[i] {
				notStopped = append(notStopped, i)
			}
		}
		bufs = append(bufs, r.sealLanes()...)
		close(r.flushQ)
		<-r.writerDone
		for _, sb := range bufs {
			r.write(sb.unwritten())
		}
		if r.ranks != nil && !r.failedRun() {
			r.endClocks()
		}
		var tail trace.Buf
		clock := float64(nanotime()-r.startNano) / 1e3
		if sums != nil {
			stats.Records(&tail, sums, r.n, clock, maxName)
		}
		if r.gcPauses {
			r.gcPauseRecs(&tail)
		}
		r.untracedRecs(&tail, clock)
		r.mu.Lock()
		status, msg := endStatus(r.failErr)
		r.mu.Unlock()
		if r.ranks != nil {
			r.rankInfoRec(&tail, clock)
		}
		tail.Begin(trace.TagTraceEnd, 0, clock)
		tail.Int(status)
		tail.Chars(truncName(msg))
		tail.Ints(notStopped)
		tail.Int(lost)
		tail.End()
		if err := r.w.WriteTrusted(tail.B); err != nil {
			r.traceWriteErr(err)
		}
		if err := r.w.Close(); err != nil {
			r.traceWriteErr(err)
		}
	} else if sums != nil {
		stats.Print(r.stderr, sums, r.n)
	}
	if sums != nil && r.statFile != "" {
		if err := writeStatFile(r.statFile, sums, r.n); err != nil {
			r.setWriteErr(err)
		}
	}
	if err := r.outs.Close(); err != nil {
		r.setWriteErr(err)
	}
}

// endStatus classifies the failure of a run for trace-end. An error type
// may name its status with a method EndStatus() int.
func endStatus(err error) (int, string) {
	if err == nil {
		return trace.EndNormal, ""
	}
	var es interface{ EndStatus() int }
	var ie *InterruptError
	var pe *PanicError
	var ue *Error
	switch {
	case errors.As(err, &es):
		return es.EndStatus(), err.Error()
	case errors.As(err, &ie):
		if ie.Signal == syscall.SIGTERM || ie.Signal == syscall.SIGHUP {
			return trace.EndTerminate, err.Error()
		}
		return trace.EndInterrupt, err.Error()
	case errors.As(err, &pe):
		return trace.EndPanic, err.Error()
	case errors.As(err, &ue) && strings.HasPrefix(ue.Msg, "deadlock"):
		return trace.EndDeadlock, err.Error()
	}
	return trace.EndError, err.Error()
}

// procMain is the goroutine of one processor.
func (r *run) procMain(p *Proc, body func(p *Proc)) {
	g := getg()
	gProcs.store(g, p)
	p.goid.Store(goid())
	normal := false
	defer func() {
		if v := recover(); v != nil {
			r.fail(p.panicError(v))
		} else if !normal && !r.aborting.Load() {
			r.fail(&Error{Proc: p.id, Msg: "stopped by runtime.Goexit"})
		}
		if !normal && r.exiting() {
			// os.Exit ends the program where it stands, cleanly: the
			// regions still open end here, as they would on return.
			p.closeRegionsAbove(0)
		}
		gProcs.store(g, nil)
		p.ended()
	}()
	p.pushRegion(Site{Sub: r.prog.Main}, trace.RegionProgram)
	if p.id == 0 {
		body(p)
		p.closeRegionsAbove(1)
		r.aps.dispatch(taskStop)
	} else {
		p.serve()
	}
	p.closeRegionsAbove(0)
	p.unfinishedMeasures()
	normal = true
}

// ended counts the processor as stopped, once: by its goroutine's end, or
// by the test's goroutine that acts as processor 0 in svmc test and stops
// in a failing run (stopHere, testPanicked) while processor 0's own
// goroutine still waits in testing.M.Run.
func (p *Proc) ended() {
	p.endOnce.Do(func() {
		p.st.Stop()
		p.recordingRec()
		p.throttledCallsRecs()
		close(p.exited)
		if p.r.live.Add(-1) == 0 {
			close(p.r.allDone)
		}
	})
}

// unfinishedMeasures says, once per interval and place, which measured
// intervals the processor left open at the end of the program: their time
// is in no measure-finish record and no statistics.
func (p *Proc) unfinishedMeasures() {
	r := p.r
	for i := len(p.meas) - 1; i >= 0; i-- {
		m := &p.meas[i]
		where := firstUserFrame(m.pcs[:m.npcs])
		key := where + "\x00" + m.name
		r.mu.Lock()
		seen := r.measSeen[key]
		if r.measSeen == nil {
			r.measSeen = map[string]bool{}
		}
		r.measSeen[key] = true
		r.mu.Unlock()
		if !seen && r.infoOn("measure") {
			at := ""
			if where != "" {
				at = where + ": "
			}
			fmt.Fprintf(r.stderr, "svmc: %smeasured interval %q (processor %d and maybe others) was never finished: call MeasureFinish(%q) before the program ends\n", at, m.name, p.id, m.name)
		}
	}
}

// exiting reports whether the run ends because the program called os.Exit.
func (r *run) exiting() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var xe *ExitError
	return errors.As(r.failErr, &xe)
}

// fail records the first failure of the run and stops the others at their
// next safe point.
func (r *run) fail(err error) {
	r.mu.Lock()
	first := r.failErr == nil
	if first {
		r.failErr = err
	}
	r.mu.Unlock()
	if !first {
		return
	}
	r.aborting.Store(true)
	for _, p := range r.procs {
		p.wakeup()
	}
	close(r.failCh)
}

// traceWriteErr is setWriteErr for a write of the trace that failed (a
// full disk): said with the trace's name as the user gave it, not the
// partial file's the runtime writes under (x641: "write
// /mnt/small/t.sddf.28753.partial: no space left on device", a file that
// no longer existed when the user read it), and what the file holds.
func (r *run) traceWriteErr(err error) { r.setWriteErr(traceErr(r.traceName, err, true)) }

// traceErr is err, a failed write of the trace file name, in those terms;
// running: the run had begun writing records.
func traceErr(name string, err error, running bool) error {
	var pe *os.PathError
	if name == "" || !errors.As(err, &pe) {
		return err
	}
	if !running {
		return fmt.Errorf("writing the trace %s failed: %v", name, pe.Err)
	}
	return fmt.Errorf("writing the trace %s failed: %v; it holds the records written before, without the trace's end (svmc report reads them)", name, pe.Err)
}

func (r *run) setWriteErr(err error) {
	r.mu.Lock()
	if r.writeErr == nil {
		r.writeErr = err
	}
	r.mu.Unlock()
}

// pos is the position of directive dir of subprogram sub, "file:line:col",
// or the subprogram's position for directive 0.
func (r *run) pos(at Site) string {
	if at.Dir < 0 {
		return r.callPos(callOf(at))
	}
	if r.prog == nil || at.Sub <= 0 || at.Sub >= len(r.prog.Subs) {
		return ""
	}
	s := &r.prog.Subs[at.Sub]
	if at.Dir > 0 && at.Dir < len(s.Dirs) {
		d := s.Dirs[at.Dir]
		return fmt.Sprintf("%s:%d:%d", shownFile(s.File), d.Line, d.Col)
	}
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d:1", shownFile(s.File), s.Line)
	}
	return shownFile(s.File)
}

// infoOn reports whether informational messages of class (params.
// InfoClasses) are printed.
func (r *run) infoOn(class string) bool { return !r.infoOff[class] }

// info prints an informational message once per directive.
// failedRun reports whether the run failed; os.Exit(0) is a normal end
// (every rank calls it at the same place).
func (r *run) failedRun() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var xe *ExitError
	return r.failErr != nil && !(errors.As(r.failErr, &xe) && xe.Code == 0)
}

// seenKey is a site with the reason of a message about it: a reason is
// told once per site.
type seenKey struct {
	at  Site
	why uint8
}

func (r *run) info(at Site, format string, args ...any) {
	if !r.infoOn("mapping") {
		return
	}
	r.mu.Lock()
	seen := r.infoSeen[seenKey{at, 0}]
	if r.infoSeen != nil {
		r.infoSeen[seenKey{at, 0}] = true
	}
	r.mu.Unlock()
	if seen {
		return
	}
	msg := fmt.Sprintf(format, args...) // once per site, not at every call
	if pos := r.pos(at); pos != "" {
		msg = pos + ": " + msg
	}
	fmt.Fprintf(r.stderr, "svmc: %s\n", msg)
}

// writeStatFile writes the statistics as text to path (StatFileName).
func writeStatFile(path string, sums []*stats.Summary, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("stat_file: %v", err)
	}
	stats.Print(f, sums, n)
	if err := f.Close(); err != nil {
		return fmt.Errorf("stat_file: %v", err)
	}
	return nil
}
