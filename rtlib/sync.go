package rtlib

import "github.com/svmc/svmc/trace"

// Barrier is an explicit barrier of the APS. Called by the leader in
// exclusive mode it makes every member take part; called inside a PDO body
// every member must reach it. wait-barrier-start/stop are stage 3.
func (p *Proc) Barrier(sub, dir int) {
	if p.detached {
		return
	}
	p.checkAbort()
	a := p.aps
	if !p.inTask && p == a.leader && len(a.members) > 1 {
		a.bsub, a.bdir = sub, dir
		a.dispatch(taskBarrier)
	}
	p.barrierRec(sub, dir)
}

// barrierRec is the APS barrier with its wait records.
func (p *Proc) barrierRec(sub, dir int) {
	if p.stage >= stageSync {
		p.syncRec(trace.TagWaitBarrierStart, sub, dir)
	}
	p.aps.wait(p)
	if p.stage >= stageSync {
		p.syncRec(trace.TagWaitBarrierStop, sub, dir)
	}
}
