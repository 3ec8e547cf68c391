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
	if len(fs) > 0 {
		r.NextRequest = string(NextRequest(fs[:min(top, len(fs))], m.prog))
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
	for _, s := range m.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}

	c := m.Time
	fmt.Fprintf(w, "\nTime of all processors (N × T = %s): efficiency %s\n", Dur(c.Total), pct(c.Efficiency))
	t := newTable("", ">time", ">share", "")
	t.add("productive", Dur(c.Productive), pct(ratio(c.Productive, c.Total)), "useful work")
	t.add("lost", Dur(c.Lost), pct(ratio(c.Lost, c.Total)), "")
	t.add("  imbalance", Dur(c.Imbalance), pct(ratio(c.Imbalance, c.Total)), "implicit-barrier waiting that unequal busy times explain")
	t.add("  waiting", Dur(c.Sync), pct(ratio(c.Sync, c.Total)), "barriers, locks, critical sections, split barriers")
	t.add("  overhead", Dur(c.Overhead), pct(ratio(c.Overhead, c.Total)),
		fmt.Sprintf("tracing %s, pdo startup %s, before/after a processor's records %s", Dur(c.TraceOverhead), Dur(c.PDOStartup), Dur(c.Outside)))
	t.add("  serial", Dur(c.Serial), pct(ratio(c.Serial, c.Total)), "processors idle while the leader runs exclusive code")
	t.write(w, "  ")

	fmt.Fprintln(w)
	t = newTable(">proc", ">productive", ">imbalance", ">waiting", ">overhead", ">serial", ">efficiency", ">records")
	for _, p := range m.PerProc {
		t.add(strconv.Itoa(p.Proc), Dur(p.Productive), Dur(p.Imbalance), Dur(p.Sync), Dur(p.Overhead), Dur(p.Serial), pct(p.Efficiency), strconv.FormatInt(p.Records, 10))
	}
	t.write(w, "  ")

	fmt.Fprintf(w, "\nFindings (severity = lost time / (N × T))\n")
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "  none above %s\n", pct(MinSeverity))
	}
	for i, f := range r.Findings {
		fmt.Fprintf(w, "  %d. %5s  %-13s %s\n", i+1, pct(f.Severity), f.Kind, f.Title)
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
		t = newTable("loop", ">proc", ">iterations", ">busy", ">wait", ">time")
		for _, l := range m.Loops {
			for p, lp := range l.PerProc {
				if lp.Instances == 0 {
					continue
				}
				it := "-"
				if lp.Iterations >= 0 {
					it = strconv.FormatInt(lp.Iterations, 10)
				}
				t.add(loopLabel(l), strconv.Itoa(p), it, Dur(lp.Busy), Dur(lp.Wait), Dur(lp.Time))
			}
		}
		t.write(w, "  ")
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
