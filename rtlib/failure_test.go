package rtlib_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svmc/svmc/progdb"
	rt "github.com/svmc/svmc/rtlib"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// prog is the program information of the hand-written generated code
// below: subprogram 1 "main" in user.go, directive k on line 10+k, column 3.
var prog = func() *rt.Program {
	dirs := make([]rt.Dir, 10)
	info := &progdb.Program{Version: progdb.Version, Tool: "svmc", Package: "example.com/user", Name: "main", Files: []string{"user.go"}}
	sub := &progdb.Subprogram{Num: 1, Name: "main", Main: true, Pos: progdb.Pos{File: "user.go", Line: 5, Col: 1},
		Regions: []*progdb.Region{{Num: 0, Type: "program", Code: trace.RegionProgram, Parent: -1}}}
	for i := 1; i < len(dirs); i++ {
		dirs[i] = rt.Dir{Kind: "pdo", Line: 10 + i, Col: 3, Region: i}
		pos := progdb.Pos{File: "user.go", Line: 10 + i, Col: 3}
		sub.Directives = append(sub.Directives, tracetest.Directive(&progdb.Directive{Num: i, Kind: "pdo", Text: "//svm:pdo", Pos: pos}))
		sub.Regions = append(sub.Regions, &progdb.Region{Num: i, Type: "pdo", Code: trace.RegionPDO, Directive: i, Pos: pos, End: pos})
	}
	info.Subprograms = []*progdb.Subprogram{sub}
	js, err := progdb.Marshal(info)
	if err != nil {
		panic(err)
	}
	return &rt.Program{Info: string(js), Main: 1, Subs: []rt.Sub{{}, {Name: "main", File: "user.go", Line: 5, Dirs: dirs}}}
}()

func space(lo, hi int) []rt.Range { return []rt.Range{{Lo: lo, Hi: hi, Step: 1}} }

// Bodies of generated programs that fail. The /*line*/ comments are what
// codegen emits so that frames point at the user's source.
var bodies = map[string]func(p *rt.Proc){
	"panic":      panicBody,
	"indexpanic": indexPanicBody,
	"ok": func(p *rt.Proc) {
		p.PDO(1, 1, rt.DefaultSchedule(), space(0, 9), func(q *rt.Proc, it *rt.Iter) {
			for it.Next() {
			}
		})
	},
	"formats": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 9})
		p.Distribute(1, 2, nil, []rt.Format{rt.Block(), rt.Block()}, T)
	},
	"distdims": func(p *rt.Proc) {
		P := p.Processors(nil, 1, 1, "P", rt.Extent{Lo: 0, Hi: 1}, rt.Extent{Lo: 0, Hi: 1})
		T := p.Template(nil, 1, 2, "T", rt.Extent{Lo: 0, Hi: 9})
		p.Distribute(1, 3, P, []rt.Format{rt.Block()}, T)
	},
	"genblock": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 9})
		p.Distribute(1, 2, nil, []rt.Format{rt.GeneralBlock([]int{4, 5})}, T)
	},
	"genblockcount": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 9})
		p.Distribute(1, 2, nil, []rt.Format{rt.GeneralBlock([]int{10})}, T)
	},
	"indirect": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 3})
		p.Distribute(1, 2, nil, []rt.Format{rt.Indirect([]int{0, 1, 2, 1})}, T)
	},
	"cyclic0": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 3})
		p.Distribute(1, 2, nil, []rt.Format{rt.Cyclic(0)}, T)
	},
	"shape": func(p *rt.Proc) {
		T1 := p.Template(nil, 1, 1, "T1", rt.Extent{Lo: 0, Hi: 9})
		T2 := p.Template(nil, 1, 2, "T2", rt.Extent{Lo: 0, Hi: 8})
		p.Distribute(1, 3, nil, []rt.Format{rt.Block()}, T1)
		p.DistributeWith(1, 4, T1, T2)
	},
	"argshape": func(p *rt.Proc) {
		P := p.Processors(nil, 1, 1, "P", rt.Extent{Lo: 0, Hi: 3})
		p.Processors(P, 1, 2, "Q", rt.Extent{Lo: 0, Hi: 1}, rt.Extent{Lo: 0, Hi: 1})
	},
	"undistributed": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 9})
		p.PDO(1, 2, rt.OnHome(T, rt.LoopVar(0, 0)), space(0, 9), func(q *rt.Proc, it *rt.Iter) {})
	},
	"outside": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 9})
		p.Distribute(1, 2, nil, []rt.Format{rt.Block()}, T)
		p.PDO(1, 3, rt.OnHome(T, rt.LoopVar(0, 1)), space(0, 9), func(q *rt.Proc, it *rt.Iter) {})
	},
	"emptyprocs": func(p *rt.Proc) {
		P := p.Processors(nil, 1, 1, "P", rt.Extent{Lo: 0, Hi: -1})
		p.PDO(1, 2, rt.LoopLevel(P, rt.Block()), space(0, 9), func(q *rt.Proc, it *rt.Iter) {})
	},
	"indexfunc": func(p *rt.Proc) {
		T := p.Template(nil, 1, 1, "T", rt.Extent{Lo: 0, Hi: 9})
		p.Distribute(1, 2, nil, []rt.Format{rt.Block()}, T)
		p.PDO(1, 3, rt.OnHome(T, rt.IndexFunc(func(idx []int) int { return 2 * idx[0] })), space(0, 9),
			func(q *rt.Proc, it *rt.Iter) {
				for it.Next() {
				}
			})
	},
}

func init() {
	// The program's own goroutines deadlock while processor 0 runs its
	// code: wg.Wait for senders nobody receives from.
	bodies["godeadlock"] = func(p *rt.Proc) {
		var wg sync.WaitGroup
		ch := make(chan int)
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ch <- i
			}()
		}
		wg.Wait()
	}
	// Longer than the deadlock watchdog's look at the goroutines: a sleep,
	// a computing goroutine waited for, a receive from a timer.
	bodies["gowait"] = func(p *rt.Proc) {
		time.Sleep(600 * time.Millisecond)
		done := make(chan bool)
		go func() {
			for end := time.Now().Add(600 * time.Millisecond); time.Now().Before(end); {
			}
			done <- true
		}()
		<-done
		<-time.After(700 * time.Millisecond)
	}
}

// TestGoroutineDeadlock: Go's own detector ("all goroutines are asleep")
// never fires while the runtime's watchdog ticks, so a deadlock of the
// program's goroutines hung the run. The watchdog looks at the goroutines
// once no processor's state changed for 20 looks (10 × SVMC_DEADLOCK_MS)
// and ends the run, naming processor 0's line and the senders'. A sleep,
// a computation and a receive from a timer are not stopped (the receive
// gets a warning at most: a timer cannot be seen).
func TestGoroutineDeadlock(t *testing.T) {
	stderr, code := runProg(t, "godeadlock", "SVMC_NPROCS=2", "SVMC_DEADLOCK_MS=50")
	for _, want := range []string{
		"svmc: deadlock: all goroutines are asleep (each waits on a channel or a lock that no other will release)\n",
		"  processor 0: blocked (sync.WaitGroup.Wait) in github.com/svmc/svmc/rtlib_test.init.",
		"  processor 1: idle, waiting for work from processor 0\n",
		"  3 goroutines (",
		"): blocked (chan send) in github.com/svmc/svmc/rtlib_test.init.",
	} {
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, want)
		}
	}
	if stderr, code := runProg(t, "gowait", "SVMC_NPROCS=2", "SVMC_DEADLOCK_MS=20"); code != 0 || strings.Contains(stderr, "svmc: deadlock") {
		t.Errorf("sleeping, computing, a timer: exit %d, stderr %q", code, stderr)
	}
}

// TestMain runs one of the bodies through rt.Main when asked by a test
// (SVMC_TEST_PROG), so that the exit status and stderr can be checked.
func TestMain(m *testing.M) {
	if name := os.Getenv("SVMC_TEST_PROG"); name != "" {
		rt.Main(prog, bodies[name])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runProg runs body name in a subprocess with the given environment and
// returns its stderr and exit status.
func runProg(t *testing.T, name string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SVMC_TEST_PROG="+name, "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), code
}

func readRecords(t *testing.T, path string) []*trace.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := trace.NewReader(f)
	if err != nil {
		t.Fatalf("trace unreadable: %v", err)
	}
	var recs []*trace.Record
	for r, err := range rd.All() {
		if err != nil {
			t.Fatalf("trace unreadable: %v", err)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 || recs[len(recs)-1].Desc.Name != "trace-end" {
		t.Fatalf("the trace does not end with trace-end")
	}
	return tracetest.WithoutEstimates(recs[:len(recs)-1])
}

func TestUserErrors(t *testing.T) {
	cases := []struct{ name, want string }{
		{"formats", "svmc: user.go:12:3: distribute T(0:9): 2 formats for a template of rank 1\n"},
		{"distdims", "svmc: user.go:11:3: processor arrangement P(0:1,0:1) has 4 elements for 2 processors; mapped in column-major order, wrapping\nsvmc: user.go:13:3: distribute T(0:9): 1 distributed dimensions onto P(0:1,0:1) of rank 2\n"},
		{"genblock", "svmc: user.go:12:3: distribute T(0:9): dimension 1: general_block sizes sum to 9, the extent 0:9 has 10 indices\n"},
		{"genblockcount", "svmc: user.go:12:3: distribute T(0:9): dimension 1: general_block has 1 sizes for 2 processors of dimension 1 of APS(0:1)\n"},
		{"indirect", "svmc: user.go:12:3: distribute T(0:3): dimension 1: indirect owner 2 of index 2 is outside 0:1 of dimension 1 of APS(0:1)\n"},
		{"cyclic0", "svmc: user.go:12:3: distribute T(0:3): dimension 1: cyclic(0): the block length must be positive\n"},
		{"shape", "svmc: user.go:14:3: distribute T2(0:8) with T1(0:9): the shapes differ\n"},
		{"argshape", "svmc: user.go:11:3: processor arrangement P(0:3) has 4 elements for 2 processors; mapped in column-major order, wrapping\nsvmc: user.go:12:3: processor arrangement Q(0:1,0:1) does not match the shape of the argument P(0:3)\n"},
		{"undistributed", "svmc: user.go:12:3: on_home(T(0:9)): the template is not distributed\n"},
		{"outside", "svmc: user.go:13:3: on_home(T(0:9)): subscript 1 takes the values 1..10, outside the extent 0:9\n"},
		// An extent known at run time (nprocs()/2 on one processor) is
		// refused where the arrangement is made.
		{"emptyprocs", "svmc: user.go:11:3: processor arrangement P: dimension 1 has no processors (0:-1) with 2 processors in the run\n"},
		{"indexfunc", "svmc: user.go:13:3: processor K: on_home(T(0:9)): subscript 1 is 10 at iteration [5], outside the extent 0:9\n"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".sddf")
			stderr, code := runProg(t, c.name, "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_FORMAT=ascii")
			// Which processor meets a bad IndexFunc subscript first is a race.
			stderr = regexp.MustCompile(`processor [0-9]+: `).ReplaceAllString(stderr, "processor K: ")
			if code != 2 || stderr != c.want {
				t.Errorf("exit %d, stderr %q\nwant exit 2, %q", code, stderr, c.want)
			}
			if strings.Contains(stderr, "goroutine") {
				t.Errorf("stack trace printed")
			}
			recs := readRecords(t, path)
			starts := map[int]bool{}
			for _, r := range recs {
				if r.Desc.Name == "trace-region-start" && r.Int("trace region type") == trace.RegionProgram {
					starts[r.Node()] = true
				}
			}
			if !starts[0] || !starts[1] {
				t.Errorf("trace lacks the program regions: %v", starts)
			}
		})
	}
}

func TestPanics(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "panic.sddf")
	stderr, code := runProg(t, "panic", "SVMC_NPROCS=2", "SVMC_TRACE="+path, "SVMC_STAGE=3")
	want := "svmc: processor 1 panicked: boom\n\tat user.go:42\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q\nwant exit 2, %q", code, stderr, want)
	}
	recs := readRecords(t, path)
	var got []string
	for _, r := range recs {
		if r.Node() == 1 {
			got = append(got, r.Desc.Name)
		}
	}
	// Processor 1 opened the program, the pdo and the subroutine region; the
	// deferred Exit closed the subroutine region while panicking; the pdo
	// ended as usual and the leader raised the panic again after it, which
	// ended the run with processor 1 serving (its program region open).
	wantEv := []string{"trace-region-start", "trace-region-start", "trace-region-start", "trace-region-stop",
		"pdo-work", "wait-barrier-start", "wait-barrier-stop", "trace-region-stop"}
	if strings.Join(got, " ") != strings.Join(wantEv, " ") {
		t.Errorf("node 1 events %v, want %v", got, wantEv)
	}

	stderr, code = runProg(t, "indexpanic", "SVMC_NPROCS=3")
	want = "svmc: processor 0 panicked: runtime error: index out of range [5] with length 0\n\tat user.go:50\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q\nwant exit 2, %q", code, stderr, want)
	}
}

func TestMainParams(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "bad.req")
	if err := os.WriteFile(req, []byte("CONFIG SVM_TraceStage: 2\n\nREQUEST LOCAL mian.*: (REGION)\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	// A syntax error and an unknown name: both in one run.
	both := filepath.Join(dir, "both.req")
	if err := os.WriteFile(both, []byte("REQUEST LOCAL mian.*: (REGION)\nCONFIG SVM_TraceStage: 9\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.req")
	if err := os.WriteFile(good, []byte("CONFIG SVM_TraceStage: 1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"SVMC_NPROCS=abc"}, "svmc: SVMC_NPROCS=abc: want a positive number of processors\n"},
		{[]string{"SVMC_NPROCS=0"}, "svmc: SVMC_NPROCS=0: want a positive number of processors\n"},
		{[]string{"SVMC_STAGE=9"}, "svmc: SVMC_STAGE=9: want a stage from 0 to 6\n"},
		{[]string{"SVMC_FORMAT=xml"}, "svmc: SVMC_FORMAT=xml: want ascii or binary\n"},
		{[]string{"SVMC_REQUEST=" + req}, "svmc: " + req + ":3:15: unknown function \"mian\"; did you mean \"main\"?\n"},
		{[]string{"SVMC_REQUEST=" + both}, "svmc: " + both + ":1:15: unknown function \"mian\"; did you mean \"main\"?\n" +
			"svmc: " + both + ":2:24: bad stage \"9\": want a number from 0 to 6\n"},
	} {
		stderr, code := runProg(t, "ok", c.env...)
		if code != 2 || stderr != c.want {
			t.Errorf("%v: exit %d, stderr %q\nwant exit 2, %q", c.env, code, stderr, c.want)
		}
	}
	// A good run: the request file's stage, overridden by SVMC_STAGE.
	for _, c := range []struct {
		env   []string
		stage string
		names []string
	}{
		{[]string{"SVMC_REQUEST=" + good}, "1", []string{"trace-region-start", "trace-region-start", "trace-region-stop", "trace-region-stop"}},
		{[]string{"SVMC_REQUEST=" + good, "SVMC_STAGE=0"}, "0", nil},
		{nil, "3", []string{"trace-region-start", "trace-region-start", "pdo-info", "aps-info", "pdo-work", "wait-barrier-start",
			"wait-barrier-stop", "pdo-iteration-space", "trace-region-stop", "trace-region-stop"}},
	} {
		path := filepath.Join(dir, "ok.sddf")
		stderr, code := runProg(t, "ok", append(c.env, "SVMC_TRACE="+path)...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", c.env, code, stderr)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := trace.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if rd.Format() != trace.Binary {
			t.Errorf("default format %v", rd.Format())
		}
		for _, a := range rd.Attrs() {
			if a.Key == "stage" && a.Value != c.stage {
				t.Errorf("%v: stage %s, want %s", c.env, a.Value, c.stage)
			}
		}
		f.Close()
		var names []string
		for _, r := range readRecords(t, path) {
			names = append(names, r.Desc.Name)
		}
		if strings.Join(names, " ") != strings.Join(c.names, " ") {
			t.Errorf("%v: records %v, want %v", c.env, names, c.names)
		}
	}
}

// TestStuckProcessor: a processor that never reaches a safe point does not
// keep Run from reporting another one's panic; the wait is bounded. (In a
// replicated region: a panic in a pdo's iteration waits for the loop's
// other shares, TestPanicInIteration.)
func TestStuckProcessor(t *testing.T) {
	var release atomic.Bool
	defer release.Store(true)
	var buf bytes.Buffer
	start := time.Now()
	err := rt.Run(prog, rt.Params{NProcs: 3, Stage: 3, Trace: &buf, Format: trace.ASCII, StopWait: 100 * time.Millisecond},
		func(p *rt.Proc) {
			p.Replicated(1, 1, func(q *rt.Proc) {
				switch q.ID() {
				case 1:
					for !release.Load() {
						time.Sleep(time.Millisecond)
					}
				case 2:
					_, _, line, _ := runtime.Caller(0)
					panicLine.Store(int64(line + 2))
					panic(errors.New("bad"))
				}
			})
		})
	var pe *rt.PanicError
	if !errors.As(err, &pe) || pe.Proc != 2 || !strings.HasSuffix(pe.At, "failure_test.go:"+strconv.Itoa(int(panicLine.Load()))) {
		t.Fatalf("got %v (%#v)", err, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Run took %v", d)
	}
	rd, err := trace.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[int]bool{}
	var end *trace.Record
	for r, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		if r.Desc.Name == "trace-end" {
			end = r
			continue
		}
		nodes[r.Node()] = true
	}
	// Processor 1 is still running: its records up to the last one it
	// completed are in the trace all the same, and trace-end names it.
	if !nodes[0] || !nodes[1] || !nodes[2] {
		t.Errorf("flushed nodes %v, want 0, 1 and 2", nodes)
	}
	if end == nil || end.Int("status") != trace.EndPanic || !reflect.DeepEqual(intArray(end, "processors not stopped"), []int{1}) {
		t.Errorf("trace-end %v", end)
	}
}

var panicLine atomic.Int64

// intArray returns the values of a one-dimensional int array field.
func intArray(r *trace.Record, name string) []int {
	_, v := r.IntArray(name)
	if v == nil {
		return []int{}
	}
	return v
}
