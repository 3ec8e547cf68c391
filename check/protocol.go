package check

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/svmc/svmc/trace"
)

// PrintOptions choose what the protocol shows besides the errors.
type PrintOptions struct {
	Times bool // the stages with their times
	Trace bool // the whole trace as calls and returns (TraceLines)
}

// WriteText writes the protocol as seed 003 lays it out: its stages in
// order, the state of the task and of each processor at the end, the
// errors with their operations and source positions, call counts and the
// source points.
func WriteText(w io.Writer, name string, res *Result, po PrintOptions) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "svmc check: protocol of %s\n", name)
	fmt.Fprintf(ew, "\n== Analyzer initialization and trace reading\n")
	fmt.Fprintf(ew, "  %d records of %d processors\n", res.Records, res.Procs)
	if po.Times {
		for _, st := range res.Stages {
			fmt.Fprintf(ew, "  %-48s %.3f s\n", st.Name, st.Seconds)
		}
	}
	if !res.Checksums && len(res.Sites) > 0 {
		fmt.Fprintf(ew, "  note: the trace has no buffer checksums: send checksum and recv checksum cannot be found (run with svmc run --check)\n")
	}
	fmt.Fprintf(ew, "\n== Task state and error printing\n")
	fmt.Fprintf(ew, "  task: %s\n", endText(res.Ended))
	for p, s := range res.ProcState {
		fmt.Fprintf(ew, "  processor %d: %s\n", p, s)
	}
	if res.Lanes > 0 {
		fmt.Fprintf(ew, "  goroutine lanes: %d (goroutines the processors started; their work is their processors')\n", res.Lanes)
	}
	var plain, dead []*Diagnosis
	for _, d := range res.Diagnoses {
		switch d.Class {
		case RealDeadlock, RealHangup, PotentialDeadlk, PotentialHangup:
			dead = append(dead, d)
		default:
			plain = append(plain, d)
		}
	}
	fmt.Fprintf(ew, "\n  %s\n", counted(plain))
	printDiagnoses(ew, plain)
	for p, n := range res.Suppressed {
		fmt.Fprintf(ew, "  processor %d reached the limit of errors: %d more not printed (max_errors)\n", p, n)
	}
	fmt.Fprintf(ew, "\n== Deadlock printing\n  %s\n", counted(dead))
	printDiagnoses(ew, dead)
	if res.OpsCut {
		fmt.Fprintf(ew, "  note: potential deadlocks were searched among the first %d blocking operations only (memory bound)\n", MaxOps)
	}
	fmt.Fprintf(ew, "\n== Call statistics (count, time; per processor)\n")
	for _, c := range res.Calls {
		var pp []string
		for p, n := range c.PerProc {
			pp = append(pp, fmt.Sprintf("p%d %d/%.1fµs", p, n, c.TimePP[p]))
		}
		fmt.Fprintf(ew, "  %-14s %8d %12.1f µs   %s\n", c.Func, c.Count, c.Time, strings.Join(pp, " "))
	}
	fmt.Fprintf(ew, "\n== Source points\n")
	for _, s := range res.Sites {
		calls := "calls"
		if s.Calls == 1 {
			calls = "call"
		}
		fmt.Fprintf(ew, "  %4d  %-14s %-22s %d %s\n", s.Site, s.Func, s.Where, s.Calls, calls)
	}
	return ew.err
}

func counted(ds []*Diagnosis) string {
	errs, warns := 0, 0
	for _, d := range ds {
		if d.Severity == severityWarning {
			warns++
		} else {
			errs++
		}
	}
	return fmt.Sprintf("%d errors, %d warnings", errs, warns)
}

func printDiagnoses(ew io.Writer, ds []*Diagnosis) {
	for i, d := range ds {
		where := d.File
		if d.Line > 0 {
			where = fmt.Sprintf("%s:%d", d.File, d.Line)
		}
		if where == "" {
			where = "-"
		}
		fmt.Fprintf(ew, "  %d. %s: %s [%s] processors %v\n     %s\n", i+1, where, d.Class, d.Severity, d.Processors, d.Message)
		for _, c := range d.Calls {
			fmt.Fprintf(ew, "       %s\n", c)
		}
	}
}

func endText(e End) string {
	if !e.Recorded {
		return "no trace-end record: the run was killed or the trace is cut"
	}
	names := map[int]string{trace.EndNormal: "ended normally", trace.EndError: "stopped by a run-time error",
		trace.EndPanic: "stopped by a panic (abend)", trace.EndDeadlock: "stopped in a deadlock",
		trace.EndInterrupt: "interrupted (SIGINT)", trace.EndTerminate: "terminated (SIGTERM)", trace.EndExit: "exited with a status"}
	t := names[e.Status]
	if t == "" {
		t = fmt.Sprintf("status %d", e.Status)
	}
	if e.Message != "" {
		first, _, _ := strings.Cut(e.Message, "\n")
		t += ": " + first
	}
	return t
}

// WriteJSON writes the diagnoses as a JSON array.
func WriteJSON(w io.Writer, res *Result) error {
	ds := res.Diagnoses
	if ds == nil {
		ds = []*Diagnosis{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(ds)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}
