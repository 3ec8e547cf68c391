package rtlib

import (
	"sync/atomic"

	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// Barrier is an explicit barrier of the APS. Called by the leader in
// exclusive mode it makes every member take part (they are idle); called in
// replicated mode or inside a PDO body every member must reach it, and all
// must reach the same barrier (see checkSites). wait-barrier-start/stop are
// stage 3.
func (p *Proc) Barrier(sub, dir int) {
	at := Site{Sub: sub, Dir: dir}
	if p.detached {
		p.detachedConstruct(at, "barrier", "returns at once")
		return
	}
	p.checkAbort()
	if p.mode == replicated && !p.inTask && p.r.spread() {
		p.rankBarrier(at, wBarrier)
		return
	}
	a := p.aps
	if p.idleMembers() {
		a.bat = at
		a.dispatch(taskBarrier)
	}
	p.barrierRec(at, wBarrier)
}

// idleMembers reports whether p is the leader running exclusive code while
// the other members of its APS wait for work.
func (p *Proc) idleMembers() bool {
	a := p.aps
	return !p.inTask && p.mode == exclusive && p == a.leader && len(a.members) > 1
}

// barrierRec is the APS barrier at site (at, kind) with its wait
// records.
func (p *Proc) barrierRec(at Site, kind waitKind) {
	sv := p.st.Call(stats.Sync, len(p.aps.members))
	if p.on(trace.TagWaitBarrierStart) {
		p.syncRec(trace.TagWaitBarrierStart, at)
	}
	ws := p.st.Wait()
	p.aps.wait(p, at, kind)
	p.st.Restore(ws)
	if p.sv != nil {
		p.sv.drain(p)
	}
	if p.on(trace.TagWaitBarrierStop) {
		p.syncRec(trace.TagWaitBarrierStop, at)
	}
	p.st.Restore(sv)
}

// gatherRec is the leader-release barrier (aps.gather) with its wait
// records: a member returns when the leader released it, the leader when
// every member arrived; the leader then calls aps.release.
func (p *Proc) gatherRec(at Site, kind waitKind) {
	g := stats.Sync
	if p.st != nil && kind == wPDOEnd && p != p.aps.leader && len(p.iter().partials) > 0 {
		g = stats.WaitRed // the leader folds the partials before it releases
	}
	sv := p.st.Call(g, len(p.aps.members))
	if p.on(trace.TagWaitBarrierStart) {
		p.syncRec(trace.TagWaitBarrierStart, at)
	}
	ws := p.st.Wait()
	p.aps.gather(p, at, kind)
	if p.r.ranks != nil && p == p.aps.leader {
		// Between ranks the barrier is the exchange with the other ranks:
		// the leader's wait ends with it, as its members' do.
		p.rankGather(at, kind)
	}
	p.st.Restore(ws)
	if p.sv != nil {
		p.sv.drain(p)
	}
	if p.on(trace.TagWaitBarrierStop) {
		p.syncRec(trace.TagWaitBarrierStop, at)
	}
	p.st.Restore(sv)
}

// splitBarrier is the shared part of BARRIER_CHECKIN/CHECKOUT: the
// check-in counts live in the member slots; gen changes when a member checks
// in while another waits at a checkout.
type splitBarrier struct {
	_       [cacheLine]byte
	gen     atomic.Uint64
	waiting atomic.Int32
	_       [cacheLine - 12]byte
}

// BarrierCheckin checks in at a split barrier (barrier-checkin) and does not
// wait. Called by the leader in exclusive mode, the idle members check in
// with it.
func (p *Proc) BarrierCheckin(sub, dir int) {
	at := Site{Sub: sub, Dir: dir}
	if p.detached {
		p.detachedConstruct(at, "barrier_checkin", "returns at once")
		return
	}
	p.checkAbort()
	p.spreadUnsupported(at, "a barrier check-in")
	if p.on(trace.TagBarrierCheckin) {
		p.syncRec(trace.TagBarrierCheckin, at)
	}
	a := p.aps
	if p.idleMembers() {
		for i := range a.slots {
			a.slots[i].ckin.Add(1)
		}
	} else {
		a.slots[p.apsIndex].ckin.Add(1)
	}
	if a.ckin.waiting.Load() != 0 {
		a.ckin.gen.Add(1)
		for i, m := range a.members {
			if a.slots[i].ckWait.Load() != 0 {
				m.wakeup()
			}
		}
	}
}

// BarrierCheckout waits until every member of the APS checked in as often
// as this member checks out now: the k-th checkout of a member pairs with
// the k-th check-in of every member (wait-bcheckout-start/stop). Called by
// the leader in exclusive mode, it checks out for the idle members too.
func (p *Proc) BarrierCheckout(sub, dir int) {
	at := Site{Sub: sub, Dir: dir}
	if p.detached {
		p.detachedConstruct(at, "barrier_checkout", "returns at once")
		return
	}
	p.checkAbort()
	p.spreadUnsupported(at, "a barrier check-out")
	if p.on(trace.TagWaitBCheckoutStart) {
		p.syncRec(trace.TagWaitBCheckoutStart, at)
	}
	a := p.aps
	s := &a.slots[p.apsIndex]
	k := s.ckout + 1
	if p.idleMembers() {
		for i := range a.slots {
			a.slots[i].ckout++
		}
	} else {
		s.ckout = k
	}
	if !a.checkedIn(k) {
		s.ckWait.Store(1)
		a.ckin.waiting.Add(1)
		for {
			g := a.ckin.gen.Load()
			if a.checkedIn(k) {
				break
			}
			p.waitFor(wCheckout, at)
			p.await(&a.ckin.gen, g, false)
		}
		a.ckin.waiting.Add(-1)
		s.ckWait.Store(0)
	}
	if p.on(trace.TagWaitBCheckoutStop) {
		p.syncRec(trace.TagWaitBCheckoutStop, at)
	}
}

// checkedIn reports whether every member checked in at least k times.
func (a *aps) checkedIn(k uint64) bool {
	for i := range a.slots {
		if a.slots[i].ckin.Load() < k {
			return false
		}
	}
	return true
}
