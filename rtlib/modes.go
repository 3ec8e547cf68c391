package rtlib

import (
	"fmt"

	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// Execution modes. In exclusive mode only the APS leader runs user code and
// the other members wait for work in serveAPS; in replicated mode every
// member runs the same code. A processor's mode is a field of its Proc; the
// leader's mode decides how a construct starts, the members follow what it
// dispatches.

// repTask is a replicated region dispatched to the members.
type repTask struct {
	at   Site
	body func(p *Proc)
}

// Replicated runs body on every member of the APS in replicated mode
// (REPLICATED_REGION). Called by the leader in exclusive mode, it dispatches
// body to the other members and runs it itself; called in replicated mode,
// every member is here and runs it. Records on every member:
// trace-region-start (replicated), the implicit barrier at the end
// (wait-barrier-start/stop, same sub/dir), trace-region-stop. Afterwards
// each processor is back in its previous mode. Inside a PDO body, or on a
// detached Proc, body runs once on the caller.
func (p *Proc) Replicated(sub, dir int, body func(p *Proc)) {
	at := Site{Sub: sub, Dir: dir}
	if p.detached || p.inTask {
		p.pushRegion(at, trace.RegionReplicated)
		body(p)
		p.popRegion(at, trace.RegionReplicated)
		return
	}
	p.checkAbort()
	if p.idleMembers() {
		a := p.aps
		if p.r.spread() {
			p.r.rankTwin(at) // before any member writes the shared storage
		}
		a.rep = repTask{at, body}
		a.dispatch(taskReplicated)
	}
	p.replicatedRun(at, body)
}

func (p *Proc) replicatedShare(t *repTask) { p.replicatedRun(t.at, t.body) }

func (p *Proc) replicatedRun(at Site, body func(p *Proc)) {
	mode := p.mode
	p.mode = replicated
	sv := p.st.Call(stats.Sect, len(p.aps.members))
	p.pushRegion(at, trace.RegionReplicated)
	us := p.st.User()
	if !p.skipsRegion() {
		body(p)
	}
	p.st.Restore(us)
	switch {
	case p.r.spread() && mode == replicated:
		// Nested: only this rank's own processors are here.
		p.rankBarrier(at, wReplicatedEnd)
	case p.r.spread():
		// The region's end is a barrier of every processor: the leader
		// meets the other ranks before it releases this rank's members.
		p.gatherRec(at, wReplicatedEnd)
		if p == p.aps.leader {
			p.aps.release(p)
		}
	default:
		p.barrierRec(at, wReplicatedEnd)
	}
	p.popRegion(at, trace.RegionReplicated)
	p.st.Restore(sv)
	p.mode = mode
}

// Exclusive runs body on the APS leader only, in exclusive mode
// (EXCLUSIVE_REGION): a PDO inside is dispatched by the leader to the
// members. Called in replicated mode (every member calls it), all write
// trace-region-start/stop (exclusive); the other members wait for work from
// the leader while it runs body, then all wait at the implicit barrier at
// the end (wait-barrier-start/stop). Called in exclusive mode only the
// leader is here: region records, no barrier.
func (p *Proc) Exclusive(sub, dir int, body func(p *Proc)) {
	at := Site{Sub: sub, Dir: dir}
	if p.detached || p.inTask || p.mode == exclusive {
		p.pushRegion(at, trace.RegionExclusive)
		body(p)
		p.popRegion(at, trace.RegionExclusive)
		return
	}
	p.checkAbort()
	p.spreadUnsupported(at, "an exclusive region")
	a := p.aps
	p.pushRegion(at, trace.RegionExclusive)
	if p == a.leader {
		p.mode = exclusive
		body(p)
		p.mode = replicated
		if len(a.members) > 1 {
			a.dispatch(taskLeave)
		}
	} else if k := p.serveAPS(a); k != taskLeave {
		p.constructMismatch(a, at, "exclusive region")
	}
	p.barrierRec(at, wExclusiveEnd)
	p.popRegion(at, trace.RegionExclusive)
}

// constructMismatch stops the run: in replicated mode member p reached
// construct what at (at) while the leader of a dispatched another
// one.
func (p *Proc) constructMismatch(a *aps, at Site, what string) {
	var lat Site
	lwhat := "?"
	switch a.kind {
	case taskPDO:
		lat, lwhat = a.pdo.at, "pdo"
	case taskPSection:
		lat, lwhat = a.psec.at, "psection"
	case taskBarrier:
		lat, lwhat = a.bat, "barrier"
	case taskReplicated:
		lat, lwhat = a.rep.at, "replicated region"
	case taskLeave:
		lwhat = "end of an exclusive region"
	case taskStop:
		lwhat = "end of the program"
	}
	where := func(at Site) string {
		if pos := p.r.pos(at); pos != "" {
			return pos + " "
		}
		return ""
	}
	p.die(&Error{Proc: -1, Msg: fmt.Sprintf("processors reached different constructs in replicated mode:\n  %s%s: processor %d\n  %s%s: processor %d (the leader)",
		where(at), what, p.id, where(lat), lwhat, a.leader.id)})
}
