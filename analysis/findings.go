package analysis

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// Finding kinds.
const (
	FindImbalance = "imbalance"      // load imbalance of a parallel loop
	FindUnequal   = "unequal work"   // waiting at the end of a psection or replicated region
	FindBarrier   = "barrier"        // waiting at an explicit barrier
	FindCheckout  = "split barrier"  // waiting at a barrier_checkout
	FindLock      = "lock"           // lock contention
	FindCritical  = "critical"       // critical section contention
	FindSerial    = "serial"         // processors idle while the leader runs exclusive code
	FindStartup   = "pdo startup"    // scheduling a parallel loop
	FindDispatch  = "chunk fetching" // self-scheduling a parallel loop chunk by chunk
	FindLate      = "late start"     // processors entering a loop after its other members began
	FindOverhead  = "tracing"        // trace buffer flushes
	FindEnd       = "abnormal end"   // the run did not end normally (unranked)
)

// Thresholds of Findings: a bottleneck is reported when its severity is at
// least MinSeverity; a loop's imbalance also needs max/mean busy of at
// least MinImbalance.
var (
	MinSeverity  = 0.01
	MinImbalance = 1.10
)

// Finding is one bottleneck found by the automatic search (OPAL's automatic
// mode, seed 002 §2).
type Finding struct {
	Kind string `json:"kind"`
	// Severity = Lost / (N × T): the share of the whole run's processor
	// time the bottleneck costs.
	Severity float64 `json:"severity"`
	Lost     float64 `json:"lost_us"`
	Site     Site    `json:"site"`
	Region   int     `json:"region"`        // progdb region to request, -1 none
	Code     int     `json:"region_code"`   // its trace region type
	Var      string  `json:"var,omitempty"` // the shared variable (locality findings)
	Title    string  `json:"title"`         // one line: what and where
	Advice   string  `json:"advice"`        // one line: what to try
	// Unranked marks a finding whose severity does not apply (Severity
	// and Lost are 0): an abnormal end of the run, listed first.
	Unranked bool `json:"unranked,omitempty"`
	// Also is another region the finding involves (a distribution
	// mismatch's other loop): the next request asks the same of it.
	Also *Finding `json:"also,omitempty"`
	// Within is the parallel construct, in another subprogram, that a
	// wait finding's waits happened in (WaitStat.Within): the next
	// request asks for it instead of the region at the site, whose
	// records are traced then as part of it. A request naming the
	// function that locks traced every call of it (a request names it
	// explicitly, so it is never throttled) and left out the pdo around
	// it, whose processors the next report then took for idle.
	Within *ConstructRef `json:"within,omitempty"`
}

// Findings ranks the bottlenecks of a model by severity, largest first.
// A run that ended abnormally (trace-end) comes first, unranked: its
// figures cover only the part of the run that was traced.
func Findings(m *Model) []Finding {
	var fs []Finding
	if e := &m.Ended; e.Abnormal() {
		fs = append(fs, endFinding(m, e))
	}
	ranked := rankedFindings(m)
	if len(fs) == 0 {
		return ranked
	}
	return append(fs, ranked...)
}

func endFinding(m *Model, e *RunEnd) Finding {
	title := e.Summary()
	var advice string
	switch e.Status {
	case trace.EndError, trace.EndPanic:
		advice = "fix the failure the message names and run again; the figures cover the run up to it"
	case trace.EndDeadlock:
		advice = "the processors wait for each other: see the waiting table and each processor's last records (svmc view), and check that every processor reaches the same barriers and releases its locks"
	case trace.EndInterrupt, trace.EndTerminate:
		advice = "the run was stopped from outside; the figures cover the part that ran"
	default:
		advice = "the figures cover the part of the run that was traced"
	}
	return Finding{Kind: FindEnd, Site: mainSite(progInfo{m.prog}), Region: -1, Title: title, Advice: advice, Unranked: true}
}

func rankedFindings(m *Model) []Finding {
	NT := float64(m.Procs) * m.Duration
	if NT <= 0 {
		return nil
	}
	var fs []Finding
	add := func(f Finding) {
		f.Severity = f.Lost / NT
		if f.Severity >= MinSeverity {
			fs = append(fs, f)
		}
	}
	pi := progInfo{m.prog}
	for _, l := range m.Loops {
		name := loopName(l.Site)
		if l.Imbalance >= MinImbalance {
			slow, fast := 0, 0
			for p, lp := range l.PerProc {
				if lp.Instances == 0 {
					continue
				}
				if lp.Busy > l.PerProc[slow].Busy {
					slow = p
				}
				if lp.Busy < l.PerProc[fast].Busy || l.PerProc[fast].Instances == 0 {
					fast = p
				}
			}
			add(Finding{Kind: FindImbalance, Lost: l.Lost, Site: l.Site, Region: l.Region, Code: 4,
				Title: fmt.Sprintf("load imbalance in %s (%s, %s): max/mean busy %.2f, processor %d busy %s, processor %d %s; %.0f%% of the loop's time is lost waiting",
					name, l.Func, l.Where(), l.Imbalance, slow, Dur(l.PerProc[slow].Busy), fast, Dur(l.PerProc[fast].Busy), 100*l.LostShare),
				Advice: imbalanceAdvice(m, l, slow, fast)})
		}
		if l.Dispatch > 0 {
			busy := 0.0
			for _, lp := range l.PerProc {
				busy += lp.Busy
			}
			add(Finding{Kind: FindDispatch, Lost: l.Dispatch, Site: l.Site, Region: l.Region, Code: 4,
				Title: fmt.Sprintf("the processors spent %s, %.0f%% of their time in %s (%s, %s, %s), fetching its %d chunks",
					Dur(l.Dispatch), 100*ratio(l.Dispatch, busy), name, l.Func, l.Where(), l.Strategy, l.Chunks),
				Advice: "fetch fewer, larger chunks: a chunk size whose iterations take some microseconds (dynamic(k), guided(k)), or a static schedule (block, cyclic) when the iterations cost about the same"})
		}
		if l.Join > 0 && l.Late > 0 {
			var late []int
			for p, lp := range l.PerProc {
				if lp.Join > 0 {
					late = append(late, p)
				}
			}
			entries := "1 late entry"
			if l.Late > 1 {
				entries = fmt.Sprintf("%d late entries", l.Late)
			}
			title := fmt.Sprintf("%s entered %s (%s, %s) %s on average after its first member, %s in all (%s): idle, not running serial code, while the loop began",
				procList(late), name, l.Func, l.Where(), Dur(l.Join/float64(l.Late)), Dur(l.Join), entries)
			if l.JoinWait > 0 {
				// The members that began on time then wait for the late
				// one at the loop's end: lost time of the same cause.
				them := "them"
				if len(late) == 1 {
					them = "it"
				}
				title += fmt.Sprintf("; the others then waited %s for %s at its end", Dur(l.JoinWait), them)
			}
			add(Finding{Kind: FindLate, Lost: l.Join + l.JoinWait, Site: l.Site, Region: l.Region, Code: 4,
				Title: title, Advice: lateAdvice(m, l.Join/float64(l.Late))})
		}
		if l.Startup > 0 {
			add(Finding{Kind: FindStartup, Lost: l.Startup * float64(m.Procs), Site: l.Site, Region: l.Region, Code: 4,
				Title: fmt.Sprintf("scheduling %s (%s, %s) took %s in %s while the other processors waited",
					name, l.Func, l.Where(), Dur(l.Startup), plural(l.Instances, "instance")),
				Advice: startupAdvice(l.Strategy)})
		}
	}
	for _, f := range messageFindings(m, pi) {
		add(f)
	}
	for _, f := range localityFindings(m, pi) {
		// Predicted, not measured: the share of a run that would take
		// N×T plus this cost.
		f.Severity = f.Lost / (NT + f.Lost)
		if f.Severity >= MinSeverity {
			fs = append(fs, f)
		}
	}
	for _, w := range m.Waits {
		var kind, advice, what string
		switch w.Wait {
		case WaitBarrier:
			kind, what = FindBarrier, "at the barrier"
			advice = "balance the work before the barrier, remove it if no data dependence needs it, or split it (barrier_checkin ... barrier_checkout) around independent work"
		case WaitCheckout:
			kind, what = FindCheckout, "at the barrier check-out"
			advice = "move more independent work between barrier_checkin and barrier_checkout, or balance the work before the check-in"
		case WaitLock:
			kind, what = FindLock, "for the lock"
			advice = "hold the lock for less time, lock finer-grained data (an element instead of the array), or use a reduction or an atomic update"
			if w.Kind == "atomic" {
				// An atomic update waits for the others' updates of the
				// same variable: advising an atomic update would be no
				// advice.
				what = "for the atomic update"
				advice = "the processors update one variable, one update at a time: count in a variable of each iteration or processor and combine once (a reduction clause on the pdo, reduction(+: x)), or update less often"
			}
		case WaitMutex:
			kind, what = FindLock, "to lock the sync mutex"
			advice = "the processors take turns at this mutex: compute outside Lock … Unlock and hold it only to combine the result, combine with a reduction clause on the pdo instead (reduction(+: total)), or give each processor or key its own mutex"
			switch {
			case w.Unfinished > 0 && m.StuckMutexes > 1:
				// Waits for different mutexes outlived the run: each
				// waiter likely holds what another waits for.
				advice = fmt.Sprintf("the run ended with waits for %d different mutexes, each likely held by another waiter (a lock-order inversion: one goroutine locks a then b while another locks b then a): lock them in one order everywhere (by an id or index of the data they guard), or hold one at a time", m.StuckMutexes)
			case w.Unfinished > 0:
				// The run deadlocked with processors still waiting here: a
				// Lock whose Unlock some path skipped.
				advice = "a path through the code that locks it returns, continues or breaks without Unlock, or panics while holding it: write defer mu.Unlock() right after mu.Lock() (in a function of its own inside a loop), or unlock on every path"
			}
		case WaitCritical:
			kind, what = FindCritical, "to enter the critical section"
			advice = "make the critical section shorter, give independent critical sections different names, or use a reduction or an atomic update"
		case WaitImplicit:
			// A pdo's is its loop's imbalance; an exclusive region's is
			// the serial time of its leader. A psection's or replicated
			// region's is work unequal between its processors.
			switch w.Kind {
			case "psection":
				kind, what = FindUnequal, "at the end of the psection"
				advice = "the sections take unequal time: split the longest section, or give it more processors (section processors(P(lo:hi))) and the short ones fewer"
			case "replicated":
				kind, what = FindUnequal, "at the end of the replicated region"
				advice = "the processors do unequal work in the replicated region: make the unequal part a pdo (scheduled cyclic or dynamic), or balance it by hand"
			default:
				continue
			}
		default:
			continue
		}
		last := 0
		for p := range w.PerProc {
			if w.Counts[p] > 0 && (w.PerProc[p] < w.PerProc[last] || w.Counts[last] == 0) {
				last = p
			}
		}
		if w.Label != "" {
			what += " " + w.Label
		}
		who := "processors"
		switch {
		case w.Goroutines == w.Count:
			who = "goroutines of " + procList(withCounts(w.Counts))
		case w.Goroutines > 0:
			who = "processors and their goroutines"
		}
		times := "times"
		if w.Wait == WaitCritical || w.Wait == WaitLock {
			// Every entry writes its wait, contended or not (seed 002's
			// wait records): a count of waits would read as that many
			// contended entries.
			times = "entries"
		}
		title := fmt.Sprintf("%s wait %s %s (%s, %s), %d %s, longest %s", who, Dur(w.Total), what, w.Func, w.Where(), w.Count, times, Dur(w.Max))
		if kind == FindBarrier || kind == FindCheckout || kind == FindUnequal {
			title += fmt.Sprintf("; processor %d waits least (arrives last)", last)
		}
		if w.Hold > 0 {
			title += fmt.Sprintf("; held %s in all", Dur(w.Hold))
		}
		switch {
		case w.Wait == WaitMutex && w.Unfinished > 0 && m.StuckMutexes > 1:
			title += fmt.Sprintf("; %d of the waits lasted until the run ended, for different mutexes", w.Unfinished)
		case w.Wait == WaitMutex && w.Unfinished > 0:
			title += fmt.Sprintf("; %d of the waits lasted until the run deadlocked: the mutex was never unlocked", w.Unfinished)
		}
		r := pi.enclosingRegion(w.Sub, w.Dir)
		if w.Wait == WaitMutex { // Dir is no directive: the region around the Lock
			r = pi.regionAt(w.Sub, progdb.Pos{File: w.File, Line: w.Line, Col: w.Col})
		}
		region, code := -1, 0
		if r != nil {
			region, code = r.Num, r.Code
		}
		// Goroutines wait side by side, more of them than processors:
		// their waits, summed, can exceed the run's processor time.
		lost := min(w.Total, float64(m.Procs)*m.Duration)
		add(Finding{Kind: kind, Lost: lost, Site: w.Site, Region: region, Code: code, Title: title, Advice: advice, Within: w.Within})
	}
	for _, s := range m.Serial {
		lost := s.Time * float64(m.Procs-1)
		lost = min(lost, s.Lost)
		if lost <= 0 {
			continue
		}
		where := fmt.Sprintf("%s (%s, %s)", regionTitle(s.Site, s.Code), s.Func, s.Where())
		if span := s.Span(); span != "" {
			where += " " + span
		}
		title := fmt.Sprintf("%s while processor 0 runs serial code in %s for %s", others(m.Procs), where, Dur(s.Time))
		if s.Goroutines > 0 {
			title += fmt.Sprintf(" (its goroutines were alive on their lanes for %s of it)", Dur(s.Goroutines))
		}
		advice := "run the loops of this code as pdo, independent parts as psection, or code every processor may run as replicated"
		if s.Goroutines > s.Time/2 {
			// Its code may have waited for its goroutines, and then the
			// idle time left is when at most one of them was busy (else
			// they would have covered it); or it computed while they
			// were blocked (a channel receive leaves no record): the
			// trace cannot tell, so the advice says both.
			advice = "processor 0's goroutines were alive here but at most one of them ran at a time (a goroutine blocked on a channel counts as running: the trace has no record of it): if processor 0's code waits for them, split the work of the one that runs alone (a pdo in it, or more goroutines sharing it) or let processor 0 work beside them, the goroutines' regions show which; if processor 0's code computes, " + advice
		}
		add(Finding{Kind: FindSerial, Lost: lost, Site: s.Site, Region: s.Region, Code: s.Code,
			Title:  title,
			Advice: advice})
	}
	if ov := m.Time.TraceOverhead + m.Time.LaneTraceOverhead; ov > 0 || m.Time.Recording > 0 {
		lanes := ""
		if m.Time.LaneTraceOverhead > 0 {
			lanes = fmt.Sprintf("; %s of it on goroutines' lanes", Dur(m.Time.LaneTraceOverhead))
		}
		f := Finding{Kind: FindOverhead, Lost: ov, Region: -1,
			Site:   mainSite(pi),
			Title:  fmt.Sprintf("writing trace buffers took %s (trace-overhead records%s)", Dur(ov), lanes),
			Advice: "raise SVM_TraceBuf_Size, trace a lower stage, or request only the regions under study"}
		if rec := m.Time.Recording; rec > 0 {
			// The runtime's estimate of its own work: within the
			// times above, so the run is that much slower than
			// untraced and every region that much longer.
			f.Lost = rec + ov
			f.Title = fmt.Sprintf("recording the trace took about %s of the processors' time (the runtime's estimate: the records written and the calls of throttled subprograms it timed, at their cost measured when the run started), writing its buffers %s%s; the times above include it, and untraced the program runs about that much faster", Dur(rec), Dur(ov), lanes)
			f.Advice = "trace a lower stage or request only the regions under study (--next-request writes such a request); frequent small calls stop being traced sooner with a lower throttle_calls (a recursive function's outermost calls are timed even then)"
		}
		add(f)
	}
	fs = foldQueueImbalance(fs)
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.Site.Sub, b.Site.Sub), cmp.Compare(a.Site.Dir, b.Site.Dir), cmp.Compare(a.Kind, b.Kind))
	})
	return fs
}

// foldQueueImbalance folds a loop's imbalance into a lock or critical
// section finding inside the same loop that loses at least half as much:
// the members that queue longest finish last, so the imbalance is the
// queue's effect, and "use cyclic scheduling" would not help.
func foldQueueImbalance(fs []Finding) []Finding {
	folded := make([]bool, len(fs))
	for i, f := range fs {
		if f.Kind != FindImbalance {
			continue
		}
		cause := -1
		for j, g := range fs {
			if (g.Kind == FindCritical || g.Kind == FindLock) && g.Site.Sub == f.Site.Sub && g.Region == f.Region &&
				g.Lost >= f.Lost/2 && (cause < 0 || g.Lost > fs[cause].Lost) {
				cause = j
			}
		}
		if cause >= 0 {
			fs[cause].Title += fmt.Sprintf("; the queue also makes %s unbalanced (%s of waiting at its end)", loopName(f.Site), Dur(f.Lost))
			folded[i] = true
		}
	}
	var out []Finding
	for i, f := range fs {
		if !folded[i] {
			out = append(out, f)
		}
	}
	return out
}

// others names the processors other than the leader.
func others(n int) string {
	switch n {
	case 2:
		return "processor 1 idles"
	case 3:
		return "processors 1 and 2 idle"
	}
	return fmt.Sprintf("processors 1-%d idle", n-1)
}

func mainSite(pi progInfo) Site {
	if pi.p != nil {
		for _, s := range pi.p.Subprograms {
			if s.Main {
				return pi.site(s.Num, 0)
			}
		}
	}
	return Site{Func: "program"}
}

func imbalanceAdvice(m *Model, l *LoopStat, slow, fast int) string {
	s := strings.ToLower(l.Strategy)
	members := 0
	for _, lp := range l.PerProc {
		if lp.Instances > 0 {
			members++
		}
	}
	if l.PerProc[fast].Iterations == 0 && l.Instances > 0 && l.Iterations > 0 && l.Iterations < l.Instances*int64(members) {
		// Three tasks on four processors (x544): the loop is too short
		// for the team, and no schedule gives the fourth any work.
		per := fmt.Sprintf("%d iterations", l.Iterations/l.Instances)
		if l.Iterations%l.Instances != 0 {
			per = fmt.Sprintf("%.1f iterations on average", float64(l.Iterations)/float64(l.Instances))
		}
		return fmt.Sprintf("processor %d ran no iteration: the loop has %s each time it runs for %d processors, so some had nothing to do while the others worked, whatever the schedule; give it at least as many iterations as processors (loops(i, j) with the loop inside it, or more and smaller iterations), or run on fewer processors", fast, per, members)
	}
	selfScheduled := strings.HasPrefix(s, "dynamic") || strings.HasPrefix(s, "guided") || strings.HasPrefix(s, "affinity")
	if is, it := l.PerProc[slow].Iterations, l.PerProc[fast].Iterations; is > 0 && it > 0 && !selfScheduled {
		cpus := "other programs on the machine may have taken CPU time from it"
		if m.CPUs > 0 && m.Procs > m.CPUs {
			cpus = fmt.Sprintf("the run had %d processors on %d CPUs", m.Procs, m.CPUs)
		}
		if 10*max(is, it) <= 11*min(is, it) {
			// As many iterations each: the schedule divided them evenly.
			return fmt.Sprintf("processor %d ran as many iterations as processor %d (%d and %d) in more time: either its iterations cost more (work that varies with the index: cyclic or dynamic scheduling spreads it), or it had less of a CPU (%s; a run on an idle machine tells which)", slow, fast, is, it, cpus)
		}
		perSlow, perFast := l.PerProc[slow].Busy/float64(is), l.PerProc[fast].Busy/float64(it)
		if perSlow <= 1.1*perFast {
			// The same cost each (x552: 20 rows of a grid on 3
			// processors, 7, 7 and 6): the counts differ, not the work.
			return fmt.Sprintf("the iterations do not divide evenly among the processors: processor %d ran %d and processor %d ran %d, at about the same cost each (%s and %s); more iterations per processor (a larger problem, or loops(i, j) with the loop inside it) make the remainder a smaller share, or run on a number of processors that divides them", slow, is, fast, it, Dur(perSlow), Dur(perFast))
		}
		if m.CPUs > 0 && m.Procs > m.CPUs {
			return fmt.Sprintf("processor %d's iterations took %s each and processor %d's %s (%d and %d iterations): either its iterations cost more (work that varies with the index: cyclic or dynamic scheduling spreads it), or it had less of a CPU (%s; a run on an idle machine tells which)", slow, Dur(perSlow), fast, Dur(perFast), is, it, cpus)
		}
	}
	switch {
	case strings.HasPrefix(s, "on_home"):
		return "the template's distribution gives the processors unequal work: distribute a template of the loop's own shape, use general_block sizes that equalise the work, or schedule the loop dynamically (dynamic, guided)"
	case singleChunks(s, "dynamic"):
		// Never advise a smaller chunk than one iteration.
		return "the loop already hands out one iteration at a time, so a few iterations cost far more than the rest and the processor that takes the last of them finishes alone: split those iterations into smaller ones, or order the loop so that the costliest come first and the cheap ones fill in after them"
	case singleChunks(s, "guided"):
		return "guided scheduling hands out large chunks first (a share of the iterations left), and a costly stretch of iterations went to one processor in one of them: use dynamic scheduling with a small chunk, or order the loop so that the costliest iterations come last, in guided's small chunks"
	case strings.HasPrefix(s, "dynamic"), strings.HasPrefix(s, "guided"), strings.HasPrefix(s, "affinity"):
		return "the chunks are too large for the uneven iterations: use a smaller chunk size"
	case strings.Contains(s, "cyclic"):
		// Never advise what the loop already does.
		return "cyclic scheduling does not even out these iterations: use dynamic or guided self-scheduling, or a smaller cyclic(k)"
	default:
		return "the iterations have unequal cost: use cyclic or cyclic(k) scheduling, or dynamic/guided self-scheduling"
	}
}

// singleChunks reports whether a schedule (progdb.Schedule's text) is
// strategy with the smallest chunk, one iteration: "dynamic", "dynamic(1)".
func singleChunks(schedule, strategy string) bool {
	rest, ok := strings.CutPrefix(schedule, strategy)
	if !ok {
		return false
	}
	rest, _, _ = strings.Cut(rest, " ") // " onto P", " recorded in R"
	return rest == "" || rest == "(1)"
}

// lateWake is the mean lateness below which a late entry cannot have been
// a blocked thread's wake-up (16-30 µs and more where idle CPUs sleep).
const lateWake = 10.0 // µs

// lateAdvice explains late entries of mean µs each: more processors than
// CPUs, the few microseconds a waiting processor takes to see a loop
// begin, or blocked threads woken slowly.
func lateAdvice(m *Model, mean float64) string {
	if m.CPUs > 0 && m.Procs > m.CPUs {
		return fmt.Sprintf("the run had %d processors on %d CPUs: a processor waits for a CPU before it can enter; run with svmc run -n %d or fewer", m.Procs, m.CPUs, m.CPUs)
	}
	if mean < lateWake {
		return "each entry was a few microseconds late, the time a waiting processor takes to see the loop begin (it was spinning or yielding the CPU, not blocked: a blocked thread's wake-up takes longer): make the loops fewer and longer, or the code between them replicated; svmc run --wait-policy active, if the run did not use it, spins instead of yielding and takes a part of it off"
	}
	return "the team's processors were blocked while the leader ran serial code and their threads took this long to run again (the operating system's or the virtual machine's wake-up latency): svmc run --wait-policy active keeps them spinning between constructs (a CPU each), or make the loops fewer and longer, or the code between them replicated"
}

// startupAdvice fits the advice on a pdo's scheduling cost to the
// strategy it has: a loop already scheduled the cheapest way can only
// become coarser.
func startupAdvice(strategy string) string {
	s := strings.ToLower(strategy)
	if strings.HasPrefix(s, "on_home") || strings.HasPrefix(s, "dynamic") || strings.HasPrefix(s, "guided") || strings.HasPrefix(s, "affinity") {
		return "make the loop coarser (fewer, longer instances) or use a strategy that is cheaper to plan: block or cyclic loop-level scheduling"
	}
	return "make the loop coarser: fewer, longer instances (an outer loop inside the pdo body, or the pdo around the enclosing loop)"
}

// loopName is "loop LABEL" or "the loop".
func loopName(s Site) string {
	if s.Label != "" {
		return "loop " + s.Label
	}
	return "the loop"
}

func siteName(s Site) string {
	if s.Label != "" {
		return s.Label
	}
	if s.Kind != "" {
		return s.Kind
	}
	return "directive " + strconv.Itoa(s.Dir)
}

func regionName(s Site, code int) string {
	if s.Dir == 0 {
		return s.Func
	}
	return s.Label // an unlabelled construct is named by its place ("at directive 2" counted every directive)
}

// regionTitle is a region's kind and name, "pdo sweep", "pdo" (no label),
// "subroutine solve".
func regionTitle(s Site, code int) string {
	if n := regionName(s, code); n != "" {
		return regionTypeName(code) + " " + n
	}
	return regionTypeName(code)
}

// NextRequest writes a trace request file (seed 002 §5) for the next, finer
// run of the program: one LOCAL request per region of the findings given
// (callers pass the top ones), asking for what explains the finding, in the
// findings' order; requests for the same region are merged.
//
//	imbalance          Sub.PDO_LABEL(l) | Sub.REG_NO(n): (REGION), (PDOInfo), (BARRIER)
//	pdo startup, late  (REGION), (PDOInfo), (APSInfo)
//	barrier, split     region holding the directive: (REGION), (BARRIER)
//	lock               (REGION), (LOCK)
//	critical           (REGION), (WaitCritical)
//	serial             (REGION), (APSInfo)
//	message wait states region holding the call: (REGION), (MsgInfo)
//	tracing            GLOBAL TrOverhead
//
// Sub is the Go function name (T.M for methods), @MAIN for main; a labelled
// pdo is PDO_LABEL(label), any other region REG_NO(n) with its progdb
// number.
func NextRequest(findings []Finding, prog *progdb.Program) []byte {
	pi := progInfo{prog}
	type req struct {
		target string
		kinds  []string
		why    []string
	}
	var reqs []*req
	byTarget := map[string]*req{}
	global := false
	var globalWhy []string
	addRequest := func(kind, target, vars, why string) {
		if target == "" {
			return
		}
		var kinds []string
		switch kind {
		case FindImbalance:
			kinds = []string{"REGION", "PDOInfo", "BARRIER"}
		case FindStartup, FindLate:
			kinds = []string{"REGION", "PDOInfo", "APSInfo"}
		case FindDispatch:
			kinds = []string{"REGION", "PDOInfo"}
		case FindBarrier, FindCheckout, FindUnequal:
			kinds = []string{"REGION", "BARRIER"}
		case FindLock:
			kinds = []string{"REGION", "LOCK"}
		case FindCritical:
			kinds = []string{"REGION", "WaitCritical"}
		case FindSerial:
			kinds = []string{"REGION", "APSInfo"}
		case LateSender, LateReceiver, WaitNxN, EarlyReduce, LateBcast:
			kinds = []string{"REGION", "MsgInfo"}
		case FindFalseSharing:
			kinds = []string{"REGION", "WPF" + vars, "InvalCopy" + vars}
		case FindPageTravel:
			kinds = []string{"REGION", "RPF" + vars, "PageTravel" + vars, "CurPageDist" + vars}
		case FindOwnerMismatch:
			kinds = []string{"REGION", "WPF" + vars, "PageTravel" + vars, "OwnPageDist" + vars}
		default:
			kinds = []string{"REGION"}
		}
		r := byTarget[target]
		if r == nil {
			r = &req{target: target}
			byTarget[target] = r
			reqs = append(reqs, r)
		}
		for _, k := range kinds {
			if !slices.Contains(r.kinds, k) {
				r.kinds = append(r.kinds, k)
			}
		}
		r.why = append(r.why, why)
	}
	for _, f := range findings {
		if f.Unranked {
			continue
		}
		why := fmt.Sprintf("%s %.1f%%: %s", f.Kind, 100*f.Severity, f.Site.Where())
		if f.Kind == FindOverhead {
			global = true
			globalWhy = append(globalWhy, fmt.Sprintf("%s %.1f%%", f.Kind, 100*f.Severity))
			continue
		}
		for g := &f; g != nil; g = g.Also {
			if c := g.Within; c != nil {
				in := Finding{Kind: g.Kind, Site: c.Site, Region: c.Region, Code: c.Code}
				addRequest(g.Kind, requestTarget(pi, in), "", fmt.Sprintf("%s, in the %s at %s", why, regionTypeName(c.Code), c.Where()))
				continue
			}
			addRequest(g.Kind, requestTarget(pi, *g), varList(pi, *g), why)
		}
	}
	var b bytes.Buffer
	b.WriteString("# svmc report --findings: next run for the top findings\n")
	if len(reqs) > 0 {
		// Narrow: only the regions in question are traced, so the next
		// trace is small and the next report is about them (OPAL's
		// automatic mode); a report of such a trace says so.
		b.WriteString("# stage 0: nothing is traced but what the requests below ask for\n")
		b.WriteString("CONFIG SVM_TraceStage: 0\n")
		// What the regions call is traced for its first calls only (a
		// sort's Less and Swap would keep the trace as large as before);
		// the rest of their calls are counted, with their time.
		fmt.Fprintf(&b, "# brief functions the regions call: traced for their first %d calls per processor, then counted\n", NarrowThrottle)
		fmt.Fprintf(&b, "CONFIG SVM_Throttle_Calls: %d\n", NarrowThrottle)
	} else {
		b.WriteString("CONFIG SVM_TraceStage: 1\n")
		if global {
			// Tracing itself is the top finding (a recursive function's
			// calls, x514): at stage 1 every call is still a region,
			// so the frequent ones stop being traced sooner.
			fmt.Fprintf(&b, "# frequent calls: traced for their first %d calls per processor, then counted\n", NarrowThrottle)
			fmt.Fprintf(&b, "CONFIG SVM_Throttle_Calls: %d\n", NarrowThrottle)
		}
	}
	for _, r := range reqs {
		for _, w := range r.why {
			fmt.Fprintf(&b, "# %s\n", w)
		}
		fmt.Fprintf(&b, "REQUEST LOCAL %s:", r.target)
		for i, k := range r.kinds {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " (%s)", k)
		}
		b.WriteByte('\n')
	}
	if global {
		for _, w := range globalWhy {
			fmt.Fprintf(&b, "# %s\n", w)
		}
		b.WriteString("REQUEST GLOBAL TrOverhead\n")
	}
	return b.Bytes()
}

// NarrowThrottle is the throttle_calls of a narrowed next request
// (SVM_Throttle_Calls, svmc's CONFIG parameter): TAU's default of 100 000
// calls leaves a call-heavy region's trace as large as the first run's.
const NarrowThrottle = 1000

// varList is "[v]" for a finding about shared variable v of the
// subprogram its region belongs to (request files name the variables of
// the region's subprogram), "" otherwise.
func varList(pi progInfo, f Finding) string {
	if s := pi.sub(f.Site.Sub); s != nil && f.Var != "" {
		for _, v := range s.Shared {
			if v.Name == f.Var {
				return "[" + f.Var + "]"
			}
		}
	}
	return ""
}

// requestTarget is "<SubName>.<RegIdent>" for a finding, "" if it names no
// subprogram.
func requestTarget(pi progInfo, f Finding) string {
	s := pi.sub(f.Site.Sub)
	var sub string
	switch {
	case s != nil && s.Main:
		sub = "@MAIN"
	case s != nil:
		sub = s.Name
	case f.Site.Main:
		sub = "@MAIN"
	case f.Site.Sub != 0 && f.Site.Func != "" && !strings.HasPrefix(f.Site.Func, "sub "):
		sub = f.Site.Func
	default:
		return ""
	}
	if f.Kind == FindImbalance || f.Kind == FindStartup || f.Kind == FindLate {
		if f.Site.Label != "" {
			return sub + ".PDO_LABEL(" + f.Site.Label + ")"
		}
	}
	if f.Region >= 0 {
		if r := regionByNum(s, f.Region); r != nil && r.Type == "pdo" && r.Label != "" {
			return sub + ".PDO_LABEL(" + r.Label + ")"
		}
		return sub + ".REG_NO(" + strconv.Itoa(f.Region) + ")"
	}
	return sub + ".*"
}

func regionByNum(s *progdb.Subprogram, num int) *progdb.Region {
	if s == nil {
		return nil
	}
	for _, r := range s.Regions {
		if r.Num == num {
			return r
		}
	}
	return nil
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.FormatInt(n, 10) + " " + word + "s"
}

// withCounts are the processors with a nonzero count.
func withCounts(counts []int64) []int {
	var ps []int
	for p, c := range counts {
		if c > 0 {
			ps = append(ps, p)
		}
	}
	return ps
}
