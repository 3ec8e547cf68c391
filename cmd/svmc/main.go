// Command svmc compiles Go programs with //svm: directives into instrumented
// SPMD programs, runs them on N processors with tracing, and reads their
// traces.
//
//	svmc compile -o DIR [package]
//	svmc run [-n N] [--trace FILE] [--format ascii|binary] [--stage S] [--request FILE] [package] [-- args]
//	svmc trace dump FILE
//	svmc trace convert --to ascii|binary IN OUT
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/svmc/svmc/internal/safetext"
)

// exitError carries an exit status without a message of its own (the
// message has been printed, or the program's own status is passed on).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	defer crashed()
	asVetTool(os.Args)
	quitQuietly()
	root := &cobra.Command{
		Use:   "svmc",
		Short: "svmc compiles, runs and traces Go programs with //svm: directives",
		Long: `svmc brings SVM-Fortran style SPMD programming to Go. A program marks its parallel
structure with //svm: directive comments; without svmc it is plain serial Go. svmc
compiles it source to source into instrumented Go, runs it on N processors and writes
traces in SDDF, chosen at run time by stage or trace request file.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       fmt.Sprintf("%s (program information file version %d, trace format version 1)", version, progdbVersion),
	}
	// svmc's own messages quote the control characters of the names they
	// print; the program's output (svmc run) goes to os.Stderr as it is.
	root.SetErr(safetext.Writer{W: os.Stderr})
	root.AddCommand(
		compileCmd(), buildCmd(), installCmd(), runCmd(), testCmd(), traceCmd(), versionCmd(),
		reportCmd(), tuneCmd(), checkCmd(), vetCmd(), diffCmd(),
		viewCmd(), exportCmd(),
	)
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRunE = beforeCommand
	completeValues(root)
	root.SetArgs(goStyleFlags(root, os.Args[1:]))
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		var xe *exec.ExitError
		if errors.As(err, &xe) {
			os.Exit(xe.ExitCode())
		}
		fmt.Fprintf(os.Stderr, "svmc: %s\n", safetext.Escape(err.Error()))
		os.Exit(2)
	}
}

// quitQuietly: SIGQUIT (Ctrl-\) asks a Go program for its goroutines'
// stacks, which under svmc run are the program's (runForwarding passes the
// signal on), never svmc's own, of no use to a user. Outside a run svmc
// stops on it as the go command does, with a line instead of a dump.
func quitQuietly() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGQUIT)
	go func() {
		for range c {
			if !forwarding.Load() {
				fmt.Fprintln(os.Stderr, "svmc: stopped by SIGQUIT")
				os.Exit(128 + int(syscall.SIGQUIT))
			}
		}
	}()
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the version of svmc and of its formats",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "svmc %s (program information file version %d, trace format version 1)\n", version, progdbVersion)
		},
	}
}

// badValue says what a flag wants in place of the value pflag could not
// parse, instead of strconv's words: `invalid argument "abc" for "-n,
// --nprocs" flag: want a whole number` (it said `strconv.ParseInt:
// parsing "abc": invalid syntax`).
func badValue(msg string) error {
	head, parse, ok := strings.Cut(msg, ": strconv.")
	if !ok {
		return errors.New(msg)
	}
	want := "a number"
	switch {
	case strings.HasPrefix(parse, "ParseInt"), strings.HasPrefix(parse, "ParseUint"):
		want = "a whole number"
		if strings.HasSuffix(parse, "value out of range") {
			want = "a smaller whole number"
		}
	case strings.HasPrefix(parse, "ParseBool"):
		want = "true or false"
	}
	return fmt.Errorf("%s: want %s", head, want)
}

// goBuildFlags are the go command's build flags (go help build) that
// change what is built, which GOFLAGS passes to the go command svmc runs
// (-v, -x and -work would print what svmc keeps of the build's output).
var goBuildFlags = map[string]bool{
	"a": true, "p": true, "race": true, "msan": true, "asan": true, "asmflags": true, "buildmode": true,
	"buildvcs": true, "compiler": true, "gccgoflags": true, "gcflags": true, "installsuffix": true, "ldflags": true,
	"linkshared": true, "mod": true, "modcacherw": true, "modfile": true, "pgo": true, "pkgdir": true, "tags": true,
	"trimpath": true, "toolexec": true,
}

// flagError says where a flag svmc does not know belongs: a go test flag
// (svmc test -v) or the program's own (svmc run -x) goes after --, and a
// go build flag given to a command that builds goes in GOFLAGS.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, "invalid argument") {
		return badValue(msg)
	}
	if !strings.HasPrefix(msg, "unknown") {
		return err
	}
	flag := msg[strings.LastIndex(msg, " ")+1:]
	if name, _, _ := strings.Cut(strings.TrimLeft(flag, "-"), "="); goBuildFlags[name] && slices.Contains([]string{"run", "build", "install", "tune"}, cmd.Name()) {
		// A flag of go build's that svmc does not take: GOFLAGS passes it
		// to the go command svmc runs (svmc's own -ldflags, -tags and
		// -race are its flags).
		msg += fmt.Sprintf("; svmc %s does not take go build's -%s, which GOFLAGS=-%s passes to the build", cmd.Name(), name, name)
	}
	switch cmd.Name() {
	case "test":
		return fmt.Errorf("%s; go test's flags go after --: svmc test [flags] [packages] -- %s (svmc test --help lists svmc's)", msg, flag)
	case "run":
		return fmt.Errorf("%s; the program's arguments go after --: svmc run [flags] [package] -- %s (svmc run --help lists svmc's)", msg, flag)
	}
	return fmt.Errorf("%s (svmc %s --help lists the flags)", msg, cmd.Name())
}
