package params

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// lookupEnv is the environment of the test: withEnv sets it.
var lookupEnv func(string) (string, bool)

func withEnv(t *testing.T, env map[string]string) {
	t.Helper()
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestParamPrecedence: default < request file CONFIG < environment <
// parameter file < flag.
func TestParamPrecedence(t *testing.T) {
	dir := t.TempDir()
	req := writeFile(t, dir, "t.req", "CONFIG SVM_TraceStage: 2\nCONFIG SVM_TraceBuf_Size: 64K\nCONFIG SVM_Kernel_TraceBuf_Size: 1M\n")
	par := writeFile(t, dir, "run.par", "# parameters\nnprocs = 3   # from the file\nSVMC_FORMAT = ascii\n\nstats=1\ntrace = \"a b#c.sddf\"\n")
	withEnv(t, map[string]string{
		"SVMC_NPROCS":          "2",
		"SVMC_STAGE":           "1",
		"SVMC_REQUEST":         req,
		"SVMC_FORMAT":          "binary",
		"SVMC_PARAMS":          par,
		"SVMC_FLAG_NPROCS":     "4",
		"SVMC_KERNEL_TRACEBUF": "2k",
	})
	s, err := Load(lookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Setting{}
	for _, n := range []string{"nprocs", "stage", "format", "tracebuf", "kernel_tracebuf", "stats", "trace", "lenient"} {
		got[n] = s.Texts[n]
	}
	want := map[string]Setting{
		"nprocs":          {"4", "flag -n"},
		"stage":           {"1", "environment SVMC_STAGE"},
		"format":          {"ascii", "parameter file " + par + ":3"},
		"tracebuf":        {"65536", "request file " + req + ":2:27"},
		"kernel_tracebuf": {"2k", "environment SVMC_KERNEL_TRACEBUF"},
		"stats":           {"1", "parameter file " + par + ":5"},
		"trace":           {"a b#c.sddf", "parameter file " + par + ":6"},
		"lenient":         {"0", "default"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s.RequestFile == nil {
		t.Error("request file not loaded")
	}

	// The stage of a request file without SVM_TraceStage is 0, else 3.
	withEnv(t, map[string]string{"SVMC_REQUEST": writeFile(t, dir, "l.req", "REQUEST LOCAL main.*: (REGION)\n")})
	if s, err := Load(lookupEnv); err != nil || s.Get("stage") != "0" {
		t.Errorf("stage with a request file: %v %v", s.Texts["stage"], err)
	}
	withEnv(t, nil)
	if s, err := Load(lookupEnv); err != nil || s.Texts["stage"] != (Setting{"3", "default"}) {
		t.Errorf("stage without a request file: %v %v", s.Texts["stage"], err)
	}
}

func TestParamErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.par", "nprocs = 0\n  nproc = 2\njust words\nstage = 7 # too high\nparams = x.par\nstdout = each:out.txt\ninfo = \"x\n")
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SVMC_NPROCS": "abc"}, "SVMC_NPROCS=abc: want a positive number of processors"},
		{map[string]string{"SVMC_FLAG_STAGE": "9"}, "--stage 9: want a stage from 0 to 6"},
		{map[string]string{"SVMC_FLAG_TRACEBUF": "0"}, "--tracebuf 0: a buffer needs at least one byte"},
		{map[string]string{"SVMC_FLAG_NPROCS": "1000000"}, "-n 1000000: 1000000 processors is more than svmc runs (at most 4096)"},
		// An environment value that a flag overrides is not an error; one
		// that nothing overrides is, also after the flags.
		{map[string]string{"SVMC_NPROCS": "x", "SVMC_STAGE": "9", "SVMC_FLAG_NPROCS": "2"}, "SVMC_STAGE=9: want a stage from 0 to 6"},
		{map[string]string{"SVMC_FORMAT": "xml"}, "SVMC_FORMAT=xml: want ascii or binary"},
		{map[string]string{"SVMC_WAIT_POLICY": "busy"}, "SVMC_WAIT_POLICY=busy: want passive (block after a short spin), active (yield the CPU for 1ms first) or active:DURATION"},
		{map[string]string{"SVMC_FLAG_WAIT_POLICY": "active:5s"}, "--wait-policy active:5s: want active:DURATION with a duration up to 1s (active:200us, active:5ms)"},
		{map[string]string{"SVMC_STATS": "maybe"}, "SVMC_STATS=maybe: want 1 or 0 (true/false, yes/no, on/off)"},
		{map[string]string{"SVMC_TRACEBUF": "-1"}, "SVMC_TRACEBUF=-1: want a number of bytes, optionally followed by k, M or G"},
		{map[string]string{"SVMC_STDOUT": "some"}, "SVMC_STDOUT=some: want proc0[:FILE], each[:PATTERN] or common[:FILE]"},
		{map[string]string{"SVMC_INFO": "file:"}, "SVMC_INFO=file:: want stderr, stdout, off or file:PATH, or several of stdout, stderr and file:PATH joined by +"},
		{map[string]string{"SVMC_STOP_WAIT": "soon"}, "SVMC_STOP_WAIT=soon: want a positive duration (2s, 500ms)"},
		{map[string]string{"SVMC_PARAMS": filepath.Join(dir, "none.par")}, "SVMC_PARAMS=" + filepath.Join(dir, "none.par") + ": open " + filepath.Join(dir, "none.par") + ": no such file or directory"},
		{map[string]string{"SVMC_PARAMS": bad}, strings.Join([]string{
			bad + ":1:10: nprocs: want a positive number of processors",
			bad + `:2:3: unknown parameter "nproc"; did you mean "nprocs"?`,
			bad + ":3:1: want name = value",
			bad + ":4:9: stage: want a stage from 0 to 6",
			bad + ":5:1: params cannot be set in a parameter file",
			bad + ":6:10: stdout: each:out.txt: the file name pattern needs one %d for the processor number",
			bad + `:7:8: bad quoted value "x`}, "\n")},
		{map[string]string{"SVMC_REQUEST": writeFile(t, dir, "bad.req", "CONFIG SVM_TraceStage: 9\n")}, filepath.Join(dir, "bad.req") + ":1:24: bad stage \"9\": want a number from 0 to 6"},
	} {
		withEnv(t, c.env)
		_, err := Load(lookupEnv)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v:\n got %v\nwant %s", c.env, err, c.want)
		}
	}
}

func TestPrintParams(t *testing.T) {
	dir := t.TempDir()
	par := writeFile(t, dir, "run.par", "stdout = each:out%d.txt\n")
	withEnv(t, map[string]string{"SVMC_NPROCS": "2", "SVMC_PARAMS": par, "SVMC_FLAG_TRACE": "x y.sddf"})
	var b bytes.Buffer
	ps, err := Load(lookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.Print(&b); err != nil {
		t.Fatal(err)
	}
	want := `# svmc run-time parameters: name = value  # source
# precedence: default < request file CONFIG < environment < parameter file < flag (SVMC_FLAG_<NAME>)
# parameter file: ` + par + `
nprocs             = 2  # environment SVMC_NPROCS
trace              = "x y.sddf"  # flag --trace
format             = binary  # default
stage              = 3  # default
request            = ""  # default
lenient            = 0  # default
tracebuf           = 1M  # default
kernel_tracebuf    = ""  # default
stats              = 0  # default
stdout             = each:out%d.txt  # parameter file ` + par + `:1
stderr             = proc0  # default
info               = stderr  # default
keep_old           = 0  # default
fat_info_no_open   = 1  # default
info_sep_file      = 0  # default
max_interval_level = 0  # default
stat_file          = ""  # default
stop_wait          = 2s  # default
time_limit         = 0  # default
throttle_calls     = 100000  # default
throttle_us        = 10  # default
msg_buffer         = 1M  # default
msg_checksum       = 0  # default
msg_perturb        = 0  # default
synchr_time        = 1  # default
time_variation     = 0  # default
stat_buf_length    = 0  # default
time_expend_print  = 0  # default
cpuprofile         = ""  # default
gotrace            = ""  # default
stat_grp_name      = UserGrp  # default
info_off           = ""  # default
page_size          = 4096  # default
page_budget        = 0  # default
svm_model          = rc  # default
procs_per_rank     = 1  # default
wait_policy        = passive  # default
rank_pages         = lazy  # default
deadlock_ms        = 500  # default
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The output is a parameter file that gives the same values.
	again := writeFile(t, dir, "again.par", b.String())
	withEnv(t, map[string]string{"SVMC_PARAMS": again})
	s, err := Load(lookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	if s.Get("trace") != "x y.sddf" || s.Get("stdout") != "each:out%d.txt" || s.Get("nprocs") != "2" {
		t.Errorf("read back: %v", s.Texts)
	}
}

// TestConfigSizeChecked: a request file's CONFIG size is read by the same
// parser as the tracebuf parameter, so a size the runtime cannot take is an
// error at its position. 2048G used to pass the request parser and be
// dropped silently here, leaving the 1 MiB default.
func TestConfigSizeChecked(t *testing.T) {
	dir := t.TempDir()
	req := writeFile(t, dir, "t.req", "CONFIG SVM_TraceStage: 1\nCONFIG SVM_TraceBuf_Size: 2048G\n")
	withEnv(t, map[string]string{"SVMC_REQUEST": req})
	_, err := Load(lookupEnv)
	if err == nil || !strings.Contains(err.Error(), req+`:2:27: bad size "2048G": too large`) {
		t.Errorf("Load: %v", err)
	}
	ok := writeFile(t, dir, "ok.req", "CONFIG SVM_TraceBuf_Size: 1024G\n")
	withEnv(t, map[string]string{"SVMC_REQUEST": ok})
	s, err := Load(lookupEnv)
	if err != nil || s.TraceBuf != 1<<40 || s.Texts["tracebuf"].Source != "request file "+ok+":1:27" {
		t.Errorf("1024G: %v %d %v", err, s.TraceBuf, s.Texts["tracebuf"])
	}
}

// TestTyped: every value is parsed into its field when it is set.
func TestTyped(t *testing.T) {
	withEnv(t, map[string]string{"SVMC_NPROCS": "3", "SVMC_FORMAT": "ascii", "SVMC_TRACEBUF": "4k", "SVMC_INFO": "file:i.txt",
		"SVMC_FLAG_STDOUT": "each:o%d", "SVMC_DEADLOCK_MS": "0", "SVMC_STOP_WAIT": "300ms", "SVMC_KEEP_OLD": "yes"})
	s, err := Load(lookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	v := s.Values
	if v.NProcs != 3 || v.Format.String() != "ascii" || v.TraceBuf != 4096 || v.Info != (Info{"file", "i.txt"}) ||
		v.Stdout.String() != "each:o%d" || v.DeadlockMS != 0 || v.StopWait.String() != "300ms" || !v.KeepOld || v.Stage != 3 {
		t.Errorf("values %+v", v)
	}
}

// TestWaitPolicy: passive blocks at once, active spins 1ms or as long as
// it says first.
func TestWaitPolicy(t *testing.T) {
	for in, want := range map[string]time.Duration{"passive": 0, "active": time.Millisecond, "Active:250us": 250 * time.Microsecond} {
		withEnv(t, map[string]string{"SVMC_WAIT_POLICY": in})
		s, err := Load(lookupEnv)
		if err != nil || s.Values.ActiveWait != want {
			t.Errorf("%s: %v %v, want %v", in, s.Values.ActiveWait, err, want)
		}
	}
}

// TestOverriddenEnv: a bad environment value that the parameter file or a
// flag overrides does not stop the run.
func TestOverriddenEnv(t *testing.T) {
	dir := t.TempDir()
	par := writeFile(t, dir, "run.par", "stage = 2\n")
	withEnv(t, map[string]string{"SVMC_NPROCS": "x", "SVMC_FLAG_NPROCS": "2", "SVMC_STAGE": "many", "SVMC_PARAMS": par})
	s, err := Load(lookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	if s.NProcs != 2 || s.Stage != 2 {
		t.Errorf("nprocs %d, stage %d; want 2, 2", s.NProcs, s.Stage)
	}
}

// TestUnknown: SVMC_ variables svmc does not read get a warning, with the
// parameter meant when one is close; other variables are left alone.
func TestUnknown(t *testing.T) {
	got := Unknown([]string{"HOME=/root", "SVMC_NPROC=4", "SVMC_NPROCS=2", "SVMC_FLAG_TRACE=t", "SVMC_PARAMS=p", "SVMC_COLOR=1"})
	want := []string{
		`SVMC_NPROC is not a parameter svmc reads and is ignored; did you mean "SVMC_NPROCS"?`,
		"SVMC_COLOR is not a parameter svmc reads and is ignored",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestCollisions: a file the run writes may not be another file of the
// run, also through a symbolic link or a relative path; the user's stdout
// and stderr may share one.
func TestCollisions(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	req := writeFile(t, dir, "run.req", "CONFIG SVM_TraceStage: 1\n")
	tr := filepath.Join(dir, "t.sddf")
	t.Chdir(dir)
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SVMC_FLAG_TRACE": tr, "SVMC_FLAG_STDOUT": "common:" + tr},
			"--stdout common:" + tr + " is the same file as --trace " + tr + ": a run cannot write it twice"},
		{map[string]string{"SVMC_FLAG_TRACE": "t.sddf", "SVMC_STDERR": "proc0:" + filepath.Join(link, "t.sddf")},
			"SVMC_STDERR=proc0:" + filepath.Join(link, "t.sddf") + " is the same file as --trace t.sddf: a run cannot write it twice"},
		{map[string]string{"SVMC_FLAG_TRACE": "out1.txt", "SVMC_FLAG_NPROCS": "2", "SVMC_FLAG_STDOUT": "each:out%d.txt"},
			"--stdout each:out%d.txt (processor 1) is the same file as --trace out1.txt: a run cannot write it twice"},
		{map[string]string{"SVMC_FLAG_TRACE": tr, "SVMC_INFO": "file:" + tr},
			"SVMC_INFO=file:" + tr + " is the same file as --trace " + tr + ": a run cannot write it twice"},
		{map[string]string{"SVMC_FLAG_TRACE": req, "SVMC_FLAG_REQUEST": req},
			"--trace " + req + " is the same file as --request " + req + ": the run would overwrite it"},
		{map[string]string{"SVMC_FLAG_STDOUT": "common:o.txt", "SVMC_FLAG_STDERR": "common:o.txt", "SVMC_FLAG_TRACE": tr}, ""},
	} {
		withEnv(t, c.env)
		s, err := Load(lookupEnv)
		if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		err = s.Collisions()
		if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && got != c.want {
			t.Errorf("%v:\n got %v\nwant %s", c.env, err, c.want)
		}
	}
}
