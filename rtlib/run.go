package rtlib

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svmc/svmc/trace"
)

// Program is the program information generated code hands to Main.
type Program struct {
	Info string // program information file (progdb JSON), stream attribute "svmc program info"
	Main int    // subprogram number of func main
	Subs []Sub  // indexed by subprogram number; index 0 unused
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
	NProcs int          // processors, >= 1
	Stage  int          // tracing stage 0..6; nothing is recorded without Trace
	Trace  io.Writer    // the trace stream; nil: no trace
	Format trace.Format // 0 means trace.Binary
	// BufSize is SVM_TraceBuf_Size: a processor's buffer is written to the
	// trace when it holds this many bytes. 0 means 1 MiB.
	BufSize int
	// KernelBufSize is SVM_Kernel_TraceBuf_Size; accepted and kept for the
	// SVM kernel events, which svmc does not produce.
	KernelBufSize int
	// Stderr receives the runtime's informational messages; nil: os.Stderr.
	Stderr io.Writer
	// StopWait bounds how long a failing run waits for the other processors
	// to reach a safe point; 0 means 2 seconds.
	StopWait time.Duration
}

// DefaultBufSize is the default SVM_TraceBuf_Size.
const DefaultBufSize = 1 << 20

// run is the state of one execution of a program.
type run struct {
	prog       *Program
	n          int
	stage      int
	start      time.Time
	w          *trace.Writer
	bufLimit   int
	stderr     io.Writer
	stopWait   time.Duration
	spin       int  // loads spun by a waiter before yielding
	minYields  int  // least rounds of runtime.Gosched before blocking
	adaptive   bool // barrier waits adapt their yielding (see await)
	standalone bool

	procs []*Proc
	aps   *aps

	nextTemplate atomic.Int64
	nextProcs    atomic.Int64

	mu       sync.Mutex
	infoSeen map[[2]int]bool
	failErr  error
	writeErr error

	failCh   chan struct{} // closed on the first failure
	aborting atomic.Bool
	live     atomic.Int32
	allDone  chan struct{} // closed when every processor goroutine ended
	done     atomic.Bool   // Run returned
}

// activeRun is the run that detached Procs (see Current) belong to.
var activeRun atomic.Pointer[run]

// standaloneRun serves detached Procs when no run is active.
var standaloneRun = sync.OnceValue(func() *run {
	r := &run{prog: &Program{}, n: 1, start: time.Now(), stderr: os.Stderr, standalone: true}
	r.aps = newAPS(r, []*Proc{{id: 0, r: r, detached: true}})
	return r
})

// Main runs prog with the parameters of the environment (SVMC_NPROCS,
// SVMC_TRACE, SVMC_FORMAT, SVMC_STAGE, SVMC_REQUEST). It returns normally when
// body returned; on an error it prints "svmc: " and the error on stderr and
// exits with status 2.
func Main(prog *Program, body func(p *Proc)) {
	par, closeTrace, err := ParamsFromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "svmc: %v\n", err)
		os.Exit(2)
	}
	err = Run(prog, par, body)
	if cerr := closeTrace(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "svmc: %v\n", err)
		os.Exit(2)
	}
}

// Run executes body on processor 0 of a team of par.NProcs processors and
// returns when body returned and the team stopped, or when a processor failed
// (a run-time error the user caused, *Error, or a panic, *PanicError), after
// the other processors stopped at a safe point or par.StopWait passed. The
// trace, if any, is complete when Run returns; the underlying writer is not
// closed. Run never calls os.Exit.
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
		prog:     prog,
		n:        par.NProcs,
		bufLimit: par.BufSize,
		stderr:   par.Stderr,
		stopWait: par.StopWait,
		infoSeen: map[[2]int]bool{},
		failCh:   make(chan struct{}),
		allDone:  make(chan struct{}),
	}
	if r.bufLimit <= 0 {
		r.bufLimit = DefaultBufSize
	}
	if r.stderr == nil {
		r.stderr = os.Stderr
	}
	if r.stopWait <= 0 {
		r.stopWait = 2 * time.Second
	}
	if par.Trace != nil {
		f := par.Format
		if f == 0 {
			f = trace.Binary
		}
		w, err := trace.NewWriter(par.Trace, f, []trace.Attr{
			{Key: "svmc program info", Value: prog.Info},
			{Key: "processors", Value: strconv.Itoa(r.n)},
			{Key: "stage", Value: strconv.Itoa(par.Stage)},
			{Key: "format version", Value: "1"},
		})
		if err != nil {
			return err
		}
		r.w = w
		r.stage = par.Stage
	}
	r.spin, r.minYields = spinPolicy(r.n)
	r.adaptive = r.n <= runtime.GOMAXPROCS(0)
	r.procs = make([]*Proc, r.n)
	for i := range r.procs {
		r.procs[i] = &Proc{
			id:       i,
			r:        r,
			stage:    r.stage,
			bufLimit: r.bufLimit,
			wake:     make(chan struct{}, 1),
			yields:   r.minYields,
			exited:   make(chan struct{}),
		}
	}
	r.aps = newAPS(r, r.procs)
	r.live.Store(int32(r.n))
	prev := activeRun.Swap(r)
	defer activeRun.CompareAndSwap(r, prev)

	r.start = time.Now()
	for _, p := range r.procs {
		go r.procMain(p, body)
	}
	select {
	case <-r.allDone:
	case <-r.failCh:
		t := time.NewTimer(r.stopWait)
		select {
		case <-r.allDone:
		case <-t.C:
		}
		t.Stop()
	}
	if r.w != nil {
		for _, p := range r.procs {
			select {
			case <-p.exited: // its buffer is no longer written
				r.writeBuf(&p.buf)
			default:
			}
		}
		if err := r.w.Close(); err != nil {
			r.setWriteErr(err)
		}
	}
	r.done.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failErr != nil {
		return r.failErr
	}
	return r.writeErr
}

// spinPolicy bounds the waiting of processors (see await): loads spun and
// rounds of yielding before blocking.
func spinPolicy(n int) (spin, yields int) {
	if n <= runtime.GOMAXPROCS(0) {
		return 32, 2
	}
	return 16, 1
}

// procMain is the goroutine of one processor.
func (r *run) procMain(p *Proc, body func(p *Proc)) {
	g := goid()
	procsByG.Store(g, p)
	normal := false
	defer func() {
		if v := recover(); v != nil {
			r.fail(&PanicError{Proc: p.id, Value: v, At: userFrame()})
		} else if !normal && !r.aborting.Load() {
			r.fail(&Error{Proc: p.id, Msg: "stopped by runtime.Goexit"})
		}
		procsByG.Delete(g)
		close(p.exited)
		if r.live.Add(-1) == 0 {
			close(r.allDone)
		}
	}()
	if p.stage >= 1 {
		p.pushRegion(r.prog.Main, 0, trace.RegionProgram)
	}
	if p.id == 0 {
		body(p)
		p.closeRegionsAbove(1)
		r.aps.dispatch(taskStop)
	} else {
		p.serve()
	}
	p.closeRegionsAbove(0)
	normal = true
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

// writeBuf writes b to the trace and empties it.
func (r *run) writeBuf(b *trace.Buf) {
	if b.Len() > 0 {
		if err := r.w.WriteBuf(b); err != nil {
			r.setWriteErr(err)
		}
	}
	b.Reset()
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
func (r *run) pos(sub, dir int) string {
	if r.prog == nil || sub <= 0 || sub >= len(r.prog.Subs) {
		return ""
	}
	s := &r.prog.Subs[sub]
	if dir > 0 && dir < len(s.Dirs) {
		d := s.Dirs[dir]
		return fmt.Sprintf("%s:%d:%d", s.File, d.Line, d.Col)
	}
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d:1", s.File, s.Line)
	}
	return s.File
}

// info prints an informational message once per directive.
func (r *run) info(sub, dir int, msg string) {
	r.mu.Lock()
	seen := r.infoSeen[[2]int{sub, dir}]
	if r.infoSeen != nil {
		r.infoSeen[[2]int{sub, dir}] = true
	}
	r.mu.Unlock()
	if seen {
		return
	}
	if pos := r.pos(sub, dir); pos != "" {
		msg = pos + ": " + msg
	}
	fmt.Fprintf(r.stderr, "svmc: %s\n", msg)
}
