package rtlib

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/svmc/svmc/trace"
)

// grp is a group of runtime functions (seed 000 §11.1.1, adapted to svmc).
type grp uint8

// The groups of the interval matrix. The numbers are the "group" and
// "caller group" fields of stat-group.
const (
	grpUser     grp = iota // the user program itself (Lib-DVM's UserGrp)
	grpPDO                 // parallel loops: scheduling, dispatch, the loop's own barrier
	grpSync                // barriers, locks, critical sections
	grpDistr               // templates, processor arrangements, distribution
	grpTrace               // tracing: handing full buffers to the writer
	grpMeasure             // measured intervals (Lib-DVM's StatistGrp)
	grpSections            // parallel sections
	grpSystem              // other runtime functions
	numGrp
)

// GroupNames names the groups of the interval matrix by number.
var GroupNames = [numGrp]string{
	grpUser:     "user program",
	grpPDO:      "parallel loops",
	grpSync:     "synchronisation",
	grpDistr:    "templates and distribution",
	grpTrace:    "tracing",
	grpMeasure:  "measured intervals",
	grpSections: "parallel sections",
	grpSystem:   "other runtime functions",
}

// elem is one element of an interval matrix: Lib-DVM's s_GRPTIMES, times
// in nanoseconds.
type elem struct {
	calls, prod, lost float64
}

// ivAcc is what one processor accumulated in one interval.
type ivAcc struct {
	m       [numGrp][numGrp]elem // [caller group][group]
	idle    float64              // waiting for work (ns)
	exec    float64              // wall time of the entries this processor made (ns)
	entries int
}

// ivNode is a measured interval: intervals of the same name entered in the
// same enclosing interval are one node, their entries added up.
type ivNode struct {
	id       int
	parent   *ivNode
	name     string
	level    int
	children []*ivNode
	acc      []ivAcc // per processor, written only by that processor
}

// statsRun is the statistics of a run.
type statsRun struct {
	mu     sync.Mutex // guards the tree's shape (child lookup and creation)
	root   *ivNode
	nodes  []*ivNode
	global atomic.Pointer[ivTrans] // the intervals the APS leader went through, newest first
	pushes int                     // transitions since the last pruning (the leader's)
}

// ivTrans is a change of the interval the APS leader is in: from time t on
// it is node. The members charge the time of an activity to the intervals
// the leader was in while it lasted, walking back from the newest change.
type ivTrans struct {
	t    int64
	node *ivNode
	prev atomic.Pointer[ivTrans]
}

func newStatsRun(n int) *statsRun {
	s := &statsRun{}
	s.root = &ivNode{name: "program", acc: make([]ivAcc, n)}
	s.nodes = []*ivNode{s.root}
	s.global.Store(&ivTrans{t: 0, node: s.root})
	return s
}

// enterGlobal makes node the leader's interval from now on. Every 256
// changes it drops the changes older than every processor's last charge.
func (st *statsRun) enterGlobal(node *ivNode, procs []*Proc) {
	tr := &ivTrans{t: nanotime(), node: node}
	tr.prev.Store(st.global.Load())
	st.global.Store(tr)
	if st.pushes++; st.pushes < 256 {
		return
	}
	st.pushes = 0
	oldest := tr.t
	for _, p := range procs {
		if p.st != nil {
			oldest = min(oldest, p.st.lastPub.Load())
		}
	}
	for x := tr; x != nil; x = x.prev.Load() {
		if x.t <= oldest {
			x.prev.Store(nil)
			return
		}
	}
}

func (st *statsRun) globalNode() *ivNode { return st.global.Load().node }

// child returns the interval name inside parent, creating it.
func (s *statsRun) child(parent *ivNode, name string, n int) *ivNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range parent.children {
		if c.name == name {
			return c
		}
	}
	c := &ivNode{id: len(s.nodes), parent: parent, name: name, level: parent.level + 1, acc: make([]ivAcc, n)}
	parent.children = append(parent.children, c)
	s.nodes = append(s.nodes, c)
	return c
}

// activity is what a processor is doing, for the statistics: the group the
// user program called (top), the group whose code runs (cur), whether it
// waits for other processors (lost time) or for work (idle), and k, the
// number of processors that run the same call for the same purpose (the
// (n-1)/n rule).
type activity struct {
	top, cur grp
	mode     uint8 // busy, waiting, idle
	k        int32
}

const (
	modeBusy uint8 = iota
	modeWait
	modeIdle
)

// procStats is a processor's statistics state; nil when statistics are off.
type procStats struct {
	activity
	last    int64        // nanotime of the last switch
	lastPub atomic.Int64 // last, for the pruning of enterGlobal
	own     *ivNode      // innermost interval this processor opened itself (see target)
}

// statSave is an activity to go back to.
type statSave struct{ a activity }

// statTarget is the interval p's time goes to now: the innermost one it
// opened itself, else the one the APS leader is in.
func (p *Proc) statTarget() *ivAcc {
	iv := p.st.own
	if iv == nil {
		iv = p.r.stats.globalNode()
	}
	return &iv.acc[p.id]
}

// charge adds the time since the last switch to the current activity, in
// the interval p opened itself, or split over the intervals the leader was
// in meanwhile.
func (p *Proc) charge() {
	s := p.st
	now := nanotime()
	last := s.last
	s.last = now
	s.lastPub.Store(now)
	if s.own != nil {
		p.chargeTo(&s.own.acc[p.id], float64(now-last))
		return
	}
	end := now
	tr := p.r.stats.global.Load()
	for tr.t > last {
		p.chargeTo(&tr.node.acc[p.id], float64(end-tr.t))
		end = tr.t
		prev := tr.prev.Load()
		if prev == nil {
			break
		}
		tr = prev
	}
	if end > last {
		p.chargeTo(&tr.node.acc[p.id], float64(end-last))
	}
}

// chargeTo adds dt ns of the current activity to acc.
func (p *Proc) chargeTo(acc *ivAcc, dt float64) {
	s := p.st
	switch s.mode {
	case modeIdle:
		acc.idle += dt
	case modeWait:
		acc.m[s.top][s.cur].lost += dt
	default:
		e := &acc.m[s.top][s.cur]
		k := float64(s.k)
		e.prod += dt / k
		e.lost += dt * (k - 1) / k
	}
}

// statCall starts a call of a function of group g, made by k processors for
// the same purpose, and returns the activity to restore when it returns.
// Calls count 1/k each, in the element [caller][g], the caller being the
// group the user program called directly (g itself for a direct call).
func (p *Proc) statCall(g grp, k int) statSave {
	s := p.st
	if s == nil {
		return statSave{}
	}
	sv := statSave{s.activity}
	p.charge()
	if s.top == grpUser {
		s.top = g
	}
	s.cur, s.mode, s.k = g, modeBusy, int32(max(k, 1))
	p.statTarget().m[s.top][g].calls += 1 / float64(s.k)
	return sv
}

// statSwitch is statCall by one processor.
func (p *Proc) statSwitch(g grp) statSave { return p.statCall(g, 1) }

// statUser starts running user code called back by the runtime (a PDO
// body).
func (p *Proc) statUser() statSave {
	s := p.st
	if s == nil {
		return statSave{}
	}
	sv := statSave{s.activity}
	p.charge()
	s.activity = activity{top: grpUser, cur: grpUser, mode: modeBusy, k: 1}
	return sv
}

// statWait starts waiting for other processors (lost time).
func (p *Proc) statWait() statSave { return p.statMode(modeWait) }

// statIdle starts waiting for work (idle time).
func (p *Proc) statIdle() statSave { return p.statMode(modeIdle) }

func (p *Proc) statMode(m uint8) statSave {
	s := p.st
	if s == nil {
		return statSave{}
	}
	sv := statSave{s.activity}
	p.charge()
	s.mode = m
	return sv
}

// statRestore goes back to a saved activity.
func (p *Proc) statRestore(sv statSave) {
	if p.st == nil {
		return
	}
	p.charge()
	p.st.activity = sv.a
}

// startStats sets up p's statistics when the run has them on, with its
// clock at the run's start. Every processor is in the user program: the
// tasks a member runs are calls of the user program (SPMD), its waits for
// them idle time, and so is the time before a member's goroutine runs.
func (p *Proc) startStats() {
	if p.r.stats == nil {
		return
	}
	st := &procStats{activity: activity{top: grpUser, cur: grpUser, k: 1}, last: p.r.startNano}
	if p.id != 0 {
		st.mode = modeIdle
	}
	st.lastPub.Store(st.last)
	p.st = st
}

// stopStats charges the last activity; the processor is ending.
func (p *Proc) stopStats() {
	if p.st != nil {
		p.charge()
	}
}

// ivSummary is the summary characteristics of an interval (seed 000
// §11.1.3), times in microseconds.
type ivSummary struct {
	node       *ivNode
	entries    int
	exec       float64 // execution time: the longest of the processors' entries
	procTime   float64 // processors * exec
	oupt, oult float64 // the user program's own productive and lost time
	spt, slt   float64 // runtime functions called by it
	idle       float64
	calls      float64 // runtime calls made directly by the user program
	m          [numGrp][numGrp]elem
}

func (s *ivSummary) productive() float64 { return s.oupt + s.spt }
func (s *ivSummary) lost() float64       { return s.oult + s.slt }
func (s *ivSummary) efficiency() float64 {
	if s.procTime <= 0 {
		return 0
	}
	return s.productive() / s.procTime
}

// summarize sums every interval over the processors that stopped (done),
// the nested intervals included in the enclosing ones. rootExec is the run's
// wall time in ns.
func (st *statsRun) summarize(done []bool, rootExec float64) []*ivSummary {
	st.mu.Lock() // a processor that did not stop may still add intervals
	defer st.mu.Unlock()
	n := len(done)
	out := make([]*ivSummary, len(st.nodes))
	var sum func(nd *ivNode) *ivSummary
	sum = func(nd *ivNode) *ivSummary {
		s := &ivSummary{node: nd}
		for pid := range nd.acc {
			if !done[pid] {
				continue
			}
			a := &nd.acc[pid]
			for i := range a.m {
				for j := range a.m[i] {
					e := a.m[i][j]
					s.m[i][j].calls += e.calls
					s.m[i][j].prod += e.prod
					s.m[i][j].lost += e.lost
				}
			}
			s.idle += a.idle
			s.exec = max(s.exec, a.exec)
			s.entries = max(s.entries, a.entries)
		}
		for _, c := range nd.children {
			cs := sum(c)
			for i := range cs.m {
				for j := range cs.m[i] {
					s.m[i][j].calls += cs.m[i][j].calls
					s.m[i][j].prod += cs.m[i][j].prod
					s.m[i][j].lost += cs.m[i][j].lost
				}
			}
			s.idle += cs.idle
		}
		out[nd.id] = s
		return s
	}
	sum(st.root)
	for _, s := range out {
		if s.node == st.root {
			s.exec, s.entries = rootExec, 1
		}
		for i := range s.m {
			for j := range s.m[i] {
				e := &s.m[i][j]
				e.prod /= 1e3
				e.lost /= 1e3
				switch {
				case i == int(grpUser) && j == int(grpUser):
					s.oupt, s.oult = e.prod, e.lost
				default:
					s.spt += e.prod
					s.slt += e.lost
				}
				if i == j && i != int(grpUser) {
					s.calls += e.calls
				}
			}
		}
		s.exec /= 1e3
		s.idle /= 1e3
		s.procTime = float64(n) * s.exec
	}
	return out
}

// statRecords appends the statistics records to b: per interval (in
// creation order, the program first) stat-interval, then stat-group for
// every element of its matrix with a call or time.
func statRecords(b *trace.Buf, sums []*ivSummary, n int, clock float64) {
	for _, s := range sums {
		nd := s.node
		parent := -1
		if nd.parent != nil {
			parent = nd.parent.id
		}
		b.Begin(trace.TagStatInterval, 0, clock)
		b.Int(nd.id)
		b.Int(parent)
		b.Int(nd.level)
		b.Chars(truncName(nd.name))
		b.Int(s.entries)
		b.Int(n)
		b.Double(s.exec)
		b.Double(s.procTime)
		b.Double(s.oupt)
		b.Double(s.oult)
		b.Double(s.spt)
		b.Double(s.slt)
		b.Double(s.productive())
		b.Double(s.lost())
		b.Double(s.idle)
		b.Double(s.calls)
		b.Double(s.efficiency())
		b.End()
		for i := range s.m {
			for j := range s.m[i] {
				e := s.m[i][j]
				if e.calls == 0 && e.prod == 0 && e.lost == 0 {
					continue
				}
				b.Begin(trace.TagStatGroup, 0, clock)
				b.Int(nd.id)
				b.Int(i)
				b.Int(j)
				b.Chars(GroupNames[j])
				b.Double(e.calls)
				b.Double(e.prod)
				b.Double(e.lost)
				b.End()
			}
		}
	}
}

func truncName(s string) string {
	if len(s) > maxName {
		return s[:maxName]
	}
	return s
}

// printStats writes the statistics as text (statistics on without a trace).
func printStats(w io.Writer, sums []*ivSummary, n int) {
	for _, s := range sums {
		nd := s.node
		fmt.Fprintf(w, "svmc: statistics: interval %d %q level %d: %d entries, %d processors\n", nd.id, nd.name, nd.level, s.entries, n)
		fmt.Fprintf(w, "svmc:   execution %.1f us, processor time %.1f us, productive %.1f us (user %.1f, runtime %.1f), lost %.1f us (user %.1f, runtime %.1f), idle %.1f us, efficiency %.3f, runtime calls %.1f\n",
			s.exec, s.procTime, s.productive(), s.oupt, s.spt, s.lost(), s.oult, s.slt, s.idle, s.efficiency(), s.calls)
		for i := range s.m {
			for j := range s.m[i] {
				e := s.m[i][j]
				if e.calls == 0 && e.prod == 0 && e.lost == 0 {
					continue
				}
				fmt.Fprintf(w, "svmc:   %-26s <- %-26s calls %8.1f  productive %12.1f us  lost %12.1f us\n",
					GroupNames[j], GroupNames[i], e.calls, e.prod, e.lost)
			}
		}
	}
}
