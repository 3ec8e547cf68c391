package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/check"
)

func checkCmd() *cobra.Command {
	var (
		info, format, params, classes string
		outPath                       string
		maxErrors                     int
		times, noPotential, printTr   bool
	)
	cmd := &cobra.Command{
		Use: "check TRACE [--format text|json] [-o FILE] [--info FILE] [--max-errors N] [--classes LIST] [--params FILE]",
		Example: `  svmc run --check -n 4 --trace t.sddf . && svmc check t.sddf
  svmc check --format json t.sddf
  svmc check --classes "nonpaired send,real deadlock" t.sddf`,
		Short: "check a trace of message passing for errors (seed 003's correctness analyser)",
		Long: `check reads a trace of an svmc run (stage 3, or the MsgInfo request word) and writes its
protocol: the state of the run and of each processor at the end, every error with its
class, the processors, the calls with their parameters and the source line of each, call
counts per function and processor, and the program's message call sites.

Classes (seed 003's short names): abend, abort, incomplete call, unfinished send,
unfinished recv, nonfreed request, overlapping, send checksum, nonpaired send, nonpaired
recv, recv checksum, wrong send size, wrong data type, incomplete gop, unfinished gop,
wrong recv size, diff reductions, wrong root process, different order, real deadlock,
real hang-up, potential deadlock. The checksum classes need a run with --check (or
--msg-checksum 1).

--format json prints the errors as a JSON array of objects with class, severity,
processors, file, line (the call to change), message and calls. A parameter file
(--params FILE, "name = value" lines, # comments) may set max_errors, classes, times
and potential (1/0), as seed 003's analyser is controlled; flags override it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("check: unknown --format %q (want text or json)", format)
			}
			opt := check.Options{MaxErrors: maxErrors, NoPotential: noPotential}
			if params != "" {
				if err := checkParams(params, &opt, &times); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("max-errors") {
				opt.MaxErrors = maxErrors
				if maxErrors == 0 {
					opt.MaxErrors = -1
				}
			}
			if cmd.Flags().Changed("no-potential") {
				opt.NoPotential = noPotential
			}
			if classes != "" {
				cs, err := parseClasses(classes)
				if err != nil {
					return fmt.Errorf("check: --classes: %v", err)
				}
				opt.Classes = cs
			}
			in, err := openTrace(args[0])
			if err != nil {
				return fmt.Errorf("check: %v", err)
			}
			defer in.Close()
			prog, err := reportProgram(in.f, in.size, in.name, info)
			if err != nil {
				return err
			}
			opt.Prog = prog
			var tr *os.File
			if printTr && format == "text" {
				// The trace comes last in the protocol: keep it aside.
				if tr, err = os.CreateTemp("", "svmc-check-trace-*"); err != nil {
					return fmt.Errorf("check: %v", err)
				}
				defer os.Remove(tr.Name())
				defer tr.Close()
				bw := bufio.NewWriter(tr)
				defer bw.Flush()
				opt.TraceOut = bw
			}
			res, err := check.Analyze(in.f, in.size, in.name, opt)
			if err != nil {
				return fmt.Errorf("check: %v", err)
			}
			err = emit(cmd, outPath, []string{args[0], info, params}, func(out io.Writer) error {
				var err error
				if format == "json" {
					err = check.WriteJSON(out, res)
				} else {
					err = check.WriteText(out, in.name, res, check.PrintOptions{Times: times})
				}
				if err == nil && tr != nil {
					err = appendTrace(out, tr, opt.TraceOut.(*bufio.Writer))
				}
				return err
			})
			if err != nil {
				return fmt.Errorf("check: writing the protocol: %v", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&info, "info", "", "program information file (svminfo.json) to use instead of the trace's")
	f.StringVar(&format, "format", "text", "output: text (the protocol) or json (the errors)")
	f.StringVarP(&outPath, "out", "o", "", "write the protocol to `FILE` instead of standard output")
	f.IntVar(&maxErrors, "max-errors", 20, "errors printed per processor (0: no limit)")
	f.StringVar(&classes, "classes", "", "check only these classes (comma-separated)")
	f.StringVar(&params, "params", "", "parameter file of the analyser (max_errors, classes, times, potential)")
	f.BoolVar(&times, "times", false, "print the time of each stage of the analysis")
	f.BoolVar(&noPotential, "no-potential", false, "do not search for potential deadlocks")
	f.BoolVar(&printTr, "print-trace", false, "end the protocol with the trace as calls and returns (Trace printing)")
	return cmd
}

// parseClasses checks a comma-separated list of class names.
func parseClasses(s string) ([]string, error) {
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !slices.Contains(check.Classes, c) {
			return nil, fmt.Errorf("unknown class %q (the classes: %s)", c, strings.Join(check.Classes, ", "))
		}
		out = append(out, c)
	}
	return out, nil
}

// checkParams reads the analyser's parameter file.
func checkParams(path string, opt *check.Options, times *bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("check: --params: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %s", path, n, name, why) }
		if !ok {
			return fmt.Errorf("%s:%d: want name = value", path, n)
		}
		switch name {
		case "max_errors":
			v, err := strconv.Atoi(val)
			if err != nil || v < 0 {
				return bad("want a number >= 0 (0: no limit)")
			}
			opt.MaxErrors = v
			if v == 0 {
				opt.MaxErrors = -1
			}
		case "classes":
			cs, err := parseClasses(val)
			if err != nil {
				return bad(err.Error())
			}
			opt.Classes = cs
		case "times", "potential":
			b, err := strconv.ParseBool(val)
			if err != nil {
				return bad("want 1 or 0")
			}
			if name == "times" {
				*times = b
			} else {
				opt.NoPotential = !b
			}
		default:
			return fmt.Errorf("%s:%d: unknown parameter %q (max_errors, classes, times, potential)", path, n, name)
		}
	}
	return sc.Err()
}

// appendTrace copies the trace printing kept aside to the protocol.
func appendTrace(out io.Writer, tr *os.File, bw *bufio.Writer) error {
	if err := bw.Flush(); err != nil {
		return err
	}
	if _, err := tr.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.WriteString(out, "\n== Trace printing\n"); err != nil {
		return err
	}
	_, err := io.Copy(out, tr)
	return err
}
