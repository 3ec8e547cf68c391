package rtlib

import (
	"slices"
	"sync"

	"github.com/svmc/svmc/trace"

	"github.com/svmc/svmc/rtlib/internal/stats"
)

// Section is one section of a parallel section: its SECTION directive, the
// processors it asks for (nil: none) and its body.
type Section struct {
	Dir   int
	Procs *Procs
	Body  func(p *Proc)
}

// psecTask is a parallel section dispatched to the members of the APS.
type psecTask struct {
	at   Site
	secs []Section
	kids []*aps // the APS of each section
	// caught is the panic that ended each section, written by the
	// section's leader before the psection's barrier (bodypanic.go).
	caught []*bodyPanic
	// Between ranks the sections of this rank take turns (turn is the
	// first not yet done): every rank runs every section, and a pdo
	// inside one ends with collectives of all ranks, which must come in
	// the same order on each.
	mu   sync.Mutex
	cond sync.Cond
	turn int
}

// waitTurn waits until the sections before section i are done on this
// rank, the wait of p published: the watchdogs must see a rank whose
// earlier section never ends as blocked (the corpus's sections under
// --mpi hung with one processor here, not a word said).
func (t *psecTask) waitTurn(p *Proc, i int) {
	t.mu.Lock()
	if t.turn < i {
		p.waitFor(wSectionTurn, t.at)
		p.publishWait()
		for t.turn < i {
			t.cond.Wait()
		}
		p.unpublishWait()
	}
	t.mu.Unlock()
}

// passTurn marks section i done on this rank.
func (t *psecTask) passTurn(i int) {
	t.mu.Lock()
	t.turn = max(t.turn, i+1)
	t.cond.Broadcast()
	t.mu.Unlock()
}

// kidKey names the child APS of one section of one PSECTION of an APS.
type kidKey struct {
	at  Site
	sec int
}

// PSection runs a parallel section on the current APS: by its leader in
// exclusive mode, or by every member in replicated mode (the leader acts,
// the others wait for it and join). Each section is a task for an APS of
// its own:
//
//   - a section with Procs gets the processors of that arrangement that are
//     members of the current APS (none is a user error);
//   - the other sections share the remaining members (all members if none
//     remains) in order: with k sections for m processors, section j gets
//     members j*m/k .. (j+1)*m/k-1 when k <= m, else the one member j*m/k
//     (a processor then runs several sections one after another).
//
// A processor takes part in its sections in section order (so sections
// whose APSs overlap cannot wait for each other in a cycle). The leader of
// a section's APS (its lowest pid) writes section-info and aps-info and runs
// the body in exclusive mode; the other members serve that APS (a pdo in
// the body runs on the section's processors) until the leader is done,
// then return to the parent APS. Records: every member of the parent APS
// writes trace-region-start/stop (psection, PSECTION's dir) around its
// sections and the implicit barrier at the end (wait-barrier-start/stop);
// every member of a section's APS writes trace-region-start/stop (section,
// SECTION's dir). Inside a PDO body, or on a detached Proc, the sections
// run one after another on the caller.
func (p *Proc) PSection(sub, dir int, sections []Section) {
	at := Site{Sub: sub, Dir: dir}
	if p.detached || p.inTask {
		if p.detached {
			p.detachedConstruct(at, "psection", "runs its sections one after the other on this goroutine")
		}
		p.pushRegion(at, trace.RegionPSection)
		for _, s := range sections {
			p.pushRegion(Site{Sub: at.Sub, Dir: s.Dir}, trace.RegionSection)
			s.Body(p)
			p.popRegion(Site{Sub: at.Sub, Dir: s.Dir}, trace.RegionSection)
		}
		p.popRegion(at, trace.RegionPSection)
		return
	}
	p.checkAbort()
	p.spreadUnsupported(at, "a psection")
	a := p.aps
	if p != a.leader {
		// Replicated mode: wait for the leader to form the sections.
		p.wpeerID = a.leader.id
		if k := p.nextTask(a, wLeader, at); k != taskPSection || a.psec.at != at {
			p.constructMismatch(a, at, "psection")
		}
		p.psectionShare(&a.psec)
		return
	}
	a.psec.at, a.psec.secs = at, sections
	a.psec.kids = p.formSections(at, sections, a.psec.kids[:0])
	a.psec.caught = resize(a.psec.caught, len(sections))
	clear(a.psec.caught)
	a.psec.turn = 0
	if a.psec.cond.L == nil {
		a.psec.cond.L = &a.psec.mu
	}
	if len(a.members) > 1 {
		a.dispatch(taskPSection)
	}
	p.psectionShare(&a.psec)
}

// formSections computes the APS of every section (see PSection), reusing
// the child APSs of earlier executions with the same processors.
func (p *Proc) formSections(at Site, sections []Section, kids []*aps) []*aps {
	a := p.aps
	m := len(a.members)
	sc := &a.secScratch
	used := resize(sc.used, m)
	clear(used)
	for len(sc.idx) < len(sections) {
		sc.idx = append(sc.idx, nil)
	}
	idx := sc.idx[:len(sections)]
	free := 0
	for i, s := range sections {
		idx[i] = idx[i][:0]
		if s.Procs == nil {
			free++
			continue
		}
		for j, pid := range a.pids {
			if slices.Contains(s.Procs.pids, pid) {
				idx[i] = append(idx[i], j)
				used[j] = true
			}
		}
		if len(idx[i]) == 0 {
			p.errorf(Site{Sub: at.Sub, Dir: s.Dir}, false, "section processors(%s): none of its processors %v is in the active processor set %v",
				s.Procs, s.Procs.pids, a.pids)
		}
	}
	rest := sc.rest[:0]
	for j := range m {
		if !used[j] {
			rest = append(rest, j)
		}
	}
	if len(rest) == 0 {
		for j := range m {
			rest = append(rest, j)
		}
	}
	sc.used, sc.rest = used, rest
	k, r := free, len(rest)
	j := 0
	for i, s := range sections {
		if s.Procs != nil {
			continue
		}
		if k <= r {
			idx[i] = append(idx[i], rest[j*r/k:(j+1)*r/k]...)
		} else {
			idx[i] = append(idx[i], rest[j*r/k])
		}
		j++
	}
	for i := range sections {
		key := kidKey{at, i}
		c := a.kids[key]
		if c == nil || len(c.pids) != len(idx[i]) || !sameMembers(a, c, idx[i]) {
			members := make([]*Proc, len(idx[i]))
			for n, j := range idx[i] {
				members[n] = a.members[j]
			}
			c = a.newChild(members)
			if a.kids == nil {
				a.kids = map[kidKey]*aps{}
			}
			a.kids[key] = c
		}
		kids = append(kids, c)
	}
	return kids
}

// secScratch is the leader's scratch space of formSections.
type secScratch struct {
	used []bool
	idx  [][]int
	rest []int
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func sameMembers(a, c *aps, idx []int) bool {
	for n, j := range idx {
		if c.pids[n] != a.pids[j] {
			return false
		}
	}
	return true
}

// psectionShare is a member's part of a parallel section: its sections in
// order, then the implicit barrier.
func (p *Proc) psectionShare(t *psecTask) {
	at := t.at
	sv := p.st.Call(stats.Sect, len(p.aps.members))
	defer p.st.Restore(sv)
	p.pushRegion(at, trace.RegionPSection)
	ranks := p.r.ranks != nil
	for i := range t.secs {
		if c := t.kids[i]; c.index(p.id) >= 0 {
			if ranks {
				t.waitTurn(p, i)
			}
			p.runSection(c, at.Sub, &t.secs[i], &t.caught[i])
			if ranks && c.leader == p {
				t.passTurn(i)
			}
		}
	}
	a, repl := p.aps, p.mode == replicated
	if p.r.spread() || repl {
		// Every rank runs every section (the idle processors' too); the
		// end is still a barrier of every processor, as in one process:
		// the leader meets the other ranks before it releases this
		// rank's members. In replicated mode the members read what the
		// leader decided about the sections' panics.
		p.gatherRec(at, wPSectionEnd)
		if p == a.leader {
			a.caught = firstOf(t.caught)
			a.release(p)
		}
	} else {
		p.barrierRec(at, wPSectionEnd)
		if p == a.leader {
			a.caught = firstOf(t.caught)
		}
	}
	p.popRegion(at, trace.RegionPSection)
	if repl || p == a.leader {
		p.rethrow(a.caught)
	}
}

// runSection takes part in section s on its APS c.
func (p *Proc) runSection(c *aps, sub int, s *Section, caught **bodyPanic) {
	at := Site{Sub: sub, Dir: s.Dir}
	prev, prevIndex := p.enter(c)
	mode := p.mode
	p.pushRegion(at, trace.RegionSection)
	if c.leader == p {
		if p.on(trace.TagSectionInfo) {
			p.begin(trace.TagSectionInfo, p.id)
			p.site(at)
			if s.Procs != nil {
				p.buf.Int(s.Procs.id)
				p.extentRows(s.Procs.dims)
			} else {
				p.buf.Int(0)
				p.extentRows(nil)
			}
			p.end()
		}
		p.apsInfo(c)
		p.mode = exclusive
		us := p.st.User()
		*caught = p.callSection(s.Body)
		p.st.Restore(us)
		if len(c.members) > 1 {
			c.dispatch(taskLeave)
		}
	} else {
		p.apsInfo(c)
		if k := p.serveAPS(c); k != taskLeave {
			p.constructMismatch(c, at, "section")
		}
	}
	p.popRegion(at, trace.RegionSection)
	p.mode = mode
	p.leave(prev, prevIndex)
}

// apsInfo writes the aps-info of a section's team on each of its members'
// streams, not the leader's only: a barrier inside the section (a nested
// psection's end, a pdo's) waits for that team alone, and the tools that
// match barrier instances learn each processor's team from its own
// stream (replay's teams).
func (p *Proc) apsInfo(c *aps) {
	if p.on(trace.TagAPSInfo) {
		p.begin(trace.TagAPSInfo, p.id)
		p.buf.Ints(c.pids)
		p.end()
	}
}
