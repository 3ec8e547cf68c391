package rtlib

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/svmc/svmc/internal/suggest"
	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/trace"
)

// Run-time parameters (seed 000 §8, DESIGN.md §6).
//
// Every parameter has a name (as a parameter file and PrintParams write
// it), an environment variable and a flag variable:
//
//	name             environment            default    meaning
//	nprocs           SVMC_NPROCS            1          number of processors
//	trace            SVMC_TRACE             (none)     trace file to write; no trace without it
//	format           SVMC_FORMAT            binary     ascii or binary SDDF
//	stage            SVMC_STAGE             3          tracing stage 0..6; with a request file that
//	                                                   sets no SVM_TraceStage the default is 0
//	request          SVMC_REQUEST           (none)     trace request file (package request)
//	lenient          SVMC_LENIENT           0          unknown names in the request file are warnings
//	tracebuf         SVMC_TRACEBUF          1M         SVM_TraceBuf_Size: bytes of a processor's buffer
//	kernel_tracebuf  SVMC_KERNEL_TRACEBUF   (none)     SVM_Kernel_TraceBuf_Size (kept, unused)
//	stats            SVMC_STATS             0          statistics: interval matrices at the end
//	stdout           SVMC_STDOUT            proc0      user stdout: proc0[:FILE], each[:PATTERN], common[:FILE]
//	stderr           SVMC_STDERR            proc0      user stderr, the same forms
//	info             SVMC_INFO              stderr     runtime messages: stderr, stdout, off or file:PATH
//	keep_old         SVMC_KEEP_OLD          0          keep the output files of an earlier run (append)
//	stop_wait        SVMC_STOP_WAIT         2s         bound on waiting for processors to stop
//	deadlock_ms      SVMC_DEADLOCK_MS       500        deadlock detection after this many ms; 0 off
//
// Sources, from the weakest: the default; the request file's CONFIG entries
// (stage, tracebuf, kernel_tracebuf); the environment variable; the
// parameter file; the flag. The parameter file is named by SVMC_PARAMS (or
// its flag variable): lines "name = value", '#' starting a comment (at the
// start of a line or after a blank), values optionally quoted as Go
// strings; a name may also be written as its environment variable. `svmc
// run` passes each of its flags as SVMC_FLAG_<NAME> (SVMC_FLAG_NPROCS=4,
// SVMC_FLAG_PARAMS=run.par, ...), so that the program knows a value came
// from a flag and lets it win. Booleans are 1/0, true/false, yes/no, on/off;
// sizes are bytes with an optional k, m or g (KiB, MiB, GiB).
//
// SVMC_PRINT_PARAMS=1 makes Main print the effective parameters with their
// sources (PrintParams, itself a valid parameter file) and exit 0.

// paramDef is one run-time parameter.
type paramDef struct {
	name  string
	def   string
	check func(v string) error // nil: any value
}

var paramDefs = []paramDef{
	{"nprocs", "1", checkPositive},
	{"trace", "", nil},
	{"format", "binary", func(v string) error {
		if _, err := trace.ParseFormat(v); err != nil {
			return errors.New("want ascii or binary")
		}
		return nil
	}},
	{"stage", "3", func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > MaxStage {
			return fmt.Errorf("want a stage 0..%d", MaxStage)
		}
		return nil
	}},
	{"request", "", nil},
	{"lenient", "0", checkBool},
	{"tracebuf", "1M", checkSize},
	{"kernel_tracebuf", "", checkSize},
	{"stats", "0", checkBool},
	{"stdout", "proc0", func(v string) error { _, err := parseOutput(v, "stdout%d.sto"); return err }},
	{"stderr", "proc0", func(v string) error { _, err := parseOutput(v, "stderr%d.ste"); return err }},
	{"info", "stderr", checkInfo},
	{"keep_old", "0", checkBool},
	{"stop_wait", "2s", func(v string) error {
		if d, err := time.ParseDuration(strings.TrimSpace(v)); err != nil || d <= 0 {
			return errors.New("want a positive duration (2s, 500ms)")
		}
		return nil
	}},
	{"deadlock_ms", "500", func(v string) error {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 0 {
			return errors.New("want milliseconds >= 0 (0: off)")
		}
		return nil
	}},
}

func envName(name string) string  { return "SVMC_" + strings.ToUpper(name) }
func flagName(name string) string { return "SVMC_FLAG_" + strings.ToUpper(name) }

func checkPositive(v string) error {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 {
		return errors.New("want a positive integer")
	}
	return nil
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true, true
	case "0", "false", "no", "off", "":
		return false, true
	}
	return false, false
}

func isTrue(v string) bool { b, _ := parseBool(v); return b }

func checkBool(v string) error {
	if _, ok := parseBool(v); !ok {
		return errors.New("want 1 or 0 (true/false, yes/no, on/off)")
	}
	return nil
}

func checkSize(v string) error {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	if _, ok := parseSize(v); !ok {
		return errors.New("want a positive size in bytes (suffix k, m or g allowed)")
	}
	return nil
}

func parseSize(s string) (int, bool) {
	s = strings.TrimSpace(s)
	mul := 1
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mul = 1 << 10
		case 'm', 'M':
			mul = 1 << 20
		case 'g', 'G':
			mul = 1 << 30
		}
		if mul > 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > (1<<40)/mul {
		return 0, false
	}
	return n * mul, true
}

func checkInfo(v string) error {
	switch mode, path, _ := strings.Cut(strings.TrimSpace(v), ":"); strings.ToLower(mode) {
	case "stderr", "stdout", "off":
		return nil
	case "file":
		if path != "" {
			return nil
		}
	}
	return errors.New("want stderr, stdout, off or file:PATH")
}

// setting is the effective value of a parameter and where it came from.
type setting struct {
	value, source string
}

// settings are the effective parameters of a run.
type settings struct {
	vals      map[string]setting
	paramFile string
	request   *request.File // loaded when the request parameter is set
}

func (s *settings) get(name string) string { return s.vals[name].value }

// lookupEnv is os.LookupEnv, replaced by tests.
var lookupEnv = os.LookupEnv

// loadSettings resolves the parameters from their sources.
func loadSettings() (*settings, error) {
	s := &settings{vals: map[string]setting{}}
	for _, d := range paramDefs {
		s.vals[d.name] = setting{d.def, "default"}
	}
	set := func(d paramDef, v, src string, errAt func(msg string) error) error {
		if d.check != nil {
			if err := d.check(v); err != nil {
				return errAt(err.Error())
			}
		}
		s.vals[d.name] = setting{v, src}
		return nil
	}
	for _, d := range paramDefs {
		if v, ok := lookupEnv(envName(d.name)); ok {
			if err := set(d, v, "environment "+envName(d.name), func(msg string) error {
				return fmt.Errorf("%s=%s: %s", envName(d.name), v, msg)
			}); err != nil {
				return nil, err
			}
		}
	}
	file, _ := lookupEnv("SVMC_PARAMS")
	if v, ok := lookupEnv(flagName("params")); ok {
		file = v
	}
	if file != "" {
		s.paramFile = file
		if err := s.readParamFile(file, set); err != nil {
			return nil, err
		}
	}
	for _, d := range paramDefs {
		if v, ok := lookupEnv(flagName(d.name)); ok {
			if err := set(d, v, "flag "+flagName(d.name), func(msg string) error {
				return fmt.Errorf("%s=%s: %s", flagName(d.name), v, msg)
			}); err != nil {
				return nil, err
			}
		}
	}
	if err := s.applyRequest(); err != nil {
		return nil, err
	}
	return s, nil
}

// readParamFile reads a parameter file: "name = value" lines.
func (s *settings) readParamFile(path string, set func(paramDef, string, string, func(string) error) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("SVMC_PARAMS: %v", err)
	}
	var errs []string
	for i, line := range strings.Split(string(data), "\n") {
		ln := i + 1
		errAt := func(col int, msg string) {
			errs = append(errs, fmt.Sprintf("%s:%d:%d: %s", path, ln, col, msg))
		}
		line = strings.TrimSuffix(line, "\r")
		body := stripComment(line)
		if strings.TrimSpace(body) == "" {
			continue
		}
		nameCol := len(body) - len(strings.TrimLeft(body, " \t")) + 1
		eq := strings.IndexByte(body, '=')
		if eq < 0 {
			errAt(nameCol, "want name = value")
			continue
		}
		name := strings.TrimSpace(body[:eq])
		rest := body[eq+1:]
		valCol := eq + 2 + len(rest) - len(strings.TrimLeft(rest, " \t"))
		val := strings.TrimSpace(rest)
		if strings.HasPrefix(val, `"`) {
			u, err := strconv.Unquote(val)
			if err != nil {
				errAt(valCol, "bad quoted value "+val)
				continue
			}
			val = u
		}
		d, ok := findParam(name)
		if !ok {
			low := strings.ToLower(name)
			if low == "params" || low == "svmc_params" || low == "print_params" || low == "svmc_print_params" {
				errAt(nameCol, fmt.Sprintf("%s cannot be set in a parameter file", name))
				continue
			}
			errAt(nameCol, fmt.Sprintf("unknown parameter %q%s", name, suggestParam(name)))
			continue
		}
		if err := set(d, val, fmt.Sprintf("parameter file %s:%d", path, ln), func(msg string) error {
			errAt(valCol, d.name+": "+msg)
			return nil
		}); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// stripComment cuts a '#' comment that starts the line or follows a blank,
// outside a quoted value.
func stripComment(line string) string {
	inq := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"' && (i == 0 || line[i-1] != '\\'):
			inq = !inq
		case c == '#' && !inq && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// findParam finds a parameter by its name or its environment variable,
// case-insensitively.
func findParam(name string) (paramDef, bool) {
	low := strings.ToLower(name)
	low = strings.TrimPrefix(low, "svmc_")
	for _, d := range paramDefs {
		if d.name == low {
			return d, true
		}
	}
	return paramDef{}, false
}

// suggestParam proposes the parameter closest to a misspelt name.
func suggestParam(name string) string {
	names := make([]string, len(paramDefs))
	for i, d := range paramDefs {
		names[i] = d.name
	}
	best := suggest.Closest(strings.TrimPrefix(strings.ToLower(name), "svmc_"), names, false)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// applyRequest loads the request file and lets its CONFIG entries set the
// parameters still at their defaults.
func (s *settings) applyRequest() error {
	path := s.get("request")
	if path == "" {
		return nil
	}
	f, err := request.Load(path, nil)
	if err != nil {
		var el request.ErrorList
		if errors.As(err, &el) {
			return err
		}
		return fmt.Errorf("%s: %v", s.sourceName("request"), err)
	}
	s.request = f
	last := map[request.ConfigKey]*request.ConfigEntry{}
	walkConfig(f, func(e *request.ConfigEntry) { last[e.Key] = e })
	fromFile := func(name string, key request.ConfigKey) {
		e := last[key]
		if e == nil || s.vals[name].source != "default" {
			return
		}
		s.vals[name] = setting{strconv.FormatInt(e.Value, 10), "request file " + e.ValuePos.String()}
	}
	fromFile("stage", request.ConfigTraceStage)
	fromFile("tracebuf", request.ConfigTraceBufSize)
	fromFile("kernel_tracebuf", request.ConfigKernelTraceBufSize)
	if v := s.vals["stage"]; v.source == "default" {
		s.vals["stage"] = setting{"0", "default (the request file sets no SVM_TraceStage)"}
	}
	return nil
}

// walkConfig calls fn for every CONFIG entry of f and its included files in
// order.
func walkConfig(f *request.File, fn func(*request.ConfigEntry)) {
	seen := map[*request.File]bool{}
	var walk func(f *request.File)
	walk = func(f *request.File) {
		if f == nil || seen[f] {
			return
		}
		seen[f] = true
		for _, e := range f.Entries {
			switch e := e.(type) {
			case *request.ConfigEntry:
				fn(e)
			case *request.Include:
				walk(e.File)
			}
		}
		delete(seen, f)
	}
	walk(f)
}

// sourceName names where a parameter came from in error messages: its
// environment or flag variable, or the parameter name.
func (s *settings) sourceName(name string) string {
	src := s.vals[name].source
	for _, pre := range []string{"environment ", "flag "} {
		if v, ok := strings.CutPrefix(src, pre); ok {
			return v
		}
	}
	return name
}

// PrintParams writes the effective run-time parameters, each with its
// source, as a parameter file; Main calls it for SVMC_PRINT_PARAMS=1.
func PrintParams(w io.Writer) error {
	s, err := loadSettings()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# svmc run-time parameters: name = value  # source")
	fmt.Fprintln(bw, "# precedence: default < request file CONFIG < environment < parameter file < flag (SVMC_FLAG_<NAME>)")
	if s.paramFile != "" {
		fmt.Fprintf(bw, "# parameter file: %s\n", s.paramFile)
	}
	width := 0
	for _, d := range paramDefs {
		width = max(width, len(d.name))
	}
	for _, d := range paramDefs {
		v := s.vals[d.name]
		val := v.value
		if val == "" || strings.ContainsAny(val, " \t#\"") {
			val = strconv.Quote(val)
		}
		fmt.Fprintf(bw, "%-*s = %s  # %s\n", width, d.name, val, v.source)
	}
	return bw.Flush()
}

// ParamsFromEnv resolves the run-time parameters (see the table above) into
// Params: it loads the request file, creates the trace file and the file
// of informational messages. closeAll flushes and closes them.
func ParamsFromEnv() (par Params, closeAll func() error, err error) {
	closeAll = func() error { return nil }
	s, err := loadSettings()
	if err != nil {
		return par, closeAll, err
	}
	par.NProcs, _ = strconv.Atoi(strings.TrimSpace(s.get("nprocs")))
	par.Format, _ = trace.ParseFormat(s.get("format"))
	par.Stage, _ = strconv.Atoi(strings.TrimSpace(s.get("stage")))
	par.Request = s.request
	par.Lenient = isTrue(s.get("lenient"))
	par.BufSize, _ = parseSize(s.get("tracebuf"))
	par.KernelBufSize, _ = parseSize(s.get("kernel_tracebuf"))
	par.Stats = isTrue(s.get("stats"))
	par.UserStdout, _ = parseOutput(s.get("stdout"), "stdout%d.sto")
	par.UserStderr, _ = parseOutput(s.get("stderr"), "stderr%d.ste")
	par.KeepOld = isTrue(s.get("keep_old"))
	par.StopWait, _ = time.ParseDuration(strings.TrimSpace(s.get("stop_wait")))
	if ms, _ := strconv.Atoi(strings.TrimSpace(s.get("deadlock_ms"))); ms == 0 {
		par.Deadlock = -1
	} else {
		par.Deadlock = time.Duration(ms) * time.Millisecond
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
	switch mode, path, _ := strings.Cut(strings.TrimSpace(s.get("info")), ":"); strings.ToLower(mode) {
	case "stdout":
		par.Stderr = os.Stdout
	case "off":
		par.Stderr = io.Discard
	case "file":
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if par.KeepOld {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := os.OpenFile(path, flags, 0o666)
		if err != nil {
			return fail(fmt.Errorf("%s: %v", s.sourceName("info"), err))
		}
		lw := &lockedWriter{f: f, bw: bufio.NewWriter(f)}
		par.Stderr = lw
		closers = append(closers, lw.close)
	default:
		par.Stderr = os.Stderr
	}
	if path := s.get("trace"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return fail(fmt.Errorf("%s=%s: %v", s.sourceName("trace"), path, err))
		}
		bw := bufio.NewWriterSize(f, 256<<10)
		par.Trace = bw
		par.TraceName = path
		closers = append(closers, func() error {
			err := bw.Flush()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s=%s: %v", s.sourceName("trace"), path, err)
			}
			return nil
		})
	}
	return par, closeAll, nil
}
