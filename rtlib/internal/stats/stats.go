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
)

// Group is a group of runtime functions (seed 000 §11.1.1, adapted to
// svmc). The numbers are the "group" and "caller group" fields of
// stat-group.
type Group uint8

// The groups of the interval matrix.
const (
	User     Group = iota // the user program itself (Lib-DVM's UserGrp)
	PDO                   // parallel loops: scheduling, dispatch, the loop's own barrier
	Sync                  // barriers, locks, critical sections
	Distr                 // templates, processor arrangements, distribution
	Trace                 // tracing: handing full buffers to the writer
	Measure               // measured intervals (Lib-DVM's StatistGrp)
	Sections              // parallel sections
	System                // other runtime functions
	MsgPas                // message passing (Lib-DVM's MsgPasGrp, §11.1.2)
	NumGroups
)

// GroupNames names the groups by number.
var GroupNames = [NumGroups]string{
	User:     "user program",
	PDO:      "parallel loops",
	Sync:     "synchronisation",
	Distr:    "templates and distribution",
	Trace:    "tracing",
	Measure:  "measured intervals",
	Sections: "parallel sections",
	System:   "other runtime functions",
	MsgPas:   "message passing",
}

// Elem is one element of an interval matrix: Lib-DVM's s_GRPTIMES, times
// in nanoseconds.
type Elem struct {
	Calls, Prod, Lost float64
}

// Acc is what one processor accumulated in one interval.
type Acc struct {
	M       [NumGroups][NumGroups]Elem // [caller group][group]
	Idle    float64                    // waiting for work (ns)
	Exec    float64                    // wall time of the entries this processor made (ns)
	Entries int
}

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
	global atomic.Pointer[trans] // the intervals the APS leader went through, newest first
	pushes int                   // transitions since the last pruning (the leader's)
	procs  []*Proc
	clock  func() int64
}

// trans is a change of the interval the APS leader is in: from time t on
// it is node. The members charge the time of an activity to the intervals
// the leader was in while it lasted, walking back from the newest change.
type trans struct {
	t    int64
	node *Node
	prev atomic.Pointer[trans]
}

// NewRun is the statistics of a run of n processors that started at start
// on clock; processor 0 starts in the user program, the others waiting for
// work. Every processor is in the user program: the tasks a member runs
// are calls of the user program (SPMD), its waits for them idle time, and
// so is the time before a member's goroutine runs.
func NewRun(n int, start int64, clock func() int64) *Run {
	s := &Run{clock: clock}
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

// EnterGlobal makes node the leader's interval from now on. Every 256
// changes it drops the changes older than every processor's last charge.
func (s *Run) EnterGlobal(node *Node) {
	tr := &trans{t: s.clock(), node: node}
	tr.prev.Store(s.global.Load())
	s.global.Store(tr)
	if s.pushes++; s.pushes < 256 {
		return
	}
	s.pushes = 0
	oldest := tr.t
	for _, p := range s.procs {
		oldest = min(oldest, p.lastPub.Load())
	}
	for x := tr; x != nil; x = x.prev.Load() {
		if x.t <= oldest {
			x.prev.Store(nil)
			return
		}
	}
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
	if p.top == User {
		p.top = g
	}
	p.cur, p.mode, p.k = g, modeBusy, int32(max(k, 1))
	p.target().M[p.top][g].Calls += 1 / float64(p.k)
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
