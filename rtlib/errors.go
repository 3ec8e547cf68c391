package rtlib

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
)

// Error is a run-time error the user caused: a bad distribution, a shape
// mismatch, a subscript outside a template, a bad parameter. Its text is
// "file:line:col: processor K: message" where the position (of the directive)
// and the processor are left out when unknown or irrelevant.
type Error struct {
	Pos  string // "file:line:col" of the directive, or ""
	Proc int    // the processor that found the error, -1 if irrelevant
	Msg  string
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Proc >= 0 {
		s = fmt.Sprintf("processor %d: %s", e.Proc, s)
	}
	if e.Pos != "" {
		s = e.Pos + ": " + s
	}
	return s
}

// PanicError is a panic of user code on a processor, or (Proc -1) in a
// goroutine the program started.
type PanicError struct {
	Proc  int
	Value any
	At    string // "file:line" of the first frame outside rtlib and runtime
	// Started is where the goroutine was started ("file:line:col" of its go
	// statement) when the panic was not on a processor, and By the
	// processor that started it (-1: unknown).
	Started string
	By      int
	// Init is where the program's package initialisation panicked
	// ("file:line" of the variable or init function), raised on processor
	// 0 when the run started (initpanic.go); "" otherwise.
	Init string
}

func (e *PanicError) Error() string {
	s := fmt.Sprintf("processor %d panicked: %v", e.Proc, e.Value)
	if e.Proc < 0 {
		s = fmt.Sprintf("the goroutine started at %s panicked: %v", shownPos(e.Started), e.Value)
		if e.By >= 0 {
			s = fmt.Sprintf("the goroutine of processor %d started at %s panicked: %v", e.By, shownPos(e.Started), e.Value)
		}
	}
	if e.Init != "" {
		s = fmt.Sprintf("processor %d panicked while the program's packages were initialised (%s), before main: %v", e.Proc, e.Init, e.Value)
	}
	if e.At != "" {
		s += "\n\tat " + e.At
	}
	return s
}

const rtPkg = "github.com/svmc/svmc/rtlib."

// runtimePkgs are the packages written out with the runtime beside rtlib
// (the trace format, requests, the program information): their frames
// are svmc's, not the program's.
var runtimePkgs = []string{rtPkg, "github.com/svmc/svmc/trace.", "github.com/svmc/svmc/request.", "github.com/svmc/svmc/progdb.", "github.com/svmc/svmc/internal/"}

// runtimeFunc reports whether fn is a function of the runtime's packages.
func runtimeFunc(fn string) bool {
	return slices.ContainsFunc(runtimePkgs, func(p string) bool { return strings.HasPrefix(fn, p) })
}

// userFrame returns "file:line" of the innermost frame outside rtlib and the
// Go runtime. Called from a deferred function while panicking, the panicking
// frames are still on the stack.
func userFrame() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	return firstUserFrame(pcs[:n])
}

// firstUserFrame is userFrame over call-stack PCs captured earlier; the
// frames of the packages named in also (a prefix of their functions'
// names, "testing.") are passed over too.
func firstUserFrame(pcs []uintptr, also ...string) string {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		fn := f.Function
		if fn != "" && !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "reflect.") && !runtimeFunc(fn) &&
			!slices.ContainsFunc(also, func(p string) bool { return strings.HasPrefix(fn, p) }) {
			return fmt.Sprintf("%s:%d", shownFile(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// detachedConstruct says once per site what a construct does on a detached
// Proc: the goroutine that reached it is not one of the processors (the
// program started it, or it runs before main), so there is no team to run
// the construct with. On one processor there is none to lose: nothing is
// said.
func (p *Proc) detachedConstruct(at Site, what, does string) {
	r := p.r
	if r.n == 1 {
		return
	}
	k := seenKey{at, 1}
	if p.beside {
		k.why = 2
	}
	if p.told == k {
		return // a goroutine that reaches the construct again and again
	}
	p.told = k
	r.mu.Lock()
	seen := r.infoSeen[k]
	r.infoSeen[k] = true
	r.mu.Unlock()
	if seen {
		return
	}
	if !r.infoOn("goroutines") {
		return
	}
	pos := r.pos(at)
	if pos == "" {
		pos = userFrame()
	}
	if pos != "" {
		pos += ": "
	}
	why := "it was reached from a goroutine that is not one of the program's processors (one the program started, one a library started for it, such as an HTTP handler's, or code running before main)"
	switch {
	case p.beside:
		why = "its test runs beside another test that holds processor 0 (t.Parallel), so it has no processors to share the work with"
	case testRun.Load():
		why = "it was reached from a goroutine that is not one of the program's processors (b.RunParallel's goroutines, synctest.Test's bubble, whose channels and clock the processors outside it must not share, a subtest started with t.Run where svmc could not rewrite it — on a receiver a call returns, or in code svmc does not compile — a goroutine the code started, or code running before the tests)"
	}
	fmt.Fprintf(r.stderr, "svmc: %s%s %s: %s\n", pos, what, does, why)
}

// errorf stops the run with a user error at directive (at). withProc
// adds the processor to the message.
func (p *Proc) errorf(at Site, withProc bool, format string, args ...any) {
	e := &Error{Pos: p.r.pos(at), Proc: -1, Msg: fmt.Sprintf(format, args...)}
	if withProc && !p.detached {
		e.Proc = p.id
	}
	p.die(e)
}

// die ends the calling processor after recording err as the run's failure.
// It does not return. runtime.Goexit cannot be recovered by user code, and
// the deferred calls on the way (generated Exit calls) still run.
func (p *Proc) die(err error) {
	r := p.r
	if r.standalone || r.done.Load() {
		fmt.Fprintf(os.Stderr, "svmc: %v\n", err)
		os.Exit(2)
	}
	r.fail(err)
	p.stopHere()
}

// checkAbort is a safe point: a processor of a failing run stops here.
func (p *Proc) checkAbort() {
	if !p.detached && p.r.aborting.Load() {
		p.stopHere()
	}
}

// stopHere ends the calling processor's part in a run that is winding up
// (a failure, os.Exit, a signal): Run completes the trace and Main ends the
// process. A test's goroutine acting as processor 0 (svmc test) does not
// end: the testing package takes runtime.Goexit on a test's goroutine for
// a test that returned early and panics, which ended the process before
// the trace was complete ("test executed panic(nil) or runtime.Goexit"
// after kill -INT). It counts processor 0 as stopped and waits for Main.
func (p *Proc) stopHere() {
	if p.id == 0 && !p.detached && testRun.Load() && holder.Load() == getg() {
		if p.r.exiting() {
			p.closeRegionsAbove(0) // as procMain does at os.Exit
		}
		p.ended()
		select {}
	}
	runtime.Goexit()
}
