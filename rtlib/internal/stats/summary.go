package stats

import (
	"fmt"
	"io"
	"strings"

	"github.com/svmc/svmc/trace"
)

// Summary is the summary characteristics of an interval (seed 000
// §11.1.3), times in microseconds.
type Summary struct {
	Node       *Node
	Entries    int
	Exec       float64 // execution time: the longest of the processors' entries
	ProcTime   float64 // processors × Exec
	OUPT, OULT float64 // the user program's own productive and lost time
	SPT, SLT   float64 // runtime functions called by it
	Idle       float64
	Calls      float64 // runtime calls made directly by the user program
	// Dissync is the real dissynchronisation of message passing (RMT,
	// seed 000 §11.1.2): MsgPasGrp's ProductTime, which is no productive
	// time and so is not in SPT.
	Dissync float64
	M       Matrix
	// By group (seed 000 §11.1.3): Direct[i] sums row i, the functions of
	// group i the user program called and what they called (SPTi, SLTi);
	// Own[j] sums column j, group j's own time wherever it was called
	// from; Direct[i].Calls is IM[UserGrp][i], the calls the user program
	// made directly per processor. For MsgPasGrp the productive figures
	// are real dissynchronisation (RMTi in Direct[i]'s column, see
	// DissyncOf).
	Direct, Own [NumGroups]Elem
	// TimeVar and PotSync (µs): time variation and potential
	// dissynchronisation of the collective operations (IsTimeVariation).
	TimeVar, PotSync float64
}

// DissyncOf is RMTi, the real dissynchronisation of message passing when
// called from group i: IM[i][MsgPasGrp].ProductTime.
func (s *Summary) DissyncOf(i Group) float64 { return s.M[i][MsgPas].Prod }

// Productive is the user program's and the runtime's productive time.
func (s *Summary) Productive() float64 { return s.OUPT + s.SPT }

// Lost is the user program's and the runtime's lost time.
func (s *Summary) Lost() float64 { return s.OULT + s.SLT }

// Efficiency is Productive / ProcTime.
func (s *Summary) Efficiency() float64 {
	if s.ProcTime <= 0 {
		return 0
	}
	return s.Productive() / s.ProcTime
}

// Summarize sums every interval over the processors that stopped (done),
// the nested intervals included in the enclosing ones. rootExec is the run's
// wall time in ns.
func (s *Run) Summarize(done []bool, rootExec float64) []*Summary {
	s.mu.Lock() // a processor that did not stop may still add intervals
	defer s.mu.Unlock()
	n := len(done)
	// A processor that stopped before the run's end idled in the program
	// until it: its processor time is the run's too (a preemption between
	// its last charge and the end left up to 7% of a short run uncounted).
	for pid, p := range s.procs {
		if pid < n && done[pid] {
			if tail := s.start + int64(rootExec) - p.last; tail > 0 {
				s.root.Acc[pid].Idle += float64(tail)
				p.last += tail
			}
		}
	}
	out := make([]*Summary, len(s.nodes))
	var sum func(nd *Node) *Summary
	sum = func(nd *Node) *Summary {
		su := &Summary{Node: nd}
		for pid := range nd.Acc {
			if !done[pid] {
				continue
			}
			a := &nd.Acc[pid]
			addMatrix(&su.M, &a.M)
			su.Idle += a.Idle
			su.TimeVar += a.TimeVar
			su.PotSync += a.PotSync
			su.Exec = max(su.Exec, a.Exec)
			su.Entries = max(su.Entries, a.Entries)
		}
		for _, c := range nd.children {
			cs := sum(c)
			addMatrix(&su.M, &cs.M)
			su.Idle += cs.Idle
			su.TimeVar += cs.TimeVar
			su.PotSync += cs.PotSync
		}
		out[nd.ID] = su
		return su
	}
	sum(s.root)
	for _, su := range out {
		if su.Node == s.root {
			su.Exec, su.Entries = rootExec, 1
		}
		for i := range su.M {
			for j := range su.M[i] {
				e := &su.M[i][j]
				e.Prod /= 1e3
				e.Lost /= 1e3
				if i == int(User) && j != int(User) {
					e.Calls /= float64(n) // per processor (§11.1.1)
					su.Calls += e.Calls
				}
				switch {
				case j == int(MsgPas):
					su.Dissync += e.Prod
					su.SLT += e.Lost
				case i == int(User) && j == int(User):
					su.OUPT, su.OULT = e.Prod, e.Lost
				default:
					su.SPT += e.Prod
					su.SLT += e.Lost
				}
				if i != int(User) {
					su.Direct[i].Prod += e.Prod
					su.Direct[i].Lost += e.Lost
				}
				su.Own[j].Calls += e.Calls
				su.Own[j].Prod += e.Prod
				su.Own[j].Lost += e.Lost
			}
		}
		for j := range su.Direct {
			if j != int(User) {
				su.Direct[j].Calls = su.M[User][j].Calls
				su.Own[j].Calls -= su.M[User][j].Calls // the UserGrp row's counts are not calls of j by a group
			}
		}
		su.Exec /= 1e3
		su.Idle /= 1e3
		su.TimeVar /= 1e3
		su.PotSync /= 1e3
		su.ProcTime = float64(n) * su.Exec
	}
	return out
}

func addMatrix(dst, src *Matrix) {
	for i := range src {
		for j := range src[i] {
			e := src[i][j]
			dst[i][j].Calls += e.Calls
			dst[i][j].Prod += e.Prod
			dst[i][j].Lost += e.Lost
		}
	}
}

// Records appends the statistics records to b: per interval (in creation
// order, the program first) stat-interval, then stat-group for every
// element of its matrix with a call or time. Names are cut to maxName
// bytes.
func Records(b *trace.Buf, sums []*Summary, n int, clock float64, maxName int) {
	for _, s := range sums {
		nd := s.Node
		parent := -1
		if nd.Parent != nil {
			parent = nd.Parent.ID
		}
		name := nd.Name
		if len(name) > maxName {
			name = name[:maxName]
		}
		b.Begin(trace.TagStatInterval, 0, clock)
		b.Int(nd.ID)
		b.Int(parent)
		b.Int(nd.Level)
		b.Chars(name)
		b.Int(s.Entries)
		b.Int(n)
		b.Double(s.Exec)
		b.Double(s.ProcTime)
		b.Double(s.OUPT)
		b.Double(s.OULT)
		b.Double(s.SPT)
		b.Double(s.SLT)
		b.Double(s.Productive())
		b.Double(s.Lost())
		b.Double(s.Idle)
		b.Double(s.Calls)
		b.Double(s.Efficiency())
		b.Double(s.Dissync)
		b.Double(s.TimeVar)
		b.Double(s.PotSync)
		b.End()
		for i := range s.M {
			for j := range s.M[i] {
				e := s.M[i][j]
				if e.Calls == 0 && e.Prod == 0 && e.Lost == 0 {
					continue
				}
				b.Begin(trace.TagStatGroup, 0, clock)
				b.Int(nd.ID)
				b.Int(i)
				b.Int(j)
				b.Chars(GroupNames[j])
				b.Double(e.Calls)
				b.Double(e.Prod)
				b.Double(e.Lost)
				b.End()
			}
		}
	}
}

// Print writes the statistics as text (statistics on without a trace, and
// StatFileName), laid out as seed 000 §11.1: per interval the summary
// characteristics of §11.1.3 under their names, the figures by group and
// the interval matrix IM.
func Print(w io.Writer, sums []*Summary, n int) {
	for _, s := range sums {
		nd := s.Node
		fmt.Fprintf(w, "svmc: statistics: interval %d %q level %d: %d entries, %d processors\n", nd.ID, nd.Name, nd.Level, s.Entries, n)
		fmt.Fprintf(w, "svmc:   execution %.1f us, processor time %.1f us, idle %.1f us, efficiency %.3f\n", s.Exec, s.ProcTime, s.Idle, s.Efficiency())
		fmt.Fprintf(w, "svmc:   OUPT %.1f us  OULT %.1f us  SPT %.1f us  SLT %.1f us  UPT = OUPT + SPT %.1f us  ULT = OULT + SLT %.1f us  calls (UserGrp row) %.1f\n",
			s.OUPT, s.OULT, s.SPT, s.SLT, s.Productive(), s.Lost(), s.Calls)
		if s.Dissync > 0 {
			var parts []string
			for i := range s.M {
				if d := s.DissyncOf(Group(i)); d > 0 {
					parts = append(parts, fmt.Sprintf("%s %.1f us", GroupNames[i], d))
				}
			}
			fmt.Fprintf(w, "svmc:   RMT %.1f us (real dissynchronisation of message passing); RMTi: %s\n", s.Dissync, strings.Join(parts, ", "))
		}
		if s.TimeVar > 0 || s.PotSync > 0 {
			fmt.Fprintf(w, "svmc:   time variation %.1f us, potential dissynchronisation %.1f us (collective operations)\n", s.TimeVar, s.PotSync)
		}
		fmt.Fprintf(w, "svmc:   %-12s %10s %14s %14s %16s %14s\n", "group", "calls", "SPTi us", "SLTi us", "own prod us", "own time us")
		for g := range s.Direct {
			d, o := s.Direct[g], s.Own[g]
			if g == int(User) || d.Calls == 0 && d.Prod == 0 && d.Lost == 0 && o.Prod == 0 && o.Lost == 0 {
				continue
			}
			fmt.Fprintf(w, "svmc:   %-12s %10.1f %14.1f %14.1f %16.1f %14.1f\n", GroupNames[g], d.Calls, d.Prod, d.Lost, o.Prod, o.Prod+o.Lost)
		}
		fmt.Fprintf(w, "svmc:   IM[row][column]: row the group the user program called, column the group whose code ran\n")
		for i := range s.M {
			for j := range s.M[i] {
				e := s.M[i][j]
				if e.Calls == 0 && e.Prod == 0 && e.Lost == 0 {
					continue
				}
				prod := "ProductTime"
				if j == int(MsgPas) {
					prod = "dissync    " // seed 000 §11.1.2: MsgPasGrp's ProductTime
				}
				fmt.Fprintf(w, "svmc:   IM[%-11s][%-11s] CallCount %8.1f  %s %12.1f us  LostTime %12.1f us\n",
					GroupNames[i], GroupNames[j], e.Calls, prod, e.Prod, e.Lost)
			}
		}
	}
}

// PrintTaskInter writes Lib-DVM's TaskInter matrix (seed 000 §11.1.4: the
// whole run, uncorrected by the number of processors) as TimeExpendPrint
// mode asks: 1 the brief figures — System Time (the runtime's wall time
// from its start to the processors' end), Task Time (the processors' time,
// summed) and the Function Time in it (runtime functions, busy or
// waiting); 2 also the column that sums the matrix's columns (per row i,
// everything group i's direct calls cost); 3 the row that sums its rows
// (per column j, group j's own figures); 4 the column of group grp; 5 its
// row. Times in ns, printed in µs.
func PrintTaskInter(w io.Writer, m *Matrix, idleNs, systemNs float64, mode, grp int) {
	if mode <= 0 {
		return
	}
	var task, fn float64
	for i := range m {
		for j := range m[i] {
			t := m[i][j].Prod + m[i][j].Lost
			task += t
			if i != int(User) || j != int(User) {
				fn += t
			}
		}
	}
	task += idleNs
	fmt.Fprintf(w, "svmc: TaskInter (TimeExpendPrint %d): System Time %.1f us, Task Time %.1f us, Function Time %.1f us (idle %.1f us)\n",
		mode, systemNs/1e3, task/1e3, fn/1e3, idleNs/1e3)
	line := func(label string, e Elem) {
		if e.Calls == 0 && e.Prod == 0 && e.Lost == 0 {
			return
		}
		fmt.Fprintf(w, "svmc:   %-26s CallCount %10.0f  ProductTime %12.1f us  LostTime %12.1f us\n", label, e.Calls, e.Prod/1e3, e.Lost/1e3)
	}
	for k := range NumGroups {
		var e Elem
		var label string
		switch mode {
		case 2: // the column that sums the columns: element k sums row k
			for j := range m[k] {
				e = addElem(e, m[k][j])
			}
			label = "sum of columns [" + GroupNames[k] + "]"
		case 3: // the row that sums the rows: element k sums column k
			for i := range m {
				x := m[i][k]
				if i == int(User) && k != int(User) {
					x.Calls = 0 // the UserGrp row counts the same calls again, as direct ones
				}
				e = addElem(e, x)
			}
			label = "sum of rows [" + GroupNames[k] + "]"
		case 4:
			e, label = m[k][grp], "["+GroupNames[k]+"]["+GroupNames[grp]+"]"
		case 5:
			e, label = m[grp][k], "["+GroupNames[grp]+"]["+GroupNames[k]+"]"
		default:
			return
		}
		line(label, e)
	}
}

func addElem(a, b Elem) Elem { return Elem{a.Calls + b.Calls, a.Prod + b.Prod, a.Lost + b.Lost} }
