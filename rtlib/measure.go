package rtlib

import (
	"runtime"

	"github.com/svmc/svmc/rtlib/internal/sched"
	"github.com/svmc/svmc/rtlib/internal/stats"

	"fmt"

	"github.com/svmc/svmc/trace"
)

// measure is an open measured interval of a processor.
type measure struct {
	name string
	// The call stack of MeasureStart, resolved to "file:line" only when an
	// unfinished interval is reported (resolving it on every call cost 4
	// allocations and ~0.9 µs).
	pcs     [6]uintptr
	npcs    int
	t0      int64 // nanotime at MeasureStart
	tEnter  int64 // a global interval's start on the statistics' clock
	node    *stats.Node
	global  bool        // opened by the APS leader in exclusive mode: every processor's time goes to it
	prevOwn *stats.Node // the processor's own interval outside this one
}

// MeasureStart opens a measured interval called name (seed 000 §9) on the
// calling processor: measure-start with its enclosure level (1 for the
// outermost interval open on the processor) when traced (stage 1), and,
// with statistics on, a new current interval of the interval matrix.
// Measured intervals nest; each is closed by MeasureFinish. It may be
// called from any Go code: on a goroutine that is not a processor of a
// running svmc program (in the serial build, say) it does nothing. It looks
// the calling processor up (see Current); generated code and code that has
// the *Proc call its method.
func MeasureStart(name string) {
	if activeRun.Load() == nil {
		return
	}
	Current().MeasureStart(name)
}

// MeasureFinish closes the innermost measured interval of the calling
// processor, which must be called name ("" closes the innermost whatever
// its name): measure-finish with the level and the time since its
// MeasureStart. Like MeasureStart, it does nothing outside a running svmc
// program.
func MeasureFinish(name string) {
	if activeRun.Load() == nil {
		return
	}
	Current().MeasureFinish(name)
}

// MeasureFinishAt is MeasureFinish called at pos ("file:line:col"): svmc
// rewrites the program's calls of MeasureFinish into calls of it, so that
// an error names the column of the call.
func MeasureFinishAt(name, pos string) {
	if activeRun.Load() == nil {
		return
	}
	p := Current()
	p.measPos = pos
	p.MeasureFinish(name)
	p.measPos = ""
}

// MeasureStart is the package's MeasureStart on p.
func (p *Proc) MeasureStart(name string) {
	if p.detached {
		return
	}
	sv := p.st.Switch(stats.Statist)
	m := measure{name: name}
	m.npcs = runtime.Callers(2, m.pcs[:])
	if st := p.r.stats; st != nil && (p.r.maxLevel == 0 || len(p.meas) < p.r.maxLevel) {
		m.prevOwn = p.st.Own
		parent := p.st.Own
		m.global = parent == nil && p.isLeader() && !p.inTask
		if parent == nil {
			parent = st.GlobalNode()
		}
		m.node = st.Child(parent, name)
		if m.node == parent { // beyond StatBufLength: counts in parent, as time only
			m.node, m.global = nil, false
		} else if m.global {
			m.tEnter = st.EnterGlobal(m.node)
		} else {
			p.st.Own = m.node
		}
	}
	p.meas = append(p.meas, m)
	if p.on(trace.TagMeasureStart) {
		p.begin(trace.TagMeasureStart, p.id)
		p.buf.Int(len(p.meas))
		p.chars(name)
		p.end()
	}
	p.st.Restore(sv)
	p.meas[len(p.meas)-1].t0 = nanotime()
}

// MeasureFinish is the package's MeasureFinish on p.
func (p *Proc) MeasureFinish(name string) {
	if p.detached {
		return
	}
	t1 := nanotime()
	if len(p.meas) == 0 {
		p.measureError(fmt.Sprintf("MeasureFinish(%q) without an open measured interval", name))
	}
	m := p.meas[len(p.meas)-1]
	if name != "" && name != m.name {
		p.measureError(fmt.Sprintf("MeasureFinish(%q): the innermost measured interval is %q", name, m.name))
	}
	sv := p.st.Switch(stats.Statist)
	level := len(p.meas)
	p.meas = p.meas[:level-1]
	elapsed := t1 - m.t0
	if p.on(trace.TagMeasureFinish) {
		p.begin(trace.TagMeasureFinish, p.id)
		p.buf.Int(level)
		p.chars(m.name)
		p.buf.Double(float64(elapsed) / 1e3)
		p.end()
	}
	if st := p.r.stats; st != nil && m.node != nil {
		a := &m.node.Acc[p.id]
		a.Entries++
		p.st.Restore(sv)
		// Time from here on goes to the enclosing interval. A global
		// interval lasts from change to change, as the processors'
		// charges to it do (a preemption between the clock reads made
		// their sum exceed processor time).
		if m.global {
			a.Exec += float64(st.EnterGlobal(m.node.Parent) - m.tEnter)
		} else {
			a.Exec += float64(elapsed)
			p.st.Own = m.prevOwn
		}
		return
	}
	p.st.Restore(sv)
}

// measureError stops the run with a user error at the caller's position.
func (p *Proc) measureError(msg string) {
	pos := shownPos(p.measPos)
	if pos == "" {
		pos = userFrame()
	}
	p.die(&Error{Pos: pos, Proc: p.id, Msg: msg})
}

// Size queries (seed 000 §10). They are not traced and cost no statistics.

// LocalSize is the number of elements of the template owned by processor
// pid; pid < 0 means the calling processor (see Current). An undefined
// template has 0; a template that is not distributed is local everywhere,
// so its local size is its size.
func (t *Template) LocalSize(pid int) int {
	if t == nil || !t.defined {
		return 0
	}
	if t.dist == nil {
		return t.Size()
	}
	if pid < 0 {
		pid = Current().id
	}
	n := 0
	boxes := t.dist.OwnedBoxes(pid, nil)
	for i := 0; i+2*t.rank <= len(boxes); i += 2 * t.rank {
		c := 1
		for d := range t.rank {
			c *= boxes[i+2*d+1] - boxes[i+2*d] + 1
		}
		n += c
	}
	return n
}

// LocalSize of an arrangement is its size (seed 000 §10: for a processor
// system the global and local sizes are equal).
func (a *Procs) LocalSize() int { return a.Size() }

// loopFrame is the parallel loop whose body a processor runs.
type loopFrame struct {
	space []Range
	it    *Iter
}

// enterLoop records the PDO whose body p is about to run (for LoopSize and
// LoopLocalSize) and returns the frame to restore after it.
func (p *Proc) enterLoop(space []Range, it *Iter) loopFrame {
	old := p.loop
	// A copy, so that the caller's nest (a literal in generated code)
	// stays on its stack.
	it.space = append(it.spaceBuf[:0], space...)
	p.loop = loopFrame{it.space, it}
	return old
}

// LoopSize is the number of iterations of the parallel loop (the whole
// nest) whose body the calling processor runs: the product over the loops
// of ceil((last-first+1)/step). Outside a PDO body it is 0.
func LoopSize() int { return Current().LoopSize() }

// LoopLocalSize is the number of those iterations the calling processor
// runs. Outside a PDO body it is 0.
func LoopLocalSize() int { return Current().LoopLocalSize() }

// LoopSize is the package's LoopSize on p.
func (p *Proc) LoopSize() int {
	if p.loop.it == nil {
		return 0
	}
	n := 1
	for _, r := range p.loop.space {
		n *= r.Count()
	}
	return n
}

// LoopLocalSize is the package's LoopLocalSize on p.
func (p *Proc) LoopLocalSize() int {
	if p.loop.it == nil {
		return 0
	}
	it := p.loop.it
	if it.chk != nil {
		return p.countOwned(it)
	}
	return sched.TreeCount(it.root, len(p.loop.space))
}

// countOwned counts the candidate iterations of a share with an owner
// check (IndexFunc subscripts) that p owns.
func (p *Proc) countOwned(it *Iter) int {
	space := p.loop.space
	idx := make([]int, len(space))
	n := 0
	var walk func(nd *sched.Node, l int)
	walk = func(nd *sched.Node, l int) {
		if nd == nil {
			return
		}
		for _, s := range nd.Segs {
			for r := 0; r < s.Times(); r++ {
				for k := s.Lo + r*s.Period; k <= s.Hi+r*s.Period; k++ {
					idx[l] = space[l].Lo + k*space[l].Step
					if l+1 < len(space) {
						walk(s.Child, l+1)
					} else if it.chk.owns(p, idx) {
						n++
					}
				}
			}
		}
	}
	if len(space) == 0 {
		return sched.TreeCount(it.root, 0)
	}
	walk(it.root, 0)
	return n
}

// GroupNames names the groups of the interval matrix by number (the
// "group" and "caller group" fields of stat-group).
var GroupNames = stats.GroupNames
