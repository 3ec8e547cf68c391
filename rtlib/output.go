package rtlib

import (
	"io"
	"log"
	"os"

	"github.com/svmc/svmc/rtlib/internal/stats"
)

// procOut is a processor's user output.
type procOut struct {
	stdout, stderr io.Writer
}

// Stdout is where the user program's standard output goes on p (generated
// code prints through it): see Output. A detached Proc writes as processor
// 0 does.
func (p *Proc) Stdout() io.Writer {
	if p.out.stdout != nil {
		if p.st != nil && !p.detached {
			return ioWriter{p.out.stdout, p.st}
		}
		return p.out.stdout
	}
	return p.r.detachedOut(false)
}

// Stderr is where the user program's standard error goes on p.
func (p *Proc) Stderr() io.Writer {
	if p.out.stderr != nil {
		if p.st != nil && !p.detached {
			return ioWriter{p.out.stderr, p.st}
		}
		return p.out.stderr
	}
	return p.r.detachedOut(true)
}

// ioWriter charges the writes of a processor's output to Lib-DVM's IOGrp
// (statistics on). Only p's own goroutine gets one: a detached Proc writes
// through processor 0's writer without touching its statistics.
type ioWriter struct {
	w  io.Writer
	st *stats.Proc
}

func (w ioWriter) Write(b []byte) (int, error) {
	defer w.st.Restore(w.st.Switch(stats.IO))
	return w.w.Write(b)
}

func (r *run) detachedOut(stderr bool) io.Writer {
	if len(r.procs) > 0 {
		if p0 := r.procs[0]; stderr && p0.out.stderr != nil {
			return p0.out.stderr
		} else if !stderr && p0.out.stdout != nil {
			return p0.out.stdout
		}
	}
	if stderr {
		return os.Stderr
	}
	return os.Stdout
}

// currentStdout and currentStderr write to os.Stdout and os.Stderr as they
// are when written: a program (or the testing package, capturing an
// example's output) may replace them, as plain Go sees it.
type (
	currentStdout struct{}
	currentStderr struct{}
)

func (currentStdout) Write(b []byte) (int, error) { return os.Stdout.Write(b) }
func (currentStderr) Write(b []byte) (int, error) { return os.Stderr.Write(b) }

// openOutputs sets up the user output of every processor (package
// output routes it).
func (r *run) openOutputs(par *Params) error {
	for _, st := range []struct {
		o    Output
		def  io.Writer
		what string
		set  func(p *Proc, w io.Writer)
	}{
		{par.UserStdout, currentStdout{}, "stdout", func(p *Proc, w io.Writer) { p.out.stdout = w }},
		{par.UserStderr, currentStderr{}, "stderr", func(p *Proc, w io.Writer) { p.out.stderr = w }},
	} {
		ws, err := r.outs.Route(st.o, st.def, par.KeepOld, len(r.procs), st.what)
		if err != nil {
			r.outs.Close()
			return err
		}
		for _, p := range r.procs {
			if p.idle() {
				// Processor k writes on rank k; processor 0 runs the
				// exclusive code on every rank and writes on rank 0.
				st.set(p, io.Discard)
				continue
			}
			st.set(p, untilFailed{ws[p.id], r})
		}
	}
	return nil
}

// untilFailed drops what the program writes once the run failed (a panic,
// os.Exit, a deadlock, a time limit): the process is ending, as a plain Go
// program's would be at once. A processor that a panicking goroutine's
// deferred wg.Done let go on printed its results after the panic.
type untilFailed struct {
	w io.Writer
	r *run
}

func (u untilFailed) Write(b []byte) (int, error) {
	if u.r.aborting.Load() {
		return len(b), nil
	}
	return u.w.Write(b)
}

// WriteString is os.Stdout.WriteString(s) for a processor's routed stream:
// svmc rewrites the program's calls into calls of it.
func WriteString(w io.Writer, s string) (int, error) { return io.WriteString(w, s) }

// logOutput routes the log package's default logger, which writes to
// os.Stderr unless the program says otherwise, to the standard error of the
// processor that logs (processor 0's for other goroutines), as the
// program's own writes to os.Stderr are.
type logOutput struct{ r *run }

func (l logOutput) Write(b []byte) (int, error) {
	if p := gProcs.load(getg()); p != nil && p.r == l.r {
		return p.Stderr().Write(b)
	}
	return l.r.detachedOut(true).Write(b)
}

// routeLog routes the default logger while the run lasts, if it writes to
// os.Stderr; the program's own log.SetOutput wins.
func (r *run) routeLog() (restore func()) {
	if log.Writer() != os.Stderr {
		return func() {}
	}
	lo := logOutput{r}
	log.SetOutput(lo)
	return func() {
		if log.Writer() == io.Writer(lo) {
			log.SetOutput(os.Stderr)
		}
	}
}
