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
	M       [NumGroups][NumGroups]Elem
}

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
			su.Exec = max(su.Exec, a.Exec)
			su.Entries = max(su.Entries, a.Entries)
		}
		for _, c := range nd.children {
			cs := sum(c)
			addMatrix(&su.M, &cs.M)
			su.Idle += cs.Idle
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
				if i == j && i != int(User) {
					su.Calls += e.Calls
				}
			}
		}
		su.Exec /= 1e3
		su.Idle /= 1e3
		su.ProcTime = float64(n) * su.Exec
	}
	return out
}

func addMatrix(dst, src *[NumGroups][NumGroups]Elem) {
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

// Print writes the statistics as text (statistics on without a trace).
func Print(w io.Writer, sums []*Summary, n int) {
	for _, s := range sums {
		nd := s.Node
		fmt.Fprintf(w, "svmc: statistics: interval %d %q level %d: %d entries, %d processors\n", nd.ID, nd.Name, nd.Level, s.Entries, n)
		fmt.Fprintf(w, "svmc:   execution %.1f us, processor time %.1f us, productive %.1f us (user %.1f, runtime %.1f), lost %.1f us (user %.1f, runtime %.1f), idle %.1f us, efficiency %.3f, runtime calls %.1f\n",
			s.Exec, s.ProcTime, s.Productive(), s.OUPT, s.SPT, s.Lost(), s.OULT, s.SLT, s.Idle, s.Efficiency(), s.Calls)
		if s.Dissync > 0 {
			// RMT and RMTi (seed 000 §11.1.3): RMTi = IM[i][MsgPasGrp].ProductTime.
			var parts []string
			for i := range s.M {
				if d := s.M[i][MsgPas].Prod; d > 0 {
					parts = append(parts, fmt.Sprintf("%s %.1f us", GroupNames[i], d))
				}
			}
			fmt.Fprintf(w, "svmc:   real dissynchronisation of message passing (RMT) %.1f us; by calling group (RMTi): %s\n", s.Dissync, strings.Join(parts, ", "))
		}
		for i := range s.M {
			for j := range s.M[i] {
				e := s.M[i][j]
				if e.Calls == 0 && e.Prod == 0 && e.Lost == 0 {
					continue
				}
				prod := "productive"
				if j == int(MsgPas) {
					prod = "dissync   " // seed 000 §11.1.2: MsgPasGrp's ProductTime
				}
				fmt.Fprintf(w, "svmc:   %-26s <- %-26s calls %8.1f  %s %12.1f us  lost %12.1f us\n",
					GroupNames[j], GroupNames[i], e.Calls, prod, e.Prod, e.Lost)
			}
		}
	}
}
