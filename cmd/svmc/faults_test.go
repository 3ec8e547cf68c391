package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// A program whose own goroutines panic in the ways Go starts goroutines:
// a function literal, a method value, a variadic function, and calls that
// start them (WaitGroup.Go, time.AfterFunc); the builtin and
// the generic function beside them must still compile and run.
const goroutinePanicProg = `package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

type worker struct{ data []int }

func (w *worker) run(k int, wg *sync.WaitGroup) {
	defer wg.Done()
	fmt.Println("worker", w.data[k])
}

func sum(xs ...int) {
	s := 0
	for _, x := range xs {
		s += x
	}
	fmt.Println("sum", s, xs[3])
}

func send[T any](c chan T, v T) { c <- v }

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+:s)
	for i := 0; i < 10; i++ {
		s += i
	}
	fmt.Println(s)
	c := make(chan int, 1)
	go send(c, 7)
	fmt.Println(<-c)
	go close(c)
	var wg sync.WaitGroup
	w := &worker{data: []int{1, 2, 3}}
	switch os.Getenv("MODE") {
	case "literal":
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			fmt.Println(w.data[k])
		}(5)
	case "method":
		wg.Add(1)
		go w.run(4, &wg)
	case "variadic":
		xs := []int{1, 2}
		go sum(xs...)
	case "wggo":
		wg.Go(func() {
			fmt.Println(w.data[6])
		})
	case "afterfunc":
		time.AfterFunc(time.Millisecond, func() { sum(1, 2, 3) })
	case "inpdo":
		//svm:pdo loops(i)
		for i := 0; i < 10; i++ {
			if i == 7 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					fmt.Println(w.data[i])
				}()
				wg.Wait()
			}
		}
	default:
		return
	}
	select {} // the panic ends the run; processor 0 is not stopped
}
`

// TestGoroutinePanic: a panic in a goroutine the program started ends the
// run as a processor's panic does: status 2, the goroutine's go statement
// and the panic's line in the message, a trace that ends with trace-end.
// Before, Go's stack trace was printed and the trace had 0 bytes.
func TestGoroutinePanic(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": goroutinePanicProg})
	for _, c := range []struct{ mode, want string }{
		{"literal", "svmc: the goroutine of processor 0 started at main.go:43:3 panicked: runtime error: index out of range [5] with length 3\n\tat main.go:45\n"},
		{"method", "svmc: the goroutine of processor 0 started at main.go:49:3 panicked: runtime error: index out of range [4] with length 3\n\tat main.go:14\n"},
		{"variadic", "svmc: the goroutine of processor 0 started at main.go:52:3 panicked: runtime error: index out of range [3] with length 2\n\tat main.go:22\n"},
		// Goroutines that a call starts: WaitGroup.Go, time.AfterFunc.
		{"wggo", "svmc: the goroutine of processor 0 started at main.go:54:3 panicked: runtime error: index out of range [6] with length 3\n\tat main.go:55\n"},
		{"afterfunc", "svmc: the goroutine of processor 0 started at main.go:58:3 panicked: runtime error: index out of range [3] with length 3\n\tat main.go:22\n"},
		// Processor 1 started it, in its share of a pdo.
		{"inpdo", "svmc: the goroutine of processor 1 started at main.go:64:5 panicked: runtime error: index out of range [7] with length 3\n\tat main.go:66\n"},
	} {
		tr := filepath.Join(dir, c.mode+".sddf")
		t.Setenv("MODE", c.mode)
		t.Setenv("SVMC_STOP_WAIT", "100ms")
		res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
		if res.code != 2 || !strings.HasSuffix(res.stderr, c.want) || strings.Contains(res.stderr, "goroutine 1") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant status 2 and it to end with:\n%s", c.mode, res.code, res.stderr, c.want)
		}
		// Untraced, the goroutine has no lane, and its processor is
		// still named.
		if res := runSvmc(t, dir, "run", "-n", "2", "."); res.code != 2 || !strings.HasSuffix(res.stderr, c.want) {
			t.Errorf("%s untraced: exit %d, stderr:\n%s\nwant status 2 and it to end with:\n%s", c.mode, res.code, res.stderr, c.want)
		}
		if !strings.HasPrefix(res.stdout, "45\n7\n") {
			t.Errorf("%s: stdout %q", c.mode, res.stdout)
		}
		recs := readTrace(t, tr)
		end := recs[len(recs)-1]
		if end.Desc.Name != "trace-end" || end.Int("status") != trace.EndPanic {
			t.Errorf("%s: last record %v, want trace-end with status panic", c.mode, end)
		}
	}
	// Without svmc the program is the same Go program.
	os.Unsetenv("MODE")
	res := runSvmc(t, dir, "run", "-n", "2", ".")
	if res.code != 0 || res.stdout != "45\n7\n" {
		t.Errorf("without a panic: exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
}

// A program that runs PDOs until it is stopped, printing its process id and
// then "ready"; with MODE=quick it returns at once, with MODE=suicide it
// kills itself with SIGKILL.
const endlessProg = `package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	if os.Getenv("MODE") == "quick" {
		return
	}
	fmt.Println(os.Getpid())
	for k := 0; ; k++ {
		s := 0
		//svm:pdo loops(i) reduction(+:s)
		for i := 0; i < 100; i++ {
			s += i
		}
		if k == 10 {
			fmt.Println("ready")
			if os.Getenv("MODE") == "suicide" {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}
}
`

// TestHangupSvmcRun: SIGHUP of svmc run (a closed terminal or ssh session,
// or kill -HUP) ends the program as SIGTERM does: svmc waits for it, it
// completes its trace, and both end with status 129. Before, svmc died at
// once and the program's trace stayed under its partial name.
func TestHangupSvmcRun(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("SIGHUP is ignored where this test runs (nohup), and so in the svmc it starts: it cannot be sent to it")
	}
	cmd, tr, _, rd, stderr := startEndlessRun(t, nil)
	go io.Copy(io.Discard, rd)
	cmd.Process.Signal(syscall.SIGHUP)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("svmc run did not end on SIGHUP; stderr %q", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 129 || !strings.Contains(stderr.String(), "svmc: interrupted (SIGHUP): trace written to") {
		t.Fatalf("exit %d (%v), stderr %q; want 129 and the trace written", code, err, stderr.String())
	}
	recs := readTrace(t, tr)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") != trace.EndTerminate || end.String("message") != "interrupted (SIGHUP)" {
		t.Errorf("last record %v, want trace-end of a SIGHUP", end)
	}
}

// startEndlessRun starts svmc run of endlessProg on 2 processors with a
// trace (tr), with env added to its environment, and waits until the
// program says it is ready: its pid, and what follows on its output.
func startEndlessRun(t *testing.T, env []string) (cmd *exec.Cmd, tr string, pid int, rd *bufio.Reader, stderr *bytes.Buffer) {
	t.Helper()
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	tr = filepath.Join(dir, "t.sddf")
	cmd = exec.Command(svmcBin, "run", "-n", "2", "--trace", tr, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd = bufio.NewReader(out)
	line, err := rd.ReadString('\n')
	pid, _ = strconv.Atoi(strings.TrimSpace(line))
	if ready, _ := rd.ReadString('\n'); err != nil || pid == 0 || ready != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("%q %q %v; stderr %s", line, ready, err, stderr.String())
	}
	return cmd, tr, pid, rd, stderr
}

// TestKilledSvmcRun: SIGKILL of svmc run reaches the program as SIGTERM, so
// that it writes its trace instead of running on as an orphan, and the next
// svmc removes the work directory the killed one left. Before, the program
// ran on and the directory stayed.
func TestKilledSvmcRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	tmp := t.TempDir()
	cmd, tr, pid, _, stderr := startEndlessRun(t, []string{"TMPDIR=" + tmp})
	dir := filepath.Dir(tr)
	works, _ := filepath.Glob(filepath.Join(tmp, "svmc-run-*"))
	if len(works) != 1 {
		t.Fatalf("work directories %v, want one", works)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for i := 0; processAlive(pid); i++ {
		if i == 200 {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the program runs on after svmc run was killed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(tr); err != nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		t.Fatalf("no trace: %v; files %v; svmc's stderr %q", err, files, stderr.String())
	}
	recs := readTrace(t, tr)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") != trace.EndTerminate {
		t.Errorf("last record %v, want trace-end of a SIGTERM", end)
	}
	quick := exec.Command(svmcBin, "run", ".")
	quick.Dir = dir
	quick.Env = append(os.Environ(), "TMPDIR="+tmp, "MODE=quick")
	if out, err := quick.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(works[0]); !os.IsNotExist(err) {
		t.Errorf("the killed svmc's work directory %s is still there (%v)", works[0], err)
	}
}

// TestKilledProgram: a program killed by SIGKILL cannot say so itself;
// svmc run does, with what is left of the trace, and exits 137. Before, it
// exited 255 without a word.
func TestKilledProgram(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	tr := filepath.Join(dir, "t.sddf")
	t.Setenv("MODE", "suicide")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	want := "svmc: the program was killed by SIGKILL; the trace " + tr + " holds the records the processors had written until about 0.1 s before (what they wrote after is lost) and has no trace-end record\n"
	if res.code != 137 || res.stderr != want {
		t.Errorf("exit %d, stderr %q; want 137 and %q", res.code, res.stderr, want)
	}
	rep := runSvmc(t, dir, "report", tr)
	if rep.code != 0 || !strings.Contains(rep.stdout, "no trace-end record") {
		t.Errorf("report of the killed run: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// TestKilledProgramKeepsRecords: a traced program killed by SIGKILL keeps
// the records its processors wrote up to a moment before: the writer
// drains the chunks they fill every 0.1 s. Before, a run killed before a
// processor filled a chunk of 256 KiB left a trace of no records (x505).
func TestKilledProgramKeepsRecords(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

//go:noinline
func step(k int) int {
	time.Sleep(time.Millisecond)
	return 2 * k
}

func main() {
	s := 0
	for k := 0; k < 100; k++ {
		s += step(k)
	}
	fmt.Println(s)
	// Long after the drain of the calls above: each drain writes what
	// the processors wrote since the one before.
	time.Sleep(time.Second)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
`})
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 137 || res.stdout != "9900\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 137 after 9900", res.code, res.stdout, res.stderr)
	}
	calls := 0
	for _, r := range readTrace(t, tr) {
		if r.Desc.Name == "trace-region-start" {
			calls++
		}
	}
	if calls < 100 {
		t.Errorf("the killed run's trace holds %d calls of step, want its 100 (and main's region)", calls)
	}
}

// TestOutputIsInput: a command whose output file is its input (also
// through a symbolic link) refuses and leaves the input as it was. Before,
// trace convert truncated its input and view replaced the trace by HTML.
func TestOutputIsInput(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	tr := filepath.Join(dir, "t.sddf")
	t.Setenv("MODE", "quick")
	if res := runSvmc(t, dir, "run", "--trace", tr, "."); res.code != 0 {
		t.Fatalf("run: %d %s", res.code, res.stderr)
	}
	os.Symlink(tr, filepath.Join(dir, "link.sddf"))
	before, _ := os.ReadFile(tr)
	for _, args := range [][]string{
		{"trace", "convert", "--to", "ascii", "t.sddf", "t.sddf"},
		{"trace", "convert", "--to", "ascii", "t.sddf", "link.sddf"},
		{"view", "t.sddf", "-o", "link.sddf"},
		{"export", "--format", "chrome", "t.sddf", "-o", "t.sddf"},
		{"report", "t.sddf", "--next-request", "t.sddf"},
		{"report", "t.sddf", "-o", "link.sddf"},
		{"check", "t.sddf", "-o", "t.sddf"},
		{"diff", "t.sddf", "t.sddf", "-o", "link.sddf"},
	} {
		res := runSvmc(t, dir, args...)
		if res.code == 0 || !strings.Contains(res.stderr, "is the input file t.sddf: write the output to another file") {
			t.Errorf("svmc %s: exit %d, stderr %q", strings.Join(args, " "), res.code, res.stderr)
		}
		if after, _ := os.ReadFile(tr); !bytes.Equal(after, before) {
			t.Fatalf("svmc %s changed its input", strings.Join(args, " "))
		}
	}
	if res := runSvmc(t, dir, "trace", "convert", "--to", "ascii", "t.sddf", "t.txt"); res.code != 0 {
		t.Errorf("convert to another file: %d %s", res.code, res.stderr)
	}
	// report, check and diff -o write what they print.
	for _, args := range [][]string{
		{"report", "--format", "json", "t.sddf"},
		{"check", "--format", "json", "t.sddf"},
		{"diff", "--format", "json", "t.sddf", "t.sddf"},
	} {
		printed := runSvmc(t, dir, args...)
		if res := runSvmc(t, dir, append(args, "-o", "out.json")...); res.code != 0 || res.stdout != "" {
			t.Errorf("%s -o: exit %d, stdout %q, stderr %s", args[0], res.code, res.stdout, res.stderr)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "out.json")); printed.code != 0 || len(got) == 0 || string(got) != printed.stdout {
			t.Errorf("%s -o wrote %d bytes, %s printed %d", args[0], len(got), args[0], len(printed.stdout))
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "t.txt")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("converted file: %v %v", fi, err)
	}
}

// TestRuntimeDirTrusted: without HOME and XDG_CACHE_HOME the runtime goes
// to TMPDIR/svmc-UID, created private; one that others can write is
// refused, and code planted in the runtime directory is removed before it
// can run. Before, an existing directory was trusted by its name.
func TestRuntimeDirTrusted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ownership is Unix's")
	}
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	tmp := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	env = append(env, "TMPDIR="+tmp, "MODE=quick")
	run := func() (string, error) {
		cmd := exec.Command(svmcBin, "run", ".")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	base := filepath.Join(tmp, "svmc-"+strconv.Itoa(os.Getuid()))
	os.Mkdir(base, 0o777)
	os.Chmod(base, 0o777)
	if out, err := run(); err == nil || !strings.Contains(out, "svmc will not use "+base+" for its runtime: writable by others") {
		t.Fatalf("a world-writable runtime directory: %v\n%s", err, out)
	}
	os.Chmod(base, 0o700)
	if out, err := run(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rts, _ := filepath.Glob(filepath.Join(base, "runtime-*"))
	if len(rts) != 1 {
		t.Fatalf("runtime directories %v", rts)
	}
	planted := filepath.Join(rts[0], "rtlib", "planted.go")
	os.WriteFile(planted, []byte("package rtlib\n\nfunc init() { println(\"PLANTED\") }\n"), 0o644)
	if out, err := run(); err != nil || strings.Contains(out, "PLANTED") {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the planted file is still there: %v", err)
	}
}

// TestTimeLimit: a run that hangs on a Go channel inside a pdo, which the
// deadlock detection cannot see, is stopped by --time-limit as by SIGTERM:
// the trace is complete, each processor is named with what it was doing at
// which line, and the status is timeout(1)'s 124.
func TestTimeLimit(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"sync"
)

func main() {
	var mu sync.Mutex
	never := make(chan int)
	s := 0
	//svm:pdo loops(i) reduction(+:s)
	for i := 0; i < 2; i++ {
		if i == 0 {
			s += <-never
		} else {
			mu.Lock()
			mu.Lock()
		}
	}
	fmt.Println(s)
}
`})
	tr := filepath.Join(dir, "t.sddf")
	t.Setenv("SVMC_STOP_WAIT", "100ms")
	res := runSvmc(t, dir, "run", "-n", "2", "--time-limit", "500ms", "--trace", tr, ".")
	if res.code != 124 {
		t.Errorf("exit %d, want 124", res.code)
	}
	for _, want := range []string{
		"svmc: time limit 500ms reached: the run was stopped\n",
		"  processor 0: blocked (chan receive) in main.",
		"main.go:15\n",
		"  processor 1: blocked (sync.Mutex.Lock) in main.",
		"main.go:18\n",
		"svmc: trace written to " + tr + "\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	recs := readTrace(t, tr)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") != trace.EndTerminate {
		t.Errorf("last record %v", end)
	}
}

// TestOutputPastFmt: output control covers the log package's default
// logger and direct writes to os.Stdout, as it covers fmt: with each:PATTERN
// every processor's lines go to its own file and nothing to the process's
// streams. Before, every processor printed and the files stayed empty.
func TestOutputPastFmt(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"log"
	"os"
	"strconv"
)

func main() {
	log.SetFlags(0)
	//svm:pdo loops(i)
	for i := 0; i < 2; i++ {
		log.Printf("log %d", i)
		os.Stdout.WriteString("ws " + strconv.Itoa(i) + "\n")
		os.Stdout.Write([]byte("w " + strconv.Itoa(i) + "\n"))
	}
}
`})
	res := runSvmc(t, dir, "run", "-n", "2", "--stdout", "each:out%d.txt", "--stderr", "each:err%d.txt", ".")
	if res.code != 0 || res.stdout != "" || res.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	for p := 0; p < 2; p++ {
		out, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out%d.txt", p)))
		errOut, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("err%d.txt", p)))
		if want := fmt.Sprintf("ws %d\nw %d\n", p, p); string(out) != want {
			t.Errorf("out%d.txt %q, want %q", p, out, want)
		}
		if want := fmt.Sprintf("log %d\n", p); string(errOut) != want {
			t.Errorf("err%d.txt %q, want %q", p, errOut, want)
		}
	}
	// The default: processor 0's output, and what each processor's
	// iterations print (each write whole), as the plain program prints it.
	res = runSvmc(t, dir, "run", "-n", "2", ".")
	lines := func(s string) []string {
		l := strings.SplitAfter(s, "\n")
		slices.Sort(l)
		return l
	}
	if res.code != 0 || !slices.Equal(lines(res.stdout), lines("ws 0\nw 0\nws 1\nw 1\n")) || !slices.Equal(lines(res.stderr), lines("log 0\nlog 1\n")) {
		t.Errorf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

// TestHostileTraces: a record naming a processor the run did not have, or
// one with a clock that is no number, is refused by report, view and
// export with the record's number and byte offset, before anything is
// allocated per processor. Before, node 2147483647 in a 12 KB trace made
// them allocate 3-4 GB, and a NaN clock failed in view's JSON encoder
// with no position.
func TestHostileTraces(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		node  int
		clock float64
		want  string
	}{
		{"maxnode", 2147483647, 3, `): node 2147483647 is no processor number (0..65535)`},
		{"beyond", 7, 3, `): processor 7, but the run had 2`},
		{"nan", 1, math.NaN(), `): clock NaN is not a time`},
		{"inf", 1, math.Inf(1), `): clock +Inf is not a time`},
	} {
		s := tracetest.New(2)
		s.Start(0, 1, 1, 0, 0)
		s.Stop(0, 9, 1, 0, 0)
		s.Start(1, 1, 1, 0, 0)
		s.Stop(1, 2, 1, 0, 0)
		b := &s.Bufs[1]
		before := len(b.B)
		b.Begin(trace.TagTraceRegionStart, c.node, c.clock)
		b.Int(1)
		b.Int(0)
		b.Int(0)
		b.End()
		path := filepath.Join(dir, c.name+".sddf")
		data := s.MustEncode(t, trace.Binary, tracetest.Prog())
		os.WriteFile(path, data, 0o644)
		end := int64(len(data)) // where the run index begins, if there is one
		if runs, _ := trace.ReadRunIndex(bytes.NewReader(data), end); runs != nil {
			end = runs[len(runs)-1].Off + runs[len(runs)-1].N
		} else if c.node < 1<<16 {
			t.Fatal("the trace has no run index")
		}
		at := fmt.Sprintf("%s: byte offset %d (record \"trace-region-start\" #", path, end-int64(len(b.B)-before)) // the last record
		for _, args := range [][]string{
			{"report", path},
			{"view", path, "-o", filepath.Join(dir, "v.html")},
			{"export", "--format", "chrome", path, "-o", filepath.Join(dir, "x.json")},
		} {
			res := runSvmc(t, dir, args...)
			if res.code == 0 || !strings.Contains(res.stderr, at) || !strings.Contains(res.stderr, c.want) {
				t.Errorf("%s: svmc %s: exit %d, stderr %q; want it to contain %q", c.name, args[0], res.code, res.stderr, c.want)
			}
		}
	}
}

// TestControlCharactersQuoted: a file name with control characters or a
// right-to-left override is printed escaped in svmc's messages and in the
// program's own, so it cannot rewrite what the terminal shows. Before, it
// was printed raw.
func TestControlCharactersQuoted(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	res := runSvmc(t, dir, "report", "evil\u202egnp.sddf\x1b[2J")
	if want := `evil\u202egnp.sddf\x1b[2J`; res.code == 0 || !strings.Contains(res.stderr, want) || strings.ContainsAny(res.stderr, "\u202e\x1b") {
		t.Errorf("report: exit %d, stderr %q; want %q escaped", res.code, res.stderr, want)
	}
	t.Setenv("MODE", "quick")
	res = runSvmc(t, dir, "run", "--trace", filepath.Join("no\x1bdir", "t.sddf"), ".")
	if want := `no\x1bdir`; res.code == 0 || !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "\x1b") {
		t.Errorf("run: exit %d, stderr %q; want %q escaped", res.code, res.stderr, want)
	}
}

// TestInfoOfAnotherBuild: report, view and export refuse --info that is
// not the program information the trace was written with, naming the
// first difference; the matching one is accepted. Before, it was used
// silently and put every region at the wrong line.
func TestInfoOfAnotherBuild(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	tr := filepath.Join(dir, "t.sddf")
	t.Setenv("MODE", "quick")
	if res := runSvmc(t, dir, "run", "--trace", tr, "."); res.code != 0 {
		t.Fatalf("run: %s", res.stderr)
	}
	if res := runSvmc(t, dir, "compile", "-o", filepath.Join(dir, "gen1"), "."); res.code != 0 {
		t.Fatalf("compile: %s", res.stderr)
	}
	src := filepath.Join(dir, "main.go")
	data, _ := os.ReadFile(src)
	os.WriteFile(src, bytes.Replace(data, []byte("\ts := 0\n"), []byte("\ts := 0\n\n"), 1), 0o644)
	if res := runSvmc(t, dir, "compile", "-o", filepath.Join(dir, "gen2"), "."); res.code != 0 {
		t.Fatalf("compile: %s", res.stderr)
	}
	good, bad := filepath.Join(dir, "gen1", "svminfo.json"), filepath.Join(dir, "gen2", "svminfo.json")
	if res := runSvmc(t, dir, "report", tr, "--info", good); res.code != 0 {
		t.Errorf("report with its own information: %d %s", res.code, res.stderr)
	}
	want := "the program information of --info is not the one " + tr + " was written with: directive 1 of main is pdo at main.go:17 there, pdo at main.go:16 in the trace; leave --info out, the trace carries its own"
	for _, args := range [][]string{
		{"report", tr, "--info", bad},
		{"view", tr, "--info", bad, "-o", filepath.Join(dir, "v.html")},
		{"export", "--format", "chrome", tr, "--info", bad, "-o", filepath.Join(dir, "x.json")},
	} {
		if res := runSvmc(t, dir, args...); res.code == 0 || !strings.Contains(res.stderr, want) {
			t.Errorf("svmc %s: exit %d, stderr %q; want %q", args[0], res.code, res.stderr, want)
		}
	}
}

// TestSectionPlacement: a section put on a section of an arrangement,
// processors(P(2:3)), runs there, and the other section on the rest; a
// section put on an arrangement declared Q2(2:3) gets a warning that says
// how to place it. Before, there was no way to place a section.
func TestSectionPlacement(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"sort"
	"sync"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	var mu sync.Mutex
	var a, b []int
	add := func(s *[]int) {
		mu.Lock()
		*s = append(*s, rtlib.ProcessorID())
		mu.Unlock()
	}
	//svm:processors P(0:nprocs()-1)
	//svm:processors Q2(2:3)
	//svm:psection
	{
		//svm:section processors(P(2:3))
		{
			//svm:pdo loops(i)
			for i := 0; i < 8; i++ {
				add(&a)
			}
		}
		//svm:section
		{
			//svm:pdo loops(i)
			for i := 0; i < 8; i++ {
				add(&b)
			}
		}
	}
	//svm:psection
	{
		//svm:section processors(Q2)
		add(&a)
	}
	sort.Ints(a)
	sort.Ints(b)
	fmt.Println(a, b)
}
`})
	res := runSvmc(t, dir, "run", "-n", "4", ".")
	if want := "[0 2 2 2 2 3 3 3 3] [0 0 0 0 1 1 1 1]\n"; res.code != 0 || res.stdout != want {
		t.Errorf("exit %d, stdout %q, want %q; stderr %s", res.code, res.stdout, want, res.stderr)
	}
	if want := "main.go:40:28: warning: section processors(Q2): Q2(2:3) has 2 elements on processors 0..1"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
	}
}

// TestWhereUsersRunIt: a program in a go.work workspace that imports
// another module of the workspace, a package of another module named by
// its directory, and svmc compile of a package that imports rtlib in a
// module that does not require svmc. Before, the first failed with
// "-modfile cannot be used in workspace mode", the second with the go
// command's errors, the third with `invalid package name: ""`.
func TestWhereUsersRunIt(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws") // ../other is outside the workspace
	files := map[string]string{
		"app/go.mod": "module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n",
		"lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
		"lib/lib.go": "package lib\n\nfunc Sq(x int) int { return x * x }\n",
		"app/main.go": `package main

import (
	"fmt"

	"example.com/lib"
	"github.com/svmc/svmc/rtlib"
)

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+:s)
	for i := 0; i < 10; i++ {
		s += lib.Sq(i)
	}
	fmt.Println(s, rtlib.NumProcessors())
}
`,
		"../other/go.mod": "module example.com/other\n\ngo 1.22\n",
		"../other/main.go": `package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	fmt.Println("hello from", rtlib.ProcessorID())
}
`,
	}
	writeWorkspace(t, root, files, "./app", "./lib")
	if res := runSvmc(t, filepath.Join(root, "app"), "run", "-n", "2", "."); res.code != 0 || res.stdout != "285 2\n" {
		t.Errorf("workspace: exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
	if res := runSvmc(t, filepath.Join(root, "app"), "run", "-n", "3", "../../other"); res.code != 0 || res.stdout != "hello from 0\n" {
		t.Errorf("another module: exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
	gen := filepath.Join(root, "gen")
	if res := runSvmc(t, filepath.Join(root, "..", "other"), "compile", "-o", gen, "."); res.code != 0 {
		t.Errorf("compile: exit %d, stderr %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(gen, "svminfo.json")); err != nil {
		t.Error(err)
	}
}

// writeWorkspace writes files under root (paths relative to it) and a
// go.work there that uses the modules in dirs.
func writeWorkspace(t *testing.T, root string, files map[string]string, dirs ...string) {
	t.Helper()
	for name, text := range files {
		os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(root, name), []byte(text), 0o644)
	}
	init := exec.Command("go", append([]string{"work", "init"}, dirs...)...)
	init.Dir = root
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("go work init: %v\n%s", err, out)
	}
}

// libraryModules is a program (app) and a library with a pdo (lib) in
// modules of their own beside each other; appMod ends app's go.mod.
func libraryModules(appMod string) map[string]string {
	return map[string]string{
		"app/go.mod":  "module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n" + appMod,
		"app/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib\"\n)\n\nfunc main() { fmt.Println(lib.SumSq(100)) }\n",
		"lib/go.mod":  "module example.com/lib\n\ngo 1.22\n",
		"lib/lib.go": `package lib

// SumSq sums the squares below n.
func SumSq(n int) int {
	s := 0
	//svm:pdo reduction(+: s)
	for i := range n {
		s += i * i
	}
	return s
}
`,
	}
}

// runsLibraryPDO runs libraryModules's app under root and checks that the
// library's pdo ran as one (its region in the report).
func runsLibraryPDO(t *testing.T, root string) {
	t.Helper()
	tr := filepath.Join(t.TempDir(), "t.sddf")
	if res := runSvmc(t, filepath.Join(root, "app"), "run", "-n", "2", "--trace", tr, "."); res.code != 0 || res.stdout != "328350\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
	if res := runSvmc(t, root, "report", tr); !strings.Contains(res.stdout, "../lib/lib.go:6") {
		t.Errorf("the library's pdo is not in the report:\n%s", res.stdout)
	}
}

// TestWorkspaceLibrary: in a go.work workspace, a package of another
// module of the workspace that holds directives is compiled with the
// program, as a package of the main module is (its modules are all main
// modules); before, its pdo ran as plain Go without a word.
func TestWorkspaceLibrary(t *testing.T) {
	root := t.TempDir()
	writeWorkspace(t, root, libraryModules(""), "./app", "./lib")
	runsLibraryPDO(t, root)
}

// TestReplacedLibrary: a module main's go.mod replaces by a directory
// (replace example.com/lib => ../lib, the way a module is developed beside
// its user) is the user's own source: its package with directives is
// compiled with the program, as a workspace's is. Before, its pdo ran as
// plain Go without a word.
func TestReplacedLibrary(t *testing.T) {
	root := t.TempDir()
	for name, text := range libraryModules("\nreplace example.com/lib => ../lib\n") {
		os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runsLibraryPDO(t, root)
}

// TestHostileFixtures runs the campaign's hostile inputs kept in
// testdata/hostile (see its README): each ends with a message that says
// what is wrong and where, without a Go stack (runSvmc checks) and without
// echoing a secret or a raw escape sequence.
func TestHostileFixtures(t *testing.T) {
	fix, _ := filepath.Abs(filepath.Join("testdata", "hostile"))
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	t.Setenv("MODE", "quick")
	f := func(name string) string { return filepath.Join(fix, name) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", f("maxnode.sddf")}, "node 2147483647 is no processor number"},
		{[]string{"view", f("beyond.sddf"), "-o", filepath.Join(dir, "v.html")}, "processor 7, but the run had 2"},
		{[]string{"export", "--format", "chrome", f("nan.sddf"), "-o", filepath.Join(dir, "x.json")}, "clock NaN is not a time"},
		{[]string{"report", f("inf.txt.sddf")}, "clock -Inf is not a time"},
		{[]string{"check", f("maxnode.sddf")}, "node 2147483647 is no processor number"},
		{[]string{"check", f("nan.sddf")}, "clock NaN is not a time"},
		{[]string{"run", "--request", f("include-secret.req"), "."}, "include-secret.req:2:9: cannot include \"secret.txt\": " + f("secret.txt") + " is not a request file"},
		{[]string{"run", "--request", f("include-self.req"), "."}, "include-self.req:2:9: include cycle"},
		{[]string{"run", "--request", f("huge-numbers.req"), "."}, "huge-numbers.req:1:24: bad stage \"99999999999999999999\": want a number from 0 to 6"},
		{[]string{"run", "--params", f("nprocs.par"), "."}, "nprocs.par:1:10: nprocs: 1000000 processors is more than svmc runs (at most 4096)"},
		{[]string{"run", "--params", f("tracebuf.par"), "."}, "tracebuf.par:1:12: tracebuf: too large (at most 1024G)"},
		{[]string{"run", "--params", f("collide.par"), "."}, `stdout = common:t\x1b[2J.sddf is the same file as trace = t\x1b[2J.sddf: a run cannot write it twice`},
	} {
		res := runSvmc(t, dir, c.args...)
		if res.code == 0 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("svmc %s: exit %d, stderr %q; want it to contain %q", strings.Join(c.args, " "), res.code, res.stderr, c.want)
		}
		if strings.Contains(res.stderr, "root") || strings.Contains(res.stderr, "\x1b") {
			t.Errorf("svmc %s echoed what it should not: %q", strings.Join(c.args, " "), res.stderr)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "t*.sddf")); len(files) != 0 {
		t.Errorf("a refused run wrote %v", files)
	}
}

// TestMeasureFinishColumn: a MeasureFinish that closes the wrong interval
// is reported at its line and column (svmc passes the call's position to
// the runtime); before, at the line only.
func TestMeasureFinishColumn(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import "github.com/svmc/svmc/rtlib"

func main() {
	rtlib.MeasureStart("setup")
	x := 1; rtlib.MeasureFinish("setpu")
	println(x)
}
`})
	res := runSvmc(t, dir, "run", "-n", "2", ".")
	if want := `svmc: main.go:7:10: processor 0: MeasureFinish("setpu"): the innermost measured interval is "setup"`; res.code != 2 || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d, stderr %q; want %q", res.code, res.stderr, want)
	}
}

// TestInitPanicSaysNoTrace: a program that panics while its packages are
// initialised ends before its processors start, so it writes no trace;
// svmc run says so, and that a trace file of the same name is from an
// earlier run. Before, a user who asked for --trace was told nothing
// (x533: a helper package whose table fails to load).
func TestInitPanicSaysNoTrace(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"helper/helper.go": `package helper

import "os"

var Table = load()

func load() []int {
	if os.Getenv("BAD") != "" {
		panic("helper: cannot load table")
	}
	return []int{1, 2, 3}
}
`,
		"main.go": `package main

import (
	"fmt"

	"example.com/user/helper"
)

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < len(helper.Table); i++ {
		s += helper.Table[i]
	}
	fmt.Println(s)
}
`})
	tr := filepath.Join(dir, "t.sddf")
	t.Setenv("BAD", "1")
	none := "svmc: the program wrote no trace to " + tr + ": it ended before its processors started (a panic or os.Exit while its packages were initialised, before main)"
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 2 || !strings.Contains(res.stderr, "helper.go:9") || !strings.Contains(res.stderr, none+"\n") {
		t.Errorf("exit %d, stderr %q; want 2, the panic's line and %q", res.code, res.stderr, none)
	}
	t.Setenv("BAD", "")
	if res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, "."); res.code != 0 || res.stdout != "6\n" || res.stderr != "" {
		t.Fatalf("the good run: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	t.Setenv("BAD", "1")
	res = runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if !strings.Contains(res.stderr, none+"; the "+tr+" there is from an earlier run (") {
		t.Errorf("stderr %q; want it to say the trace is from the earlier run", res.stderr)
	}
}

// TestFatalErrorNamesProcessor: a fatal error of the Go runtime, which no
// recover catches (a stack overflow here; concurrent map writes in a pdo
// body are the common one), ends the run with a message naming the
// processor and the user's line instead of Go's report of every
// goroutine, and the trace holds what the processors wrote until about
// 0.1 s before, under the name asked for. Before, the report's 250 lines
// with svmc's internals were printed and the trace was left as
// t.sddf.PID.partial. The crash follows a collection: the runtime's
// os.Stderr of descriptor 2, replaced by the program's real standard error,
// was closed by its cleanup there, and the report went nowhere (x588).
func TestFatalErrorNamesProcessor(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"time"
)

func depth(n int) int {
	if n < 0 {
		return 0
	}
	return 1 + depth(n+1)
}

func main() {
	debug.SetMaxStack(1 << 20)
	runtime.GC() // as a program that allocates: its collections run cleanups
	time.Sleep(20 * time.Millisecond)
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 2; i++ {
		if i == 1 {
			s += depth(0)
		}
	}
	fmt.Println(s)
}
`})
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	want := "svmc: processor 1 crashed: fatal error: stack overflow\n\tat main.go:11\n" +
		"svmc: the Go runtime's report of it is left out; GOTRACEBACK=single in the environment shows it\n" +
		"svmc: the program ended without completing its trace (processor 1 crashed): " + tr + " holds its records until about 0.1 s before the end and has no trace-end record\n"
	if res.code != 2 || res.stderr != want {
		t.Errorf("exit %d, stderr\n%s\nwant 2 and\n%s", res.code, res.stderr, want)
	}
	if _, err := os.Stat(tr); err != nil {
		t.Errorf("no trace: %v", err)
	}
	// Asked for, Go's own report (runSvmc would call it a defect).
	c := exec.Command(svmcBin, "run", "-n", "2", ".")
	c.Dir = dir
	c.Env = append(os.Environ(), "GOTRACEBACK=single")
	out, _ := c.CombinedOutput()
	if !strings.Contains(string(out), "fatal error: stack overflow") || !strings.Contains(string(out), "rtlib.svmcProcessor1(") {
		t.Errorf("with GOTRACEBACK: %q; want Go's own report", out)
	}
}

// TestStderrKeepsOrder: svmc run hands the program its real standard
// error (descriptor 2 is svmc's pipe for the Go runtime's crash reports),
// so what the program writes to standard output and standard error, one
// file for both, keeps its order, and the log package writes there too.
func TestStderrKeepsOrder(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	log.SetFlags(0)
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 100; i++ {
		s += i
	}
	for k := range 200 {
		fmt.Println("out", k)
		if k%2 == 0 {
			log.Println("log", k)
		} else {
			fmt.Fprintln(os.Stderr, "err", k)
		}
	}
	fmt.Println(s)
}
`})
	var want strings.Builder
	for k := range 200 {
		fmt.Fprintf(&want, "out %d\n", k)
		if k%2 == 0 {
			fmt.Fprintf(&want, "log %d\n", k)
		} else {
			fmt.Fprintf(&want, "err %d\n", k)
		}
	}
	want.WriteString("4950\n")
	sh := exec.Command("sh", "-c", svmcBin+" run -n 2 . >both.txt 2>&1")
	sh.Dir = dir
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "both.txt"))
	if string(got) != want.String() {
		t.Errorf("standard output and error in one file, out of order:\n%s", got)
	}
}
