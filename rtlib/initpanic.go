package rtlib

import (
	"fmt"
	"runtime"
	"strings"
)

// A panic while the program's packages are initialised (var limit =
// mustAtoi(os.Getenv("LIMIT")), regexp.MustCompile of a bad pattern)
// happens before Main, with no processor and no trace: Go printed its
// panic with the instrumented names and exited, and the run left nothing
// to read. The generated code runs the initialisers of the user's
// packages through InitVar and opens every init function with
// InitFailed and InitCatch: the first panic is kept, no initialiser or
// init function runs after it (the serial program would not have run
// them), and Main raises it again on processor 0 as soon as the run
// starts, so that it ends as a panic of processor 0 does, named at the
// line that panicked, with a complete trace.

// initPanic is the first panic of the package initialisation, nil if
// none. Package initialisation runs on one goroutine, before Main.
var initPanic *bodyPanic

// InitVar returns f's value, the initialiser of a package-level variable;
// once an initialiser has panicked it runs no more and returns the zero
// value.
func InitVar[T any](f func() T) (v T) {
	if initPanic != nil {
		return v
	}
	defer InitCatch()
	return f()
}

// InitVar2 is InitVar for an initialiser of two variables (var a, b = f()).
func InitVar2[A, B any](f func() (A, B)) (a A, b B) {
	if initPanic != nil {
		return a, b
	}
	defer InitCatch()
	return f()
}

// InitFailed reports whether an initialiser has panicked: an init function
// returns at once then.
func InitFailed() bool { return initPanic != nil }

// InitCatch, deferred by InitVar and at the start of every init function,
// keeps a panic of the initialisation for Main.
func InitCatch() {
	if v := recover(); v != nil && initPanic == nil {
		initPanic = &bodyPanic{value: v, at: userFrame(), init: initFrame()}
	}
}

// initFrame is "file:line" of the innermost frame of a package's
// initialisation on the panicking stack: the variable whose initialiser
// panicked (pkg.init) or the init function (pkg.init.0, by the line it
// begins at); "" if none is found.
func initFrame() string {
	pcs := make([]uintptr, 100)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		name := f.Function
		if i := strings.LastIndex(name, ".init"); i > 0 && !strings.HasPrefix(name, "runtime.") && !strings.HasPrefix(name, rtPkg) {
			rest := name[i+len(".init"):]
			if rest == "" { // the variables' initialisers: the variable's line
				return fmt.Sprintf("%s:%d", shownFile(f.File), f.Line)
			}
			if rest[0] == '.' && strings.Trim(rest[1:], "0123456789") == "" { // an init function: its own line
				if fn := runtime.FuncForPC(f.Entry); fn != nil {
					file, line := fn.FileLine(f.Entry)
					return fmt.Sprintf("%s:%d", shownFile(file), line)
				}
			}
		}
		if !more {
			return ""
		}
	}
}

// raiseInitPanic is Main's body when the initialisation panicked: the
// panic raised on processor 0, named at its own line (rethrow).
func raiseInitPanic(c *bodyPanic) func(p *Proc) {
	return func(p *Proc) { p.rethrow(c) }
}
