// Package stats is Lib-DVM's statistics of a run (seed 000 §11): for every
// measured interval an interval matrix of calls, productive and lost time
// per group of runtime functions and the group that called them, charged
// by each processor as it switches between user code, runtime functions,
// waiting for other processors and waiting for work; then the summary
// characteristics of every interval. Package rtlib switches the
// activities; times are nanoseconds of the clock it gives.
package stats

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/svmc/svmc/trace"
)

// Group is a group of runtime functions (seed 000 §11.1.1): the numbers
// of trace.StatGroups, the "group" and "caller group" fields of stat-group.
type Group uint8

// The groups of the interval matrix.
const (
	User      = Group(trace.StatUserGrp)     // the user program itself
	MsgPas    = Group(trace.StatMsgPasGrp)   // message passing (§11.1.2)
	StartRed  = Group(trace.StatStartRedGrp) // a reduction's partial result handed over
	WaitRed   = Group(trace.StatWaitRedGrp)  // waiting for a reduction's result
	Red       = Group(trace.StatRedGrp)      // combining the partial results
	Distr     = Group(trace.StatDistrGrp)    // templates, arrangements, DISTRIBUTE
	ReDistr   = Group(trace.StatReDistrGrp)  // REDISTRIBUTE
	MapPL     = Group(trace.StatMapPLGrp)    // parallel loops: schedule, dispatch, the loop's barrier
	DoPL      = Group(trace.StatDoPLGrp)     // the next portion of a self-scheduled loop
	IO        = Group(trace.StatIOGrp)       // user output routed through the runtime
	UserDeb   = Group(trace.StatUserDebGrp)  // tracing
	Statist   = Group(trace.StatStatistGrp)  // measured intervals
	Sync      = Group(trace.StatSyncGrp)     // barriers, locks, critical sections, atomic updates
	Sect      = Group(trace.StatSectGrp)     // parallel sections, replicated regions
	System    = Group(trace.StatSystemGrp)   // other runtime functions
	NumGroups = trace.StatGrpCount
)

// GroupNames names the groups by number (Lib-DVM's names).
var GroupNames = func() (n [NumGroups]string) {
	for i, g := range trace.StatGroups {
		n[i] = g.Name
	}
	return n
}()

// Elem is one element of an interval matrix: Lib-DVM's s_GRPTIMES, times
// in nanoseconds.
type Elem struct {
	Calls, Prod, Lost float64
}

// Acc is what one processor accumulated in one interval.
type Acc struct {
	M       Matrix  // [caller group][group]
	Idle    float64 // waiting for work (ns)
	Exec    float64 // wall time of the entries this processor made (ns)
	Entries int
	// TimeVar and PotSync are Lib-DVM's time variation and potential
	// dissynchronisation of the collective operations (IsTimeVariation):
	// per barrier instance the spread of the arrivals (last - first) and
	// what the members lost to the last one (sum of last - own), ns.
	TimeVar, PotSync float64
}

// Matrix is an interval matrix (or TaskInter): [caller group][group].
type Matrix [NumGroups][NumGroups]Elem

// Node is a measured interval: intervals of the same name entered in the
// same enclosing interval are one node, their entries added up.
type Node struct {
	ID       int
	Parent   *Node
	Name     string
	Level    int
	children []*Node
	Acc      []Acc // per processor, written only by that processor
}

// Run is the statistics of a run.
type Run struct {
	mu     sync.Mutex // guards the tree's shape (child lookup and creation)
	root   *Node
	nodes  []*Node
	global transPtr // the intervals the APS leader went through, newest first
	pushes int      // transitions since the last pruning (the leader's)
	procs  []*Proc
	clock  func() int64
	start  int64 // the run's start on clock
	// maxNodes bounds the intervals kept (StatBufLength); 0: none.
	// Overflow is the first interval that did not fit.
	maxNodes int
	Overflow string
}

// trans is a change of the interval the APS leader is in: from time t on
// it is node. The members charge the time of an activity to the intervals
// the leader was in while it lasted, walking back from the newest change.
type trans struct {
	t    int64
	node *Node
	prev transPtr
}

// transPtr is an atomic *trans, written out instead of sync/atomic's
// generic Pointer: the compiler compiles the methods of a generic type's
// instances again in every package that reaches the type, and
// instrumented code reaches this one (rtlib's ptrs.go).
type transPtr struct{ p unsafe.Pointer }

func (a *transPtr) Load() *trans   { return (*trans)(atomic.LoadPointer(&a.p)) }
func (a *transPtr) Store(v *trans) { atomic.StorePointer(&a.p, unsafe.Pointer(v)) }

// NewRun is the statistics of a run of n processors that started at start
// on clock; processor 0 starts in the user program, the others waiting for
// work. Every processor is in the user program: the tasks a member runs
// are calls of the user program (SPMD), its waits for them idle time, and
// so is the time before a member's goroutine runs.
func NewRun(n int, start int64, clock func() int64) *Run {
	s := &Run{clock: clock, start: start}
	s.root = &Node{Name: "program", Acc: make([]Acc, n)}
	s.nodes = []*Node{s.root}
	s.global.Store(&trans{t: 0, node: s.root})
	s.procs = make([]*Proc, n)
	for id := range s.procs {
		p := &Proc{activity: activity{top: User, cur: User, k: 1}, id: id, run: s, last: start}
		if id != 0 {
			p.mode = modeIdle
		}
		p.lastPub.Store(start)
		s.procs[id] = p
	}
	return s
}

// Proc is processor id's statistics.
func (s *Run) Proc(id int) *Proc { return s.procs[id] }

// AccBytes is what one interval costs a processor's statistics buffer.
const AccBytes = int(unsafe.Sizeof(Acc{}))

// SetBuffer bounds the statistics buffer of a processor to bytes
// (Lib-DVM's StatBufLength): an interval costs AccBytes per processor;
// intervals beyond are not kept apart, their time counts in the enclosing
// one (Overflow names the first). 0: no bound.
func (s *Run) SetBuffer(bytes int) {
	if bytes > 0 {
		s.maxNodes = max(1, bytes/AccBytes)
	}
}

// KeepTaskInter makes every processor also accumulate Lib-DVM's TaskInter
// matrix (§11.1.4): the whole run, not corrected by the number of
// processors.
func (s *Run) KeepTaskInter() {
	for _, p := range s.procs {
		p.ti = new(Matrix)
	}
}

// TaskInter is the sum of the processors' TaskInter matrices (times in
// ns), and the user program's idle time.
func (s *Run) TaskInter(done []bool) (m Matrix, idle float64) {
	for i, p := range s.procs {
		if p.ti == nil || !done[i] {
			continue
		}
		addMatrix(&m, p.ti)
		idle += p.tiIdle
	}
	return m, idle
}

// EnterGlobal makes node the leader's interval from now on and returns
// the clock of the change: an interval's execution time is the span
// between its two changes, exactly the span the processors' charges to
// it cover. Every 256 changes it drops the changes older than every
// processor's last charge.
func (s *Run) EnterGlobal(node *Node) int64 {
	tr := &trans{t: s.clock(), node: node}
	tr.prev.Store(s.global.Load())
	s.global.Store(tr)
	if s.pushes++; s.pushes < 256 {
		return tr.t
	}
	s.pushes = 0
	oldest := tr.t
	for _, p := range s.procs {
		oldest = min(oldest, p.lastPub.Load())
	}
	for x := tr; x != nil; x = x.prev.Load() {
		if x.t <= oldest {
			x.prev.Store(nil)
			break
		}
	}
	return tr.t
}

// GlobalNode is the interval the leader is in.
func (s *Run) GlobalNode() *Node { return s.global.Load().node }

// Child returns the interval name inside parent, creating it.
func (s *Run) Child(parent *Node, name string) *Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range parent.children {
		if c.Name == name {
			return c
		}
	}
	if s.maxNodes > 0 && len(s.nodes) >= s.maxNodes {
		if s.Overflow == "" {
			s.Overflow = name
		}
		return parent // its time counts in the enclosing interval
	}
	c := &Node{ID: len(s.nodes), Parent: parent, Name: name, Level: parent.Level + 1, Acc: make([]Acc, len(s.procs))}
	parent.children = append(parent.children, c)
	s.nodes = append(s.nodes, c)
	return c
}

// activity is what a processor is doing: the group the user program
// called (top), the group whose code runs (cur), whether it waits for
// other processors (lost time) or for work (idle), and k, the number of
// processors that run the same call for the same purpose (the (n-1)/n
// rule).
type activity struct {
	top, cur Group
	mode     uint8 // busy, waiting, idle
	k        int32
}

const (
	modeBusy uint8 = iota
	modeWait
	modeIdle
)

// Proc is a processor's statistics. Its methods are those of a nil *Proc
// too (statistics off): they do nothing.
type Proc struct {
	activity
	id      int
	run     *Run
	last    int64        // clock of the last switch
	lastPub atomic.Int64 // last, for the pruning of EnterGlobal
	// Own is the innermost interval this processor opened itself; nil: its
	// time goes to the interval the APS leader is in.
	Own *Node
	// ti is this processor's TaskInter matrix (nil: not kept), tiIdle its
	// idle time.
	ti     *Matrix
	tiIdle float64
}

// Save is an activity to go back to.
type Save struct{ a activity }

func (p *Proc) target() *Acc {
	iv := p.Own
	if iv == nil {
		iv = p.run.GlobalNode()
	}
	return &iv.Acc[p.id]
}

// charge adds the time since the last switch to the current activity, in
// the interval p opened itself, or split over the intervals the leader was
// in meanwhile.
func (p *Proc) charge() {
	now := p.run.clock()
	last := p.last
	p.last = now
	p.lastPub.Store(now)
	if p.ti != nil {
		p.raw(float64(now - last))
	}
	if p.Own != nil {
		p.chargeTo(&p.Own.Acc[p.id], float64(now-last))
		return
	}
	end := now
	tr := p.run.global.Load()
	for tr.t > last {
		p.chargeTo(&tr.node.Acc[p.id], float64(end-tr.t))
		end = tr.t
		prev := tr.prev.Load()
		if prev == nil {
			break
		}
		tr = prev
	}
	if end > last {
		p.chargeTo(&tr.node.Acc[p.id], float64(end-last))
	}
}

// chargeTo adds dt ns of the current activity to acc.
func (p *Proc) chargeTo(acc *Acc, dt float64) {
	switch p.mode {
	case modeIdle:
		acc.Idle += dt
	case modeWait:
		acc.M[p.top][p.cur].Lost += dt
	default:
		e := &acc.M[p.top][p.cur]
		k := float64(p.k)
		e.Prod += dt / k
		e.Lost += dt * (k - 1) / k
	}
}

// raw adds dt ns of the current activity to TaskInter, uncorrected.
func (p *Proc) raw(dt float64) {
	switch p.mode {
	case modeIdle:
		p.tiIdle += dt
	case modeWait:
		p.ti[p.top][p.cur].Lost += dt
	default:
		p.ti[p.top][p.cur].Prod += dt
	}
}

// Call starts a call of a function of group g, made by k processors for the
// same purpose, and returns the activity to restore when it returns. Calls
// count 1/k each, in the element [caller][g], the caller being the group
// the user program called directly (g itself for a direct call).
func (p *Proc) Call(g Group, k int) Save {
	if p == nil {
		return Save{}
	}
	sv := Save{p.activity}
	p.charge()
	direct := p.top == User
	if direct {
		p.top = g
	}
	p.cur, p.mode, p.k = g, modeBusy, int32(max(k, 1))
	acc := p.target()
	acc.M[p.top][g].Calls += 1 / float64(p.k)
	if direct {
		// The UserGrp row counts the calls the user program made directly,
		// per processor (Summarize divides by the processors).
		acc.M[User][g].Calls++
	}
	if p.ti != nil {
		p.ti[p.top][g].Calls++
		if direct {
			p.ti[User][g].Calls++
		}
	}
	return sv
}

// Lost starts a call of group g by one processor whose whole time is lost
// (message passing, seed 000 §11.1.2).
func (p *Proc) Lost(g Group) Save {
	if p == nil {
		return Save{}
	}
	sv := p.Call(g, 1)
	p.mode = modeWait
	return sv
}

// Switch is Call by one processor.
func (p *Proc) Switch(g Group) Save { return p.Call(g, 1) }

// User starts running user code called back by the runtime (a PDO body).
func (p *Proc) User() Save {
	if p == nil {
		return Save{}
	}
	sv := Save{p.activity}
	p.charge()
	p.activity = activity{top: User, cur: User, mode: modeBusy, k: 1}
	return sv
}

// Dissync adds ns of real dissynchronisation of a message exchange to
// the current interval (seed 000 §11.1.2: kept in MsgPasGrp's
// ProductTime, whose calls and time are otherwise all lost).
func (p *Proc) Dissync(ns float64) {
	if p == nil {
		return
	}
	p.target().M[p.top][MsgPas].Prod += ns
}

// Collective adds one instance of a collective operation whose arrivals
// spread over spread ns and whose members lost sum ns to its last arrival
// (IsTimeVariation).
func (p *Proc) Collective(spread, sum float64) {
	if p == nil {
		return
	}
	acc := p.target()
	acc.TimeVar += spread
	acc.PotSync += sum
}

// Wait starts waiting for other processors (lost time).
func (p *Proc) Wait() Save { return p.setMode(modeWait) }

// Idle starts waiting for work (idle time).
func (p *Proc) Idle() Save { return p.setMode(modeIdle) }

func (p *Proc) setMode(m uint8) Save {
	if p == nil {
		return Save{}
	}
	sv := Save{p.activity}
	p.charge()
	p.mode = m
	return sv
}

// Restore goes back to a saved activity.
func (p *Proc) Restore(sv Save) {
	if p == nil {
		return
	}
	p.charge()
	p.activity = sv.a
}

// Stop charges the last activity; the processor is ending.
func (p *Proc) Stop() {
	if p != nil {
		p.charge()
	}
}
