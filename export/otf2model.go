//go:build otf2

package export

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/view"
)

// OTF2 region roles (OTF2_RegionRole in otf2/OTF2_Definitions.h; the
// numbers are part of the OTF2 format).
const (
	RoleFunction        = 1
	RoleLoop            = 3
	RoleCode            = 4
	RoleParallel        = 5
	RoleSections        = 6
	RoleSection         = 7
	RoleSingle          = 9
	RoleCritical        = 12
	RoleCriticalSBlock  = 13
	RoleAtomic          = 14
	RoleBarrier         = 15
	RoleImplicitBarrier = 16
	RoleCollOne2All     = 23
	RoleCollAll2One     = 24
	RoleCollAll2All     = 25
	RolePoint2Point     = 28
)

// Role is the OTF2 region role of an interval kind, following what
// OPARI2/Score-P write for the OpenMP constructs that svmc's resemble:
// the program and subroutines are functions, a pdo a loop, psection and
// section sections, replicated code a parallel region, exclusive code a
// single, user regions code. The wait at a critical section is the
// critical region itself (entered before the lock is granted, as OPARI2
// does) and holding it its structured block. Waiting for a lock has no
// role of its own in OTF2; it is code (atomic for an atomic update).
// siteKind is the directive's progdb.Site* kind.
func Role(k view.Kind, siteKind string) int {
	switch k {
	case view.KindProgram, view.KindSubroutine:
		return RoleFunction
	case view.KindPDO:
		return RoleLoop
	case view.KindPSection:
		return RoleSections
	case view.KindSection:
		return RoleSection
	case view.KindReplicated:
		return RoleParallel
	case view.KindExclusive:
		return RoleSingle
	case view.KindBarrier, view.KindCheckout:
		return RoleBarrier
	case view.KindImplicitBarrier:
		return RoleImplicitBarrier
	case view.KindCriticalWait:
		return RoleCritical
	case view.KindCriticalHeld:
		return RoleCriticalSBlock
	case view.KindLockWait, view.KindLockHeld:
		if siteKind == progdb.SiteAtomic {
			return RoleAtomic
		}
	case view.KindMsgCall:
		return RolePoint2Point
	}
	return RoleCode
}

// collectiveRole is the role of a collective's region, by its function.
func collectiveRole(fn string) int {
	switch fn {
	case "Bcast", "Scatter":
		return RoleCollOne2All
	case "Reduce", "Gather":
		return RoleCollAll2One
	case "Barrier":
		return RoleBarrier
	}
	return RoleCollAll2All
}

// otf2Region is one OTF2 region definition: an interval kind at a site.
type otf2Region struct {
	Name string
	Role int
	Kind view.Kind
	Site *view.Site
}

// otf2Model is what the OTF2 writer needs besides the timeline: the
// regions, the region of every interval and the number of events of every
// location.
type otf2Model struct {
	regions  []otf2Region
	regionOf []uint32 // per interval
	events   []uint64 // per processor: enters and leaves
	markers  []string // record names of the instants, one marker definition each
	markerOf []uint32 // per instant
	// Locks: the lock of each hold interval (critical sections by name,
	// LOCK directives by site) and its acquisition order among that lock's
	// holds, for ThreadAcquireLock / ThreadReleaseLock.
	lockOf   map[int]uint32
	acquired map[int]uint32
	// Fork/join: the leader's interval of each instance of a parallel
	// construct (pdo, psection, replicated) and the processors of the
	// instance, for ThreadFork (after its Enter) and ThreadJoin (before its
	// Leave).
	forkOf map[int]uint32
}

func newOTF2Model(tl *view.Timeline) *otf2Model {
	m := &otf2Model{regionOf: make([]uint32, len(tl.Intervals)), events: make([]uint64, tl.Procs),
		markerOf: make([]uint32, len(tl.Instants))}
	type key struct {
		site int
		kind view.Kind
	}
	ids := map[key]uint32{}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		k := key{iv.Site, iv.Kind}
		id, ok := ids[k]
		if !ok {
			id = uint32(len(m.regions))
			ids[k] = id
			site := &tl.Sites[iv.Site]
			role := Role(iv.Kind, site.SiteKind)
			if iv.Kind == view.KindCollective {
				role = collectiveRole(site.Kind)
			}
			m.regions = append(m.regions, otf2Region{IntervalName(tl, iv), role, iv.Kind, site})
		}
		m.regionOf[i] = id
		m.events[iv.Proc] += 2
		if iv.Kind == view.KindCollective {
			m.events[iv.Proc] += 2 // MpiCollectiveBegin and End
		}
	}
	for i := range tl.Messages {
		mg := &tl.Messages[i]
		m.events[mg.From]++ // MpiSend
		m.events[mg.To]++   // MpiRecv
	}
	m.locks(tl)
	m.forks(tl)
	names := map[string]uint32{}
	for i := range tl.Instants {
		n := tl.Instants[i].Name
		id, ok := names[n]
		if !ok {
			id = uint32(len(m.markers))
			names[n] = id
			m.markers = append(m.markers, n)
		}
		m.markerOf[i] = id
	}
	return m
}

// locks numbers the locks held in tl and orders each lock's acquisitions
// by time (OTF2's acquisition order).
func (m *otf2Model) locks(tl *view.Timeline) {
	m.lockOf, m.acquired = map[int]uint32{}, map[int]uint32{}
	ids := map[string]uint32{}
	var holds []int
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if !iv.Kind.IsHeld() {
			continue
		}
		site := &tl.Sites[iv.Site]
		key := "lock " + strconv.Itoa(iv.Site)
		if iv.Kind == view.KindCriticalHeld {
			key = "critical " + site.Label
		}
		id, ok := ids[key]
		if !ok {
			id = uint32(len(ids))
			ids[key] = id
		}
		m.lockOf[i] = id
		holds = append(holds, i)
		m.events[iv.Proc] += 2 // acquire and release
	}
	slices.SortStableFunc(holds, func(a, b int) int { return cmp.Compare(tl.Intervals[a].Start, tl.Intervals[b].Start) })
	next := map[uint32]uint32{}
	for _, i := range holds {
		id := m.lockOf[i]
		m.acquired[i] = next[id]
		next[id]++
	}
}

// forks finds the instances of the parallel constructs: the intervals of
// one site on different processors that overlap in time are one instance,
// whose lowest processor (the leader that dispatched it) forks and joins.
func (m *otf2Model) forks(tl *view.Timeline) {
	m.forkOf = map[int]uint32{}
	bySite := map[int][]int{}
	for i := range tl.Intervals {
		switch tl.Intervals[i].Kind {
		case view.KindPDO, view.KindPSection, view.KindReplicated:
			bySite[tl.Intervals[i].Site] = append(bySite[tl.Intervals[i].Site], i)
		}
	}
	for _, ivs := range bySite {
		slices.SortStableFunc(ivs, func(a, b int) int { return cmp.Compare(tl.Intervals[a].Start, tl.Intervals[b].Start) })
		for k := 0; k < len(ivs); {
			end, lead, n := tl.Intervals[ivs[k]].End, ivs[k], 0
			j := k
			for ; j < len(ivs) && tl.Intervals[ivs[j]].Start <= end; j++ {
				iv := &tl.Intervals[ivs[j]]
				end = max(end, iv.End)
				if iv.Proc < tl.Intervals[lead].Proc {
					lead = ivs[j]
				}
				n++
			}
			m.forkOf[lead] = uint32(n)
			m.events[tl.Intervals[lead].Proc] += 2
			k = j
		}
	}
}

// ticks converts corrected microseconds to the OTF2 clock: nanosecond
// ticks, the resolution of the trace's clocks (three decimals of a
// microsecond), so that sub-microsecond waits keep their length.
func ticks(us float64) uint64 {
	if !(us > 0) {
		return 0
	}
	return uint64(us*1000 + 0.5)
}

// TicksPerSecond is the OTF2 timer resolution WriteOTF2 declares.
const TicksPerSecond = 1_000_000_000
