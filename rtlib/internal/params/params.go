// Package params holds the run-time parameters of an instrumented program
// (seed 000 §8, DESIGN.md §6): one table of typed parameters, each value
// parsed once, when it is set, into the field of Values it sets, and the
// source every value came from.
//
//	name             environment            default    meaning
//	nprocs           SVMC_NPROCS            1          number of processors
//	trace            SVMC_TRACE             (none)     trace file to write; no trace without it
//	format           SVMC_FORMAT            binary     ascii or binary SDDF
//	stage            SVMC_STAGE             3          tracing stage 0..6; with a request file that
//	                                                   sets no SVM_TraceStage the default is 0
//	request          SVMC_REQUEST           (none)     trace request file (package request)
//	lenient          SVMC_LENIENT           0          unknown names in the request file are warnings
//	tracebuf         SVMC_TRACEBUF          1M         SVM_TraceBuf_Size: trace bytes a processor holds unwritten
//	kernel_tracebuf  SVMC_KERNEL_TRACEBUF   (none)     SVM_Kernel_TraceBuf_Size: page-record bytes per hand-over
//	stats            SVMC_STATS             0          statistics: interval matrices at the end
//	stdout           SVMC_STDOUT            proc0      user stdout: proc0[:FILE], each[:PATTERN], common[:FILE]
//	stderr           SVMC_STDERR            proc0      user stderr, the same forms
//	info             SVMC_INFO              stderr     runtime messages: stderr, stdout, off or file:PATH
//	keep_old         SVMC_KEEP_OLD          0          keep the output files of an earlier run (append)
//	fat_info_no_open SVMC_FAT_INFO_NO_OPEN  1          an info file that cannot be opened stops the run (0: warn, use stderr)
//	info_sep_file    SVMC_INFO_SEP_FILE     0          1: an info file gets each processor's messages together, in processor order
//	max_interval_level SVMC_MAX_INTERVAL_LEVEL 0       deepest measured interval the statistics keep (0: all)
//	stat_file        SVMC_STAT_FILE         ""         also write the statistics as text to this file
//	stop_wait        SVMC_STOP_WAIT         2s         bound on waiting for processors to stop
//	deadlock_ms      SVMC_DEADLOCK_MS       500        deadlock detection after this many ms; 0 off
//	time_limit       SVMC_TIME_LIMIT        0          stop the run after this long (10s, 5m); 0 none
//	throttle_calls   SVMC_THROTTLE_CALLS    100000     a subprogram called this often on a processor ...
//	throttle_us      SVMC_THROTTLE_US       10         ... for less than this many µs each stops being traced there; 0 off
//	msg_buffer       SVMC_MSG_BUFFER        1M         bytes of standard sends a processor may have buffered; 0: every Send is synchronous
//	msg_checksum     SVMC_MSG_CHECKSUM      0          message records carry a CRC-32 of each buffer
//	msg_perturb      SVMC_MSG_PERTURB       0          random yields before message calls (other schedules)
//	synchr_time      SVMC_SYNCHR_TIME       1          Lib-DVM's IsSynchrTime: statistics count the real dissynchronisation of messages
//	time_variation   SVMC_TIME_VARIATION    0          Lib-DVM's IsTimeVariation: statistics count time variation and potential
//	                                                   dissynchronisation of the collective operations (barriers)
//	stat_buf_length  SVMC_STAT_BUF_LENGTH   0          Lib-DVM's StatBufLength: bytes of a processor's statistics (intervals beyond
//	                                                   it count in the enclosing one); 0: no bound
//	time_expend_print SVMC_TIME_EXPEND_PRINT 0         Lib-DVM's TimeExpendPrint: TaskInter at the end (1 brief .. 5; 0 off)
//	stat_grp_name    SVMC_STAT_GRP_NAME     UserGrp    Lib-DVM's StatGrpName: the group of TimeExpendPrint 4 and 5 (name or number)
//	cpuprofile       SVMC_CPUPROFILE        ""         a CPU profile of the run, samples labelled svmc_processor and svmc_region
//	gotrace          SVMC_GOTRACE           ""         the Go execution trace of the run, svmc's regions as user regions
//	info_off         SVMC_INFO_OFF          ""         classes of informational messages not to print (Lib-DVM §8.3):
//	                                                   mapping, goroutines, requests, measure, messages, user (comma-separated)
//	page_size        SVMC_PAGE_SIZE         4096       page size of the shared virtual memory layer (a power of two)
//	svm_model        SVMC_SVM_MODEL         rc         its consistency model: rc (release) or sc (sequential)
//	page_budget      SVMC_PAGE_BUDGET       0          copies of other processors' pages a processor keeps (0: no limit); beyond it the oldest is paged out
//	procs_per_rank   SVMC_PROCS_PER_RANK    1          under MPI (svmc run --mpi): the processors each rank runs (the job has ranks × this)
//	rank_pages       SVMC_RANK_PAGES        lazy       under MPI: fully checked shared variables travel as pages fetched from their homes (lazy) or every change to every rank (eager)
//	wait_policy      SVMC_WAIT_POLICY       passive    waiting processors block after a short spin (passive) or keep yielding the CPU for 1ms (active, active:DURATION) first
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
// sizes are request.ParseSize's (bytes with an optional k, M or G), the
// same as a request file's CONFIG sizes, which are checked like the values
// of every other source.
package params

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svmc/svmc/internal/suggest"
	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/trace"
)

// Values are the run-time parameters, typed.
type Values struct {
	NProcs           int
	Trace            string // trace file; "" for none
	Format           trace.Format
	Stage            int
	Request          string // request file; "" for none
	Lenient          bool
	TraceBuf         int // bytes
	KernelTraceBuf   int // bytes; 0 unset
	Stats            bool
	Stdout, Stderr   Output
	Info             Info
	KeepOld          bool
	FatInfoNoOpen    bool   // Lib-DVM's FatInfoNoOpen (seed 000 §8.2)
	InfoSepFile      bool   // Lib-DVM's SysInfoSepFile (seed 000 §8.2)
	MaxIntervalLevel int    // Lib-DVM's MaxIntervalLevel (seed 000 §11.2); 0: no limit
	StatFile         string // Lib-DVM's StatFileName (seed 000 §11.2); "": none
	StopWait         time.Duration
	TimeLimit        time.Duration // 0: none
	DeadlockMS       int           // 0: off
	ThrottleCalls    int           // 0: no throttling
	ThrottleUs       int           // 0: no throttling
	MsgBuffer        int           // bytes; 0: every standard send is synchronous
	MsgChecksum      bool
	MsgPerturb       bool
	PageSize         int
	SVMModel         string
	PageBudget       int
	ProcsPerRank     int           // under MPI: the processors of each rank
	EagerPages       bool          // under MPI: rank_pages = eager
	ActiveWait       time.Duration // wait_policy active: how long a waiter yields before blocking; 0 passive
	InfoOff          []string      // classes of informational messages silenced
	SynchrTime       bool          // Lib-DVM's IsSynchrTime (seed 000 §11.2)
	TimeVariation    bool          // Lib-DVM's IsTimeVariation (seed 000 §11.2)
	StatBufLength    int           // Lib-DVM's StatBufLength (seed 000 §11.2), bytes; 0: no bound
	TimeExpendPrint  int           // Lib-DVM's TimeExpendPrint (seed 000 §11.1.4): 0 off, 1..5
	StatGrpName      int           // Lib-DVM's StatGrpName: a group of trace.StatGroups
	CPUProfile       string        // a CPU profile file; "": none
	GoTrace          string        // a Go execution trace file; "": none
}

// InfoClasses are the classes of the runtime's informational messages
// (Lib-DVM §8.3: each switched on and off by itself): processor
// arrangements mapped onto fewer processors, constructs reached from
// goroutines that are not processors, warnings of the trace request file,
// measured intervals left open, messages no receive took, and the
// program's own (rtlib.RtlPrintf and its kin).
var InfoClasses = []string{"mapping", "goroutines", "requests", "measure", "messages", "user"}

// Info is where the runtime's informational messages go: one stream, or
// several at once as Lib-DVM's +i takes them (seed 000 §8.2: "o", "e",
// "f"), written "stdout+file:PATH".
type Info struct {
	Mode string // "stderr", "stdout", "off", "file", or several of the first, second and fourth joined by "+"
	Path string // with "file": the file
}

// Has reports whether the messages go to stream m ("stdout", "stderr",
// "file").
func (i Info) Has(m string) bool {
	for _, x := range strings.Split(i.Mode, "+") {
		if x == m {
			return true
		}
	}
	return false
}

// parseInfo parses the info parameter: stdout, stderr, file:PATH, or
// several of them joined by "+" (each once), or off.
func parseInfo(s string) (Info, error) {
	bad := errors.New("want stderr, stdout, off or file:PATH, or several of stdout, stderr and file:PATH joined by +")
	var info Info
	seen := map[string]bool{}
	parts := strings.Split(strings.TrimSpace(s), "+")
	for _, part := range parts {
		mode, path, _ := strings.Cut(strings.TrimSpace(part), ":")
		mode = strings.ToLower(mode)
		switch {
		case mode == "off" && len(parts) == 1, mode == "stdout" && path == "", mode == "stderr" && path == "":
		case mode == "file" && path != "":
			info.Path = path
		default:
			return Info{}, bad
		}
		if seen[mode] {
			return Info{}, fmt.Errorf("%s named twice: %w", mode, bad)
		}
		seen[mode] = true
	}
	var modes []string
	for _, m := range []string{"stdout", "stderr", "file", "off"} {
		if seen[m] {
			modes = append(modes, m)
		}
	}
	info.Mode = strings.Join(modes, "+")
	return info, nil
}

// Def is one parameter: its name (as a parameter file and Print write it),
// its default and the parser that sets its field of Values.
type Def struct {
	Name    string
	Default string
	set     func(v *Values, s string) error
}

// Env is the environment variable of the parameter.
func (d *Def) Env() string { return "SVMC_" + strings.ToUpper(d.Name) }

// Flag is the variable by which `svmc run` passes the parameter's flag.
func (d *Def) Flag() string { return "SVMC_FLAG_" + strings.ToUpper(d.Name) }

// FlagName is the parameter's flag of svmc run, as a user types it.
func (d *Def) FlagName() string {
	if d.Name == "nprocs" {
		return "-n"
	}
	return "--" + strings.ReplaceAll(d.Name, "_", "-")
}

// MaxProcs bounds the processors of a run: each is a goroutine with its
// buffers, and svmc runs on one machine (MPI aside).
const MaxProcs = 4096

// otherVars are the SVMC_ variables that are not parameters but that svmc
// or its tests read.
var otherVars = []string{"SVMC_PARAMS", "SVMC_FLAG_PARAMS", "SVMC_PRINT_PARAMS", "SVMC_TEST_PROG", "SVMC_STDERR_FD", "SVMC_PARENT_RUN",
	"SVMC_TRACE_ENGINE", "SVMC_GEN_TRACE", "SVMC_GEN_EVENTS", "SVMC_GEN_PROCS"}

// Unknown returns a warning for each SVMC_ variable of environ (as
// os.Environ gives it) that svmc does not read: a misspelt SVMC_NPROC
// would otherwise be ignored without a word.
func Unknown(environ []string) []string {
	known := append([]string(nil), otherVars...)
	for i := range Defs {
		known = append(known, Defs[i].Env(), Defs[i].Flag())
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "SVMC_") || slices.Contains(known, name) {
			continue
		}
		out = append(out, fmt.Sprintf("%s is not a parameter svmc reads and is ignored%s", name, suggest.DidYouMean(name, known, false)))
	}
	return out
}

// Defs is the parameter table.
var Defs = []Def{
	{"nprocs", "1", func(v *Values, s string) (err error) {
		if v.NProcs, err = positive(s); err != nil {
			err = errors.New("want a positive number of processors")
		} else if v.NProcs > MaxProcs {
			err = fmt.Errorf("%d processors is more than svmc runs (at most %d)", v.NProcs, MaxProcs)
		}
		return
	}},
	{"trace", "", func(v *Values, s string) error { v.Trace = s; return nil }},
	{"format", "binary", func(v *Values, s string) error {
		f, err := trace.ParseFormat(s)
		if err != nil {
			return errors.New("want ascii or binary")
		}
		v.Format = f
		return nil
	}},
	{"stage", "3", func(v *Values, s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > request.MaxStage {
			return fmt.Errorf("want a stage from 0 to %d", request.MaxStage)
		}
		v.Stage = n
		return nil
	}},
	{"request", "", func(v *Values, s string) error { v.Request = s; return nil }},
	{"lenient", "0", func(v *Values, s string) (err error) { v.Lenient, err = parseBool(s); return }},
	{"tracebuf", "1M", func(v *Values, s string) (err error) { v.TraceBuf, err = size(s); return }},
	{"kernel_tracebuf", "", func(v *Values, s string) (err error) { v.KernelTraceBuf, err = size(s); return }},
	{"stats", "0", func(v *Values, s string) (err error) { v.Stats, err = parseBool(s); return }},
	{"stdout", "proc0", func(v *Values, s string) (err error) { v.Stdout, err = ParseOutput(s, "stdout%d.sto"); return }},
	{"stderr", "proc0", func(v *Values, s string) (err error) { v.Stderr, err = ParseOutput(s, "stderr%d.ste"); return }},
	{"info", "stderr", func(v *Values, s string) error {
		info, err := parseInfo(s)
		v.Info = info
		return err
	}},
	{"keep_old", "0", func(v *Values, s string) (err error) { v.KeepOld, err = parseBool(s); return }},
	{"fat_info_no_open", "1", func(v *Values, s string) (err error) { v.FatInfoNoOpen, err = parseBool(s); return }},
	{"info_sep_file", "0", func(v *Values, s string) (err error) { v.InfoSepFile, err = parseBool(s); return }},
	{"max_interval_level", "0", func(v *Values, s string) (err error) { v.MaxIntervalLevel, err = nonNegative(s); return }},
	{"stat_file", "", func(v *Values, s string) error { v.StatFile = s; return nil }},
	{"stop_wait", "2s", func(v *Values, s string) error {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return errors.New("want a positive duration (2s, 500ms)")
		}
		v.StopWait = d
		return nil
	}},
	{"time_limit", "0", func(v *Values, s string) error {
		s = strings.TrimSpace(s)
		if s == "0" {
			v.TimeLimit = 0
			return nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return errors.New("want a duration (10s, 5m) or 0 for none")
		}
		v.TimeLimit = d
		return nil
	}},
	{"throttle_calls", "100000", func(v *Values, s string) (err error) { v.ThrottleCalls, err = nonNegative(s); return }},
	{"throttle_us", "10", func(v *Values, s string) (err error) { v.ThrottleUs, err = nonNegative(s); return }},
	{"msg_buffer", "1M", func(v *Values, s string) error {
		if strings.TrimSpace(s) == "0" {
			v.MsgBuffer = 0
			return nil
		}
		n, err := size(s)
		v.MsgBuffer = n
		return err
	}},
	{"msg_checksum", "0", func(v *Values, s string) (err error) { v.MsgChecksum, err = parseBool(s); return }},
	{"msg_perturb", "0", func(v *Values, s string) (err error) { v.MsgPerturb, err = parseBool(s); return }},
	{"synchr_time", "1", func(v *Values, s string) (err error) { v.SynchrTime, err = parseBool(s); return }},
	{"time_variation", "0", func(v *Values, s string) (err error) { v.TimeVariation, err = parseBool(s); return }},
	{"stat_buf_length", "0", func(v *Values, s string) error {
		if strings.TrimSpace(s) == "0" {
			v.StatBufLength = 0
			return nil
		}
		n, err := size(s)
		v.StatBufLength = n
		return err
	}},
	{"time_expend_print", "0", func(v *Values, s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > 5 {
			return errors.New("want 0 (off) to 5")
		}
		v.TimeExpendPrint = n
		return nil
	}},
	{"cpuprofile", "", func(v *Values, s string) error { v.CPUProfile = s; return nil }},
	{"gotrace", "", func(v *Values, s string) error { v.GoTrace = s; return nil }},
	{"stat_grp_name", "UserGrp", func(v *Values, s string) error {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < trace.StatGrpCount {
			v.StatGrpName = n
			return nil
		}
		if g := trace.StatGroupByName(s); g >= 0 {
			v.StatGrpName = g
			return nil
		}
		var names []string
		for _, g := range trace.StatGroups {
			names = append(names, g.Name)
		}
		return fmt.Errorf("want a group's name or number: %s", strings.Join(names, ", "))
	}},
	{"info_off", "", func(v *Values, s string) error {
		v.InfoOff = nil
		for _, c := range strings.Split(s, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c == "" {
				continue
			}
			if !slices.Contains(InfoClasses, c) {
				return fmt.Errorf("unknown class %q%s (the classes: %s)", c, suggest.DidYouMean(c, InfoClasses, true), strings.Join(InfoClasses, ", "))
			}
			v.InfoOff = append(v.InfoOff, c)
		}
		return nil
	}},
	{"page_size", "4096", func(v *Values, s string) error {
		n, err := size(s)
		if err != nil || n <= 0 || n&(n-1) != 0 {
			return errors.New("want a power of two (4096, 16K, 64K)")
		}
		v.PageSize = n
		return nil
	}},
	{"page_budget", "0", func(v *Values, s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return errors.New("want a number of pages >= 0 (0: no limit)")
		}
		v.PageBudget = n
		return nil
	}},
	{"svm_model", "rc", func(v *Values, s string) error {
		switch m := strings.ToLower(strings.TrimSpace(s)); m {
		case "rc", "sc":
			v.SVMModel = m
			return nil
		}
		return errors.New("want rc (release consistency) or sc (sequential consistency)")
	}},
	{"procs_per_rank", "1", func(v *Values, s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return errors.New("want a positive number of processors")
		}
		v.ProcsPerRank = n
		return nil
	}},
	{"wait_policy", "passive", func(v *Values, s string) error {
		word, d, timed := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
		switch {
		case word == "passive" && !timed:
			v.ActiveWait = 0
		case word == "active" && !timed:
			v.ActiveWait = time.Millisecond
		case word == "active":
			t, err := time.ParseDuration(d)
			if err != nil || t <= 0 || t > time.Second {
				return errors.New("want active:DURATION with a duration up to 1s (active:200us, active:5ms)")
			}
			v.ActiveWait = t
		default:
			return errors.New("want passive (block after a short spin), active (yield the CPU for 1ms first) or active:DURATION")
		}
		return nil
	}},
	{"rank_pages", "lazy", func(v *Values, s string) error {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "lazy":
			v.EagerPages = false
		case "eager":
			v.EagerPages = true
		default:
			return errors.New("want lazy (pages fetched from their homes) or eager (every change to every rank)")
		}
		return nil
	}},
	{"deadlock_ms", "500", func(v *Values, s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return errors.New("want milliseconds >= 0 (0: off)")
		}
		v.DeadlockMS = n
		return nil
	}},
}

func positive(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, errors.New("want a positive integer")
	}
	return n, nil
}

func nonNegative(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, errors.New("want an integer >= 0 (0: off)")
	}
	return n, nil
}

// IsTrue reports whether s is a true boolean (1, true, yes, on).
func IsTrue(s string) bool { b, _ := parseBool(s); return b }

func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off", "":
		return false, nil
	}
	return false, errors.New("want 1 or 0 (true/false, yes/no, on/off)")
}

// size is request.ParseSize; blank means unset (0).
func size(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := request.ParseSize(s)
	if err != nil {
		return 0, errors.New(strings.TrimPrefix(err.Error(), "bad size "+strconv.Quote(s)+": "))
	}
	return int(n), nil
}

// Find finds a parameter by its name or its environment variable,
// case-insensitively.
func Find(name string) (*Def, bool) {
	low := strings.TrimPrefix(strings.ToLower(name), "svmc_")
	for i := range Defs {
		if Defs[i].Name == low {
			return &Defs[i], true
		}
	}
	return nil, false
}

// Names are the parameters' names in table order.
func Names() []string {
	names := make([]string, len(Defs))
	for i, d := range Defs {
		names[i] = d.Name
	}
	return names
}
