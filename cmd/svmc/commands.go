package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/codegen"
	"github.com/svmc/svmc/trace"
)

func compileCmd() *cobra.Command {
	var outDir string
	cmd := &cobra.Command{
		Use:   "compile -o DIR [package]",
		Short: "write the instrumented package and its program information file into DIR",
		Long: `compile checks the directives of a package main, numbers its subprograms, directives,
trace regions and shared variables, and writes into DIR the instrumented Go files
(gofmt-ed, marked "Code generated ... DO NOT EDIT."), svm_tables.go and svminfo.json.
DIR is a package of its own that builds with 'go build' in a module that can import
github.com/svmc/svmc/rtlib. Use it from a //go:generate line:

	//go:generate go run github.com/svmc/svmc/cmd/svmc compile -o ./svm .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if outDir == "" {
				return fmt.Errorf("compile needs -o DIR, the directory to write the instrumented package to")
			}
			pattern := "."
			if len(args) == 1 {
				pattern = args[0]
			}
			p, err := compilePackage(pattern, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			out, err := codegen.Generate(p, outDir)
			if err != nil {
				return err
			}
			return writeOutput(out, outDir)
		},
	}
	cmd.Flags().StringVarP(&outDir, "out", "o", "", "directory to write the instrumented package to")
	return cmd
}

func runCmd() *cobra.Command {
	var (
		nprocs          int
		tracePath, fmtS string
		stage           int
		request         string
		keep            bool
	)
	cmd := &cobra.Command{
		Use:   "run [flags] [package] [-- program arguments]",
		Short: "compile a package, build it against rtlib and run it on N processors",
		Long: `run compiles the package source to source, builds it against the runtime embedded in
this svmc (offline; the package may live in any module) and runs it. Every flag has an
environment twin that the built program reads itself:

	-n           SVMC_NPROCS    number of processors (default 1)
	--trace      SVMC_TRACE     trace file to write (no trace without it)
	--format     SVMC_FORMAT    ascii or binary SDDF (default binary)
	--stage      SVMC_STAGE     tracing stage 0-6 (default 3 with a trace)
	--request    SVMC_REQUEST   trace request file (CONFIG entries)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			pattern, progArgs := ".", []string(nil)
			dash := cmd.ArgsLenAtDash()
			pkgArgs := args
			if dash >= 0 {
				pkgArgs, progArgs = args[:dash], args[dash:]
			}
			switch len(pkgArgs) {
			case 0:
			case 1:
				pattern = pkgArgs[0]
			default:
				return fmt.Errorf("run takes one package; put program arguments after --")
			}
			env := os.Environ()
			if cmd.Flags().Changed("n") {
				if nprocs < 1 {
					return fmt.Errorf("-n %d: want a positive number of processors", nprocs)
				}
				env = append(env, "SVMC_NPROCS="+strconv.Itoa(nprocs))
			}
			if tracePath != "" {
				env = append(env, "SVMC_TRACE="+tracePath)
			}
			if fmtS != "" {
				if _, err := trace.ParseFormat(fmtS); err != nil {
					return fmt.Errorf("--format %s: want ascii or binary", fmtS)
				}
				env = append(env, "SVMC_FORMAT="+fmtS)
			}
			if cmd.Flags().Changed("stage") {
				if stage < 0 || stage > 6 {
					return fmt.Errorf("--stage %d: want a stage from 0 to 6", stage)
				}
				env = append(env, "SVMC_STAGE="+strconv.Itoa(stage))
			}
			if request != "" {
				if _, err := os.Stat(request); err != nil {
					return fmt.Errorf("--request %s: %v", request, err)
				}
				env = append(env, "SVMC_REQUEST="+request)
			}
			work, err := os.MkdirTemp("", "svmc-run-")
			if err != nil {
				return err
			}
			if keep {
				fmt.Fprintf(cmd.ErrOrStderr(), "svmc: work directory %s\n", work)
			} else {
				defer os.RemoveAll(work)
			}
			exe, err := build(pattern, work, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			prog := exec.Command(exe, progArgs...)
			prog.Env = env
			prog.Stdin, prog.Stdout, prog.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := prog.Run(); err != nil {
				if xe, ok := err.(*exec.ExitError); ok {
					return exitError{xe.ExitCode()}
				}
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&nprocs, "n", "n", 1, "number of processors")
	f.StringVar(&tracePath, "trace", "", "write a trace to this file")
	f.StringVar(&fmtS, "format", "", "trace format: ascii or binary (default binary)")
	f.IntVar(&stage, "stage", 3, "tracing stage 0-6")
	f.StringVar(&request, "request", "", "trace request file")
	f.BoolVar(&keep, "work", false, "keep the work directory and print its name")
	return cmd
}

func traceCmd() *cobra.Command {
	t := &cobra.Command{Use: "trace", Short: "read SDDF traces"}
	t.AddCommand(&cobra.Command{
		Use:   "dump FILE",
		Short: "print a trace, one line per record",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			return trace.Dump(cmd.OutOrStdout(), f)
		},
	})
	var to string
	conv := &cobra.Command{
		Use:   "convert --to ascii|binary IN OUT",
		Short: "convert a trace between ASCII and binary SDDF",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := trace.ParseFormat(to)
			if err != nil {
				return fmt.Errorf("--to %q: want ascii or binary", to)
			}
			in, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.Create(args[1])
			if err != nil {
				return err
			}
			if err := trace.Convert(out, format, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		},
	}
	conv.Flags().StringVar(&to, "to", "", "output format: ascii or binary")
	t.AddCommand(conv)
	return t
}
