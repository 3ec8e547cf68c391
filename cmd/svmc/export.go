package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/export"
	"github.com/svmc/svmc/view"
)

func exportCmd() *cobra.Command {
	var format, out, info string
	cmd := &cobra.Command{
		Use: "export --format chrome|otf2|pprof TRACE -o OUT [--info FILE]",
		Example: `  svmc export --format chrome t.sddf -o t.json.gz     open in ui.perfetto.dev
  svmc export --format pprof t.sddf -o t.pb.gz && go tool pprof -top t.pb.gz
  svmc export --format otf2 t.sddf -o t.otf2dir          (an svmc built with -tags otf2)`,
		Short: "convert a trace for Perfetto / chrome://tracing (chrome) or Vampir / Scalasca (otf2)",
		Long: `export writes a trace (ASCII or binary SDDF) in a format that current viewers open.
The processors' records are put in a causally consistent order first and their
times corrected where a clock contradicts it, as in svmc view.

	--format chrome -o out.json   Chrome trace-event JSON (gzip-compressed for out.json.gz): one process for the run, one
	                              thread per processor, regions and waits as B/E slices,
	                              other records as instant events with the record in args.
	                              Open it in ui.perfetto.dev or chrome://tracing.
	--format otf2 -o DIR          an OTF2 archive DIR/traces.otf2: a location group (a process)
	                              per processor with one location, regions and waits as Enter/Leave
	                              with region roles (LOOP, BARRIER, IMPLICIT_BARRIER,
	                              CRITICAL, FUNCTION, ...), other records as markers.
	                              Needs an svmc built with the OTF2 library:
	                              apt-get install libotf2-trace-dev; go build -tags otf2 ./cmd/svmc

	--format pprof -o out.pb.gz   a pprof profile: time per stack of nested regions (exclusive,
	                              ns) and entries, per processor (label processor) and
	                              interval kind (label kind); regions are functions at their
	                              source lines: go tool pprof -top|-list|-http out.pb.gz
	                              (one processor: -tagfocus 'processor=^2$')

The program information comes from the trace (stream attribute "svmc program info")
or from --info FILE (svminfo.json, written by svmc compile).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "chrome", "otf2", "pprof":
			case "":
				return fmt.Errorf("export: --format is required (chrome, otf2 or pprof)")
			default:
				return fmt.Errorf("export: unknown --format %q (want chrome, otf2 or pprof)", format)
			}
			if out == "" {
				return fmt.Errorf("export: -o is required (a .json file for chrome, a directory for otf2, a .pb.gz file for pprof)")
			}
			if format == "otf2" && !export.OTF2Available {
				return fmt.Errorf("export: %v", export.ErrNoOTF2)
			}
			prog, err := readInfo("export", info)
			if err != nil {
				return err
			}
			path := args[0]
			in, err := openTrace(path)
			if err != nil {
				return fmt.Errorf("export: %v", err)
			}
			defer in.Close()
			ra, stop := readProgress("export", in.name, in.f, in.size)
			tl, err := view.Build(ra, in.size, in.name, view.Options{Prog: prog})
			stop()
			if err != nil {
				return fmt.Errorf("export: %v", err)
			}
			if format == "otf2" {
				if err := export.WriteOTF2(out, tl); err != nil {
					return fmt.Errorf("export: %v", err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "svmc export: wrote the OTF2 archive %s/%s.otf2: %d locations, %d intervals, %d markers\n",
					out, export.OTF2Archive, tl.Procs, len(tl.Intervals), len(tl.Instants))
				return nil
			}
			if format == "pprof" {
				if err := writeResult("-o", out, []string{path, info}, func(w io.Writer) error { return export.WritePprof(w, tl) }); err != nil {
					return fmt.Errorf("export: %v", err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "svmc export: wrote the pprof profile %s: %s, %d intervals (go tool pprof -top %s)\n",
					outName(out), lanesText(tl), len(tl.Intervals), out)
				return nil
			}
			// Streamed into the output (a temporary file renamed when
			// complete), gzip-compressed for a name ending in .gz: the JSON
			// of millions of records is never held in memory.
			if err := writeResult("-o", out, []string{path, info}, func(w io.Writer) error {
				if !strings.HasSuffix(out, ".gz") {
					return export.WriteChrome(w, tl)
				}
				zw := gzip.NewWriter(w)
				if err := export.WriteChrome(zw, tl); err != nil {
					return err
				}
				return zw.Close()
			}); err != nil {
				return fmt.Errorf("export: %v", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "svmc export: wrote %s: %d threads (%s), %d slices, %d instant events\n",
				outName(out), tl.Procs, lanesText(tl), len(tl.Intervals), len(tl.Instants))
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "output format: chrome, otf2 or pprof")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output: a JSON file (chrome) or a directory (otf2)")
	cmd.Flags().StringVar(&info, "info", "", "program information file (svminfo.json) to use instead of the trace's")
	return cmd
}

// lanesText counts tl's lanes: "2 processors", "2 processors and 5
// goroutine lanes".
func lanesText(tl *view.Timeline) string {
	g := tl.GoLanes()
	s := plural(tl.Procs-g, "processor")
	if g > 0 {
		s += " and " + plural(g, "goroutine lane")
	}
	return s
}

// plural is "1 processor", "2 processors".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
