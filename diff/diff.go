// Package diff compares two runs of a program (svmc diff, issue 18):
// region by region and loop by loop, the time, imbalance and lost time of
// trace A beside trace B with the change, the speedup and efficiency per
// region when the numbers of processors differ (where scaling stops), and
// the findings that appeared or vanished. It reads the models the analysis
// builds; it does not read traces itself.
package diff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// Side is one of the two runs.
type Side struct {
	Path       string  `json:"path"`
	Procs      int     `json:"procs"`
	Duration   float64 `json:"duration_us"`
	Efficiency float64 `json:"efficiency"`
	Stage      int     `json:"stage"` // the tracing stage (-1 unknown)
}

// Result is the comparison of run A with run B.
type Result struct {
	A, B Side
	// SameProgram is false when the program information differs; Program
	// says how.
	SameProgram bool   `json:"same_program"`
	Program     string `json:"program"`
	// Speedup is T_A / T_B; Scaling the efficiency of the change of the
	// number of processors, Speedup × N_A / N_B (0 when N is the same).
	Speedup  float64        `json:"speedup"`
	Scaling  float64        `json:"scaling_efficiency,omitempty"`
	Regions  []*RegionDiff  `json:"regions"`
	Loops    []*LoopDiff    `json:"loops"`
	Appeared []FindingBrief `json:"findings_appeared,omitempty"`
	Vanished []FindingBrief `json:"findings_vanished,omitempty"`
	// Values compares the var-check records of the two runs (nil when
	// neither has any).
	Values *Values `json:"values,omitempty"`
	// Behaviour compares what the processors did step by step (nil when
	// the flows were not read).
	Behaviour *FlowDiff `json:"behaviour,omitempty"`
	// Noise compares several runs a side (nil for one run each); the
	// rest of the result compares the first run of each side.
	Noise *Noise `json:"runs,omitempty"`
}

// Values is the comparison of the variables' checksums at region exits.
type Values struct {
	Checks int `json:"checks"` // checks both runs made
	// First is the first check, in A's order, whose values differ; nil
	// when they agree everywhere both runs checked.
	First *Divergence `json:"first_divergence,omitempty"`
	// OnlyA and OnlyB count the checks one run made and the other not.
	OnlyA int `json:"only_a"`
	OnlyB int `json:"only_b"`
}

// Divergence is a region instance at whose exit a variable's values
// differ.
type Divergence struct {
	Region    string `json:"region"`
	Where     string `json:"where"`
	Instance  int    `json:"instance"`
	Variable  string `json:"variable"`
	ChecksumA uint32 `json:"checksum_a"`
	ChecksumB uint32 `json:"checksum_b"`
}

// RegionDiff is one region in both runs: the slowest processor's
// inclusive time over all its calls (the region's share of the run's
// elapsed time), and the calls.
type RegionDiff struct {
	Site     analysis.Site `json:"site"`
	Name     string        `json:"name"`
	A        float64       `json:"a_us"`
	B        float64       `json:"b_us"`
	CallsA   int64         `json:"calls_a"`
	CallsB   int64         `json:"calls_b"`
	Change   float64       `json:"change"`                       // B / A − 1
	Speedup  float64       `json:"speedup"`                      // A / B
	Scaling  float64       `json:"scaling_efficiency,omitempty"` // Speedup × N_A / N_B
	OnlyIn   string        `json:"only_in,omitempty"`            // "A" or "B" when the other run has no such region
	StopsAt  bool          `json:"scaling_stops,omitempty"`      // Scaling below ScalingFloor
	Code     int           `json:"region_code"`
	Function string        `json:"function"`
}

// LoopDiff is one parallel loop in both runs.
type LoopDiff struct {
	Site       analysis.Site `json:"site"`
	ImbalanceA float64       `json:"imbalance_a"`
	ImbalanceB float64       `json:"imbalance_b"`
	LostA      float64       `json:"lost_a_us"`
	LostB      float64       `json:"lost_b_us"`
	BusyA      float64       `json:"busy_max_a_us"`
	BusyB      float64       `json:"busy_max_b_us"`
}

// FindingBrief is a finding named by kind and place.
type FindingBrief struct {
	Kind     string  `json:"kind"`
	Where    string  `json:"where"`
	Severity float64 `json:"severity"`
	Title    string  `json:"title"`
}

// ScalingFloor is the scaling efficiency under which a region is said to
// stop scaling.
const ScalingFloor = 0.5

// Compare compares the models of two runs; pa and pb are their program
// information (nil when a trace has none).
func Compare(pathA, pathB string, a, b *analysis.Model, pa, pb *progdb.Program) *Result {
	r := &Result{
		A: Side{Path: pathA, Procs: a.Procs, Duration: a.Duration, Efficiency: a.Time.Efficiency, Stage: a.Stage},
		B: Side{Path: pathB, Procs: b.Procs, Duration: b.Duration, Efficiency: b.Time.Efficiency, Stage: b.Stage},
	}
	r.SameProgram, r.Program = sameProgram(pa, pb)
	r.Speedup = ratio(a.Duration, b.Duration)
	if a.Procs != b.Procs && b.Procs > 0 {
		r.Scaling = r.Speedup * float64(a.Procs) / float64(b.Procs)
	}
	type rkey struct{ sub, dir, code int }
	regions := map[rkey]*RegionDiff{}
	var order []rkey
	add := func(rs *analysis.RegionStat, inA bool) {
		k := rkey{rs.Sub, rs.Dir, rs.Code}
		d := regions[k]
		if d == nil {
			d = &RegionDiff{Site: rs.Site, Code: rs.Code, Function: rs.Func, Name: regionName(rs)}
			regions[k] = d
			order = append(order, k)
		}
		slowest := 0.0
		for _, p := range rs.PerProc {
			slowest = max(slowest, p.Incl)
		}
		if inA {
			d.A, d.CallsA = slowest, rs.Calls
		} else {
			d.B, d.CallsB = slowest, rs.Calls
		}
	}
	for _, rs := range a.Regions {
		add(rs, true)
	}
	for _, rs := range b.Regions {
		add(rs, false)
	}
	for _, k := range order {
		d := regions[k]
		switch {
		case d.CallsA == 0:
			d.OnlyIn = "B"
		case d.CallsB == 0:
			d.OnlyIn = "A"
		default:
			d.Change = ratio(d.B, d.A) - 1
			d.Speedup = ratio(d.A, d.B)
			if a.Procs != b.Procs && b.Procs > 0 {
				d.Scaling = d.Speedup * float64(a.Procs) / float64(b.Procs)
				// Serial code does not scale by nature: only parallel
				// constructs are said to stop.
				d.StopsAt = b.Procs > a.Procs && d.Scaling < ScalingFloor && parallel(d.Code)
			}
		}
		r.Regions = append(r.Regions, d)
	}
	// The regions that changed most (in time) first.
	slices.SortStableFunc(r.Regions, func(x, y *RegionDiff) int {
		return cmp.Compare(math.Abs(y.B-y.A), math.Abs(x.B-x.A))
	})
	loops := map[rkey]*LoopDiff{}
	var lorder []rkey
	for side, m := range []*analysis.Model{a, b} {
		for _, l := range m.Loops {
			k := rkey{l.Sub, l.Dir, 0}
			d := loops[k]
			if d == nil {
				d = &LoopDiff{Site: l.Site}
				loops[k] = d
				lorder = append(lorder, k)
			}
			if side == 0 {
				d.ImbalanceA, d.LostA, d.BusyA = l.Imbalance, l.Lost, l.BusyMax
			} else {
				d.ImbalanceB, d.LostB, d.BusyB = l.Imbalance, l.Lost, l.BusyMax
			}
		}
	}
	for _, k := range lorder {
		r.Loops = append(r.Loops, loops[k])
	}
	fa, fb := briefs(analysis.Findings(a)), briefs(analysis.Findings(b))
	r.Appeared, r.Vanished = missing(fb, fa), missing(fa, fb)
	r.Values = compareValues(a.VarChecks, b.VarChecks, pa)
	return r
}

// compareValues matches the var-check records of the runs by region,
// instance and variable.
func compareValues(a, b []analysis.VarCheck, prog *progdb.Program) *Values {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	type key struct{ sub, dir, v, inst int }
	inB := map[key]analysis.VarCheck{}
	for _, c := range b {
		inB[key{c.Sub, c.Dir, c.Var, c.Instance}] = c
	}
	v := &Values{}
	seen := map[key]bool{}
	for _, c := range a {
		k := key{c.Sub, c.Dir, c.Var, c.Instance}
		seen[k] = true
		o, ok := inB[k]
		if !ok {
			v.OnlyA++
			continue
		}
		v.Checks++
		if o.Checksum != c.Checksum && v.First == nil {
			v.First = &Divergence{Instance: c.Instance, ChecksumA: c.Checksum, ChecksumB: o.Checksum}
			v.First.Region, v.First.Where, v.First.Variable = names(prog, c)
		}
	}
	for _, c := range b {
		if !seen[key{c.Sub, c.Dir, c.Var, c.Instance}] {
			v.OnlyB++
		}
	}
	return v
}

// names gives a check's region, its place and its variable from the
// program information.
func names(prog *progdb.Program, c analysis.VarCheck) (region, where, variable string) {
	region, where, variable = fmt.Sprintf("region of sub %d directive %d", c.Sub, c.Dir), "", fmt.Sprintf("variable %d", c.Var)
	if prog == nil || c.Sub < 1 || c.Sub > len(prog.Subprograms) {
		return
	}
	s := prog.Subprograms[c.Sub-1]
	if c.Var >= 1 && c.Var <= len(s.Shared) {
		variable = s.Shared[c.Var-1].Name
	}
	for _, rg := range s.Regions {
		if rg.Directive == c.Dir {
			region = rg.Type
			if rg.Label != "" {
				region += " " + rg.Label
			} else if c.Dir == 0 {
				region += " " + s.Name
			}
			where = fmt.Sprintf("%s:%d", rg.Pos.File, rg.Pos.Line)
		}
	}
	return
}

func parallel(code int) bool {
	switch code {
	case trace.RegionPDO, trace.RegionPSection, trace.RegionSection, trace.RegionReplicated:
		return true
	}
	return false
}

func briefs(fs []analysis.Finding) []FindingBrief {
	var out []FindingBrief
	for _, f := range fs {
		if f.Unranked {
			continue
		}
		out = append(out, FindingBrief{Kind: f.Kind, Where: f.Site.Where(), Severity: f.Severity, Title: f.Title})
	}
	return out
}

// missing lists the findings of xs whose kind and place ys has not.
func missing(xs, ys []FindingBrief) []FindingBrief {
	var out []FindingBrief
	for _, x := range xs {
		if !slices.ContainsFunc(ys, func(y FindingBrief) bool { return y.Kind == x.Kind && y.Where == x.Where }) {
			out = append(out, x)
		}
	}
	return out
}

// sameProgram compares the program information of the two traces: the
// package, the files and each subprogram's directives and regions.
func sameProgram(a, b *progdb.Program) (bool, string) {
	switch {
	case a == nil && b == nil:
		return true, "no program information in either trace: regions are matched by number"
	case a == nil || b == nil:
		return false, "only one trace has program information: regions are matched by number"
	}
	if a.Package != b.Package {
		return false, fmt.Sprintf("different programs: %s and %s", a.Package, b.Package)
	}
	ja, _ := json.Marshal(a.Subprograms)
	jb, _ := json.Marshal(b.Subprograms)
	if string(ja) != string(jb) {
		return false, fmt.Sprintf("%s changed between the runs (its directives, regions or lines differ): regions are matched by number, and may not be the same code", a.Package)
	}
	return true, a.Package
}

func regionName(rs *analysis.RegionStat) string {
	name := rs.Type
	switch {
	case rs.Label != "":
		name += " " + rs.Label
	case rs.Dir == 0:
		name += " " + rs.Func
	}
	return name
}

func ratio(x, y float64) float64 {
	if y == 0 {
		return 0
	}
	return x / y
}

// WriteJSON writes r as JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// stagesDiffer says why runs traced at different stages compare badly
// ("" when the stages are the same or unknown): a higher stage records
// more, and its tracing takes time of its own (x235: stage 3 on 2
// processors against stage 6 on 4 read as a speedup of 0.28).
func stagesDiffer(a, b Side) string {
	if a.Stage < 0 || b.Stage < 0 || a.Stage == b.Stage {
		return ""
	}
	return fmt.Sprintf("A was traced at stage %d and B at stage %d: the higher stage records more (stages 4-6 each page fault and access of the shared data) and its tracing takes time of its own, so the times compare the tracing too; compare runs traced at one stage", a.Stage, b.Stage)
}

// WriteText writes r as text.
func (r *Result) WriteText(w io.Writer) {
	side := func(s Side) string {
		procs := fmt.Sprintf("%d processors", s.Procs)
		if s.Procs == 1 {
			procs = "1 processor"
		}
		if s.Stage >= 0 {
			procs += fmt.Sprintf(", stage %d", s.Stage)
		}
		return fmt.Sprintf("%s: %s, T = %s, efficiency %.1f%%", s.Path, procs, analysis.Dur(s.Duration), 100*s.Efficiency)
	}
	fmt.Fprintf(w, "svmc diff\n  A: %s\n  B: %s\n", side(r.A), side(r.B))
	if r.SameProgram {
		fmt.Fprintf(w, "  same program: %s\n", r.Program)
	} else {
		fmt.Fprintf(w, "  WARNING: %s\n", r.Program)
	}
	if msg := stagesDiffer(r.A, r.B); msg != "" {
		fmt.Fprintf(w, "  WARNING: %s\n", msg)
	}
	scaling := r.Scaling != 0
	fmt.Fprintf(w, "  B takes %s of A's time: speedup %.2f", pct(ratio(r.B.Duration, r.A.Duration)), r.Speedup)
	if scaling {
		fmt.Fprintf(w, ", scaling efficiency %.2f (speedup × %d / %d)", r.Scaling, r.A.Procs, r.B.Procs)
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "\nRegions (the slowest processor's inclusive time; by the size of the change)\n")
	head := []string{"region", "where", ">A", ">B", ">change", ">speedup"}
	if scaling {
		head = append(head, ">scaling", "")
	}
	t := analysis.NewTable(head...)
	for _, d := range r.Regions {
		row := []string{d.Name, d.Site.Where(), dur(d.A, d.CallsA), dur(d.B, d.CallsB)}
		switch d.OnlyIn {
		case "A":
			row = append(row, "only in A", "")
		case "B":
			row = append(row, "only in B", "")
		default:
			row = append(row, signedPct(d.Change), strconv.FormatFloat(d.Speedup, 'f', 2, 64))
		}
		if scaling {
			note := ""
			if d.StopsAt {
				note = "stops scaling"
			}
			sc := ""
			if d.OnlyIn == "" {
				sc = strconv.FormatFloat(d.Scaling, 'f', 2, 64)
			}
			row = append(row, sc, note)
		}
		t.Add(row...)
	}
	t.Write(w, "  ")
	if r.Noise != nil {
		r.Noise.WriteText(w)
	}
	if len(r.Loops) > 0 {
		fmt.Fprintf(w, "\nParallel loops (imbalance = max/mean busy; lost = waiting at the loop's barrier that the imbalance explains)\n")
		t = analysis.NewTable("loop", "where", ">imbalance A", ">imbalance B", ">lost A", ">lost B")
		for _, l := range r.Loops {
			name := "pdo"
			if l.Site.Label != "" {
				name += " " + l.Site.Label
			}
			t.Add(name, l.Site.Where(), imb(l.ImbalanceA), imb(l.ImbalanceB), analysis.Dur(l.LostA), analysis.Dur(l.LostB))
		}
		t.Write(w, "  ")
	}
	writeFindings := func(title string, fs []FindingBrief) {
		if len(fs) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s\n", title)
		for _, f := range fs {
			fmt.Fprintf(w, "  %5.1f%%  %-14s %s\n", 100*f.Severity, f.Kind, f.Title)
		}
	}
	if r.Behaviour != nil {
		r.Behaviour.WriteText(w)
	}
	if v := r.Values; v != nil {
		fmt.Fprintf(w, "\nValues (var-check: checksums of shared variables at region exits)\n")
		switch {
		case v.First != nil:
			d := v.First
			fmt.Fprintf(w, "  the values first differ at the exit of %s (%s), instance %d: variable %s (checksums %08x in A, %08x in B)\n",
				d.Region, d.Where, d.Instance, d.Variable, d.ChecksumA, d.ChecksumB)
		case v.Checks > 0:
			fmt.Fprintf(w, "  the same at all %d checks both runs made\n", v.Checks)
		}
		if v.OnlyA+v.OnlyB > 0 {
			fmt.Fprintf(w, "  %d checks only in A, %d only in B (the runs took different paths, or asked different VarCheck requests)\n", v.OnlyA, v.OnlyB)
		}
	}
	writeFindings("Findings of B that A has not", r.Appeared)
	writeFindings("Findings of A that B has not", r.Vanished)
	if len(r.Appeared) == 0 && len(r.Vanished) == 0 {
		fmt.Fprintf(w, "\nFindings: the same kinds at the same places in both runs\n")
	}
}

func dur(us float64, calls int64) string {
	if calls == 0 {
		return "-"
	}
	return analysis.Dur(us)
}

func imb(x float64) string {
	if x == 0 {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

func signedPct(x float64) string {
	s := strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
	if x >= 0 {
		s = "+" + s
	}
	return s
}

// Scaling is the scaling table of several runs of a program (svmc diff
// with more than two traces, typically N = 1, 2, 4): per region, each
// run's slowest-processor time, its speedup over the first run and its
// efficiency (speedup × N_first / N).
type Scaling struct {
	Runs    []Side        `json:"runs"`
	Program string        `json:"program"`
	Same    bool          `json:"same_program"`
	Regions []*ScalingRow `json:"regions"`
}

// ScalingRow is one region across the runs (Times[i] 0: not in run i).
type ScalingRow struct {
	Site       analysis.Site `json:"site"`
	Name       string        `json:"name"`
	Code       int           `json:"region_code"`
	Times      []float64     `json:"times_us"`
	Speedup    []float64     `json:"speedup"`
	Efficiency []float64     `json:"efficiency"`
	// StopsAt is the index of the first run whose efficiency falls below
	// ScalingFloor (-1: none): where scaling stops.
	StopsAt int `json:"stops_at"`
}

// Scale builds the scaling table of the runs, in the order given; progs
// are their program information.
func Scale(paths []string, ms []*analysis.Model, progs []*progdb.Program) *Scaling {
	sc := &Scaling{Same: true}
	for i, m := range ms {
		sc.Runs = append(sc.Runs, Side{Path: paths[i], Procs: m.Procs, Duration: m.Duration, Efficiency: m.Time.Efficiency, Stage: m.Stage})
		if i > 0 {
			if same, why := sameProgram(progs[0], progs[i]); !same {
				sc.Same, sc.Program = false, why
			}
		}
	}
	if sc.Same {
		_, sc.Program = sameProgram(progs[0], progs[0])
	}
	type rkey struct{ sub, dir, code int }
	rows := map[rkey]*ScalingRow{}
	var order []rkey
	for i, m := range ms {
		for _, rs := range m.Regions {
			k := rkey{rs.Sub, rs.Dir, rs.Code}
			row := rows[k]
			if row == nil {
				row = &ScalingRow{Site: rs.Site, Name: regionName(rs), Code: rs.Code, Times: make([]float64, len(ms)), StopsAt: -1}
				rows[k] = row
				order = append(order, k)
			}
			for _, p := range rs.PerProc {
				row.Times[i] = max(row.Times[i], p.Incl)
			}
		}
	}
	n0 := float64(ms[0].Procs)
	for _, k := range order {
		row := rows[k]
		for i, t := range row.Times {
			s := ratio(row.Times[0], t)
			e := 0.0
			if ms[i].Procs > 0 {
				e = s * n0 / float64(ms[i].Procs)
			}
			row.Speedup = append(row.Speedup, s)
			row.Efficiency = append(row.Efficiency, e)
			if row.StopsAt < 0 && i > 0 && t > 0 && e < ScalingFloor && parallel(row.Code) {
				row.StopsAt = i
			}
		}
		sc.Regions = append(sc.Regions, row)
	}
	return sc
}

// WriteJSON writes sc as JSON.
func (sc *Scaling) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sc)
}

// WriteText writes the scaling table.
func (sc *Scaling) WriteText(w io.Writer) {
	fmt.Fprintf(w, "svmc diff: scaling over %d runs\n", len(sc.Runs))
	for i, r := range sc.Runs {
		fmt.Fprintf(w, "  %d: %s: %d processor%s, T = %s\n", i+1, r.Path, r.Procs, map[bool]string{true: "", false: "s"}[r.Procs == 1], analysis.Dur(r.Duration))
	}
	if sc.Same {
		fmt.Fprintf(w, "  same program: %s\n", sc.Program)
	} else {
		fmt.Fprintf(w, "  WARNING: %s\n", sc.Program)
	}
	fmt.Fprintf(w, "\nRegions (the slowest processor's inclusive time; speedup and efficiency against run 1)\n")
	head := []string{"region", "where"}
	for _, r := range sc.Runs {
		head = append(head, fmt.Sprintf(">N=%d", r.Procs))
	}
	for _, r := range sc.Runs[1:] {
		head = append(head, fmt.Sprintf(">eff N=%d", r.Procs))
	}
	head = append(head, "")
	t := analysis.NewTable(head...)
	for _, row := range sc.Regions {
		cells := []string{row.Name, row.Site.Where()}
		for _, x := range row.Times {
			cells = append(cells, dur(x, map[bool]int64{true: 0, false: 1}[x == 0]))
		}
		for i := 1; i < len(row.Times); i++ {
			if row.Times[i] == 0 || row.Times[0] == 0 {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, strconv.FormatFloat(row.Efficiency[i], 'f', 2, 64))
		}
		note := ""
		if row.StopsAt > 0 {
			note = fmt.Sprintf("stops scaling at N=%d", sc.Runs[row.StopsAt].Procs)
		}
		t.Add(append(cells, note)...)
	}
	t.Write(w, "  ")
}
