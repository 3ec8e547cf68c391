package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/svmc/svmc/trace"
)

// runProgram runs the instrumented program exe and waits for it. The
// program stops itself on SIGINT and SIGTERM and writes its trace: a
// terminal's Ctrl-C reaches it through the process group, so there svmc
// swallows SIGINT (passing it on would interrupt the program twice);
// outside a terminal's foreground group (a script, an editor's stop
// button, kill -INT) svmc passes SIGINT on, as it does SIGTERM. Where the system allows (Linux), the
// program gets SIGTERM when svmc itself dies, even by SIGKILL, so that it
// writes its trace instead of running on as an orphan. tracePath names the
// trace in messages ("" if unknown). With crashes, the Go runtime's report
// of a crash svmc's runtime could not catch is said in svmc's terms
// (crashFilter), unless GOTRACEBACK asks for Go's own.
func runProgram(prog *exec.Cmd, stderr io.Writer, tracePath string, crashes bool) error {
	prog.SysProcAttr = childAttr()
	var crashOut func(crashed bool) string
	if crashes && os.Getenv("GOTRACEBACK") == "" {
		crashOut = crashPipe(prog)
	}
	before := traceState(tracePath)
	defer listChildTraces(stderr, tracePath, time.Now())
	err := runForwarding(prog, false)
	var xe *exec.ExitError
	exited := errors.As(err, &xe)
	crash := ""
	if crashOut != nil {
		crash = crashOut(exited && xe.ExitCode() == 2) // Go's crashes exit with status 2
	}
	if !exited {
		if err == nil {
			before.settle(stderr, "the program", "it exited without svmc's runtime ending the run", true)
		}
		return err
	}
	if ws, ok := xe.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// The runtime handles SIGINT, SIGTERM and SIGHUP itself; any other signal
		// (SIGKILL, the kernel's out-of-memory killer) ended it at once.
		sig := ws.Signal()
		msg := fmt.Sprintf("svmc: the program was killed by %s", signalName(sig))
		// The program writes its trace under a partial name until it is
		// complete; what it wrote is all there is now.
		if tracePath != "" && os.Rename(trace.PartialName(tracePath, prog.Process.Pid), tracePath) == nil {
			msg += fmt.Sprintf("; the trace %s holds the records the processors had written until about 0.1 s before (what they wrote after is lost) and has no trace-end record", tracePath)
		}
		fmt.Fprintln(stderr, msg)
		return exitError{128 + int(sig)}
	}
	why := fmt.Sprintf("exit status %d: os.Exit was called in code svmc does not rewrite, such as a dependency's, so svmc's runtime did not end the run", xe.ExitCode())
	switch {
	case crash != "":
		why = crash
	case crashOut == nil && xe.ExitCode() == 2:
		// No filter read the program's standard error (GOTRACEBACK set,
		// --race, --mpi): status 2 may be a crash Go reported there.
		why = "exit status 2: a crash the Go runtime reported above, or os.Exit in code svmc does not rewrite, such as a dependency's, so svmc's runtime did not end the run"
	}
	before.settle(stderr, "the program", why, true)
	return exitError{xe.ExitCode()}
}

// listChildTraces names the traces that processes the program started,
// instrumented programs themselves, wrote since start under names of their
// own (TRACE.child-PID: rtlib's childrun.go), which the user would not
// otherwise look for.
func listChildTraces(w io.Writer, tracePath string, start time.Time) {
	if tracePath == "" {
		return
	}
	names, _ := filepath.Glob(globEscape(tracePath) + ".child-*")
	var found []string
	for _, n := range names {
		if strings.HasSuffix(n, ".partial") {
			continue
		}
		if fi, err := os.Stat(n); err == nil && !fi.ModTime().Before(start.Add(-time.Second)) {
			found = append(found, n)
		}
	}
	switch {
	case len(found) == 1:
		fmt.Fprintf(w, "svmc: a process the program started, an instrumented program too, wrote its own trace: %s\n", found[0])
	case len(found) > 1:
		shown := found[:min(len(found), 4)]
		more := ""
		if len(found) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(found)-len(shown))
		}
		fmt.Fprintf(w, "svmc: %d processes the program started, instrumented programs too, wrote their own traces: %s%s\n", len(found), strings.Join(shown, ", "), more)
	}
}

// globEscape quotes the characters filepath.Match treats as a pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// crashPipe gives the program a pipe to svmc as its descriptor 2, where
// the Go runtime writes a crash's report, read through a crashFilter, and
// its real standard error as another descriptor, named by SVMC_STDERR_FD,
// which the runtime of svmc makes the program's os.Stderr when the
// program's packages are initialised (rtlib/stdio_unix.go): the program's
// own writes to standard error go there directly, in their order with
// standard output, to the file or terminal it is, while what is written
// to descriptor 2 (a crash's report, println, a panic before the runtime's
// initialisation) passes through svmc. It does nothing where the
// program's standard error is not a file. The function it returns, called
// once the program has ended, writes what the filter holds and returns
// its description of the crash.
func crashPipe(prog *exec.Cmd) func(crashed bool) string {
	real, ok := prog.Stderr.(*os.File)
	if !ok || runtime.GOOS == "windows" { // no ExtraFiles there
		return nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil
	}
	if prog.Env == nil {
		prog.Env = os.Environ()
	}
	prog.ExtraFiles = append(prog.ExtraFiles, real)
	prog.Env = append(prog.Env, "SVMC_STDERR_FD="+strconv.Itoa(2+len(prog.ExtraFiles)))
	prog.Stderr = pw
	cf := newCrashFilter(real)
	copied := make(chan struct{})
	go func() {
		io.Copy(cf, pr)
		close(copied)
	}()
	return func(crashed bool) string {
		pw.Close()
		// A process the program started may hold the pipe open after it
		// ended: what it writes later is not waited for.
		select {
		case <-copied:
		case <-time.After(time.Second):
		}
		pr.Close()
		return cf.finish(crashed)
	}
}

// runForwarding runs cmd and waits for it, passing on SIGTERM, and SIGINT,
// SIGQUIT and SIGHUP where no terminal's Ctrl-C, Ctrl-\ or hangup reaches
// cmd itself through the process group (terminalGroup). SIGQUIT asks for
// the program's goroutine dump, as under go run, not svmc's own. It starts
// cmd on a thread of its own, kept until cmd ends: the parent-death signal
// of childAttr follows that thread. With
// children (go test, whose test binary is what must stop), the signals go
// to cmd's children where it has some (signalChildren).
func runForwarding(cmd *exec.Cmd, children bool) error {
	forwarding.Store(true)
	defer forwarding.Store(false)
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT)
	if !signal.Ignored(syscall.SIGHUP) {
		// A closed terminal or session: the program completes its trace
		// as on SIGTERM, and svmc waits for it (under nohup, neither
		// takes it).
		signal.Notify(sigc, syscall.SIGHUP)
	}
	defer signal.Stop(sigc)
	started := make(chan *os.Process, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- nil
			done <- err
			return
		}
		started <- cmd.Process
		done <- cmd.Wait()
	}()
	proc := <-started
	for {
		select {
		case sig := <-sigc:
			signalled.Store(true)
			if proc != nil && (sig == syscall.SIGTERM || !terminalGroup()) {
				if !children || !signalChildren(proc, sig.(syscall.Signal)) {
					proc.Signal(sig)
				}
			}
		case err := <-done:
			return err
		}
	}
}

// forwarding is set while runForwarding runs a child, which takes
// SIGQUIT then (quitQuietly leaves it alone).
var forwarding atomic.Bool

// signalled is set once svmc got SIGINT or SIGTERM while it ran a
// child: svmc test starts no further go test (of a test, --trace-per-test,
// or a package, ./...).
var signalled atomic.Bool

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return "signal " + strconv.Itoa(int(s)) + " (" + s.String() + ")"
}

// Work directories of svmc run and svmc build hold a file naming the svmc
// process that uses them. One whose process is gone (svmc was killed) is
// removed by the next svmc that starts; directories kept on purpose (--work,
// a failed build) hold no such file.
const workOwner = "svmc.pid"

// newWorkDir creates a work directory under the temporary directory, with
// its owner file unless it is to be kept, after removing the directories
// that killed svmc processes left behind.
func newWorkDir(prefix string, keep bool) (string, error) {
	sweepWorkDirs()
	work, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if !keep {
		os.WriteFile(filepath.Join(work, workOwner), []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	return work, nil
}

// buildInWork builds the package at pattern in a new work directory (see
// build) and returns the executable and the function that removes the
// directory when the caller is done (it keeps it with keep, and after a
// build failure that names it). Without debug the executable has no DWARF,
// as go run builds it.
func buildInWork(prefix, pattern string, keep, debug bool, stderr io.Writer, goFlags ...string) (exe string, done func(), err error) {
	work, err := newWorkDir(prefix, keep)
	if err != nil {
		return "", func() {}, err
	}
	if keep {
		fmt.Fprintf(stderr, "svmc: work directory %s\n", work)
	}
	exe, err = build(pattern, work, debug, stderr, goFlags...)
	if keep {
		return exe, func() {}, err
	}
	return exe, func() { removeWork(work, err) }, err
}

// keepWork marks a work directory to be kept: it is no longer swept.
func keepWork(work string) { os.Remove(filepath.Join(work, workOwner)) }

func sweepWorkDirs() {
	for _, prefix := range []string{"svmc-run-", "svmc-build-"} {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		for _, dir := range dirs {
			data, err := os.ReadFile(filepath.Join(dir, workOwner))
			if err != nil {
				continue
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || pid <= 0 || processAlive(pid) {
				continue
			}
			os.RemoveAll(dir)
		}
	}
}
