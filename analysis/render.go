package analysis

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Report is what `svmc report` prints: the model, its findings and the
// proposed next trace request.
type Report struct {
	Trace       string    `json:"trace"`
	Model       *Model    `json:"model"`
	Findings    []Finding `json:"findings"`
	NextRequest string    `json:"next_request,omitempty"`
}

// NewReport builds the report of a model: its findings, and the request
// file for the top findings (at most top; 0 means 5).
func NewReport(name string, m *Model, top int) *Report {
	if top <= 0 {
		top = 5
	}
	fs := Findings(m)
	r := &Report{Trace: name, Model: m, Findings: fs}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	var ranked []Finding
	for _, f := range fs {
		if !f.Unranked {
			ranked = append(ranked, f)
		}
	}
	if len(ranked) > 0 {
		r.NextRequest = string(NextRequest(ranked[:min(top, len(ranked))], m.prog))
	}
	return r
}

// Dur formats microseconds for people: "12.5 µs", "3.25 ms", "1.234 s".
func Dur(us float64) string {
	a := math.Abs(us)
	switch {
	case math.IsNaN(us) || math.IsInf(us, 0):
		return fmt.Sprint(us)
	case a < 1e3:
		return strconv.FormatFloat(us, 'f', 1, 64) + " µs"
	case a < 1e6:
		return strconv.FormatFloat(us/1e3, 'f', 2, 64) + " ms"
	default:
		return strconv.FormatFloat(us/1e6, 'f', 3, 64) + " s"
	}
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// WriteJSON writes the report as indented JSON (field names: see doc.go).
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// table is a text table with aligned columns.
type table struct {
	head  []string
	right []bool
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, indent string) {
	width := make([]int, len(t.head))
	measure := func(row []string) {
		for i, c := range row {
			if i < len(width) {
				width[i] = max(width[i], utf8.RuneCountInString(c))
			}
		}
	}
	measure(t.head)
	for _, r := range t.rows {
		measure(r)
	}
	line := func(row []string) {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range row {
			if i >= len(width) {
				break
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + c)
			} else if i == len(row)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.head)
	for _, r := range t.rows {
		line(r)
	}
}

func newTable(cols ...string) *table {
	t := &table{}
	for _, c := range cols {
		right := strings.HasPrefix(c, ">")
		t.head = append(t.head, strings.TrimPrefix(c, ">"))
		t.right = append(t.right, right)
	}
	return t
}

// maxRows is the number of rows a text table shows (JSON has them all).
const maxRows = 30

// WriteText writes the report as text tables for a terminal.
func WriteText(w io.Writer, r *Report) error {
	m := r.Model
	ew := &errWriter{w: w}
	w = ew
	fmt.Fprintf(w, "svmc report: %s\n", r.Trace)
	prog := m.Program
	if prog == "" {
		prog = "(no program information)"
	}
	stage := "?"
	if m.Stage >= 0 {
		stage = strconv.Itoa(m.Stage)
	}
	fmt.Fprintf(w, "program %s: %d processors, stage %s, %d records, T = %s (%s .. %s)\n",
		prog, m.Procs, stage, m.Records, Dur(m.Duration), Dur(m.Start), Dur(m.End))
	if m.StartedBy != "" {
		fmt.Fprintf(w, "a child's run: %s\n", m.StartedBy)
	}
	if o := m.Order; o != nil {
		fmt.Fprintf(w, "consistent order: %d records with a clock earlier than a causal predecessor (max correction %s), %d synchronisation edges backwards in time",
			o.Violations, Dur(o.MaxCorrection), o.EdgeViolations)
		if o.Forced > 0 {
			fmt.Fprintf(w, ", %d constraints dropped", o.Forced)
		}
		if o.OutOfOrder > 0 {
			fmt.Fprintf(w, ", %d records beyond the look-ahead", o.OutOfOrder)
		}
		fmt.Fprintln(w)
	}
	if rs := m.Ranks; len(rs) > 0 {
		lo, hi, errb, sent, ex := rs[0].Shift, rs[0].Shift, 0.0, 0.0, 0
		msgs, mbytes := 0, 0.0
		drift, ends := 0.0, 0
		locks, published := 0, 0.0
		pages, pbytes, synced, pre := 0, 0.0, 0, 0
		for _, r := range rs {
			pages, pbytes, synced, pre = pages+r.Pages, pbytes+r.PageBytes, synced+r.Synced, pre+r.Prefetched
			locks += r.Locks
			published += r.Published
			lo, hi, errb = min(lo, r.Shift), max(hi, r.Shift), max(errb, r.Err)
			if r.EndErr >= 0 {
				drift, ends = max(drift, math.Abs(r.EndShift-r.Shift)), ends+1
			}
			sent += r.BytesSent
			ex = max(ex, r.Exchanges)
			msgs += r.Messages
			mbytes += r.MessageBytes
		}
		ranks := plural(int64(len(rs)), "rank")
		if n := rs[0].Of; n > len(rs) {
			ranks = fmt.Sprintf("%d ranks (%d of them killed before their rank-info: their clocks not moved, their figures missing)", n, n-len(rs))
		}
		moved := fmt.Sprintf("by %s to %s (error at most %s)", Dur(lo), Dur(hi), Dur(errb))
		switch {
		case len(rs) > 1 && ends == len(rs):
			moved += fmt.Sprintf(", drifting by at most %s until the end (measured again there)", Dur(drift))
		case len(rs) > 1:
			moved += " as measured at the start (the run did not end normally: drift not measured)"
		}
		between := fmt.Sprintf("%s (%.2f MB) between ranks", plural(int64(msgs), "message"), mbytes/1e6)
		if locks > 0 {
			between += fmt.Sprintf("; %s taken between ranks in pdos (critical sections, locks, atomic updates), %.2f MB published at their releases",
				plural(int64(locks), "global lock"), published/1e6)
		}
		lazy := ""
		if pages > 0 || synced > 0 {
			lazy = fmt.Sprintf(", %s fetched from their homes (%d of them prefetched at a construct's start) and %s made current together in exclusive code (%.2f MB)",
				plural(int64(pages), "page"), pre, plural(int64(synced), "stale page"), pbytes/1e6)
		}
		fmt.Fprintf(w, "MPI job: %s of %s; their clocks moved onto rank 0's %s; %.2f MB of shared storage sent at %s%s; %s\n",
			ranks, plural(int64(rs[0].PerRank), "processor"), moved, sent/1e6,
			plural(int64(ex), "pdo or region end"), lazy, between)
	}
	if note := m.Ended.Summary(); note != "" {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	for _, s := range m.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}

	c := m.Time
	fmt.Fprintf(w, "\nTime of all processors (N × T = %s): efficiency %s\n", Dur(c.Total), pct(c.Efficiency))
	t := newTable("", ">time", ">share", "")
	useful := "useful work"
	if c.Goroutines > 0 {
		useful += ", " + Dur(c.Goroutines) + " of it goroutines of processor 0 on the cores of processors idle outside constructs"
	}
	t.add("productive", Dur(c.Productive), pct(ratio(c.Productive, c.Total)), useful)
	t.add("lost", Dur(c.Lost), pct(ratio(c.Lost, c.Total)), "")
	t.add("  imbalance", Dur(c.Imbalance), pct(ratio(c.Imbalance, c.Total)), "implicit-barrier waiting that unequal busy times explain")
	t.add("  waiting", Dur(c.Sync), pct(ratio(c.Sync, c.Total)), "barriers, locks, critical sections, split barriers")
	if m.Messages != nil || c.Messages > 0 {
		t.add("  messages", Dur(c.Messages), pct(ratio(c.Messages, c.Total)), "in message-passing calls (all lost, as Lib-DVM counts it)")
	}
	t.add("  overhead", Dur(c.Overhead), pct(ratio(c.Overhead, c.Total)),
		fmt.Sprintf("tracing %s%s, pdo startup %s, chunk fetching %s, late to a pdo %s, before/after a processor's records %s", Dur(c.TraceOverhead), laneTracing(&c), Dur(c.PDOStartup), Dur(c.Dispatch), Dur(c.Join), Dur(c.Outside)))
	t.add("  serial", Dur(c.Serial), pct(ratio(c.Serial, c.Total)), "processors idle while the leader runs exclusive code")
	t.write(w, "  ")
	if c.Recording > 0 {
		fmt.Fprintf(w, "  of all these, recording the trace took about %s (%s; the runtime's estimate)\n", Dur(c.Recording), pct(ratio(c.Recording, c.Total)))
	}

	fmt.Fprintln(w)
	msgs := m.Messages != nil || c.Messages > 0
	if msgs {
		t = newTable(">proc", ">productive", ">imbalance", ">waiting", ">messages", ">overhead", ">serial", ">efficiency", ">records")
	} else {
		t = newTable(">proc", ">productive", ">imbalance", ">waiting", ">overhead", ">serial", ">efficiency", ">records")
	}
	for _, p := range m.PerProc {
		row := []string{strconv.Itoa(p.Proc), Dur(p.Productive), Dur(p.Imbalance), Dur(p.Sync)}
		if msgs {
			row = append(row, Dur(p.Messages))
		}
		t.add(append(row, Dur(p.Overhead), Dur(p.Serial), pct(p.Efficiency), strconv.FormatInt(p.Records, 10))...)
	}
	t.write(w, "  ")

	fmt.Fprintf(w, "\nFindings (severity = lost time / (N × T))\n")
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "  none above %s\n", pct(MinSeverity))
	}
	for i, f := range r.Findings {
		sev := pct(f.Severity)
		if f.Unranked {
			sev = "n/a"
		}
		fmt.Fprintf(w, "  %d. %5s  %-13s %s\n", i+1, sev, f.Kind, f.Title)
		fmt.Fprintf(w, "     %s  %-13s advice: %s\n", strings.Repeat(" ", 5), "", f.Advice)
	}

	if len(m.Regions) > 0 {
		fmt.Fprintf(w, "\nRegions (time summed over processors, by inclusive time)\n")
		t = newTable("region", "type", "function", "where", ">calls", ">incl", ">excl", ">max incl", ">proc")
		for i, rg := range m.Regions {
			if i == maxRows {
				t.add(fmt.Sprintf("... %d more (--format json has all)", len(m.Regions)-maxRows), "", "", "", "", "", "", "", "")
				break
			}
			mx, mp := 0.0, 0
			for p, rp := range rg.PerProc {
				if rp.Incl > mx {
					mx, mp = rp.Incl, p
				}
			}
			t.add(regionLabel(rg), rg.Type, rg.Func, rg.Where(), strconv.FormatInt(rg.Calls, 10), Dur(rg.Incl), Dur(rg.Excl), Dur(mx), strconv.Itoa(mp))
		}
		t.write(w, "  ")
	}

	if len(m.Loops) > 0 {
		fmt.Fprintf(w, "\nParallel loops (busy time from %s)\n", loopSources(m))
		t = newTable("loop", "function", "where", "strategy", ">instances", ">iterations", ">time", ">busy max", ">busy mean", ">max/mean", ">lost", ">lost share")
		for _, l := range m.Loops {
			t.add(loopLabel(l), l.Func, l.Where(), l.Strategy, strconv.FormatInt(l.Instances, 10), iterString(l), Dur(l.Time),
				Dur(l.BusyMax), Dur(l.BusyMean), strconv.FormatFloat(l.Imbalance, 'f', 2, 64), Dur(l.Lost), pct(l.LostShare))
		}
		t.write(w, "  ")
		fmt.Fprintln(w)
		// where: two functions' loops may both be "region 1".
		t = newTable("loop", "where", ">proc", ">iterations", ">busy", ">wait", ">time")
		for _, l := range m.Loops {
			for p, lp := range l.PerProc {
				if lp.Instances == 0 {
					continue
				}
				it := "-"
				if lp.Iterations >= 0 {
					it = strconv.FormatInt(lp.Iterations, 10)
				}
				t.add(loopLabel(l), l.Where(), strconv.Itoa(p), it, Dur(lp.Busy), Dur(lp.Wait), Dur(lp.Time))
			}
		}
		t.write(w, "  ")
		for _, l := range m.Loops {
			if g := l.OnGoroutines; g != nil {
				fmt.Fprintf(w, "  %s (%s, %s) also ran %s on goroutines of %s, each time all its iterations on one goroutine: %d iterations, %s busy (a pdo reached from a goroutine that is no processor runs on it alone; call it from the processors' code to divide it)\n",
					loopLabel(l), l.Func, l.Where(), plural(g.Runs, "time"), procList(g.Procs), g.Iterations, Dur(g.Busy))
			}
		}
	}

	if len(m.Waits) > 0 {
		fmt.Fprintf(w, "\nWaiting (by total time)\n")
		cols := []string{"wait", "site", "function", "where", ">count", ">total", ">max"}
		perProc := m.Procs <= 16
		if perProc {
			for p := 0; p < m.Procs; p++ {
				cols = append(cols, ">p"+strconv.Itoa(p))
			}
		}
		t = newTable(cols...)
		for i, ws := range m.Waits {
			if i == maxRows {
				t.add(fmt.Sprintf("... %d more (--format json has all)", len(m.Waits)-maxRows))
				break
			}
			row := []string{ws.Wait, siteName(ws.Site), ws.Func, ws.Where(), strconv.FormatInt(ws.Count, 10), Dur(ws.Total), Dur(ws.Max)}
			if perProc {
				for _, x := range ws.PerProc {
					row = append(row, Dur(x))
				}
			}
			t.add(row...)
		}
		t.write(w, "  ")
	}

	writeGC(w, m)
	writeGoroutines(w, m)
	writeMessages(w, m)
	writeLocality(w, m)
	writeThrottled(w, m)
	writePlain(w, m)
	writeMeasures(w, m)
	writeStats(w, m)

	if r.NextRequest != "" {
		fmt.Fprintf(w, "\nNext trace request (svmc run --request FILE):\n")
		for _, line := range strings.Split(strings.TrimRight(r.NextRequest, "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func regionLabel(r *RegionStat) string {
	switch {
	case r.Dir == 0:
		return r.Func
	case r.Label != "":
		return r.Label
	case r.Region >= 0:
		return "region " + strconv.Itoa(r.Region)
	}
	return "dir " + strconv.Itoa(r.Dir)
}

func loopLabel(l *LoopStat) string {
	switch {
	case l.Label != "":
		return l.Label
	case l.Region >= 0:
		return "region " + strconv.Itoa(l.Region)
	}
	return "dir " + strconv.Itoa(l.Dir)
}

func iterString(l *LoopStat) string {
	if l.Iterations == 0 && len(l.Space) == 0 {
		return "-"
	}
	return strconv.FormatInt(l.Iterations, 10)
}

func loopSources(m *Model) string {
	seen := map[string]bool{}
	var out []string
	for _, l := range m.Loops {
		if !seen[l.BusySource] {
			seen[l.BusySource] = true
			out = append(out, l.BusySource)
		}
	}
	s := strings.Join(out, ", ")
	s = strings.ReplaceAll(s, "regions", "region start to barrier arrival")
	return strings.ReplaceAll(s, "pdo-work", "pdo-work records")
}

// measureLabel is a measured interval's name indented by its level.
func measureLabel(level int, name string) string {
	if name == "" {
		name = `""`
	}
	return strings.Repeat("  ", max(0, level-1)) + name
}

func writeMeasures(w io.Writer, m *Model) {
	if len(m.Measures) == 0 {
		return
	}
	fmt.Fprintf(w, "\nMeasured intervals (MeasureStart/MeasureFinish per name and level; elapsed time from the measure-finish records)\n")
	cols := []string{"interval", ">level", ">entries", ">total", ">mean", ">max"}
	unfinished := false
	for _, ms := range m.Measures {
		unfinished = unfinished || ms.Unfinished > 0
	}
	if unfinished {
		cols = append(cols, ">unfinished")
	}
	t := newTable(cols...)
	for i, ms := range m.Measures {
		if i == maxRows {
			t.add(fmt.Sprintf("... %d more (--format json has all)", len(m.Measures)-maxRows))
			break
		}
		row := []string{measureLabel(ms.Level, ms.Name), strconv.Itoa(ms.Level), strconv.FormatInt(ms.Entries, 10),
			Dur(ms.Elapsed), Dur(ms.Mean), Dur(ms.Max)}
		if unfinished {
			row = append(row, strconv.FormatInt(ms.Unfinished, 10))
		}
		t.add(row...)
	}
	t.write(w, "  ")
	fmt.Fprintln(w)
	t = newTable("interval", ">level", ">proc", ">entries", ">total", ">mean")
	rows := 0
	for _, ms := range m.Measures {
		for p, mp := range ms.PerProc {
			if mp.Entries == 0 {
				continue
			}
			if rows++; rows > 4*maxRows {
				continue
			}
			t.add(measureLabel(ms.Level, ms.Name), strconv.Itoa(ms.Level), strconv.Itoa(p), strconv.FormatInt(mp.Entries, 10),
				Dur(mp.Elapsed), Dur(ratio(mp.Elapsed, float64(mp.Entries))))
		}
	}
	if rows > 4*maxRows {
		t.add(fmt.Sprintf("... %d more (--format json has all)", rows-4*maxRows))
	}
	t.write(w, "  ")
}

// statsNote says where the runtime's interval statistics come from.
const statsNote = `These are the runtime's own figures (stat-interval and stat-group records, SVMC_STATS=1;
Lib-DVM's interval matrix, seed 000 §11), not the trace-based characteristics above: a call
that k processors make together counts 1/k call, its time t counts t/k productive and
(k−1)t/k lost (Lib-DVM's (n−1)/n rule); an interval includes the intervals nested in it;
execution = the longest processor's wall time in it, processor time = processors × execution,
efficiency = productive / processor time.`

// count formats a call count, which the (n−1)/n rule makes fractional.
func count(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func statLabel(si *StatInterval) string {
	name := si.Name
	if name == "" {
		name = `""`
	}
	return strings.Repeat("  ", max(0, si.Level)) + name
}

func writeStats(w io.Writer, m *Model) {
	if len(m.Stats) == 0 {
		return
	}
	procs := 0
	for _, si := range m.Stats {
		procs = max(procs, si.Procs)
	}
	fmt.Fprintf(w, "\nInterval statistics of the runtime (%d processors)\n", procs)
	for _, line := range strings.Split(statsNote, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintln(w)
	t := newTable(">id", "interval", ">entries", ">execution", ">proc time", ">productive", ">user prod", ">system prod",
		">lost", ">user lost", ">system lost", ">idle", ">calls", ">efficiency")
	for _, si := range m.Stats {
		t.add(strconv.Itoa(si.ID), statLabel(si), strconv.Itoa(si.Entries), Dur(si.Exec), Dur(si.ProcTime),
			Dur(si.Productive), Dur(si.UserProductive), Dur(si.SystemProductive),
			Dur(si.Lost), Dur(si.UserLost), Dur(si.SystemLost), Dur(si.Idle), count(si.SystemCalls), pct(si.Efficiency))
	}
	for _, si := range m.Stats {
		if si.Dissync > 0 {
			fmt.Fprintf(w, "  interval %d: real dissynchronisation of message passing (RMT) %s\n", si.ID, Dur(si.Dissync))
		}
		if si.TimeVar > 0 || si.PotSync > 0 {
			fmt.Fprintf(w, "  interval %d: barriers' time variation %s, potential dissynchronisation %s\n", si.ID, Dur(si.TimeVar), Dur(si.PotSync))
		}
	}
	t.write(w, "  ")
	fmt.Fprintf(w, "\n  Interval matrices: calls, productive and lost time of each group of runtime functions\n")
	fmt.Fprintf(w, "  called from a caller group (UserGrp → UserGrp: the program's own code; UserGrp → a group:\n")
	fmt.Fprintf(w, "  the calls the program made of it directly, per processor; seed 000 §11.1.1's names)\n")
	t = newTable(">id", "interval", "caller group", "group", ">calls", ">productive", ">lost")
	for _, si := range m.Stats {
		for _, g := range si.Groups {
			t.add(strconv.Itoa(si.ID), si.Name, g.CallerName, g.Name, count(g.Calls), Dur(g.Productive), Dur(g.Lost))
		}
	}
	t.write(w, "  ")
	fmt.Fprintf(w, "\n  By group (seed 000 §11.1.3): calls the user program made directly (per processor); productive\n")
	fmt.Fprintf(w, "  and lost time of those calls with what they called (SPTi, SLTi); the group's own time from anywhere\n")
	t = newTable(">id", "interval", "group", ">direct calls", ">productive", ">lost", ">own productive", ">own time")
	for _, si := range m.Stats {
		for _, g := range si.ByGroup {
			t.add(strconv.Itoa(si.ID), si.Name, g.Name, count(g.DirectCalls), Dur(g.Productive), Dur(g.Lost), Dur(g.OwnProductive), Dur(g.OwnTime))
		}
	}
	t.write(w, "  ")
}

// writeGC says how much of the waiting Go's garbage collector caused: its
// stop-the-world pauses set against the waits (svmc run --gotrace).
func writeGC(w io.Writer, m *Model) {
	g := m.GC
	if g == nil {
		return
	}
	fmt.Fprintf(w, "\nGo's garbage collector (svmc run --gotrace): %d stop-the-world pauses, %s in all, the longest %s\n",
		g.Pauses, Dur(g.Total), Dur(g.Longest))
	if g.InWaits <= 0 {
		fmt.Fprintf(w, "  none of the waits above overlaps a pause\n")
		return
	}
	fmt.Fprintf(w, "  %s of the waits above overlap the pauses: waiting the collector caused (every goroutine stopped),\n", Dur(g.InWaits))
	fmt.Fprintf(w, "  not the program's imbalance. (Its concurrent marking also takes a core; the Go trace shows it.)\n")
	t := newTable("wait", "where", ">during pauses", ">of the wait")
	for _, ws := range m.Waits {
		if ws.GC > 0 {
			t.add(ws.Wait, ws.Where(), Dur(ws.GC), pct(ws.GC/max(ws.Total, 1e-9)))
		}
	}
	t.write(w, "  ")
}

// writeGoroutines lists the goroutines each processor started (their
// lanes): their time is that processor's work, done beside it.
func writeGoroutines(w io.Writer, m *Model) {
	if len(m.Goroutines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nGoroutines the processors started (each on a lane of its own; their time is their processor's)\n")
	t := newTable(">proc", ">goroutines", ">lanes", ">life", ">longest", ">in regions", "started at")
	for _, g := range m.Goroutines {
		var at []string
		for _, s := range g.Where {
			at = append(at, s.At+" ("+strconv.Itoa(s.Goroutines)+")")
		}
		if g.Unfinished > 0 {
			at = append(at, strconv.Itoa(g.Unfinished)+" still running at the end")
		}
		if g.Untraced > 0 {
			at = append(at, strconv.Itoa(g.Untraced)+" more untraced")
		}
		t.add(strconv.Itoa(g.Proc), strconv.Itoa(g.Goroutines), strconv.Itoa(g.Lanes), Dur(g.Life), Dur(g.Longest), Dur(g.Regions), strings.Join(at, ", "))
	}
	t.write(w, "  ")
}

// writeThrottled lists the subprograms the runtime stopped tracing.
func writeThrottled(w io.Writer, m *Model) {
	if len(m.Throttled) == 0 {
		return
	}
	fmt.Fprintf(w, "\nThrottled (called often and briefly: no longer traced after a while; their calls count above)\n")
	t := newTable("subprogram", "where", ">proc", ">traced calls", ">mean", ">untraced calls", ">untraced time")
	for _, ts := range m.Throttled {
		for p, tp := range ts.PerProc {
			if !tp.Throttled {
				continue
			}
			t.add(ts.Func, ts.Where(), strconv.Itoa(p), strconv.FormatInt(tp.Traced, 10), Dur(tp.Mean),
				strconv.FormatInt(tp.Untraced, 10), Dur(tp.UntracedTime))
		}
	}
	t.write(w, "  ")
}

// writePlain lists the subprograms svmc did not instrument.
func writePlain(w io.Writer, m *Model) {
	if len(m.Plain) == 0 {
		return
	}
	fmt.Fprintf(w, "\nNot instrumented: %d small functions Go inlines, left as written (their time is their callers'; svmc build --instrument-all gives them regions)\n", len(m.Plain))
	var line strings.Builder
	for i, s := range m.Plain {
		item := s.Func + " " + s.Where()
		if i == maxRows {
			item = fmt.Sprintf("... %d more (--format json has all)", len(m.Plain)-maxRows)
		}
		if line.Len() > 0 && line.Len()+len(item) > 90 {
			fmt.Fprintf(w, "  %s\n", line.String())
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteString(", ")
		}
		line.WriteString(item)
		if i == maxRows {
			break
		}
	}
	fmt.Fprintf(w, "  %s\n", line.String())
}

// writeMessages lists the message-passing calls, the wait states and the
// processor × processor traffic.
func writeMessages(w io.Writer, m *Model) {
	ms := m.Messages
	if ms == nil {
		return
	}
	fmt.Fprintf(w, "\nMessage passing (time in the calls, by total time)\n")
	t := newTable("call", "where", ">count", ">time", ">max proc")
	for i, cs := range ms.Calls {
		if i == maxRows {
			t.add(fmt.Sprintf("... %d more (--format json has all)", len(ms.Calls)-maxRows), "", "", "", "")
			break
		}
		mp := 0
		for p, x := range cs.PerProc {
			if x > cs.PerProc[mp] {
				mp = p
			}
		}
		t.add(cs.Func, cs.Where, strconv.FormatInt(cs.Count, 10), Dur(cs.Time), strconv.Itoa(mp))
	}
	t.write(w, "  ")
	if len(ms.Waits) > 0 {
		fmt.Fprintf(w, "\n  Wait states (Scalasca's: the part of the calls' time spent waiting for a partner)\n")
		t = newTable("state", "call", "where", "waits for", ">count", ">total", ">max", ">culprit")
		for i, mw := range ms.Waits {
			if i == maxRows {
				t.add(fmt.Sprintf("... %d more", len(ms.Waits)-maxRows), "", "", "", "", "", "", "")
				break
			}
			peer := "-"
			if mw.PeerWhere != "" {
				peer = mw.PeerFunc + " " + mw.PeerWhere
			}
			cul := "-"
			if mw.Culprit >= 0 {
				cul = strconv.Itoa(mw.Culprit)
			}
			t.add(mw.Kind, mw.Func, mw.Where, peer, strconv.FormatInt(mw.Count, 10), Dur(mw.Time), Dur(mw.Max), cul)
		}
		t.write(w, "    ")
	}
	if len(ms.Matrix) > 0 {
		fmt.Fprintf(w, "\n  Messages from processor to processor (count, bytes, receiving time)\n")
		if m.Procs <= 16 {
			cols := []string{">from\\to"}
			for p := 0; p < m.Procs; p++ {
				cols = append(cols, ">"+strconv.Itoa(p))
			}
			t = newTable(cols...)
			cells := map[[2]int]PairStat{}
			for _, ps := range ms.Matrix {
				cells[[2]int{ps.Src, ps.Dst}] = ps
			}
			for src := 0; src < m.Procs; src++ {
				row := []string{strconv.Itoa(src)}
				for dst := 0; dst < m.Procs; dst++ {
					ps, ok := cells[[2]int{src, dst}]
					if !ok {
						row = append(row, "-")
						continue
					}
					row = append(row, fmt.Sprintf("%d, %s, %s", ps.Count, bytesText(ps.Bytes), Dur(ps.Time)))
				}
				t.add(row...)
			}
		} else {
			t = newTable(">from", ">to", ">count", ">bytes", ">time")
			for _, ps := range ms.Matrix {
				t.add(strconv.Itoa(ps.Src), strconv.Itoa(ps.Dst), strconv.FormatInt(ps.Count, 10), bytesText(ps.Bytes), Dur(ps.Time))
			}
		}
		t.write(w, "    ")
	}
	if ms.UnpairedRecvs > 0 || ms.UnpairedSends > 0 {
		fmt.Fprintf(w, "\n  %d sends no traced receive took, %d receives whose send is not in the trace\n", ms.UnpairedSends, ms.UnpairedRecvs)
	}
}

func bytesText(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Table is a text table with aligned columns, for the reports of other
// tools (svmc diff); a column whose heading starts with ">" is aligned
// right.
type Table struct{ t *table }

// NewTable makes a table with the given headings.
func NewTable(cols ...string) *Table { return &Table{newTable(cols...)} }

// Add adds a row.
func (t *Table) Add(cells ...string) { t.t.add(cells...) }

// Write writes the table, each line indented.
func (t *Table) Write(w io.Writer, indent string) { t.t.write(w, indent) }

// laneTracing is what the goroutines' lanes spent handing their trace to
// the writer, said beside the processors' tracing overhead ("" for none).
func laneTracing(c *Characteristics) string {
	if c.LaneTraceOverhead <= 0 {
		return ""
	}
	return " (and " + Dur(c.LaneTraceOverhead) + " on goroutines' lanes, within their processor's productive time)"
}
