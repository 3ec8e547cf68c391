package main

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/view"
)

func reportCmd() *cobra.Command {
	var (
		info, format, nextReq string
		outPath               string
		findingsOnly          bool
		fileOrder             bool
		src                   string
		cost                  costFlags
	)
	cmd := &cobra.Command{
		Use: "report TRACE [--info FILE] [--format text|json|html] [-o FILE] [--findings] [--next-request FILE]",
		Example: `  svmc report t.sddf
  svmc report --findings --next-request next.req t.sddf
  svmc report --format html -o report.html t.sddf
  svmc trace convert --to binary - - < t.txt | svmc report -`,
		Short: "report time, load imbalance, waiting and bottlenecks of a trace",
		Long: `report reads a trace (ASCII or binary SDDF) and prints, tied to the source lines of the
program information file: time per trace region and processor (calls, inclusive and
exclusive), the parallel loops with their strategy, iterations and busy time per processor
and their load imbalance, the waiting at barriers, locks, critical sections and split
barriers per site and processor, and the productive and lost time of the run (Lib-DVM's
characteristics: imbalance, waiting, overhead, serial parts; efficiency = productive /
(N × run time)). The processors' records are put in a causally consistent order first,
and records whose clock contradicts it are counted.

The automatic search ranks the bottlenecks by severity = lost time / (N × run time) and
proposes a trace request file for the next, finer run (--next-request FILE writes it).

The program information comes from the trace (stream attribute "svmc program info") or
from --info FILE (svminfo.json, written by svmc compile).

	--format text    tables for the terminal (default)
	--format json    the whole model, findings and next request (stable field names)
	--format html    one self-contained page: svmc view's timeline and source view with the
	                 report in a tab beside the source (--src DIR embeds the source files)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "text", "json", "html":
			default:
				return fmt.Errorf("report: unknown --format %q (want text, json or html)", format)
			}
			in, err := openTrace(args[0])
			if err != nil {
				return fmt.Errorf("report: %v", err)
			}
			defer in.Close()
			f, path := in.f, in.name
			fi := struct{ size int64 }{in.size}
			prog, err := reportProgram(f, fi.size, path, info)
			if err != nil {
				return err
			}
			opt := analysis.Options{Prog: prog, FileOrder: fileOrder, Cost: cost.model(cmd)}
			// Progress on a terminal for large traces. The trace is then
			// read through a counting reader, not mapped (the copies cost
			// the decoders, not the merge that sets the pace).
			var read atomic.Int64
			var cr io.ReaderAt = f
			if showProgress(fi.size) {
				cr = &countingReaderAt{ra: f, n: &read}
				start, last := time.Now(), time.Now()
				size := readSize(f, fi.size, fileOrder)
				opt.Progress = func(records int64) {
					if time.Since(last) < 250*time.Millisecond {
						return
					}
					last = time.Now()
					frac := float64(read.Load()) / float64(size)
					fmt.Fprintf(os.Stderr, "\rsvmc report: %s: %3.0f%% read, %d records, %.0fs ", path, 100*min(frac, 1), records, time.Since(start).Seconds())
				}
				defer fmt.Fprintf(os.Stderr, "\r\033[K")
			}
			m, err := analysis.AnalyzeReaderAt(cr, fi.size, path, opt)
			if err != nil {
				return fmt.Errorf("report: %v", err)
			}
			rep := analysis.NewReport(path, m, 5)
			if findingsOnly {
				rep.Model = &analysis.Model{Program: m.Program, Procs: m.Procs, Stage: m.Stage, Records: m.Records,
					Start: m.Start, End: m.End, Duration: m.Duration, Time: m.Time, PerProc: m.PerProc, Order: m.Order, Warnings: m.Warnings,
					Ended: m.Ended}
			}
			if nextReq != "" {
				data := []byte(rep.NextRequest)
				if len(data) == 0 {
					data = []byte("# svmc report --findings: no findings above the threshold; nothing to refine\nCONFIG SVM_TraceStage: 1\n")
				}
				if err := writeResult("--next-request", nextReq, []string{args[0], info}, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
					return fmt.Errorf("report: --next-request: %v", err)
				}
			}
			write := func(out io.Writer) error {
				switch format {
				case "json":
					return analysis.WriteJSON(out, rep)
				case "html":
					return reportPage(out, rep, f, fi.size, path, prog, src)
				}
				return analysis.WriteText(out, rep)
			}
			if err := emit(cmd, outPath, []string{args[0], info, nextReq}, write); err != nil {
				return fmt.Errorf("report: writing the report: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&info, "info", "", "program information file (svminfo.json) to use instead of the trace's")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or html")
	cmd.Flags().StringVarP(&outPath, "out", "o", "", "write the report to `FILE` instead of standard output")
	cmd.Flags().StringVar(&src, "src", "", "with --format html: embed the program's source files, read from `DIR` (its package directory)")
	cmd.Flags().BoolVar(&findingsOnly, "findings", false, "print the summary and the findings only (no region, loop and waiting tables)")
	cmd.Flags().StringVar(&nextReq, "next-request", "", "write the trace request file for the next run of the top findings to FILE")
	cmd.Flags().BoolVar(&fileOrder, "file-order", false, "read the records in file order (skip the consistent order and its clock check)")
	cost.flags(cmd)
	return cmd
}

// costFlags set the machine the locality analysis predicts for; unset
// ones keep analysis.DefaultCost's figures.
type costFlags struct{ latency, bandwidth, message float64 }

func (c *costFlags) flags(cmd *cobra.Command) {
	d := analysis.DefaultCost
	cmd.Flags().Float64Var(&c.latency, "svm-latency", d.LatencyUs, "locality analysis: a remote page fault's fixed cost on the predicted machine, in microseconds")
	cmd.Flags().Float64Var(&c.bandwidth, "svm-bandwidth", d.MBps, "locality analysis: the predicted machine's page transfer bandwidth, in MB/s")
	cmd.Flags().Float64Var(&c.message, "svm-message", d.MsgUs, "locality analysis: one protocol message (a write fault that needs only the permission costs two), in microseconds")
}

// model is the cost model the flags give: the default, or the user's
// figures when any flag is set.
func (c *costFlags) model(cmd *cobra.Command) analysis.CostModel {
	m := analysis.DefaultCost
	for _, f := range []string{"svm-latency", "svm-bandwidth", "svm-message"} {
		if cmd.Flags().Changed(f) {
			m = analysis.CostModel{LatencyUs: c.latency, MBps: c.bandwidth, MsgUs: c.message, Source: "set with svmc report --svm-latency, --svm-bandwidth, --svm-message"}
			break
		}
	}
	return m
}

// reportProgram reads the program information: --info FILE, else the
// trace's stream attribute.
func reportProgram(f *os.File, size int64, path, info string) (*progdb.Program, error) {
	if info != "" {
		inf, err := os.Open(info)
		if err != nil {
			return nil, fmt.Errorf("report: --info: %v", err)
		}
		defer inf.Close()
		p, err := progdb.Read(inf, info)
		if err != nil {
			return nil, fmt.Errorf("report: %v", err)
		}
		return p, nil
	}
	rd, err := trace.NewNamedReader(io.NewSectionReader(f, 0, size), path)
	if err != nil {
		return nil, fmt.Errorf("report: %v", err)
	}
	p, err := analysis.ProgramInfo(rd.Attrs(), path)
	if err == analysis.ErrNoProgramInfo {
		return nil, fmt.Errorf("report: %s: %v; pass --info svminfo.json (written by svmc compile)", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("report: %v", err)
	}
	return p, nil
}

// readSize is how many bytes svmc report reads of a trace of size bytes,
// for its progress: a binary trace without a run index (a run killed
// before it closed its trace) is read twice, its index scan and then each
// processor's records; any other once.
func readSize(f io.ReaderAt, size int64, fileOrder bool) int64 {
	if head := make([]byte, 5); !fileOrder {
		if _, err := f.ReadAt(head, 0); err == nil && string(head) == "SDDFB" {
			if runs, _ := trace.ReadRunIndex(f, size); runs == nil {
				return 2 * size
			}
		}
	}
	return size
}

// countingReaderAt counts the bytes read, for the progress indicator.
type countingReaderAt struct {
	ra io.ReaderAt
	n  *atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ra.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// reportPage writes the HTML report: the view's page (timeline, source
// view annotated with the findings, selections) with the report in a tab.
func reportPage(w io.Writer, rep *analysis.Report, ra io.ReaderAt, size int64, name string, prog *progdb.Program, src string) error {
	tl, err := view.Build(ra, size, name, view.Options{Prog: prog})
	if err != nil {
		return err
	}
	if src != "" {
		missing, err := tl.ReadSources(src)
		if err != nil {
			return fmt.Errorf("--src: %v", err)
		}
		if len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "svmc report: --src %s: not found there: %s (listed without their text)\n", src, strings.Join(missing, ", "))
		}
	}
	for _, f := range rep.Findings {
		if f.Site.File != "" {
			tl.AddNote(view.Note{File: f.Site.File, Line: f.Site.Line, Class: "finding", Text: f.Title})
		}
	}
	var frag bytes.Buffer
	if err := analysis.WriteHTMLFragment(&frag, rep); err != nil {
		return err
	}
	return view.WritePage(w, tl, view.PageOptions{Title: "svmc report: " + name, Report: template.HTML(frag.String())})
}
