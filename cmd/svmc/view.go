package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/check"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/view"
)

func viewCmd() *cobra.Command {
	var out, info, src, lod, serve string
	var checkErrs, findings bool
	cmd := &cobra.Command{
		Use: "view TRACE [-o out.html] [--info FILE]",
		Example: `  svmc view t.sddf                 writes t.html
  svmc view t.sddf -o /tmp/run.html
  svmc view - < t.sddf > run.html`,
		Short: "write a timeline of a trace as one self-contained HTML page",
		Long: `view reads a trace (ASCII or binary SDDF) and writes one HTML file that a browser opens
without a network: one lane per processor over time, trace regions as nested bars
coloured by kind (program, subroutine, pdo, section, replicated, exclusive, user),
waiting at barriers, split barriers, locks and critical sections hatched, every other
record as a tick. Zoom with the wheel or the buttons, pan by dragging; hovering shows
the records, their times and the source line (function, label, file:line). A panel
beside it gives the run time, busy and waiting time per processor and the top regions.

The processors' records are put in a causally consistent order first (a barrier's
exits are never drawn before its last entry); records whose clock contradicts the
order are drawn at the corrected time and counted in the panel.

The program information comes from the trace (stream attribute "svmc program info")
or from --info FILE (svminfo.json, written by svmc compile). Without -o the page is
written next to the trace, with the extension .html. --check marks the errors svmc check
finds (a red triangle on the lane of each processor involved, at its call).

Under the timeline, the source view lists the program's files with each line that a
construct, region, message call or shared access lies on annotated: inclusive time,
calls, imbalance of parallel loops, waiting, messages, page faults, the findings of
svmc report (--findings, on by default) and the errors of --check. Clicking a line
outlines its bars on the timeline; clicking a bar shows its line. --src DIR embeds the
text of the files (DIR is the program's package directory); without it only the
annotated lines are listed. Shift+drag on the timeline selects a part of the run and
the panel shows its statistics (per processor, region, wait site and messages).

A large trace (--lod auto: a binary trace of more than 64 MiB, about 1.7 million
records; --lod on: any binary trace) is drawn from summaries: one pass over the
processors' streams side by side gives, per lane, nesting depth and 4096th part of the
run, the kind of interval covering most of it; the page draws a bar per part (a 50
million-record trace: about 7 s on 2 cores, a page of a few MB). --serve ADDR serves that
page on ADDR (localhost:8080, or localhost:0 for any port) and, as one zooms in to a
part of at most 400 000 records, the records of that part, decoded from the buffer runs
that hold it. Such a page has no consistent order across processors (times are the
records' clocks), source view, findings or statistics of a selection: svmc report and
a view of a shorter run give those.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			prog, err := readInfo("view", info)
			if err != nil {
				return err
			}
			in, err := openTrace(path)
			if err != nil {
				return fmt.Errorf("view: %v", err)
			}
			defer in.Close()
			if large, err := largeTrace(lod, serve, in.f, in.size); err != nil {
				return err
			} else if large {
				return viewLOD(cmd, path, out, serve, in.f, in.size, in.name, prog)
			}
			ra, stop := readProgress("view", in.name, in.f, in.size)
			tl, err := view.Build(ra, in.size, in.name, view.Options{Prog: prog})
			stop()
			if err != nil {
				return fmt.Errorf("view: %v", err)
			}
			if src != "" {
				missing, err := tl.ReadSources(src)
				if err != nil {
					return fmt.Errorf("view: --src: %v", err)
				}
				if len(missing) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "svmc view: --src %s: not found there: %s (listed without their text)\n", src, strings.Join(missing, ", "))
				}
			}
			if findings {
				m, err := analysis.AnalyzeReaderAt(in.f, in.size, in.name, analysis.Options{Prog: prog})
				if err != nil {
					return fmt.Errorf("view: --findings: %v", err)
				}
				for _, f := range analysis.Findings(m) {
					if f.Site.File != "" {
						tl.AddNote(view.Note{File: f.Site.File, Line: f.Site.Line, Class: "finding", Text: f.Title})
					}
				}
			}
			if checkErrs {
				res, err := check.Analyze(in.f, in.size, in.name, check.Options{Prog: prog})
				if err != nil {
					return fmt.Errorf("view: --check: %v", err)
				}
				var errs []view.Error
				for _, d := range res.Diagnoses {
					errs = append(errs, view.Error{Class: d.Class, Message: d.Message, File: d.File, Line: d.Line, Procs: d.Processors})
				}
				tl.MarkErrors(errs)
			}
			if out == "" && path == "-" {
				out = "-" // a trace from standard input: the page to standard output
			}
			if out == "" {
				out = strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
			}
			if err := writeResult("-o", out, []string{path, info}, func(w io.Writer) error { return view.WriteHTML(w, tl) }); err != nil {
				return fmt.Errorf("view: %v", err)
			}
			lanes := ""
			if g := tl.GoLanes(); g > 0 {
				lanes = fmt.Sprintf(" and %d goroutine lanes", g)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "svmc view: wrote %s: %d processors%s, %d intervals (%d waiting), %d events\n",
				outName(out), tl.Procs-tl.GoLanes(), lanes, len(tl.Intervals), tl.Waits(), len(tl.Instants))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "HTML file to write (default: the trace's name with .html)")
	cmd.Flags().StringVar(&info, "info", "", "program information file (svminfo.json) to use instead of the trace's")
	cmd.Flags().BoolVar(&checkErrs, "check", false, "mark the errors svmc check finds on the lanes and their source lines")
	cmd.Flags().BoolVar(&findings, "findings", true, "annotate the source lines with the findings of svmc report")
	cmd.Flags().StringVar(&src, "src", "", "embed the program's source files, read from `DIR` (its package directory)")
	cmd.Flags().StringVar(&lod, "lod", "auto", "draw the trace from summaries: auto (a binary trace of more than 64 MiB), on or off")
	cmd.Flags().StringVar(&serve, "serve", "", "serve the summarised page on `ADDR` (localhost:8080) with the records of the part one zooms into")
	return cmd
}

// readInfo reads --info FILE; "" means: take it from the trace.
func readInfo(command, info string) (*progdb.Program, error) {
	if info == "" {
		return nil, nil
	}
	f, err := os.Open(info)
	if err != nil {
		return nil, fmt.Errorf("%s: --info: %v", command, err)
	}
	defer f.Close()
	p, err := progdb.Read(f, info)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", command, err)
	}
	return p, nil
}

// lodThreshold is the size of a binary trace above which --lod auto draws
// it from summaries: about 1.7 million records, a page Build makes in ten
// seconds or so.
const lodThreshold = 64 << 20

// largeTrace says whether the trace is drawn from summaries (--lod,
// --serve).
func largeTrace(lod, serve string, ra io.ReaderAt, size int64) (bool, error) {
	binary := false
	head := make([]byte, 5)
	if n, _ := ra.ReadAt(head, 0); n == 5 && string(head) == "SDDFB" {
		binary = true
	}
	switch lod {
	case "on":
		if !binary {
			return false, fmt.Errorf("view: --lod on draws binary traces (svmc trace convert --to binary)")
		}
		return true, nil
	case "off":
		if serve != "" {
			return false, fmt.Errorf("view: --serve draws from summaries: it cannot be used with --lod off")
		}
		return false, nil
	case "auto":
		if serve != "" && !binary {
			return false, fmt.Errorf("view: --serve draws binary traces (svmc trace convert --to binary)")
		}
		return serve != "" || binary && size > lodThreshold, nil
	}
	return false, fmt.Errorf("view: --lod %s: want auto, on or off", lod)
}

// viewLOD writes or serves the summarised page of a large trace.
func viewLOD(cmd *cobra.Command, path, out, serve string, ra io.ReaderAt, size int64, name string, prog *progdb.Program) error {
	t0 := time.Now()
	l, err := view.BuildLOD(ra, size, name, view.Options{Prog: prog}, 0)
	if err != nil {
		return fmt.Errorf("view: %v", err)
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "svmc view: %s: %d records on %d lanes summarised in %.1f s\n", name, l.Records, l.Procs, time.Since(t0).Seconds())
	if serve != "" {
		ln, err := net.Listen("tcp", serve)
		if err != nil {
			return fmt.Errorf("view: --serve %s: %v", serve, err)
		}
		fmt.Fprintf(stderr, "svmc view: serving http://%s/ (interrupt to stop)\n", ln.Addr())
		return http.Serve(ln, view.LODHandler(l))
	}
	if out == "" && path == "-" {
		out = "-"
	}
	if out == "" {
		out = strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
	}
	if err := writeResult("-o", out, []string{path}, func(w io.Writer) error { return view.WriteLODPage(w, l, false) }); err != nil {
		return fmt.Errorf("view: %v", err)
	}
	fmt.Fprintf(stderr, "svmc view: wrote %s: %d lanes drawn from summaries (svmc view --serve draws the records where one zooms in)\n", outName(out), l.Procs)
	return nil
}
