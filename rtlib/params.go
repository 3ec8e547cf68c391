package rtlib

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/svmc/svmc/rtlib/internal/output"
	"github.com/svmc/svmc/rtlib/internal/params"
	"github.com/svmc/svmc/trace"
)

// Run-time parameters: the table, their sources and the parameter file are
// package rtlib/internal/params's (see its documentation for the names,
// the environment variables and the precedence). SVMC_PRINT_PARAMS=1 makes
// Main print the effective parameters with their sources (PrintParams,
// itself a valid parameter file) and exit 0.

// Output says where one of the user program's standard streams goes.
type Output = params.Output

// OutputMode is Output's mode.
type OutputMode = params.OutputMode

// The output modes (seed 000 §8.2): see params.OutputMode.
const (
	OutProc0  = params.OutProc0
	OutEach   = params.OutEach
	OutCommon = params.OutCommon
)

// lookupEnv is os.LookupEnv, replaced by tests.
var lookupEnv = os.LookupEnv

// inputs are the environment variables and files the parameters came
// from. svmc test's TestMain reads them before the testing package starts
// logging what the test binary consults, which go test's cache compares
// between runs; the first test reads them again (noteInputs), so that
// svmc test -n 4 after -n 2 runs the tests again instead of printing
// "(cached)".
var inputs struct {
	sync.Mutex
	envs, files []string
}

// getenv is os.Getenv of a variable the run consults, noted in inputs.
func getenv(k string) string {
	noteEnv(k)
	return os.Getenv(k)
}

func noteEnv(k string) {
	inputs.Lock()
	inputs.envs = append(inputs.envs, k)
	inputs.Unlock()
}

// noteInputs reads the parameters' sources again, for go test's log.
func noteInputs() {
	inputs.Lock()
	defer inputs.Unlock()
	for _, k := range inputs.envs {
		os.LookupEnv(k)
	}
	for _, f := range inputs.files {
		if f != "" {
			os.Stat(f)
		}
	}
}

// PrintParams writes the effective run-time parameters, each with its
// source, as a parameter file; Main calls it for SVMC_PRINT_PARAMS=1.
func PrintParams(w io.Writer) error {
	s, err := params.Load(lookupEnv)
	if err != nil {
		return err
	}
	return s.Print(w)
}

// ParamsFromEnv resolves the run-time parameters (see the table above) into
// Params: it loads the request file, creates the trace file and the file
// of informational messages. closeAll flushes and closes them.
func ParamsFromEnv() (par Params, closeAll func() error, err error) {
	return paramsFromEnv(nil)
}

// paramsFromEnv is ParamsFromEnv for a rank of an MPI job (net non-nil):
// the job's ranks are the processors, each writes its own trace
// (TRACE.rankN), statistics file, CPU profile and Go trace, and
// informational messages come from rank 0 only.
func paramsFromEnv(net rankNet) (par Params, closeAll func() error, err error) {
	closeAll = func() error { return nil }
	s, err := params.Load(func(k string) (string, bool) {
		noteEnv(k)
		return lookupEnv(k)
	})
	if err != nil {
		return par, closeAll, err
	}
	inputs.Lock()
	inputs.files = append(inputs.files, s.ParamFile, s.Values.Request)
	inputs.Unlock()
	if err := s.Collisions(); err != nil {
		return par, closeAll, err
	}
	v := &s.Values
	if net != nil {
		v.NProcs = net.Size() * v.ProcsPerRank
		par.perRank = v.ProcsPerRank
		par.eagerPages = v.EagerPages
		if v.Trace != "" {
			v.Trace = fmt.Sprintf("%s.rank%d", v.Trace, net.Rank())
		}
		for _, f := range []*string{&v.StatFile, &v.CPUProfile, &v.GoTrace} {
			if *f != "" {
				*f = fmt.Sprintf("%s.rank%d", *f, net.Rank())
			}
		}
		if net.Rank() != 0 {
			v.Info.Mode = "off"
		}
		par.ranks = net
	}
	childFiles(v)
	par.NProcs, par.Format, par.Stage, par.Lenient, par.Stats = v.NProcs, v.Format, v.Stage, v.Lenient, v.Stats
	par.MaxIntervalLevel, par.StatFile = v.MaxIntervalLevel, v.StatFile
	par.Request = s.RequestFile
	par.BufSize, par.KernelBufSize = v.TraceBuf, v.KernelTraceBuf
	par.UserStdout, par.UserStderr, par.KeepOld = v.Stdout, v.Stderr, v.KeepOld
	par.StopWait = v.StopWait
	par.TimeLimit = v.TimeLimit
	par.ThrottleCalls, par.ThrottleUs = v.ThrottleCalls, v.ThrottleUs
	par.MsgBuffer, par.MsgChecksum, par.MsgPerturb = v.MsgBuffer, v.MsgChecksum, v.MsgPerturb
	par.PageSize, par.SVMModel, par.PageBudget = v.PageSize, v.SVMModel, v.PageBudget
	par.InfoOff = v.InfoOff
	par.NoSynchrTime = !v.SynchrTime
	par.TimeVariation, par.StatBufLength = v.TimeVariation, v.StatBufLength
	par.TimeExpendPrint, par.StatGrpName = v.TimeExpendPrint, v.StatGrpName
	par.CPUProfile, par.GoTrace = v.CPUProfile, v.GoTrace
	par.ActiveWait = v.ActiveWait
	if v.MsgBuffer == 0 {
		par.MsgBuffer = -1
	}
	par.Deadlock = time.Duration(v.DeadlockMS) * time.Millisecond
	if v.DeadlockMS == 0 {
		par.Deadlock = -1
	}
	var closers []func() error
	closeAll = func() error {
		var err error
		for i := len(closers) - 1; i >= 0; i-- {
			if cerr := closers[i](); err == nil {
				err = cerr
			}
		}
		return err
	}
	fail := func(e error) (Params, func() error, error) {
		closeAll()
		return par, func() error { return nil }, e
	}
	// The informational messages: to each stream v.Info names (Lib-DVM's
	// +i), stdout and stderr once if they are the same file (seed 000
	// §8.2: "informational messages are not duplicated").
	var infos []io.Writer
	if v.Info.Has("stdout") {
		infos = append(infos, os.Stdout)
	}
	if v.Info.Has("stderr") && !(v.Info.Has("stdout") && sameFile(os.Stdout, os.Stderr)) {
		infos = append(infos, os.Stderr)
	}
	if path := v.Info.Path; v.Info.Has("file") {
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if par.KeepOld {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := os.OpenFile(path, flags, 0o666)
		switch {
		case err != nil && v.FatInfoNoOpen:
			return fail(fmt.Errorf("%s: %v", s.SourceName("info"), err))
		case err != nil:
			// FatInfoNoOpen = 0 (seed 000 §8.2): warn and run on, the
			// messages on standard error instead.
			fmt.Fprintf(os.Stderr, "svmc: warning: %s: %v; informational messages go to standard error\n", s.SourceName("info"), err)
			if !v.Info.Has("stderr") {
				infos = append(infos, os.Stderr)
			}
		default:
			lw := output.File(f, 4096)
			var w io.Writer = lw
			closers = append(closers, lw.Close)
			if v.InfoSepFile {
				sep := &sepInfo{w: lw}
				w = sep
				closers = append(closers, sep.flush)
			}
			infos = append(infos, w)
		}
	}
	switch {
	case v.Info.Mode == "off":
		par.Stderr = io.Discard
	case len(infos) == 1:
		par.Stderr = infos[0]
	case len(infos) > 1:
		par.Stderr = io.MultiWriter(infos...)
	default:
		par.Stderr = os.Stderr
	}
	if path := v.Trace; path != "" {
		f, partial, err := createTrace(path)
		if err != nil {
			return fail(fmt.Errorf("%s=%s: %v", s.SourceName("trace"), path, err))
		}
		// No buffer of its own: the trace writer's is flushed whenever a
		// processor's buffer was written (see run.writer).
		par.Trace = f
		par.TraceName = path
		// The names as the run began: the program may change its
		// directory (os.Chdir) before the trace is renamed.
		final, temp := absPath(path), absPath(partial)
		closers = append(closers, func() error {
			err := f.Close()
			if err == nil && partial != "" {
				err = os.Rename(temp, final)
			}
			if err != nil {
				return fmt.Errorf("%s=%s: %v", s.SourceName("trace"), path, err)
			}
			return nil
		})
	}
	return par, closeAll, nil
}

// absPath is path made absolute against the directory the run began in
// (path itself when that fails, or for "").
func absPath(path string) string {
	if path == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// createTrace creates the trace file. A regular file is written under
// trace.PartialName and renamed when the run is over: two runs writing the
// same trace each leave a whole one (the later wins), and an earlier trace
// stays until the new one is complete. Anything else (/dev/stdout, a pipe)
// is written as it is. partial is the name written, "" for path itself.
func createTrace(path string) (f *os.File, partial string, err error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		return f, "", err
	}
	partial = trace.PartialName(path, os.Getpid())
	f, err = os.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	var pe *os.PathError
	if errors.As(err, &pe) {
		// Name the trace the user gave, not the partial file.
		return nil, "", &os.PathError{Op: "create", Path: path, Err: pe.Err}
	}
	return f, partial, err
}

// sameFile reports whether two of the process's streams are one file (a
// terminal, or one file both are redirected to).
func sameFile(a, b *os.File) bool {
	fa, err1 := a.Stat()
	fb, err2 := b.Stat()
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// sepInfo is Lib-DVM's SysInfoSepFile (seed 000 §8.2): each processor's
// informational messages are kept apart while the run lasts (the seed's
// <n>.out files; here in memory, the messages being few) and joined into
// the info file at its end, processor by processor. A message from a
// goroutine that is no processor counts as processor 0's.
type sepInfo struct {
	w    io.Writer
	mu   sync.Mutex
	bufs [][]byte
}

func (s *sepInfo) Write(b []byte) (int, error) {
	id := 0
	if p := gProcs.load(getg()); p != nil {
		id = p.id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.bufs) <= id {
		s.bufs = append(s.bufs, nil)
	}
	s.bufs[id] = append(s.bufs[id], b...)
	return len(b), nil
}

// flush writes the messages in processor order; closeAll calls it before
// it closes the file.
func (s *sepInfo) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bufs {
		if _, err := s.w.Write(b); err != nil {
			return err
		}
	}
	s.bufs = nil
	return nil
}
