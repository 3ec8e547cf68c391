package rtlib

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/svmc/svmc/rtlib/internal/output"
	"github.com/svmc/svmc/rtlib/internal/params"
	"github.com/svmc/svmc/rtlib/internal/stats"
)

// procOut is a processor's user output: its own streams, and those of the
// code it alone runs (work), which differ under the default policy.
type procOut struct {
	stdout, stderr io.Writer
	// workOut and workErr take what p writes in code no other processor
	// runs a copy of: a pdo's iterations, the exclusive code of an APS it
	// leads (a section's). Keeping processor 0's output only is Lib-DVM's
	// way of printing replicated code once; the iterations another
	// processor runs print nowhere else, as a plain Go loop prints them.
	workOut, workErr io.Writer
}

// Stdout is where the user program's standard output goes on p (generated
// code prints through it): see Output. A detached Proc writes as processor
// 0 does; a goroutine's lane as the code that started it.
func (p *Proc) Stdout() io.Writer { return p.writer(false) }

// Stderr is where the user program's standard error goes on p.
func (p *Proc) Stderr() io.Writer { return p.writer(true) }

// Print, Printf and Println are fmt's, written to p.Stdout(): generated
// code calls them where the arguments are one call of several results
// (fmt.Println(f())), which fmt.Fprintln(w, f()) could not take.
func (p *Proc) Print(a ...any) (int, error) { return fmt.Fprint(p.Stdout(), a...) }

// Printf is fmt.Printf written to p.Stdout().
func (p *Proc) Printf(format string, a ...any) (int, error) {
	return fmt.Fprintf(p.Stdout(), format, a...)
}

// Println is fmt.Println written to p.Stdout().
func (p *Proc) Println(a ...any) (int, error) { return fmt.Fprintln(p.Stdout(), a...) }

func (p *Proc) writer(stderr bool) io.Writer {
	o := &p.out
	w := o.stdout
	if stderr {
		w = o.stderr
	}
	if w == nil {
		return p.r.detachedOut(stderr)
	}
	if p.detached {
		return w
	}
	if p.inTask || p.aps != nil && p.aps.leader == p {
		w = o.workOut
		if stderr {
			w = o.workErr
		}
	}
	if p.st != nil {
		return ioWriter{w, p.st}
	}
	return w
}

// laneOutOf is the output of a lane whose goroutine the code on p starts:
// processor 0's copy of exclusive code on another rank prints nowhere,
// an iteration on any processor prints.
func laneOutOf(p *Proc) procOut {
	if p.out.stdout == nil {
		return procOut{}
	}
	o, e := p.writer(false), p.writer(true)
	if w, ok := o.(ioWriter); ok {
		o = w.w
	}
	if w, ok := e.(ioWriter); ok {
		e = w.w
	}
	return procOut{stdout: o, stderr: e, workOut: o, workErr: e}
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

func (currentStdout) Write(b []byte) (int, error) { return stdioWrite(os.Stdout, procStdout, 1, b) }
func (currentStderr) Write(b []byte) (int, error) { return stdioWrite(os.Stderr, procStderr, 2, b) }

// procStdout and procStderr are the process's standard output and error
// as the program started.
var procStdout, procStderr = os.Stdout, os.Stderr

// stdioWrite writes b to f, the program's os.Stdout or os.Stderr. While f
// is the process's own (fd 1 or 2, orig), it writes through a descriptor
// of its own (stdio_unix.go): a write to a closed pipe there returns EPIPE
// where os.Stdout's would kill the process by SIGPIPE before the trace is
// written (Go raises it for descriptors 1 and 2; svmc run … | head closes
// the pipe). The run then ends as plain Go would end it, by SIGPIPE, but
// with its trace complete (brokenPipe).
func stdioWrite(f, orig *os.File, fd int, b []byte) (int, error) {
	if f != orig {
		return f.Write(b) // the program (or testing, for an example) replaced it
	}
	dup := stdioDup(fd)
	if dup == nil {
		return f.Write(b)
	}
	n, err := dup.Write(b)
	if err != nil && isEPIPE(err) {
		brokenPipe(f, b)
	}
	return n, err
}

// openOutputs sets up the user output of every processor (package
// output routes it).
func (r *run) openOutputs(par *Params) error {
	for _, st := range []struct {
		o    Output
		def  io.Writer
		what string
		set  func(p *Proc, w, work io.Writer)
	}{
		{par.UserStdout, currentStdout{}, "stdout", func(p *Proc, w, work io.Writer) { p.out.stdout, p.out.workOut = w, work }},
		{par.UserStderr, currentStderr{}, "stderr", func(p *Proc, w, work io.Writer) { p.out.stderr, p.out.workErr = w, work }},
	} {
		ws, err := r.outs.Route(st.o, st.def, par.KeepOld, len(r.procs), st.what)
		if err != nil {
			r.outs.Close()
			return err
		}
		r.outEach = r.outEach || st.o.Mode == params.OutEach
		var work io.Writer // processor 0's stream, shared with the others' work
		if st.o.Mode == params.OutProc0 && len(ws) > 0 {
			lw, ok := ws[0].(*output.LockedWriter)
			if !ok {
				lw = output.Shared(ws[0])
			}
			work = untilFailed{lw, r}
		}
		for _, p := range r.procs {
			if p.idle() {
				// Processor k writes on rank k; processor 0 runs the
				// exclusive code on every rank and writes on rank 0.
				st.set(p, io.Discard, io.Discard)
				continue
			}
			w := untilFailed{ws[p.id], r}
			switch {
			case work == nil:
				st.set(p, w, w)
			case p.id == 0:
				st.set(p, work, work)
			default:
				st.set(p, w, work)
			}
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
