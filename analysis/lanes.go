package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// Goroutine lanes (rtlib/lanes.go): a goroutine a processor started runs
// on a lane of its own (node id N + k) between goroutine-start and
// goroutine-end. A lane is no processor: it counts in neither N nor the
// Lib-DVM characteristics; its time belongs to the processor that
// started it. The regions it runs count in the region profile in that
// processor's column, and Model.Goroutines sums the goroutines' lives per
// processor.

// GoroutineStat is what the goroutines one processor started did on
// their lanes.
type GoroutineStat struct {
	Proc       int     `json:"proc"`
	Goroutines int     `json:"goroutines"` // goroutines traced on lanes
	Lanes      int     `json:"lanes"`      // lanes they used (the most alive at once)
	Life       float64 `json:"life_us"`    // their lives summed: goroutine-start to goroutine-end
	Longest    float64 `json:"longest_us"`
	Regions    float64 `json:"regions_us"` // time in the regions they ran (outermost)
	// Where are the go statements and the calls that start goroutines (wg.Go),
	// by the number of goroutines each started.
	Where []GoStmt `json:"where"`
	// Unfinished counts goroutines still running when the trace ends.
	Unfinished int `json:"unfinished,omitempty"`
	// Untraced counts the goroutines that ran without a lane: more than
	// trace.MaxLanes were alive at once (goroutines-untraced). Their work
	// is in none of the figures.
	Untraced int `json:"untraced,omitempty"`
}

// GoStmt is a go statement and the goroutines it started.
type GoStmt struct {
	At         string  `json:"at"` // file:line:col
	Goroutines int     `json:"goroutines"`
	Life       float64 `json:"life_us"`
}

// laneState is a lane's open regions and goroutine.
type laneState struct {
	owner int
	stack []laneFrame
	gor   bool // a goroutine is open on it
	life  int  // its goroutine's index in goLives, or -1
}

type laneFrame struct {
	key   regKey
	t0    float64
	child float64
}

// laneOf is the lane state of stream proc, nil for a processor's. Lanes
// are numbered from N on: below it no map is looked at (it is asked for
// every record).
func (b *builder) laneOf(proc int) *laneState {
	if proc < b.nprocs || b.lanes == nil {
		return nil
	}
	return b.lanes[proc]
}

// lane returns the lane state of e's stream, or nil when it is a processor's.
func (b *builder) lane(proc int, tag trace.Tag) *laneState {
	if l := b.laneOf(proc); l != nil {
		return l
	}
	if proc < b.nprocs || tag != trace.TagGoroutineStart {
		return nil
	}
	if b.lanes == nil {
		b.lanes = map[int]*laneState{}
	}
	l := &laneState{owner: -1}
	b.lanes[proc] = l
	return l
}

func (b *builder) goStat(owner int) *GoroutineStat {
	if b.goStats == nil {
		b.goStats = map[int]*GoroutineStat{}
	}
	g := b.goStats[owner]
	if g == nil {
		g = &GoroutineStat{Proc: owner}
		b.goStats[owner] = g
	}
	return g
}

func (b *builder) laneOpen(l *laneState, iv *replay.Interval) {
	switch iv.Kind {
	case replay.KindGoroutine:
		l.owner, l.gor = iv.Code, true
		l.life = -1
		if l.owner == b.leader { // only the leader's serial code is set against them
			l.life = len(b.goLives)
			b.goLives = append(b.goLives, [2]float64{iv.Clock0, math.Inf(1)})
		}
		g := b.goStat(l.owner)
		g.Goroutines++
		if b.laneIDs == nil {
			b.laneIDs = map[[2]int]bool{}
		}
		b.laneIDs[[2]int{l.owner, iv.Proc}] = true
	case replay.KindRegion:
		l.stack = append(l.stack, laneFrame{key: regKey{int32(iv.Sub), int32(iv.Dir), int32(iv.Code)}, t0: iv.Clock0})
	}
}

func (b *builder) laneClose(l *laneState, iv *replay.Interval, e *replay.Event) {
	if l.owner < 0 {
		return // records before the lane's goroutine-start: a damaged trace
	}
	end := iv.Clock1
	if e == nil && b.endBlocked() && b.endClock > end {
		// Still open when the run deadlocked or was stopped: the
		// goroutine lived (blocked) until the end.
		end = b.endClock
	}
	switch iv.Kind {
	case replay.KindWait:
		// A goroutine's wait (a sync mutex it locks) is its processor's,
		// as its time is: the waiting table counts it there.
		if iv.Unclosed && (e != nil || !b.endBlocked()) {
			return
		}
		b.addWait(l.owner, iv, end)
		if l.life >= 0 && len(l.stack) > 0 { // a busy goroutine of the leader stops meanwhile
			b.goWaits = append(b.goWaits, [2]float64{iv.Clock0, end})
		}
		w := b.wait(waitKey{int32(iv.Sub), int32(iv.Dir), iv.Wait})
		w.goroutines++
		if iv.Unclosed {
			b.unfinishedWait(iv)
		}
	case replay.KindHold:
		b.holdStop(iv)
	case replay.KindGoroutine:
		g := b.goStat(l.owner)
		life := max(0, end-iv.Clock0)
		g.Life += life
		g.Longest = max(g.Longest, life)
		if e == nil {
			g.Unfinished++
		}
		if b.goWhere == nil {
			b.goWhere = map[goKey]*GoStmt{}
		}
		k := goKey{l.owner, iv.Name}
		w := b.goWhere[k]
		if w == nil {
			w = &GoStmt{At: iv.Name}
			b.goWhere[k] = w
		}
		w.Goroutines++
		w.Life += life
		l.gor = false
		if l.life >= 0 {
			b.goLives[l.life][1] = end
		}
	case replay.KindRegion:
		j := len(l.stack) - 1
		if j < 0 {
			return
		}
		fr := l.stack[j]
		l.stack = l.stack[:j]
		incl := max(0, end-fr.t0)
		a := b.regions[fr.key]
		if a == nil {
			a = &regAgg{key: fr.key}
			b.regions[fr.key] = a
		}
		a.perProc = growRP(a.perProc, l.owner)
		rp := &a.perProc[l.owner]
		rp.Calls++
		rp.Excl += max(0, incl-fr.child)
		if !slices.ContainsFunc(l.stack, func(f laneFrame) bool { return f.key == fr.key }) {
			rp.Incl += incl
		}
		if j > 0 {
			l.stack[j-1].child += incl
		} else {
			b.goStat(l.owner).Regions += incl
			if l.life >= 0 { // the leader's goroutine runs instrumented code
				b.goBusy = append(b.goBusy, [2]float64{fr.t0, end})
			}
		}
	}
}

// The leader's serial time set against its goroutines' lives. The replay
// follows the consistent order, not time, so a goroutine's end may come
// after serial time of the leader that is later: the serial time is kept
// as pieces once the leader has started a goroutine, and set against the
// lives when the trace has been read.

type goKey struct {
	owner int
	at    string
}

// goroutines is Model.Goroutines: per processor, in processor order.
func (b *builder) goroutines() []GoroutineStat {
	var out []GoroutineStat
	for p, n := range b.untracedGo {
		if b.goStats[p] == nil {
			if b.goStats == nil {
				b.goStats = map[int]*GoroutineStat{}
			}
			b.goStats[p] = &GoroutineStat{Proc: p}
		}
		b.goStats[p].Untraced += n
	}
	for _, g := range b.goStats {
		for k := range b.laneIDs {
			if k[0] == g.Proc {
				g.Lanes++
			}
		}
		for k, w := range b.goWhere {
			if k.owner == g.Proc {
				g.Where = append(g.Where, *w)
			}
		}
		slices.SortFunc(g.Where, func(x, y GoStmt) int {
			return cmp.Or(cmp.Compare(y.Life, x.Life), cmp.Compare(x.At, y.At))
		})
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y GoroutineStat) int { return cmp.Compare(x.Proc, y.Proc) })
	return out
}

// untracedWarning says how many goroutines ran without a lane ("" when
// none did): the runtime traces at most trace.MaxLanes alive at once.
func untracedWarning(m *Model) string {
	var parts []string
	total := 0
	for _, g := range m.Goroutines {
		if g.Untraced > 0 {
			parts = append(parts, fmt.Sprintf("%d of processor %d", g.Untraced, g.Proc))
			total += g.Untraced
		}
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%s goroutines (%s) ran untraced: more than %d were alive at once, and those beyond got no lane; their work is in no figure, so time they ran on the cores of idle processors counts as idle (serial) time, and their regions' calls are not counted", strconv.Itoa(total), strings.Join(parts, ", "), trace.MaxLanes)
}
