package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/analysis"
	"github.com/svmc/svmc/diff"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/view"
)

func diffCmd() *cobra.Command {
	var format, outPath string
	cmd := &cobra.Command{
		Use:   "diff [--format text|json|html] [-o FILE] A B [C ...] | A1 A2 ... -- B1 B2 ...",
		Short: "compare two traces of a program: time, imbalance and findings region by region, and the scaling from A to B",
		Long: `diff compares trace B with trace A of the same program (the program information of
both is compared first, and a difference is said plainly): each region's time on its
slowest processor side by side with the change and the speedup, with the scaling
efficiency when the numbers of processors differ (a region below 0.5 "stops scaling"),
each parallel loop's imbalance and lost time, and the findings that appeared or vanished.
Typical: the same program at -n 2 and -n 4, or before and after a change. With more
than two traces (-n 1, 2, 4, ...) it prints the scaling table: each region's time in
every run, with its efficiency against the first, and where scaling stops.
With several runs a side (A1 A2 ... -- B1 B2 ...) each region's median time on each
side, its spread and whether the change exceeds the runs' noise (Mann-Whitney U test,
p < 0.05, as benchstat does; 4 runs a side at least); the rest compares A1 with B1.`,
		Example: `  svmc run -n 2 --trace n2.sddf . && svmc run -n 4 --trace n4.sddf .
  svmc diff n2.sddf n4.sddf
  svmc diff n1.sddf n2.sddf n4.sddf        (the scaling table)
  svmc diff old1.sddf old2.sddf old3.sddf old4.sddf -- new1.sddf new2.sddf new3.sddf new4.sddf`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" && format != "html" {
				return fmt.Errorf("diff: unknown --format %q (want text, json or html)", format)
			}
			dash := cmd.ArgsLenAtDash()
			if dash == 0 || dash == len(args) {
				return fmt.Errorf("diff: A... -- B... needs at least one trace on each side of --")
			}
			models := make([]*analysis.Model, len(args))
			progs := make([]*progdb.Program, len(args))
			for i, path := range args {
				in, err := openTrace(path)
				if err != nil {
					return fmt.Errorf("diff: %v", err)
				}
				prog, err := reportProgram(in.f, in.size, in.name, "")
				if err != nil {
					in.Close()
					return err
				}
				m, err := analysis.AnalyzeReaderAt(in.f, in.size, in.name, analysis.Options{Prog: prog})
				in.Close()
				if err != nil {
					return fmt.Errorf("diff: %v", err)
				}
				models[i], progs[i] = m, prog
			}
			if dash < 0 && len(args) > 2 {
				sc := diff.Scale(args, models, progs)
				return emit(cmd, outPath, args, func(w io.Writer) error {
					if format == "json" {
						return sc.WriteJSON(w)
					}
					sc.WriteText(w)
					return nil
				})
			}
			ia, ib := 0, 1 // the runs compared in detail: the first of each side
			if dash > 0 {
				ib = dash
			}
			r := diff.Compare(args[ia], args[ib], models[ia], models[ib], progs[ia], progs[ib])
			if dash > 0 && (dash > 1 || len(args)-dash > 1) {
				r.Noise = diff.CompareRuns(models[:dash], models[dash:])
			}
			var flows [2]*diff.Flow
			for i, k := range []int{ia, ib} {
				in, err := openTrace(args[k])
				if err != nil {
					return fmt.Errorf("diff: %v", err)
				}
				rd, err := trace.NewNamedReader(io.NewSectionReader(in.f, 0, in.size), in.name)
				if err == nil {
					flows[i], err = diff.ReadFlow(rd)
				}
				in.Close()
				if err != nil {
					return fmt.Errorf("diff: %v", err)
				}
			}
			r.Behaviour = diff.CompareFlows(flows[0], flows[1], progs[ia])
			var tls [2]*view.Timeline
			if format == "html" {
				// Both timelines on one time axis, the comparison beside.
				for i, k := range []int{ia, ib} {
					tl, err := view.BuildFile(args[k], view.Options{})
					if err != nil {
						return fmt.Errorf("diff: %v", err)
					}
					tls[i] = tl
				}
			}
			return emit(cmd, outPath, args, func(w io.Writer) error {
				switch format {
				case "json":
					return r.WriteJSON(w)
				case "html":
					var note strings.Builder
					r.WriteText(&note)
					return view.WriteHTML(w, view.Merge(tls[0], tls[1], note.String()))
				}
				r.WriteText(w)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, json or html (one page: both timelines on one time axis, lanes A P0.. and B P0.., the comparison beside)")
	cmd.Flags().StringVarP(&outPath, "out", "o", "", "write the comparison to `FILE` instead of standard output")
	return cmd
}
