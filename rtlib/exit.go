package rtlib

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/svmc/svmc/trace"
)

// ExitError is how a run ends when the program calls os.Exit: generated
// code calls Exit instead, so that the trace is completed (ending with
// trace-end) and the output files are flushed before the process exits
// with Code.
type ExitError struct {
	Code int
	At   string // where the program called it, "file:line"
	// Who called it: "processor K", "a goroutine of processor K" (one the
	// processor's code started), or "" (another goroutine).
	Who string
}

func (e *ExitError) Error() string {
	who := e.Who
	if who == "" {
		who = "the program"
	}
	if e.At == "" {
		return fmt.Sprintf("%s called os.Exit(%d)", who, e.Code)
	}
	return fmt.Sprintf("%s called os.Exit(%d) at %s", who, e.Code, e.At)
}

// EndStatus is the trace-end status: a normal end for os.Exit(0).
func (e *ExitError) EndStatus() int {
	if e.Code == 0 {
		return trace.EndNormal
	}
	return trace.EndExit
}

// Exit ends the program with status code as os.Exit does, after winding
// the run up: the other processors stop at their next safe point (or the
// bounded wait passes), the trace is completed and the output files are
// flushed; Main then exits with code. svmc rewrites the program's calls of
// os.Exit into calls of Exit. Outside a run (before main, in a program that
// did not start one) it is os.Exit.
func Exit(code int) {
	r := activeRun.Load()
	if r == nil || r.standalone || r.done.Load() {
		os.Exit(code)
	}
	p := gProcs.load(getg())
	r.fail(&ExitError{Code: code, At: userFrame(), Who: exitCaller(p, r)})
	if p != nil && !p.detached && p.r == r {
		p.stopHere() // the processor stops here; Run finishes the trace
	}
	select {} // another goroutine: Main exits the process when the run is wound up
}

// exitCaller names the goroutine p of run r that calls Exit for the
// message that ends the run: with several processors, which one stopped
// the program is half of where.
func exitCaller(p *Proc, r *run) string {
	switch {
	case p == nil || p.r != r:
		return ""
	case p.lane:
		return fmt.Sprintf("a goroutine of processor %d", p.owner)
	case p.detached:
		return ""
	}
	return fmt.Sprintf("processor %d", p.id)
}

// FlagParse is flag.Parse through Exit: svmc rewrites the program's
// calls of flag.Parse into calls of it.
func FlagParse() { FlagSetParse(flag.CommandLine, os.Args[1:]) }

// FlagSetParse is fs.Parse(args) with flag.ExitOnError's exits through
// Exit (status 0 after -h, 2 after a bad flag, as flag's), so that a run
// asked for its program's usage, or given a flag it does not define,
// leaves a complete trace instead of one cut off by os.Exit in flag.
func FlagSetParse(fs *flag.FlagSet, args []string) error {
	if fs.ErrorHandling() != flag.ExitOnError {
		return fs.Parse(args)
	}
	name := fs.Name()
	fs.Init(name, flag.ContinueOnError)
	err := fs.Parse(args)
	fs.Init(name, flag.ExitOnError)
	switch {
	case err == flag.ErrHelp:
		Exit(0)
	case err != nil:
		Exit(2)
	}
	return nil
}

// Fatal is log.Fatal through Exit: svmc rewrites the program's calls of
// log.Fatal into calls of it.
func Fatal(v ...any) {
	fatalLogger().Output(2, fmt.Sprint(v...))
	Exit(1)
}

// Fatalf is log.Fatalf through Exit.
func Fatalf(format string, v ...any) {
	fatalLogger().Output(2, fmt.Sprintf(format, v...))
	Exit(1)
}

// Fatalln is log.Fatalln through Exit.
func Fatalln(v ...any) {
	fatalLogger().Output(2, fmt.Sprintln(v...))
	Exit(1)
}

// LoggerFatal is l.Fatal through Exit.
func LoggerFatal(l *log.Logger, v ...any) {
	l.Output(2, fmt.Sprint(v...))
	Exit(1)
}

// LoggerFatalf is l.Fatalf through Exit.
func LoggerFatalf(l *log.Logger, format string, v ...any) {
	l.Output(2, fmt.Sprintf(format, v...))
	Exit(1)
}

// LoggerFatalln is l.Fatalln through Exit.
func LoggerFatalln(l *log.Logger, v ...any) {
	l.Output(2, fmt.Sprintln(v...))
	Exit(1)
}

// fatalLogger is the default logger, but writing to the process's standard
// error while the runtime routes it: the message that ends the run is shown
// whichever processor logs it, as it would be without svmc — except by
// processor 0's copy on a rank other than 0, which runs the same code as
// rank 0's and would say it once more.
func fatalLogger() *log.Logger {
	if _, routed := log.Writer().(logOutput); routed {
		w := io.Writer(os.Stderr)
		if p := gProcs.load(getg()); p != nil && !p.detached && p.idle() {
			w = io.Discard
		}
		return log.New(w, log.Prefix(), log.Flags())
	}
	return log.Default()
}
