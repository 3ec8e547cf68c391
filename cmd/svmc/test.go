package main

import (
	"bytes"
	"fmt"
	"github.com/svmc/svmc/codegen"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func testCmd() *cobra.Command {
	var (
		nprocs  int
		keep    bool
		perTest string
	)
	var values map[string]*string
	var bools map[string]*bool
	cmd := &cobra.Command{
		Use: "test [flags] [packages] [-- go test flags]",
		Example: `  svmc test -n 4 .                              the package's tests on 4 processors
  svmc test -n 4 --trace t.sddf . -- -run TestSolve -v
  svmc test -n 2 . -- -bench . -benchtime 100x
  svmc test -n 4 ./...                          every package of the module that has tests`,
		Short: "run a package's tests and benchmarks with the instrumented code on N processors",
		Long: `test compiles the package with its _test.go files source to source (directives in
tests are numbered like the others), builds it against the runtime embedded in this svmc
and runs go test on it. A generated TestMain starts the processors; each test, benchmark,
fuzz target and example runs as processor 0 of that run on its own goroutine, so the
parallel constructs it reaches use every processor; a test that finds processor 0 taken
by a test running in parallel (t.Parallel) runs its constructs serially instead.
The run-time flags are those of svmc run; --trace writes one trace for the test binary,
in which each test is the region of its function; --trace-per-test DIR runs go test once
per test and writes DIR/<test>.sddf. Flags after -- go to go test (-run,
-v, -bench, -count, ...), and so do go test's flags written among svmc's (svmc test
-run TestX -v .; a flag both have, such as -n or -trace, is svmc's); the output and the
exit status are go test's. Coverage
(-cover, -coverprofile) is not available: go's cover tool reads the package's own files,
not the instrumented ones (go test -cover of the plain package covers the same statements).
kill -INT or -TERM of svmc test stops the running test binary, which completes its trace;
a binary that go test's -timeout ends leaves its records until about 0.1 s before, under
the trace's name.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			goArgs := []string(nil)
			dash := cmd.ArgsLenAtDash()
			pkgArgs := args
			if dash >= 0 {
				pkgArgs, goArgs = args[:dash], args[dash:]
			}
			env, err := paramEnv(cmd, nprocs, values, bools)
			if err != nil {
				return err
			}
			if t := *values["trace"]; cmd.Flags().Changed("trace") && !filepath.IsAbs(t) && t != "-" {
				// go test runs the test binary in the package directory:
				// a relative trace is the caller's.
				abs, _ := filepath.Abs(t)
				env = append(env, "SVMC_FLAG_TRACE="+abs)
			}
			if len(pkgArgs) == 0 {
				pkgArgs = []string{"."}
			}
			if i := slices.IndexFunc(goArgs, isCoverFlag); i >= 0 {
				// go's cover tool reads the files named in the package's
				// directory, not the build overlay that holds svmc's: it
				// failed on the tables file, and would have measured the
				// plain files.
				return fmt.Errorf("test: go test's %s cannot measure svmc's build (go's cover tool reads the package's own files, not the instrumented ones svmc builds instead): measure coverage with go test %s on the plain package, whose statements are the same", goArgs[i], goArgs[i])
			}
			if (perTest != "" || writesFiles(cmd)) && !slices.ContainsFunc(goArgs, isCountFlag) {
				// go test would print a cached result and write no file.
				goArgs = append([]string{"-count=1"}, goArgs...)
			}
			if len(pkgArgs) == 1 && !strings.Contains(pkgArgs[0], "...") {
				return testPackage(cmd, pkgArgs[0], env, goArgs, keep, perTest)
			}
			// Several packages, as go test takes them: each in turn, its
			// output and status as go test's.
			dirs, err := testDirs(pkgArgs)
			if err != nil {
				return err
			}
			withTests := 0
			for _, d := range dirs {
				if d.tests {
					withTests++
				}
			}
			if cmd.Flags().Changed("trace") && withTests > 1 {
				return fmt.Errorf("test: --trace names one file and %d packages have tests: test one package, or give --trace-per-test DIR (DIR/<package>/<test>.sddf)", withTests)
			}
			var failed error
			for _, d := range dirs {
				if signalled.Load() {
					break // interrupted: no further package
				}
				if !d.tests {
					fmt.Fprintf(cmd.OutOrStdout(), "?   \t%s\t[no test files]\n", d.path)
					continue
				}
				per := perTest
				if per != "" {
					per = filepath.Join(perTest, filepath.FromSlash(d.path))
				}
				if err := testPackage(cmd, d.dir, env, goArgs, keep, per); err != nil && failed == nil {
					failed = err
				}
			}
			return failed
		},
	}
	values, bools = paramFlags(cmd, &nprocs)
	cmd.Flags().BoolVar(&keep, "work", false, "keep the work directory and print its name")
	instrumentFlag(cmd)
	cmd.Flags().StringVar(&perTest, "trace-per-test", "", "write a trace per test, DIR/<test>.sddf (one go test run per test)")
	return cmd
}

// outputParams are the run-time parameters that name files the run writes.
var outputParams = []string{"trace", "stat_file", "cpuprofile", "gotrace"}

// writesFiles reports whether the run writes files of its own, by a flag
// or the environment.
func writesFiles(cmd *cobra.Command) bool {
	for _, name := range outputParams {
		if cmd.Flags().Changed(strings.ReplaceAll(name, "_", "-")) || os.Getenv("SVMC_"+strings.ToUpper(name)) != "" {
			return true
		}
	}
	return false
}

// isCountFlag reports whether a go test argument is its -count flag.
func isCountFlag(a string) bool { return goFlagName(a) == "count" }

// isCoverFlag reports whether a go test argument asks for coverage.
func isCoverFlag(a string) bool {
	switch goFlagName(a) {
	case "cover", "covermode", "coverpkg", "coverprofile":
		return true
	}
	return false
}

// goFlagName is the name of a go test flag argument: -count=1 and
// --count are count.
func goFlagName(a string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
	return name
}

// testPackage runs svmc test on the package in directory pattern.
func testPackage(cmd *cobra.Command, pattern string, env, goArgs []string, keep bool, perTest string) error {
	work, err := newWorkDir("svmc-run-", keep)
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(cmd.ErrOrStderr(), "svmc: work directory %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	setup, err := moduleSetup(pattern, work)
	if err != nil {
		return err
	}
	p, ovPath, err := instrument(setup, work, true, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if codegen.XTestMain(p) {
		fmt.Fprintf(cmd.ErrOrStderr(), "svmc: the TestMain of package %s_test starts the tests without svmc's processors: they run on one processor; a TestMain in package %s runs as a program's main does\n", p.Types.Name(), p.Types.Name())
	}
	goArgs, vetted := vetTests(cmd, setup, p.Dir, p.ImportPath, goArgs)
	if vetted != nil {
		return vetted
	}
	goTest := func(env []string, args ...string) *exec.Cmd {
		a := append([]string{"test", "-overlay", ovPath}, setup.flags...)
		c := exec.Command("go", append(append(a, args...), ".")...)
		c.Dir = p.Dir
		c.Env = append(env, setup.env...)
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
		return c
	}
	if perTest == "" {
		tr := envValue(env, "SVMC_FLAG_TRACE")
		before, start := traceState(tr), time.Now()
		err := goStatus(runForwarding(goTest(env, goArgs...), true))
		before.rescueTrace(cmd.ErrOrStderr())
		listChildTraces(cmd.ErrOrStderr(), tr, start)
		return err
	}
	// A trace per test: one go test run per test, each writing
	// DIR/<test>.sddf.
	dir, err := filepath.Abs(perTest)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("test: --trace-per-test: %v", err)
	}
	var list bytes.Buffer
	lc := goTest(env, "-list", ".")
	lc.Stdout = &list
	if err := lc.Run(); err != nil {
		return goStatus(err)
	}
	var failed error
	for _, name := range strings.Fields(list.String()) {
		if !strings.HasPrefix(name, "Test") {
			continue // "ok <pkg>" and benchmarks, examples
		}
		if signalled.Load() {
			break
		}
		tr := filepath.Join(dir, name+".sddf")
		e := append(slices.Clone(env), "SVMC_FLAG_TRACE="+tr)
		before, start := traceState(tr), time.Now()
		if err := goStatus(runForwarding(goTest(e, append([]string{"-run", "^" + name + "$"}, goArgs...)...), true)); err != nil && failed == nil {
			failed = err
		}
		before.rescueTrace(cmd.ErrOrStderr())
		listChildTraces(cmd.ErrOrStderr(), tr, start)
	}
	return failed
}

// vetTests runs the checks go test runs before a test binary (its -vet
// flag in goArgs, by default a high-confidence subset of go vet's) on the
// package's own files in dir, and returns goArgs with go test's own vet
// off. go test's would check the instrumented files: x538's
// fmt.Printf("%d\n", "s") in a test was reported as "fmt.Fprintf format
// %d ..." (the call svmc writes for output from processor 0) at
// ../svmc-run-NNN/src/0/bad_test.go:9. A failure is reported as go test
// reports it, and the tests do not run.
func vetTests(cmd *cobra.Command, setup goSetup, dir, importPath string, goArgs []string) ([]string, error) {
	checks, tags := "", buildTags
	rest := make([]string, 0, len(goArgs)+1)
	for i := 0; i < len(goArgs); i++ {
		a := goArgs[i]
		name := goFlagName(a)
		if name != "vet" && name != "tags" || !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		_, v, ok := strings.Cut(a, "=")
		if !ok && i+1 < len(goArgs) {
			i++
			v = goArgs[i]
		}
		if name == "vet" {
			checks = v
		} else {
			rest = append(rest, "-tags="+v)
			tags = v
		}
	}
	rest = append([]string{"-vet=off"}, rest...)
	args := []string{"vet"}
	switch checks {
	case "off":
		return rest, nil
	case "all":
	case "":
		checks = "atomic,bool,buildtags,directive,errorsas,ifaceassert,nilfunc,printf,stringintconv,tests"
		fallthrough
	default:
		for c := range strings.SplitSeq(checks, ",") {
			args = append(args, "-"+c)
		}
	}
	// The module as the build sees it (the runtime importable: a test
	// may use the program API), without the overlay.
	for _, f := range setup.flags {
		if !strings.HasPrefix(f, "-tags=") {
			args = append(args, f)
		}
	}
	if tags != "" {
		args = append(args, "-tags="+tags)
	}
	vet := exec.Command("go", append(args, ".")...)
	vet.Dir = dir
	vet.Env = append(os.Environ(), setup.env...)
	var out bytes.Buffer
	vet.Stdout, vet.Stderr = &out, &out
	err := vet.Run()
	if err == nil {
		return rest, nil
	}
	if _, ok := err.(*exec.ExitError); !ok {
		return nil, fmt.Errorf("test: go vet: %v", err)
	}
	// go vet names the files relative to dir ("bad_test.go:9:14"):
	// svmc test's are relative to where it was started.
	rel := "."
	if wd, werr := os.Getwd(); werr == nil {
		if r, rerr := filepath.Rel(wd, dir); rerr == nil {
			rel = r
		}
	}
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if vetPos.MatchString(line) {
			line = filepath.Join(rel, line)
		}
		fmt.Fprint(cmd.ErrOrStderr(), line)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "FAIL\t%s [build failed]\nFAIL\n", importPath)
	return nil, exitError{1}
}

// vetPos is a line of go vet's that begins with a file relative to the
// package's directory.
var vetPos = regexp.MustCompile(`^(\./)?[^\s/#][^\s:]*\.go:\d+`)

// rescueTrace gives the trace the partial trace a test binary left when
// it ended without completing it: go test's -timeout panics the binary,
// and a binary killed outright writes nothing more. The trace's writer
// drained it until about 0.1 s before the end (x520's hung test: 27 434
// records over its 2 s, left as t.sddf.PID.partial). svmc run does the
// same for its program (child.go).
func (b traceBefore) rescueTrace(stderr io.Writer) {
	b.settle(stderr, "the test binary", "a test that timed out, or the binary killed", false)
}

// traceBefore is what stood at a trace's path, and the partial traces
// beside it, before a run: what the run wrote is what differs after it.
// File times cannot tell (the file system's clock is coarse: a trace
// written a few milliseconds into the run may be stamped before it began).
type traceBefore struct {
	path     string
	fi       os.FileInfo // nil if none
	partials map[string]bool
}

func traceState(path string) traceBefore {
	b := traceBefore{path: path, partials: map[string]bool{}}
	if path == "" || path == "-" {
		return b
	}
	b.fi, _ = os.Stat(path)
	parts := partialsOf(path)
	for _, f := range parts {
		b.partials[f] = true
	}
	return b
}

// partialsOf are the partial traces of path (trace.PartialName), those of
// the program's children (path.child-PID, rtlib's childrun.go) left out.
func partialsOf(path string) []string {
	parts, _ := filepath.Glob(globEscape(path) + ".*.partial")
	var own []string
	for _, f := range parts {
		if !strings.HasPrefix(f, path+".child-") {
			own = append(own, f)
		}
	}
	return own
}

// settle looks, after a run of who, for the trace it was to write. A
// complete one it wrote is left as it is; a partial one is renamed to the
// path and said to be partial (why says the likely cause); where there is
// none, a program that ended before its processors started (a panic or
// os.Exit while its packages were initialised: x533's helper package) is
// said to have written none, and a file at the path from an earlier run is
// said to be that, if ran (go test may not have run the test binary: a
// build or vet failure).
func (b traceBefore) settle(stderr io.Writer, who, why string, ran bool) {
	if b.path == "" || b.path == "-" {
		return
	}
	fi, err := os.Stat(b.path)
	if err == nil && !fi.Mode().IsRegular() {
		return // a device or a pipe (/dev/stdout): written as it is, whatever came there
	}
	if err == nil && (b.fi == nil || !os.SameFile(b.fi, fi) || !fi.ModTime().Equal(b.fi.ModTime())) {
		return // this run's, complete
	}
	parts := partialsOf(b.path)
	newest := ""
	var at time.Time
	for _, f := range parts {
		if pi, perr := os.Stat(f); perr == nil && !b.partials[f] && (newest == "" || pi.ModTime().After(at)) {
			newest, at = f, pi.ModTime()
		}
	}
	if newest != "" && os.Rename(newest, b.path) == nil {
		fmt.Fprintf(stderr, "svmc: %s ended without completing its trace (%s): %s holds its records until about 0.1 s before the end and has no trace-end record\n", who, why, b.path)
		return
	}
	if !ran {
		return
	}
	if di, derr := os.Stat(filepath.Dir(b.path)); derr != nil || !di.IsDir() {
		return // the run could not create it, and said so
	}
	msg := fmt.Sprintf("svmc: %s wrote no trace to %s: it ended before its processors started (a panic or os.Exit while its packages were initialised, before main)", who, b.path)
	if err == nil {
		msg += fmt.Sprintf("; the %s there is from an earlier run (%s)", b.path, fi.ModTime().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintln(stderr, msg)
}

// envValue is the value of the last setting of name in env, "" if none.
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// testDir is a package that svmc test takes.
type testDir struct {
	dir, path string
	tests     bool // it has test files
}

// testDirs lists the packages the patterns name, as go list does.
func testDirs(patterns []string) ([]testDir, error) {
	var out bytes.Buffer
	c := exec.Command("go", append([]string{"list", "-e", "-f", "{{.Dir}}\t{{.ImportPath}}\t{{len .TestGoFiles}}{{len .XTestGoFiles}}"}, patterns...)...)
	c.Stdout, c.Stderr = &out, os.Stderr
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("test: go list %s: %v", strings.Join(patterns, " "), err)
	}
	var dirs []testDir
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" {
			continue
		}
		dirs = append(dirs, testDir{dir: f[0], path: f[1], tests: f[2] != "00"})
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("test: %s: no packages", strings.Join(patterns, " "))
	}
	return dirs, nil
}

// goStatus is go test's exit status as svmc's.
func goStatus(err error) error {
	if err == nil {
		return nil
	}
	if xe, ok := err.(*exec.ExitError); ok {
		return exitError{xe.ExitCode()}
	}
	return fmt.Errorf("test: go test: %v", err)
}
