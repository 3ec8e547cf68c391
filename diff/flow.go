package diff

import (
	"fmt"
	"io"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// The behaviour of a run, step by step (issue 18): what each processor
// entered and which messages it sent and received, and how many iterations
// every instance of every parallel loop had. Comparing two runs finds the
// first step where they part, per processor: a serial run against a
// parallel one, or the same program before and after a change.

// Flow is the behaviour of one run.
type Flow struct {
	Procs int // the run's processors (goroutine lanes are not counted)
	// Steps are each processor's steps in its order.
	Steps [][]Step
	// Iterations are, per pdo (sub, dir), the iterations of each instance
	// summed over the processors (from pdo-work; Work is false when the
	// trace has none). A pdo run inside another's body, in a section or
	// on a goroutine's lane runs on part of the processors (often one),
	// once per call, where the outer construct's schedule sends the call:
	// it is no instance of the whole team, and is left out (x206's dot
	// in a matrix product's rows gave "60 iterations in A, 120 in B").
	Iterations map[[2]int32][]int64
	Work       bool
	Loops      bool // the run entered a parallel loop
	// Messages is true when the run made message calls, Checksums when
	// their records carry buffer checksums (svmc run --check, or
	// msg_checksum).
	Messages, Checksums bool
}

// Step is one step of a processor: a region it entered, a synchronisation
// directive it reached (barrier, split barrier, lock, critical section:
// their records of stage 3), or a message call it made or completed.
type Step struct {
	Kind     uint8 // stepRegion, stepSync, stepCall, stepDone
	InPDO    bool  // inside a parallel loop's body: its steps depend on the schedule
	Parallel bool  // inside a parallel construct (pdo, psection, replicated)
	Sub, Dir int32 // the region's site; a call's subprogram and call site
	A        int32 // region type; call kind
	Peer     int32 // a call's peer or root; a completion's matched source
	Count    int32 // elements sent, or received
	Sum      int64 // the buffer's checksum, 0 if not recorded
}

const (
	stepRegion = iota
	stepSync
	stepCall
	stepDone
)

// syncTags are the records of a processor reaching a synchronisation
// directive, and what the comparison calls them.
var syncTags = map[trace.Tag]string{
	trace.TagWaitBarrierStart:   "barrier",
	trace.TagBarrierCheckin:     "barrier check-in",
	trace.TagWaitBCheckoutStart: "barrier check-out",
	trace.TagWaitLockStart:      "lock",
	trace.TagWaitCritSecStart:   "critical section",
}

// ReadFlow reads the behaviour of the trace src (any svmc trace; records of
// a processor in its own order).
func ReadFlow(src replay.Source) (*Flow, error) {
	f := &Flow{Iterations: map[[2]int32][]int64{}}
	type pstate struct {
		open     []int32 // region types of the open regions
		pdo, par int     // open parallel loops, open parallel constructs
		inst     map[[2]int32]int
		lane     bool // a goroutine's lane (goroutine-start)
		sect     int  // open sections
	}
	var ps []*pstate
	proc := func(p int) *pstate {
		for len(ps) <= p {
			ps = append(ps, &pstate{inst: map[[2]int32]int{}})
			f.Steps = append(f.Steps, nil)
		}
		return ps[p]
	}
	_, err := replay.Decode(src, true, func(e *replay.Event) error {
		if e.Proc < 0 || e.Proc > 1<<16 {
			return nil
		}
		p := int(e.Proc)
		s := proc(p)
		add := func(st Step) {
			st.InPDO, st.Parallel = s.pdo > 0, s.par > 0
			f.Steps[p] = append(f.Steps[p], st)
		}
		switch e.Tag {
		case trace.TagTraceRegionStart:
			add(Step{Kind: stepRegion, Sub: e.Sub, Dir: e.Dir, A: e.A})
			s.open = append(s.open, e.A)
			if e.A == trace.RegionPDO {
				s.pdo++
				f.Loops = true
			}
			if forks(e.A) {
				s.par++
			}
			if e.A == trace.RegionSection {
				s.sect++
			}
		case trace.TagTraceRegionStop:
			if n := len(s.open); n > 0 {
				t := s.open[n-1]
				s.open = s.open[:n-1]
				if t == trace.RegionPDO {
					s.pdo--
				}
				if t == trace.RegionSection {
					s.sect--
				}
				if forks(t) {
					s.par--
				}
			}
		case trace.TagGoroutineStart:
			s.lane = true
		case trace.TagPDOWork:
			f.Work = true
			if s.pdo > 1 || s.sect > 0 || s.lane {
				return nil // part of the team, per call: no team instance
			}
			site := [2]int32{e.Sub, e.Dir}
			k := s.inst[site]
			s.inst[site] = k + 1
			its := f.Iterations[site]
			for len(its) <= k {
				its = append(its, 0)
			}
			its[k] += int64(e.A)
			f.Iterations[site] = its
		case trace.TagWaitBarrierStart, trace.TagBarrierCheckin, trace.TagWaitBCheckoutStart, trace.TagWaitLockStart, trace.TagWaitCritSecStart:
			add(Step{Kind: stepSync, Sub: e.Sub, Dir: e.Dir, A: int32(e.Tag)})
		case trace.TagMsgCallStart:
			sum := recInt(e.Rec, "checksum")
			f.Messages = true
			f.Checksums = f.Checksums || sum != 0 // 0: written without checksums
			add(Step{Kind: stepCall, Sub: e.Sub, Dir: e.M.Site, A: e.M.Kind, Peer: e.M.Peer, Count: e.M.Count, Sum: sum})
		case trace.TagMsgCallStop, trace.TagMsgRequestDone:
			if e.M.MCount < 0 || e.M.Src < 0 {
				return nil // no receive completed here
			}
			add(Step{Kind: stepDone, Sub: e.Sub, Dir: e.M.Site, A: e.M.Kind, Peer: e.M.Src, Count: e.M.MCount, Sum: recInt(e.Rec, "checksum")})
		}
		return nil
	})
	// The streams of goroutine lanes come after the processors': they
	// are no processors of the run, and their steps (a goroutine's, in
	// its own time) are not compared.
	f.Procs = len(f.Steps)
	for p, s := range ps {
		if s.lane {
			f.Procs = p
			break
		}
	}
	return f, err
}

// forks reports whether a region of type t is a parallel construct that
// splits the work among processors (a section is one processor's part of
// its psection, which counts already).
func forks(t int32) bool { return parallel(int(t)) && t != trace.RegionSection }

// recInt is an integer field of r, 0 when r or the field is missing.
func recInt(r *trace.Record, name string) int64 {
	if r == nil {
		return 0
	}
	return int64(r.Int(name))
}

// FlowDiff is the comparison of two runs' behaviour.
type FlowDiff struct {
	// Compared says which steps were compared: every processor's (same
	// number of processors), or the leader's outside parallel constructs
	// (different numbers, where the work inside them is split otherwise).
	Compared string `json:"compared"`
	Steps    int    `json:"steps"` // steps compared in all
	// First is the first step where the runs part, nil if none.
	First *StepDivergence `json:"first_divergence,omitempty"`
	// Loop is the first pdo instance whose iterations differ, nil if
	// none; NoWork says the traces have no pdo-work records to compare.
	Loop   *LoopDivergence `json:"loop_divergence,omitempty"`
	NoWork bool            `json:"no_pdo_work,omitempty"`
	Loops  bool            `json:"loops"` // either run entered a parallel loop
	// NoChecksums says the message records carry no checksums: message
	// contents were not compared.
	NoChecksums bool `json:"no_checksums,omitempty"`
}

// StepDivergence is the first step where the runs part on a processor.
type StepDivergence struct {
	Proc int    `json:"processor"`
	Step int    `json:"step"` // from 1, among the steps compared
	A    string `json:"a"`    // what A did there
	B    string `json:"b"`
}

// LoopDivergence is a pdo instance that ran different iterations.
type LoopDivergence struct {
	Loop     string `json:"loop"`
	Where    string `json:"where"`
	Instance int    `json:"instance"` // from 1
	A, B     int64
}

// CompareFlows compares the behaviour of run A with run B.
func CompareFlows(a, b *Flow, prog *progdb.Program) *FlowDiff {
	d := &FlowDiff{NoChecksums: (a.Messages || b.Messages) && (!a.Checksums || !b.Checksums)}
	same := a.Procs == b.Procs
	keep := func(s Step) bool {
		if same {
			// A loop body's regions and synchronisation follow the schedule.
			return !s.InPDO || s.Kind != stepRegion && s.Kind != stepSync
		}
		return !s.Parallel && (s.Kind == stepRegion || s.Kind == stepSync)
	}
	procs := a.Procs
	d.Compared = "every processor's regions and synchronisation outside parallel loop bodies, and its message calls"
	if !same {
		procs = min(1, a.Procs, b.Procs)
		d.Compared = fmt.Sprintf("processor 0's regions and synchronisation outside parallel constructs (the runs have %d and %d processors, which split the work inside them otherwise)", a.Procs, b.Procs)
	}
	for p := 0; p < procs && d.First == nil; p++ {
		sa, sb := filter(a.Steps[p], keep), filter(b.Steps[p], keep)
		n := min(len(sa), len(sb))
		for i := 0; i < n; i++ {
			if !sameStep(sa[i], sb[i], d.NoChecksums) {
				d.First = &StepDivergence{Proc: p, Step: i + 1, A: describe(prog, sa[i]), B: describe(prog, sb[i])}
				break
			}
		}
		d.Steps += n
		if d.First == nil && len(sa) != len(sb) {
			d.First = &StepDivergence{Proc: p, Step: n + 1, A: "the end of its steps", B: "the end of its steps"}
			if len(sa) > n {
				d.First.A = describe(prog, sa[n])
			} else {
				d.First.B = describe(prog, sb[n])
			}
		}
	}
	d.Loops = a.Loops || b.Loops
	d.NoWork = d.Loops && (!a.Work || !b.Work)
	if !d.NoWork {
		d.Loop = firstLoop(a, b, prog)
	}
	return d
}

func filter(steps []Step, keep func(Step) bool) []Step {
	var out []Step
	for _, s := range steps {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func sameStep(x, y Step, noSums bool) bool {
	if noSums {
		x.Sum, y.Sum = 0, 0
	}
	x.InPDO, x.Parallel, y.InPDO, y.Parallel = false, false, false, false
	return x == y
}

// firstLoop is the earliest pdo instance whose total iterations differ
// (a loop that ran in one run only differs at its first instance; -1
// stands for an instance that did not run). Ties go to the first loop in
// the program's order.
func firstLoop(a, b *Flow, prog *progdb.Program) *LoopDivergence {
	sites := map[[2]int32]bool{}
	for site := range a.Iterations {
		sites[site] = true
	}
	for site := range b.Iterations {
		sites[site] = true
	}
	var best *LoopDivergence
	var bestSite [2]int32
	for site := range sites {
		ia, ib := a.Iterations[site], b.Iterations[site]
		for k := 0; k < max(len(ia), len(ib)); k++ {
			var x, y int64 = -1, -1
			if k < len(ia) {
				x = ia[k]
			}
			if k < len(ib) {
				y = ib[k]
			}
			if x == y {
				continue
			}
			if best == nil || k+1 < best.Instance || k+1 == best.Instance && (site[0] < bestSite[0] || site[0] == bestSite[0] && site[1] < bestSite[1]) {
				name, where := regionOf(prog, site[0], site[1], trace.RegionPDO)
				best, bestSite = &LoopDivergence{Loop: name, Where: where, Instance: k + 1, A: x, B: y}, site
			}
			break
		}
	}
	return best
}

// regionOf names a region and its place from the program information.
func regionOf(prog *progdb.Program, sub, dir, typ int32) (name, where string) {
	name = trace.RegionTypeName(int(typ))
	s := prog.Sub(int(sub))
	if s == nil {
		return fmt.Sprintf("%s (sub %d directive %d)", name, sub, dir), ""
	}
	for _, rg := range s.Regions {
		if rg.Directive == int(dir) && rg.Code == int(typ) {
			switch {
			case rg.Label != "":
				name += " " + rg.Label
			case dir == 0:
				name += " " + s.Name
			}
			return name, fmt.Sprintf("%s:%d", rg.Pos.File, rg.Pos.Line)
		}
	}
	if dir == 0 {
		name += " " + s.Name
	}
	return name, ""
}

// directive is directive dir of subprogram sub, nil if unknown.
func directive(prog *progdb.Program, sub, dir int32) *progdb.Directive {
	if sp := prog.Sub(int(sub)); sp != nil {
		return sp.Directive(int(dir))
	}
	return nil
}

// describe says what a step is.
func describe(prog *progdb.Program, s Step) string {
	if s.Kind == stepSync {
		what, where := syncTags[trace.Tag(s.A)], ""
		if d := directive(prog, s.Sub, s.Dir); d != nil {
			where = fmt.Sprintf(" (%s:%d)", d.Pos.File, d.Pos.Line)
			if d.Label != "" {
				what += " " + d.Label
			}
		}
		return "reaches the " + what + where
	}
	if s.Kind == stepRegion {
		name, where := regionOf(prog, s.Sub, s.Dir, s.A)
		if where != "" {
			return fmt.Sprintf("enters %s (%s)", name, where)
		}
		return "enters " + name
	}
	call := trace.CallKindName(int(s.A))
	if c := prog.Call(int(s.Dir)); c != nil {
		call = fmt.Sprintf("%s (%s:%d)", c.Func, c.Pos.File, c.Pos.Line)
	}
	sum := ""
	if s.Sum != 0 {
		sum = fmt.Sprintf(", checksum %08x", uint32(s.Sum))
	}
	if s.Kind == stepDone {
		return fmt.Sprintf("%s receives %d elements from processor %d%s", call, s.Count, s.Peer, sum)
	}
	peer := fmt.Sprintf(" with processor %d", s.Peer)
	if s.Peer < 0 {
		peer = ""
	}
	return fmt.Sprintf("calls %s%s, %d elements%s", call, peer, s.Count, sum)
}

// WriteText prints the comparison.
func (d *FlowDiff) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\nBehaviour (%s)\n", d.Compared)
	if d.First == nil {
		fmt.Fprintf(w, "  the same %d steps in both runs\n", d.Steps)
	} else {
		fmt.Fprintf(w, "  the runs part first on processor %d at step %d:\n    A %s\n    B %s\n", d.First.Proc, d.First.Step, d.First.A, d.First.B)
	}
	switch {
	case !d.Loops: // no parallel loop in either run
	case d.NoWork:
		fmt.Fprintln(w, "  iterations of the parallel loops: not compared (no pdo-work records: trace at stage 2 or above)")
	case d.Loop == nil:
		fmt.Fprintln(w, "  every parallel loop instance ran the same iterations in both runs")
	default:
		its := func(n int64) string {
			if n < 0 {
				return "did not run"
			}
			return fmt.Sprintf("ran %d iterations", n)
		}
		fmt.Fprintf(w, "  %s (%s) instance %d: %s in A, %s in B\n", d.Loop.Loop, d.Loop.Where, d.Loop.Instance, its(d.Loop.A), its(d.Loop.B))
	}
	if d.NoChecksums {
		fmt.Fprintln(w, "  message contents: not compared (no buffer checksums: svmc run --check, or msg_checksum)")
	}
}
