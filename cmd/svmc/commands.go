package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/svmc/svmc/codegen"
	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/rtlib/paramcheck"
	"github.com/svmc/svmc/trace"
)

func compileCmd() *cobra.Command {
	var outDir string
	cmd := &cobra.Command{
		Use: "compile -o DIR [package]",
		Example: `  svmc compile -o ./svm .
  //go:generate svmc compile -o ./svm .     (in a package: go generate writes ./svm)`,
		Short: "write the instrumented package and its program information file into DIR",
		Long: `compile checks the directives of a package main, numbers its subprograms, directives,
trace regions and shared variables, and writes into DIR the instrumented Go files
(gofmt-ed, marked "Code generated ... DO NOT EDIT."), svm_tables.go and svminfo.json.
DIR is a package of its own that builds with 'go build' in a module that can import
github.com/svmc/svmc/rtlib. Use it from a //go:generate line:

	//go:generate go run github.com/svmc/svmc/cmd/svmc compile -o ./svm .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if outDir == "" {
				return fmt.Errorf("compile needs -o DIR, the directory to write the instrumented package to")
			}
			pattern := "."
			if len(args) == 1 {
				pattern = args[0]
			}
			work, err := newWorkDir("svmc-build-", false)
			if err != nil {
				return err
			}
			defer os.RemoveAll(work)
			setup, err := moduleSetup(pattern, work)
			if err != nil {
				return err
			}
			p, err := compilePackage(pattern, setup, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if err := checkOutDir(p, outDir); err != nil {
				return err
			}
			out, err := codegen.Generate(p, outDir, append([]string{"svmc"}, os.Args[1:]...))
			if err != nil {
				return err
			}
			if err := writeOutput(out, outDir); err != nil {
				return err
			}
			if p.Types.Name() == "main" {
				warnLibraries(setup, cmd.ErrOrStderr())
			}
			return removeStale(out, outDir)
		},
	}
	cmd.Flags().StringVarP(&outDir, "out", "o", "", "directory to write the instrumented package to")
	instrumentFlag(cmd)
	return cmd
}

// warnLibraries says which libraries of a main package svmc compile left
// as written: DIR holds the main package alone and imports them, so their
// directives run serially there (x502: a matrix package's pdos, without a
// word), where svmc build and svmc run compile them too.
func warnLibraries(setup goSetup, stderr io.Writer) {
	libs, err := compiler.Libraries(compiler.Config{Dir: setup.dir, Pattern: ".", BuildFlags: setup.flags, Env: setup.env})
	if err != nil {
		return // the build of DIR says what is wrong with the imports
	}
	for _, path := range slices.Sorted(maps.Keys(libs)) {
		fmt.Fprintf(stderr, "%s: warning: svmc compile writes the main package alone: the package %s it imports is not instrumented in its output, whose build runs these directives serially; svmc build and svmc run compile it too\n", libs[path], path)
	}
}

// runFlags are the flags of svmc run that become run-time parameters. The
// program reads them as SVMC_FLAG_<NAME>, so --print-params can tell a flag
// from the environment (SVMC_<NAME>) and the parameter file (SVMC_PARAMS).
var runFlags = []struct {
	name, param, usage string
}{
	{"trace", "TRACE", "write a trace to this file"},
	{"format", "FORMAT", "trace format: ascii or binary (default binary)"},
	{"stage", "STAGE", "tracing stage 0-6 (default 3 with a trace)"},
	{"request", "REQUEST", "trace request file (seed 002 §5 grammar)"},
	{"params", "PARAMS", "parameter file: name = value lines"},
	{"tracebuf", "TRACEBUF", "trace bytes a processor holds before it waits for the writer, e.g. 4M"},
	{"stdout", "STDOUT", "user output: proc0[:FILE], each[:PATTERN with %d] or common[:FILE]"},
	{"stderr", "STDERR", "user error output, as --stdout"},
	{"info", "INFO", "runtime messages: stderr, stdout, off or file:PATH"},
	{"fat-info-no-open", "FAT_INFO_NO_OPEN", "1: an info file that cannot be opened stops the run (default); 0: warn and use stderr"},
	{"info-sep-file", "INFO_SEP_FILE", "1: the info file gets each processor's messages together, in processor order"},
	{"max-interval-level", "MAX_INTERVAL_LEVEL", "deepest measured interval the statistics keep (0: all)"},
	{"stat-file", "STAT_FILE", "with --stats, also write the statistics as text to this file"},
	{"deadlock-ms", "DEADLOCK_MS", "report a deadlock after this many ms without progress (0 off)"},
	{"time-limit", "TIME_LIMIT", "stop the run after this long (10s, 5m), as SIGTERM does, saying what each processor was doing"},
	{"throttle-calls", "THROTTLE_CALLS", "stop tracing a subprogram on a processor after this many calls ... (0 off)"},
	{"throttle-us", "THROTTLE_US", "... when their mean inclusive time is under this many µs (0 off)"},
	{"synchr-time", "SYNCHR_TIME", "with --stats, count the real dissynchronisation of message passing (Lib-DVM's IsSynchrTime; 1 default, 0 off)"},
	{"time-variation", "TIME_VARIATION", "with --stats, count the time variation and potential dissynchronisation of barriers (Lib-DVM's IsTimeVariation; 1/0)"},
	{"stat-buf-length", "STAT_BUF_LENGTH", "bytes of a processor's statistics (Lib-DVM's StatBufLength; intervals beyond count in the enclosing one; 0 no bound)"},
	{"time-expend-print", "TIME_EXPEND_PRINT", "print Lib-DVM's TaskInter matrix at the end: 1 brief, 2 column sum, 3 row sum, 4 column, 5 row of --stat-grp-name (0 off)"},
	{"gotrace", "GOTRACE", "write the Go execution trace of the run to this file (runtime/trace), svmc's regions as user regions of a task per processor: go tool trace FILE shows them beside the collector and the scheduler"},
	{"cpuprofile", "CPUPROFILE", "write a CPU profile of the run to this file; its samples carry the labels svmc_processor and svmc_region (go tool pprof -tagfocus svmc_region=NAME)"},
	{"stat-grp-name", "STAT_GRP_NAME", "the group --time-expend-print 4 and 5 show (Lib-DVM's StatGrpName: MapPLGrp, SyncGrp, ... or its number)"},
	{"info-off", "INFO_OFF", "classes of informational messages not to print: mapping, goroutines, requests, measure, messages, user (comma-separated; Lib-DVM §8.3)"},
	{"page-size", "PAGE_SIZE", "page size of the shared virtual memory layer (a power of two; 4096)"},
	{"svm-model", "SVM_MODEL", "consistency model of the shared virtual memory layer: rc (default) or sc"},
	{"page-budget", "PAGE_BUDGET", "copies of other processors' pages a processor keeps (0: no limit); beyond it the oldest is paged out"},
	{"procs-per-rank", "PROCS_PER_RANK", "with --mpi: the processors each rank runs as goroutines (the job has -n ranks × this processors)"},
	{"wait-policy", "WAIT_POLICY", "waiting processors block after a short spin (passive, default) or keep yielding the CPU for 1ms first (active, or active:DURATION): a pdo after serial code then starts without waking blocked threads (0.1-1 ms on a virtual machine), at the cost of CPU the program's own goroutines could use"},
	{"rank-pages", "RANK_PAGES", "with --mpi: shared variables reached only by indexing travel as pages fetched from their homes (lazy, default) or every change to every rank (eager)"},
	{"msg-buffer", "MSG_BUFFER", "bytes of standard sends a processor may have buffered (1M; 0: every Send waits for its receive)"},
	{"msg-checksum", "MSG_CHECKSUM", "message records carry a CRC-32 of each buffer (1/0)"},
	{"msg-perturb", "MSG_PERTURB", "random yields before message calls, to try other schedules (1/0)"},
}

var runBools = []struct {
	name, param, usage string
}{
	{"lenient", "LENIENT", "unknown names in the request file are warnings, not errors"},
	{"stats", "STATS", "write Lib-DVM interval statistics at the end of the run"},
	{"keep-old", "KEEP_OLD", "append to old output files instead of replacing them"},
}

func buildCmd() *cobra.Command {
	var (
		out       string
		mpi, race bool
	)
	cmd := &cobra.Command{
		Use:   "build [-o BIN | -o DIR/] [package | pattern/...]",
		Short: "compile a package and build it against rtlib into a binary",
		Long: `build compiles the package source to source and builds it against the runtime
embedded in this svmc, as svmc run does (offline; the package may live in any module),
into the executable BIN, for benchmarking, deployment or a debugger. The binary reads its
run-time parameters itself (SVMC_NPROCS, SVMC_TRACE, ... and SVMC_PARAMS; see svmc run).
Without -o, or with -o naming a directory, the executable is named as go build names it:
after the package's last path element (a major version's /vN skipped), or after the Go
file given as the package; -o DIR/ makes the directory. A pattern with ... builds each
package main it matches, into the directory -o names (svmc build -o bin/ ./cmd/...), or,
without -o, only to see that they build, as go build does.`,
		Example: `  svmc build -o jacobi ./examples/jacobi
  SVMC_NPROCS=4 SVMC_TRACE=j.sddf ./jacobi -n 200`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return buildTo(cmd, args, out, mpi, race)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the executable to write, or the directory to write it in (default: named after the package, here)")
	cmd.Flags().BoolVar(&mpi, "mpi", false, "build with the MPI transport, to launch with mpirun -np N BIN (each rank one processor)")
	cmd.Flags().BoolVar(&race, "race", false, "build with Go's race detector (needs cgo): the binary prints Go's own reports, which svmc run --race says in svmc's terms")
	instrumentFlag(cmd)
	ldflagsFlag(cmd)
	return cmd
}

// buildGoFlags are the go build flags of svmc build's and install's --mpi
// and --race.
func buildGoFlags(mpi, race bool) ([]string, error) {
	var goFlags []string
	if mpi {
		if err := checkMPI(false); err != nil {
			return nil, err
		}
		goFlags, buildRanks = mpiGoFlags, true
	}
	if race {
		goFlags = append(goFlags, "-race")
	}
	return goFlags, nil
}

// buildTo is svmc build and install: the programs args name (packageArg)
// built into out (buildOne, buildMains), with --mpi and --race.
func buildTo(cmd *cobra.Command, args []string, out string, mpi, race bool) error {
	pattern, err := packageArg(cmd.Name(), args, "")
	if err != nil {
		return err
	}
	goFlags, err := buildGoFlags(mpi, race)
	if err != nil {
		return err
	}
	if strings.Contains(pattern, "...") {
		return buildMains(cmd, pattern, out, goFlags)
	}
	named := pattern
	if len(args) > 1 {
		named = args[0] // Go files: named after the first, as go build names it
	}
	return buildOne(cmd, pattern, named, out, goFlags)
}

func installCmd() *cobra.Command {
	var mpi, race bool
	cmd := &cobra.Command{
		Use:   "install [package | pattern/... | package@version]",
		Short: "build a package's program against rtlib and install it where go install does",
		Long: `install builds the program as svmc build does and writes it to the directory go install
writes to: $GOBIN, or the bin directory of the first element of $GOPATH (go env GOBIN
GOPATH). A pattern with ... installs each package main it matches; a package with a version
(example.com/tool@latest) is fetched and built in its own module, as go install does. The
installed binary reads its run-time parameters itself (SVMC_NPROCS, SVMC_TRACE, ...; see svmc run).`,
		Example: `  svmc install ./cmd/...
  svmc install example.com/tool@latest
  SVMC_NPROCS=4 solver -n 200`,
		RunE: func(cmd *cobra.Command, args []string) error {
			bin, err := installDir()
			if err != nil {
				return err
			}
			return buildTo(cmd, args, bin+string(filepath.Separator), mpi, race)
		},
	}
	cmd.Flags().BoolVar(&mpi, "mpi", false, "build with the MPI transport, to launch with mpirun -np N BIN (each rank one processor)")
	cmd.Flags().BoolVar(&race, "race", false, "build with Go's race detector (needs cgo)")
	instrumentFlag(cmd)
	ldflagsFlag(cmd)
	return cmd
}

// installDir is where go install writes programs: GOBIN, else GOPATH's
// first element's bin.
func installDir() (string, error) {
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOBIN GOPATH: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > 0 && lines[0] != "" {
		return lines[0], nil
	}
	if len(lines) > 1 && lines[1] != "" {
		return filepath.Join(filepath.SplitList(lines[1])[0], "bin"), nil
	}
	return "", errors.New("no install directory: go env GOBIN and GOPATH are both empty")
}

// buildOne builds the program of pattern into out (buildOutput; named is
// what names the executable).
func buildOne(cmd *cobra.Command, pattern, named, out string, goFlags []string) error {
	exe, done, err := buildInWork("svmc-build-", pattern, false, true, cmd.ErrOrStderr(), goFlags...)
	defer done()
	if err != nil {
		return err
	}
	to, err := buildOutput(out, named, exe)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
		return fmt.Errorf("cannot write the executable: %v", err)
	}
	if err := moveFile(exe, to); err != nil {
		return fmt.Errorf("cannot write the executable %s: %v", to, err)
	}
	return nil
}

// buildMains is svmc build of a pattern with "...", as go build takes it:
// each package main it matches is built, into the directory out (go build
// -o bin/ ./cmd/...), or only to see that it builds when there is no -o
// (go build ./... writes nothing when it builds several packages).
// Packages that are not main are left out: svmc builds programs.
func buildMains(cmd *cobra.Command, pattern, out string, goFlags []string) error {
	dirs, err := mainDirs(pattern)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return fmt.Errorf("%s: no package main among the packages it matches; svmc builds programs", pattern)
	}
	isDir := strings.HasSuffix(out, string(filepath.Separator))
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		isDir = true
	}
	if len(dirs) > 1 && out != "" && !isDir {
		return fmt.Errorf("%s matches %d programs: -o %s must name a directory to write them to (-o %s%c)", pattern, len(dirs), out, out, filepath.Separator)
	}
	if len(dirs) == 1 {
		return buildOne(cmd, dirs[0], dirs[0], out, goFlags)
	}
	if out == "" {
		out = filepath.Join(os.TempDir(), fmt.Sprintf("svmc-build-discard-%d", os.Getpid())) + string(filepath.Separator)
		defer os.RemoveAll(out)
	}
	for _, dir := range dirs {
		if err := buildOne(cmd, dir, dir, out, goFlags); err != nil {
			return err
		}
	}
	return nil
}

// mainDirs lists the directories of the packages main that pattern
// matches, as go list does.
func mainDirs(pattern string) ([]string, error) {
	out, err := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.Dir}}{{end}}`, pattern).Output()
	if err != nil {
		msg := err.Error()
		var xe *exec.ExitError
		if errors.As(err, &xe) && len(xe.Stderr) > 0 {
			msg = strings.TrimSpace(string(xe.Stderr))
		}
		if strings.Contains(msg, pattern) {
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("%s: %s", pattern, msg)
	}
	var dirs []string
	for _, d := range strings.Split(string(out), "\n") {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs, nil
}

// buildOutput is the file svmc build writes the executable exe (named
// after the package, as go build names it) to: out, a file in out when it
// is a directory, or one here without -o. A Go file given as the package
// names it, as go build main.go names it main.
func buildOutput(out, pattern, exe string) (string, error) {
	name := filepath.Base(exe)
	if strings.HasSuffix(pattern, ".go") {
		name = strings.TrimSuffix(filepath.Base(pattern), ".go")
	}
	if out == "" {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			return "", fmt.Errorf("the executable would be %s, a directory here: name it with -o FILE", name)
		}
		out = name
	} else if fi, err := os.Stat(out); (err == nil && fi.IsDir()) || strings.HasSuffix(out, string(filepath.Separator)) {
		out = filepath.Join(out, name)
	}
	return filepath.Abs(out)
}

// moveFile moves a file, copying it when a rename cannot (another file
// system).
func moveFile(from, to string) error {
	if err := os.Rename(from, to); err == nil {
		return nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

func runCmd() *cobra.Command {
	var (
		nprocs                        int
		keep, print, check, race, mpi bool
		hostfile                      string
	)
	values := map[string]*string{}
	bools := map[string]*bool{}
	cmd := &cobra.Command{
		Use: "run [flags] [package] [-- program arguments]",
		Example: `  svmc run -n 4 .                                  run the package here on 4 processors
  svmc run -n 4 --trace t.sddf ./cmd/solver -- -size 1000
  svmc run -n 2 --request next.req --trace t2.sddf .   trace what a report asked for
  svmc run --time-limit 30s --stdout each:out%d.txt .`,
		Short: "compile a package, build it against rtlib and run it on N processors",
		Long: `run compiles the package source to source, builds it against the runtime embedded in
this svmc (offline; the package may live in any module) and runs it.

Every flag is a run-time parameter the built program reads itself, so a program built
with svmc compile runs the same way directly. Parameters come from the environment
(SVMC_NPROCS, SVMC_TRACE, SVMC_FORMAT, SVMC_STAGE, SVMC_REQUEST, ...), then a parameter
file (--params or SVMC_PARAMS), then these flags, each overriding the one before;
--print-params shows the effective values and where each comes from.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var progArgs []string
			dash := cmd.ArgsLenAtDash()
			pkgArgs := args
			if dash >= 0 {
				pkgArgs, progArgs = args[:dash], args[dash:]
			}
			pattern, err := packageArg("run", pkgArgs, "; put program arguments after --")
			if err != nil {
				return err
			}
			env, err := paramEnv(cmd, nprocs, values, bools)
			if err != nil {
				return err
			}
			if print {
				env = append(env, "SVMC_PRINT_PARAMS=1")
			}
			if check {
				// What svmc check needs: the message records with the
				// buffers' checksums.
				env = append(env, "SVMC_FLAG_MSG_CHECKSUM=1")
				if !cmd.Flags().Changed("stage") && !cmd.Flags().Changed("request") {
					env = append(env, "SVMC_FLAG_STAGE=3")
				}
				if !cmd.Flags().Changed("trace") && os.Getenv("SVMC_TRACE") == "" {
					*values["trace"] = "svmc-check.sddf"
					env = append(env, "SVMC_FLAG_TRACE=svmc-check.sddf")
					fmt.Fprintln(cmd.ErrOrStderr(), "svmc run --check: the trace goes to svmc-check.sddf; svmc check svmc-check.sddf writes the protocol")
				}
			}
			var goFlags []string
			if race {
				goFlags = []string{"-race"}
			}
			if hostfile != "" && !mpi {
				return fmt.Errorf("--hostfile needs --mpi")
			}
			ranks := 0
			if mpi {
				if err := checkMPI(true); err != nil {
					return err
				}
				if hostfile != "" {
					if err := checkHostfile(hostfile); err != nil {
						return err
					}
				}
				if ranks, err = ranksOf(cmd.Flags().Changed("nprocs"), nprocs); err != nil {
					return err
				}
				goFlags = append(goFlags, mpiGoFlags...)
				buildRanks = true
			}
			exe, done, err := buildInWork("svmc-run-", pattern, keep, false, cmd.ErrOrStderr(), goFlags...)
			defer done()
			if err != nil {
				return err
			}
			prog := exec.Command(exe, progArgs...)
			if mpi {
				prog = mpirunCommand(ranks, hostfile, exe, env, progArgs)
			}
			prog.Env = env
			prog.Stdin, prog.Stdout, prog.Stderr = os.Stdin, cmd.OutOrStdout(), os.Stderr
			tracePath := os.Getenv("SVMC_TRACE")
			if cmd.Flags().Changed("trace") || check && *values["trace"] != "" {
				tracePath = *values["trace"]
			}
			if mpi {
				// The ranks write TRACE.rankN, merged into TRACE when
				// the job is over; mpirun's own end is what svmc sees.
				defer func(path string) {
					if path == "" {
						return
					}
					if merr := mergeRankTraces(path, ranks); merr != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "svmc: %v\n", merr)
					}
				}(tracePath)
				tracePath = ""
			}
			if !race {
				if mpi {
					// One report of an error every rank makes, without
					// mpirun's boxes that only say a rank failed.
					re := newRankErrors(os.Stderr)
					prog.Stderr = re
					defer re.Flush()
				}
				return runProgram(prog, cmd.ErrOrStderr(), tracePath, !mpi)
			}
			// The race detector's reports, and what they mean in svmc's
			// terms.
			rf := &raceFilter{out: os.Stderr, prog: builtProg}
			pr, pw, err := os.Pipe()
			if err != nil {
				return err
			}
			prog.Stderr = pw
			filtered := make(chan struct{})
			go func() { rf.run(pr); close(filtered) }()
			err = runProgram(prog, cmd.ErrOrStderr(), tracePath, false)
			pw.Close()
			<-filtered
			pr.Close()
			if s := rf.summary(); s != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), s)
			}
			return err
		},
	}
	v, b := paramFlags(cmd, &nprocs)
	maps.Copy(values, v)
	maps.Copy(bools, b)
	f := cmd.Flags()
	f.BoolVar(&print, "print-params", false, "print the effective parameters and their sources, and exit")
	f.BoolVar(&check, "check", false, "trace what svmc check needs: message records (stage 3) with buffer checksums")
	f.BoolVar(&keep, "work", false, "keep the work directory and print its name")
	f.BoolVar(&race, "race", false, "build with Go's race detector (needs cgo) and say each data race it reports in svmc's terms: construct, processors, lines")
	f.BoolVar(&mpi, "mpi", false, "build with the MPI transport and run the program as -n ranks of an MPI job (mpirun), each rank one processor; traces go to TRACE.rankN")
	f.StringVar(&hostfile, "hostfile", "", "with --mpi: the machines to run the ranks on (an OpenMPI hostfile: host [slots=N] per line)")
	instrumentFlag(cmd)
	ldflagsFlag(cmd)
	return cmd
}

// paramEnv is the environment that passes the run-time parameter flags
// set on cmd to the program (SVMC_FLAG_<NAME>), checked.
func paramEnv(cmd *cobra.Command, nprocs int, values map[string]*string, bools map[string]*bool) ([]string, error) {
	env := os.Environ()
	if cmd.Flags().Changed("nprocs") {
		env = append(env, "SVMC_FLAG_NPROCS="+strconv.Itoa(nprocs))
	}
	for _, f := range runFlags {
		if !cmd.Flags().Changed(f.name) {
			continue
		}
		v := *values[f.name]
		env = append(env, "SVMC_FLAG_"+f.param+"="+v)
	}
	for _, f := range runBools {
		if cmd.Flags().Changed(f.name) {
			env = append(env, "SVMC_FLAG_"+f.param+"="+strconv.FormatBool(*bools[f.name]))
		}
	}
	// What the run would say of a flag's value, before the build (a
	// second or more: --tracebuf abc was refused only once built).
	if err := paramcheck.Flags(env); err != nil {
		return nil, err
	}
	return env, nil
}

// paramFlags adds the run-time parameter flags of run and test to cmd.
func paramFlags(cmd *cobra.Command, nprocs *int) (values map[string]*string, bools map[string]*bool) {
	values, bools = map[string]*string{}, map[string]*bool{}
	f := cmd.Flags()
	f.IntVarP(nprocs, "nprocs", "n", 1, "number of processors")
	for _, rf := range runFlags {
		values[rf.name] = f.String(rf.name, "", rf.usage)
	}
	for _, rb := range runBools {
		bools[rb.name] = f.Bool(rb.name, false, rb.usage)
	}
	return values, bools
}

func traceCmd() *cobra.Command {
	t := &cobra.Command{Use: "trace", Short: "read SDDF traces"}
	t.AddCommand(&cobra.Command{
		Use:   "dump FILE",
		Short: "print a trace, one line per record",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			return trace.Dump(cmd.OutOrStdout(), f)
		},
	})
	var to string
	conv := &cobra.Command{
		Use: "convert --to ascii|binary IN OUT",
		Example: `  svmc trace convert --to ascii t.sddf t.txt
  svmc trace convert --to binary - - < t.txt | svmc report -`,
		Short: "convert a trace between ASCII and binary SDDF",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := trace.ParseFormat(to)
			if err != nil {
				return fmt.Errorf("--to %q: want ascii or binary", to)
			}
			in := os.Stdin
			if args[0] != "-" {
				if in, err = os.Open(args[0]); err != nil {
					return err
				}
				defer in.Close()
			}
			return writeResult("convert: output", args[1], args[:1], func(out io.Writer) error {
				return trace.Convert(out, format, in)
			})
		},
	}
	conv.Flags().StringVar(&to, "to", "", "output format: ascii or binary")
	t.AddCommand(conv)
	return t
}
