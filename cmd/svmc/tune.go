package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/analysis"
)

// tuneCmd is OPAL's automatic mode run by svmc itself: run the program
// traced, report, run it again with the request the report wrote, until
// the request no longer changes (or the rounds are used up), and print
// the last report with the requests used.
func tuneCmd() *cobra.Command {
	var nprocs, rounds int
	var dir string
	var compare bool
	cmd := &cobra.Command{
		Use:   "tune [-n N] [--rounds 3] [--dir DIR] [package] [-- program arguments]",
		Short: "run, report and narrow the trace until the findings settle (OPAL's automatic mode)",
		Long: `svmc tune runs the program with a trace at the default stage, ranks the
bottlenecks, and runs it again with the trace request file the report wrote
(stage 0 and LOCAL requests for the regions of the top findings), until the
request no longer changes or --rounds runs were made. Each round's trace and
request stay in --dir (default svmc-tune); the last report is printed, after
a line per round: its request, records, trace size, time and top finding.
A first run without a trace gives the time each round's is set against
(its ratio to the untraced run is what tracing cost; --untraced=false
skips it).`,
		Example: `  svmc tune -n 4 .
  svmc tune -n 2 --rounds 2 --dir /tmp/t ./cmd/solver -- -size 1000`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var progArgs []string
			if n := cmd.ArgsLenAtDash(); n >= 0 {
				progArgs = args[n:]
				args = args[:n]
			}
			pattern, err := packageArg("tune", args, "")
			if err != nil {
				return err
			}
			if nprocs < 1 || rounds < 1 {
				return fmt.Errorf("tune: -n and --rounds must be at least 1")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			exe, done, err := buildInWork("svmc-run-", pattern, false, false, cmd.ErrOrStderr())
			defer done()
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			// The untraced run's time is what the traced ones are set
			// against: the report's estimate of what recording cost
			// cannot see a program that multiplies it (goroutines meeting
			// at a barrier between records: 3-4 times untraced where
			// the estimate said a third more).
			var untraced time.Duration
			if compare {
				prog := exec.Command(exe, progArgs...)
				prog.Env = append(os.Environ(), "SVMC_FLAG_NPROCS="+strconv.Itoa(nprocs), "SVMC_FLAG_TRACE=")
				prog.Stdin, prog.Stdout, prog.Stderr = os.Stdin, io.Discard, stderr
				t0 := time.Now()
				if err := runProgram(prog, stderr, "", true); err != nil {
					return fmt.Errorf("tune: the untraced run: %v", err)
				}
				untraced = time.Since(t0)
				fmt.Fprintf(stderr, "svmc tune: untraced: %s\n", secs(untraced))
			}
			var rep *analysis.Report
			req := ""
			for round := 1; round <= rounds; round++ {
				tr := filepath.Join(dir, fmt.Sprintf("round%d.sddf", round))
				prog := exec.Command(exe, progArgs...)
				prog.Env = append(os.Environ(), "SVMC_FLAG_NPROCS="+strconv.Itoa(nprocs), "SVMC_FLAG_TRACE="+tr)
				if req != "" {
					prog.Env = append(prog.Env, "SVMC_FLAG_REQUEST="+req)
				}
				prog.Stdin, prog.Stdout, prog.Stderr = os.Stdin, io.Discard, stderr
				t0 := time.Now()
				if err := runProgram(prog, stderr, tr, true); err != nil {
					return fmt.Errorf("tune: round %d: %v", round, err)
				}
				d := time.Since(t0)
				took := secs(d)
				if untraced > 0 {
					took += fmt.Sprintf(" (%.2f× untraced)", float64(d)/float64(untraced))
				}
				m, err := analysis.AnalyzeFile(tr, analysis.Options{})
				if err != nil {
					return fmt.Errorf("tune: round %d: %v", round, err)
				}
				rep = analysis.NewReport(tr, m, 3)
				size := int64(0)
				if fi, err := os.Stat(tr); err == nil {
					size = fi.Size()
				}
				top := "no findings above the threshold"
				if len(rep.Findings) > 0 {
					f := rep.Findings[0]
					top = fmt.Sprintf("%s %.1f%%: %s", f.Kind, 100*f.Severity, f.Title)
				}
				used := "the default stage"
				if req != "" {
					used = req
				}
				fmt.Fprintf(stderr, "svmc tune: round %d (%s): %d records, %s, %s; top: %s\n", round, used, m.Records, byteSize(size), took, top)
				next := filepath.Join(dir, fmt.Sprintf("round%d.req", round+1))
				if req != "" {
					if old, err := os.ReadFile(req); err == nil && sameRequest(old, []byte(rep.NextRequest)) {
						fmt.Fprintf(stderr, "svmc tune: converged: the report asks for the same request again\n")
						break
					}
				}
				if rep.NextRequest == "" || len(rep.Findings) == 0 {
					break
				}
				if round == rounds {
					break
				}
				if err := os.WriteFile(next, []byte(rep.NextRequest), 0o644); err != nil {
					return err
				}
				req = next
			}
			return analysis.WriteText(cmd.OutOrStdout(), rep)
		},
	}
	cmd.Flags().IntVarP(&nprocs, "nprocs", "n", 1, "number of processors")
	cmd.Flags().IntVar(&rounds, "rounds", 3, "most runs to make")
	cmd.Flags().BoolVar(&compare, "untraced", true, "run the program once untraced first, and give each round's time against it (--untraced=false: skip that run)")
	instrumentFlag(cmd)
	cmd.Flags().StringVar(&dir, "dir", "svmc-tune", "directory for the traces and requests of the rounds")
	return cmd
}

// secs is a run's time for people.
func secs(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// byteSize is a file size for people.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// sameRequest reports whether two request files ask for the same records:
// equal but for their comments (which quote the findings' severities).
func sameRequest(a, b []byte) bool {
	strip := func(x []byte) []byte {
		var out []byte
		for _, line := range bytes.SplitAfter(x, []byte("\n")) {
			if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
				out = append(out, line...)
			}
		}
		return out
	}
	return bytes.Equal(strip(a), strip(b))
}
