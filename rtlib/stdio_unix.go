//go:build unix

package rtlib

import (
	"errors"
	"io"
	"log"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// stderrFD is the descriptor of the process's standard error: 2, or the
// one svmc run names in SVMC_STDERR_FD. svmc run makes descriptor 2 a
// pipe to itself, where the Go runtime writes the report of a crash that
// nothing can recover (concurrent map writes, a stack overflow), which
// svmc then says in its own terms (cmd/svmc crashFilter); the program's
// own standard error is its real one, handed over as another descriptor,
// so that its writes keep their order with standard output and go to the
// terminal or file it is.
var stderrFD = 2

// crashStderr is the os.File of descriptor 2 that init replaces: kept
// referenced, because the collector's cleanup of an unreferenced os.File
// closes its descriptor, and the Go runtime's report of a fatal error then
// went nowhere (x588: a stack overflow after the program's first
// collections, which svmc run then blamed on os.Exit).
var crashStderr *os.File

func init() {
	s, ok := os.LookupEnv("SVMC_STDERR_FD")
	if !ok {
		return
	}
	os.Unsetenv("SVMC_STDERR_FD") // not for the programs it starts
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 3 {
		return
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "/dev/stderr")
	if f == nil {
		return
	}
	if log.Writer() == io.Writer(os.Stderr) {
		log.SetOutput(f)
	}
	crashStderr = os.Stderr
	os.Stderr, procStderr, stderrFD = f, f, fd
}

// stdioDups are descriptors of the process's standard output and error of
// their own (dup, close-on-exec): os.File's EPIPE check, which raises
// SIGPIPE, applies to descriptors 1 and 2 only.
var stdioDups = sync.OnceValue(func() [3]*os.File {
	var fs [3]*os.File
	for _, fd := range []int{1, 2} {
		src := fd
		if fd == 2 {
			src = stderrFD
		}
		syscall.ForkLock.RLock()
		d, err := syscall.Dup(src)
		if err == nil {
			syscall.CloseOnExec(d)
		}
		syscall.ForkLock.RUnlock()
		if err == nil {
			fs[fd] = os.NewFile(uintptr(d), os.Stdout.Name())
		}
	}
	return fs
})

func stdioDup(fd int) *os.File { return stdioDups()[fd] }

func isEPIPE(err error) bool { return errors.Is(err, syscall.EPIPE) }

// brokenPipe ends the run because the program's standard output or error
// (f, which b was written to) is a pipe whose reader has gone: a plain Go
// program dies there by SIGPIPE. The run stops as for SIGPIPE (its trace
// completed, exit status 128+13) and the writing processor stops here, as
// at os.Exit. Outside a run the write is repeated on f, which kills the
// process as Go does.
func brokenPipe(f *os.File, b []byte) {
	r := activeRun.Load()
	if r == nil || r.standalone || r.done.Load() {
		f.Write(b)
		return
	}
	r.fail(&InterruptError{Signal: syscall.SIGPIPE})
	if p := gProcs.load(getg()); p != nil && !p.detached && p.r == r {
		p.stopHere() // the processor stops here; Run finishes the trace
	}
	select {} // another goroutine: Main exits the process when the run is wound up
}
