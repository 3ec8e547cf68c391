package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

const testedProg = `package main

import "fmt"

// Sum adds the squares of 0..n-1 in a parallel loop.
func Sum(n int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

func main() { fmt.Println(Sum(100)) }
`

const testedTests = `package main

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/svmc/svmc/rtlib"
)

// The two parallel tests meet before and after their sums when both run,
// so that they run side by side whatever the scheduling (one of them
// holds processor 0; the other's pdo runs serially): each tells the other
// and waits for the other's word, a while at most.
var toFirst, toSmall = make(chan bool, 2), make(chan bool, 2)

func meet(tell, hear chan bool) {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		return // a chosen test runs alone
	}
	tell <- true
	select {
	case <-hear:
	case <-time.After(5 * time.Second):
	}
}

func ExampleSum() {
	fmt.Println(Sum(3))
	// Output: 5
}

func TestSum(t *testing.T) {
	if got, want := Sum(1000), 332833500; got != want {
		t.Fatalf("Sum(1000) = %d, want %d", got, want)
	}
	t.Logf("processors: %d", rtlib.NumProcessors())
}

func TestAParallelFirst(t *testing.T) {
	t.Parallel() // paused until the sequential tests are done: it must not keep them waiting
	meet(toSmall, toFirst)
	if Sum(10) != 285 {
		t.Error("Sum(10)")
	}
	meet(toSmall, toFirst)
}

func TestSumSmall(t *testing.T) {
	t.Parallel()
	meet(toFirst, toSmall)
	for n := range 5 {
		want := 0
		for i := range n {
			want += i * i
		}
		if got := Sum(n); got != want {
			t.Errorf("Sum(%d) = %d, want %d", n, got, want)
		}
	}
	meet(toFirst, toSmall)
}

func TestSumTable(t *testing.T) {
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if Sum(n) == 0 {
				t.Error("zero")
			}
		})
	}
}

func BenchmarkSum(b *testing.B) {
	for range b.N {
		Sum(10000)
	}
}
`

// loopWorkers is the number of processors that ran iterations of a
// parallel loop in the trace at path.
func loopWorkers(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	workers := map[int]bool{}
	for r, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		if r.Desc.Tag == trace.TagPDOWork && r.Int("iterations") > 0 {
			workers[r.Node()] = true
		}
	}
	return len(workers)
}

// TestSvmcTest: svmc test runs a package's tests with the instrumented code
// on N processors (each test's pdo on all of them, as the trace shows), with
// go test's output and exit status; a benchmark runs too; a failing test
// fails the command as go test does.
func TestSvmcTest(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": testedProg, "main_test.go": testedTests})
	for _, n := range []string{"1", "4"} {
		tr := filepath.Join(t.TempDir(), "t.sddf")
		res := runSvmc(t, dir, "test", "-n", n, "--trace", tr, ".", "--", "-v", "-count", "1", "-parallel", "2")
		if res.code != 0 || !strings.Contains(res.stdout, "--- PASS: TestSum ") || !strings.Contains(res.stdout, "processors: "+n) ||
			!strings.Contains(res.stdout, "--- PASS: ExampleSum") {
			t.Fatalf("-n %s: exit %d\n%s%s", n, res.code, res.stdout, res.stderr)
		}
		// The second of two parallel tests, resumed beside the first,
		// runs its pdo serially and says why (once per pdo); subtests
		// borrow processor 0 from their test and say nothing.
		if why := "its test runs beside another test that holds processor 0 (t.Parallel)"; n != "1" && !strings.Contains(res.stdout+res.stderr, why) {
			t.Errorf("-n %s: no message %q:\n%s%s", n, why, res.stdout, res.stderr)
		}
		if strings.Contains(res.stdout+res.stderr, "t.Run") {
			t.Errorf("-n %s: a subtest ran serially:\n%s%s", n, res.stdout, res.stderr)
		}
		if want := map[string]int{"1": 1, "4": 4}[n]; loopWorkers(t, tr) != want {
			t.Errorf("-n %s: the tests' loops ran on %d processors, want %d", n, loopWorkers(t, tr), want)
		}
		// The program region is the test binary's (go test's main, which
		// svmc does not number), named as go test names the binary.
		rep := runSvmc(t, dir, "report", tr)
		if rep.code != 0 || !regexp.MustCompile(`(?m)^  main\.test +program +main\.test +- `).MatchString(rep.stdout) || strings.Contains(rep.stdout, "sub 0") {
			t.Errorf("-n %s: report of the test binary's trace: exit %d\n%s%s", n, rep.code, rep.stdout, rep.stderr)
		}
	}
	per := t.TempDir()
	if res := runSvmc(t, dir, "test", "-n", "2", "--trace-per-test", per, "."); res.code != 0 {
		t.Errorf("--trace-per-test: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, name := range []string{"TestSum", "TestSumSmall"} {
		if fi, err := os.Stat(filepath.Join(per, name+".sddf")); err != nil || fi.Size() == 0 {
			t.Errorf("--trace-per-test: %s: %v", name, err)
		}
	}
	// A table test's subtests (t.Run), run after a parallel test paused
	// (t.Parallel gave processor 0 back), use both processors.
	if w := loopWorkers(t, filepath.Join(per, "TestSumTable.sddf")); w != 2 {
		t.Errorf("the subtests' loops ran on %d processors, want 2", w)
	}
	res := runSvmc(t, dir, "test", "-n", "2", ".", "--", "-run", "XXX", "-bench", ".", "-benchtime", "50x")
	if res.code != 0 || !strings.Contains(res.stdout, "BenchmarkSum") {
		t.Errorf("benchmark: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	bad := strings.Replace(testedTests, "332833500", "1", 1)
	os.WriteFile(filepath.Join(dir, "main_test.go"), []byte(bad), 0o644)
	res = runSvmc(t, dir, "test", "-n", "2", ".")
	if res.code != 1 || !strings.Contains(res.stdout, "--- FAIL: TestSum") || !strings.Contains(res.stdout, "Sum(1000) = 332833500, want 1") {
		t.Errorf("failing test: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestLibraryPackage: a library of the module with directives, imported by
// a package main, is instrumented with it: its loops run on every
// processor, and records and reports name its lines (by their path from the
// main package); svmc compile writes a library alone.
func TestLibraryPackage(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"lib/lib.go": `// Package lib sums squares in a parallel loop.
package lib

// Squares returns the sum of i*i for i < n.
func Squares(n int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}
`,
		"cmd/app/main.go": `package main

import (
	"fmt"

	"example.com/user/lib"
)

func main() {
	sum := 0
	//svm:pdo loops(i) reduction(+: sum)
	for i := range 100 {
		sum += i
	}
	fmt.Println(lib.Squares(1000), sum)
}
`})
	tr := filepath.Join(t.TempDir(), "lib.sddf")
	res := runSvmc(t, dir, "run", "-n", "3", "--trace", tr, "./cmd/app")
	if res.code != 0 || res.stdout != "332833500 4950\n" {
		t.Fatalf("run: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	rep := runSvmc(t, dir, "report", "--format", "json", tr)
	var m struct {
		Model struct {
			Loops []struct {
				Func, File string
				Line       int
				PerProc    []struct{ Iterations int64 } `json:"per_proc"`
			}
		}
	}
	if err := json.Unmarshal([]byte(rep.stdout), &m); err != nil {
		t.Fatalf("report: %v\n%s", err, rep.stderr)
	}
	found := false
	for _, l := range m.Model.Loops {
		if l.Func == "Squares" {
			found = true
			busy := 0
			for _, pp := range l.PerProc {
				if pp.Iterations > 0 {
					busy++
				}
			}
			if l.File != "../../lib/lib.go" || l.Line != 7 || busy != 3 {
				t.Errorf("the library's loop: %+v", l)
			}
		}
	}
	if !found {
		t.Errorf("no loop of the library in the report: %s", rep.stdout)
	}
	out := filepath.Join(t.TempDir(), "libsvm")
	if res := runSvmc(t, dir, "compile", "-o", out, "./lib"); res.code != 0 {
		t.Errorf("compile of the library: exit %d\n%s", res.code, res.stderr)
	} else if _, err := os.Stat(filepath.Join(out, "svminfo.json")); err != nil {
		t.Error(err)
	}
}

// A library package with only external tests (package stat_test), as Go
// libraries are often tested: each external test, example and benchmark
// runs on processor 0 of the run svmc's TestMain starts, so its loops use
// every processor.
const statLib = `// Package stat sums squares in parallel.
package stat

// SumSq returns the sum of i*i for i < n.
func SumSq(n int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}
`

const statXTest = `package stat_test

import (
	"fmt"
	"testing"

	"example.com/user/stat"
	"github.com/svmc/svmc/rtlib"
)

func TestSumSq(t *testing.T) {
	if got := stat.SumSq(1000); got != 332833500 {
		t.Fatalf("SumSq(1000) = %d", got)
	}
	t.Logf("processors: %d", rtlib.NumProcessors())
}

func ExampleSumSq() {
	fmt.Println(stat.SumSq(4))
	// Output: 14
}

func BenchmarkSumSq(b *testing.B) {
	for range b.N {
		stat.SumSq(1000)
	}
}
`

func TestSvmcTestExternal(t *testing.T) {
	dir := writeModule(t, map[string]string{"stat/stat.go": statLib, "stat/stat_test.go": statXTest})
	for _, n := range []string{"1", "4"} {
		tr := filepath.Join(t.TempDir(), "t.sddf")
		res := runSvmc(t, dir, "test", "-n", n, "--trace", tr, "./stat", "--", "-v", "-count", "1", "-bench", ".", "-benchtime", "10x")
		if res.code != 0 || !strings.Contains(res.stdout, "processors: "+n) || !strings.Contains(res.stdout, "--- PASS: ExampleSumSq") ||
			!strings.Contains(res.stdout, "BenchmarkSumSq") || strings.Contains(res.stderr, "runs all its iterations on this goroutine") {
			t.Fatalf("-n %s: exit %d\n%s%s", n, res.code, res.stdout, res.stderr)
		}
		if want := map[string]int{"1": 1, "4": 4}[n]; loopWorkers(t, tr) != want {
			t.Errorf("-n %s: the external tests' loops ran on %d processors, want %d", n, loopWorkers(t, tr), want)
		}
	}
	// A TestMain of the external package starts the tests itself: said.
	os.WriteFile(filepath.Join(dir, "stat", "main_test.go"), []byte("package stat_test\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n"), 0o644)
	res := runSvmc(t, dir, "test", "-n", "2", "./stat", "--", "-run", "TestSumSq")
	if res.code != 0 || !strings.Contains(res.stderr, "the TestMain of package stat_test starts the tests without svmc's processors") {
		t.Errorf("external TestMain: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	os.Remove(filepath.Join(dir, "stat", "main_test.go"))
	// A directive in an external test file is not compiled: an error at it.
	bad := strings.Replace(statXTest, "\tfor range b.N {", "\t//svm:barrier\n\tfor range b.N {", 1)
	os.WriteFile(filepath.Join(dir, "stat", "stat_test.go"), []byte(bad), 0o644)
	res = runSvmc(t, dir, "test", "-n", "2", "./stat")
	if res.code == 0 || !strings.Contains(res.stderr, "stat_test.go:24:2: directives in an external test package") {
		t.Errorf("directive in an external test: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// svmc test ./... tests every package of the module that has tests, in
// turn, with go test's output and status.
func TestSvmcTestPackages(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go": testedProg, "main_test.go": testedTests,
		"stat/stat.go": statLib, "stat/stat_test.go": statXTest,
		"util/util.go": "package util\n\n// Twice doubles x.\nfunc Twice(x int) int { return 2 * x }\n",
	})
	res := runSvmc(t, dir, "test", "-n", "2", "./...", "--", "-count", "1")
	for _, want := range []string{"ok  \texample.com/user\t", "ok  \texample.com/user/stat\t", "?   \texample.com/user/util\t[no test files]"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("svmc test ./...: no %q in\n%s%s", want, res.stdout, res.stderr)
		}
	}
	if res.code != 0 {
		t.Errorf("svmc test ./...: exit %d\n%s", res.code, res.stderr)
	}
	if res := runSvmc(t, dir, "test", "-n", "2", "--trace", "t.sddf", "./..."); res.code == 0 || !strings.Contains(res.stderr, "--trace names one file and 2 packages have tests") {
		t.Errorf("--trace with several packages: exit %d\n%s", res.code, res.stderr)
	}
	per := t.TempDir()
	if res := runSvmc(t, dir, "test", "-n", "2", "--trace-per-test", per, "./..."); res.code != 0 {
		t.Errorf("--trace-per-test ./...: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, f := range []string{"example.com/user/TestSum.sddf", "example.com/user/stat/TestSumSq.sddf"} {
		if _, err := os.Stat(filepath.Join(per, f)); err != nil {
			t.Errorf("--trace-per-test ./...: %v", err)
		}
	}
	os.WriteFile(filepath.Join(dir, "stat", "stat_test.go"), []byte(strings.Replace(statXTest, "332833500", "1", 1)), 0o644)
	res = runSvmc(t, dir, "test", "-n", "2", "./...")
	if res.code != 1 || !strings.Contains(res.stdout, "FAIL\texample.com/user/stat") || !strings.Contains(res.stdout, "ok  \texample.com/user\t") {
		t.Errorf("a failing package: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestSvmcTestCache: go test caches a package's result, keyed by what the
// test binary read; svmc test's processors come from the environment,
// read before the testing package starts logging, so -n 3 after -n 2
// printed the cached result of 2 processors. A run that writes a trace
// always runs.
func TestSvmcTestCache(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": testedProg, "main_test.go": testedTests})
	for _, n := range []string{"2", "3", "3"} {
		res := runSvmc(t, dir, "test", "-n", n, ".", "--", "-v", "-run", "TestSum$")
		if res.code != 0 || !strings.Contains(res.stdout, "processors: "+n) {
			t.Fatalf("-n %s: exit %d\n%s%s", n, res.code, res.stdout, res.stderr)
		}
	}
	tr := filepath.Join(t.TempDir(), "t.sddf")
	for range 2 {
		os.Remove(tr)
		if res := runSvmc(t, dir, "test", "-n", "3", "--trace", tr, ".", "--", "-run", "TestSum$"); res.code != 0 {
			t.Fatalf("--trace: exit %d\n%s%s", res.code, res.stdout, res.stderr)
		}
		if _, err := os.Stat(tr); err != nil {
			t.Fatalf("svmc test --trace wrote no trace: %v", err)
		}
	}
}

// TestFatalInPDO: t.Fatal, Fatalf and Skipf called in a pdo's iterations
// or in a section end the test as in the plain program, on any processor,
// and the next tests run (x220: a Fatalf on the test's goroutine left the pdo with
// processor 1 waiting at its barrier, a deadlock after 5 s; on processor 1
// it would have ended that processor's goroutine).
func TestFatalInPDO(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"calc.go": `package calc

// Squares fills out with the squares of 0..len(out)-1.
func Squares(out []int) {
	//svm:pdo loops(i)
	for i := range out {
		out[i] = i * i
	}
}
`,
		"calc_test.go": `package calc

import "testing"

func check(t *testing.T, xs []int, bad int) {
	//svm:pdo loops(i)
	for i := range xs {
		if i == bad {
			t.Fatalf("xs[%d] = %d is bad", i, xs[i])
		}
	}
}

func TestOnProcessor0(t *testing.T) {
	xs := make([]int, 16)
	Squares(xs)
	check(t, xs, 3)
	t.Log("not reached")
}

func TestOnProcessor1(t *testing.T) {
	xs := make([]int, 16)
	Squares(xs)
	check(t, xs, 12)
	t.Log("not reached")
}

func TestSkipped(t *testing.T) {
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		if i == 5 {
			t.Skipf("skip at %d", i)
		}
	}
	t.Fatal("not reached")
}

func TestInSection(t *testing.T) {
	var a, b int
	//svm:psection
	{
		//svm:section
		{
			a = 1
		}
		//svm:section
		{
			b = 2
			if b == 2 {
				t.Fatalf("section b failed: %d", b)
			}
		}
	}
	t.Log("not reached", a)
}

func TestAfterwards(t *testing.T) {
	xs := make([]int, 100)
	Squares(xs)
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := range xs {
		s += xs[i]
	}
	if s != 328350 {
		t.Fatal(s)
	}
}
`})
	res := runSvmc(t, dir, "test", "-n", "2", ".", "--", "-v")
	out := res.stdout + res.stderr
	if res.code != 1 {
		t.Errorf("exit %d, want 1 (failed tests)", res.code)
	}
	flat := regexp.MustCompile(`(?m)^\s+`).ReplaceAllString(out, "") // go test indents a test's lines
	for _, want := range []string{
		"calc_test.go:9: xs[3] = 9 is bad\n--- FAIL: TestOnProcessor0",
		"calc_test.go:9: xs[12] = 144 is bad\n--- FAIL: TestOnProcessor1",
		"calc_test.go:32: skip at 5\n--- SKIP: TestSkipped",
		"calc_test.go:50: section b failed: 2\n--- FAIL: TestInSection",
		"--- PASS: TestAfterwards",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not reached") || strings.Contains(out, "deadlock") {
		t.Errorf("output:\n%s", out)
	}
}

// TestFatalInCalledFunction: t.Fatalf in a helper the pdo's body calls, or
// in a function literal of the body, ends the test as one written in the
// body does (the helper's t.Fatalf ended the whole run, "an iteration or
// section left its construct by runtime.Goexit"); the tests after it run.
// Outside any pdo the helper stops the test at once, as the method does.
func TestFatalInCalledFunction(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"calc_test.go": `package calc

import "testing"

func mustBe(t *testing.T, got, want int) {
	if got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}

func TestHelper(t *testing.T) {
	//svm:pdo loops(i)
	for i := 0; i < 16; i++ {
		mustBe(t, i, i+len("x")*map[bool]int{true: 1}[i == 3])
	}
	t.Log("not reached")
}

func TestLiteral(t *testing.T) {
	//svm:pdo loops(i)
	for i := 0; i < 16; i++ {
		func() {
			if i == 12 {
				t.Skipf("skip at %d", i)
			}
		}()
	}
	t.Log("not reached")
}

func TestOutside(t *testing.T) {
	mustBe(t, 1, 2)
	t.Log("not reached")
}

func TestAfter(t *testing.T) {
	mustBe(t, 2, 2)
}
`})
	res := runSvmc(t, dir, "test", "-n", "2", ".", "--", "-v")
	out := res.stdout + res.stderr
	flat := regexp.MustCompile(`(?m)^\s+`).ReplaceAllString(out, "")
	for _, want := range []string{
		"calc_test.go:7: got 3, want 4\n--- FAIL: TestHelper",
		"calc_test.go:24: skip at 12\n--- SKIP: TestLiteral",
		"calc_test.go:7: got 1, want 2\n--- FAIL: TestOutside",
		"--- PASS: TestAfter",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if res.code != 1 || strings.Contains(out, "not reached") || strings.Contains(out, "Goexit") || strings.Contains(out, "deadlock") {
		t.Errorf("exit %d, output:\n%s", res.code, out)
	}
}

// TestTestThatEndsTheRun: a test that panics in a pdo, or calls os.Exit,
// ends the test binary as under go test (the testing package's report of
// the panic; the exit status), and its trace is complete and says what
// ended the run and where. The panic left only t.sddf.<pid>.partial (the
// testing package ends the process after reporting it); os.Exit stopped
// processor 0's goroutine with runtime.Goexit, which the testing package
// reports as "test executed panic(nil) or runtime.Goexit".
func TestTestThatEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		name, body, after, stderr, end string
	}{
		{"panic", "s += 100 / v[i]", "", "panic: runtime error: integer divide by zero", "processor 1 panicked: runtime error: integer divide by zero at calc.go:8"},
		{"exit", "s += v[i]", "if s == 7 {\n\t\tos.Exit(3)\n\t}", "exit status 3", "processor 0 called os.Exit(3) at calc.go:11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{
				"calc.go": `package calc

import "os"

func Sum(v []int) (s int) {
	//svm:pdo loops(i) reduction(+: s)
	for i := range v {
		` + tc.body + `
	}
	` + tc.after + `
	_ = os.Args
	return s
}
`,
				"calc_test.go": `package calc

import "testing"

func TestSum(t *testing.T) {
	if s := Sum([]int{1, 2, 0, 4}); s != 7 {
		t.Fatal(s)
	}
}
`})
			res := runSvmc(t, dir, "test", "-n", "2", "--trace", "t.sddf", ".")
			if res.code != 1 || !strings.Contains(res.stdout+res.stderr, tc.stderr) || strings.Contains(res.stdout+res.stderr, "runtime.Goexit") {
				t.Errorf("exit %d (want go test's 1), output without %q:\n%s%s", res.code, tc.stderr, res.stdout, res.stderr)
			}
			rep := runSvmc(t, dir, "report", "t.sddf")
			if rep.code != 0 || !strings.Contains(rep.stdout, tc.end) {
				t.Errorf("report: exit %d, without %q\n%s%s", rep.code, tc.end, rep.stdout, rep.stderr)
			}
		})
	}
}

// TestInterruptedTests: kill -INT of svmc test (a script's, an editor's
// stop) stops the tests: svmc passes the signal to go test's test binary,
// which completes its trace and ends, no further test (--trace-per-test)
// or package (./...) starts, and svmc returns. go test does not pass
// SIGINT on to its test binary, which ran on after svmc had gone (an
// orphan, and the work directory left behind).
func TestInterruptedTests(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a/slow.go": `package slow

import (
	"os"
	"strconv"
	"time"
)

func Work(n int) (s int) {
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < n; i++ {
		time.Sleep(time.Millisecond)
		s += i
	}
	return s
}

func Started(dir string) {
	os.WriteFile(dir+"/pid", []byte(strconv.Itoa(os.Getpid())), 0o644)
}
`,
		"a/slow_test.go": `package slow

import (
	"os"
	"testing"
)

func TestForever(t *testing.T) {
	Started(os.Getenv("MARK_DIR"))
	for {
		if Work(20) != 190 {
			t.Fatal("sum")
		}
	}
}
`,
		"b/later_test.go": `package later

import (
	"os"
	"testing"
)

func TestLater(t *testing.T) {
	os.WriteFile(os.Getenv("MARK_DIR")+"/later", nil, 0o644)
}
`})
	for _, args := range [][]string{{"--trace-per-test", "traces", "./..."}, {"./...", "--", "-count=1"}} {
		os.Remove(filepath.Join(dir, "pid"))
		cmd := exec.Command(svmcBin, append([]string{"test", "-n", "2"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "MARK_DIR="+dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pidFile := filepath.Join(dir, "pid")
		var pid int
		for deadline := time.Now().Add(2 * time.Minute); pid == 0; {
			if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
				pid, _ = strconv.Atoi(string(b))
			} else if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%v: the test did not start:\n%s", args, out.String())
			} else {
				time.Sleep(20 * time.Millisecond)
			}
		}
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("%v: svmc test did not end a minute after SIGINT:\n%s", args, out.String())
		}
		if syscall.Kill(pid, 0) == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%v: the test binary (pid %d) runs on after svmc test ended", args, pid)
		}
		if !strings.Contains(out.String(), "svmc: interrupted (SIGINT)") {
			t.Errorf("%v: exit %v, output:\n%s", args, cmd.ProcessState, out.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "later")); err == nil {
			t.Errorf("%v: the package after the interrupted one was tested", args)
		}
	}
	rep := runSvmc(t, dir, "report", filepath.Join("traces", "example.com", "user", "a", "TestForever.sddf"))
	if rep.code != 0 || !strings.Contains(rep.stdout, "the run ended abnormally (interrupt): interrupted (SIGINT)") {
		t.Errorf("report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// TestCoverIsRefused: go test's coverage flags say why svmc test cannot
// take them (go's cover tool reads the package's files, not svmc's build
// overlay: go test failed with "cover: open …/svm_tables.go: no such file
// or directory").
func TestCoverIsRefused(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"sum.go":      "package sum\n\nfunc Sum(v []int) (s int) {\n\t//svm:pdo loops(i) reduction(+: s)\n\tfor i := range v {\n\t\ts += v[i]\n\t}\n\treturn s\n}\n",
		"sum_test.go": "package sum\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal()\n\t}\n}\n",
	})
	for _, flag := range []string{"-cover", "-coverprofile=c.out", "--covermode=atomic"} {
		res := runSvmc(t, dir, "test", "-n", "2", ".", "--", "-v", flag)
		if res.code != 2 || !strings.Contains(res.stderr, "svmc: test: go test's "+flag+" cannot measure svmc's build") || strings.Contains(res.stderr, "svm_tables.go") {
			t.Errorf("%s: exit %d\n%s%s", flag, res.code, res.stdout, res.stderr)
		}
	}
	// Written among svmc's flags, as go test takes them, they are go test's.
	if res := runSvmc(t, dir, "test", "-n", "2", "-cover", "."); res.code != 2 || !strings.Contains(res.stderr, "svmc: test: go test's -cover cannot measure svmc's build") {
		t.Errorf("svmc test -cover: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := runSvmc(t, dir, "test", "-n", "2", ".", "--", "-run", "TestSum"); res.code != 0 {
		t.Errorf("without coverage: exit %d\n%s", res.code, res.stderr)
	}
	if res := runSvmc(t, dir, "test", "-n", "2", "-run", "TestSum", "-v", "."); res.code != 0 || !strings.Contains(res.stdout, "--- PASS: TestSum") {
		t.Errorf("svmc test -run TestSum -v .: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestParallelTestPanics: of two t.Parallel tests, the one that panics
// leaves a complete trace naming the panic and its line, whether it holds
// processor 0 or runs beside the one that does (which of the two is the
// scheduler's choice: here mostly the first; x245 by hand had the panicking
// test beside, which left t.sddf.<pid>.partial before completeOnPanic
// covered that case too).
func TestParallelTestPanics(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"par.go": `package par

import "time"

func Work(v []int) (s int) {
	//svm:pdo loops(i) reduction(+: s)
	for i := range v {
		time.Sleep(time.Millisecond)
		s += 100 / v[i]
	}
	return s
}
`,
		"par_test.go": `package par

import "testing"

func TestA(t *testing.T) {
	t.Parallel()
	if Work([]int{1, 2, 4, 5}) != 195 {
		t.Fatal("A")
	}
}

func TestB(t *testing.T) {
	t.Parallel()
	Work([]int{1, 2, 0, 5})
}
`})
	res := runSvmc(t, dir, "test", "-n", "2", "--trace", "t.sddf", ".")
	if res.code != 1 || !strings.Contains(res.stdout+res.stderr, "panic: runtime error: integer divide by zero") {
		t.Errorf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	rep := runSvmc(t, dir, "report", "t.sddf")
	if rep.code != 0 || !strings.Contains(rep.stdout, "panicked: runtime error: integer divide by zero") || !strings.Contains(rep.stdout, "par.go:9") {
		t.Errorf("report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// TestSvmcTestFuzzSeeds: each call of a fuzz test's function (its seed
// corpus under svmc test) borrows processor 0 from the fuzz test, as a
// subtest does, so that the pdos it reaches use every processor; before,
// they ran serially on the call's goroutine, which is no processor, and
// said so once per pdo.
func TestSvmcTestFuzzSeeds(t *testing.T) {
	dir := writeModule(t, map[string]string{"stat/stat.go": statLib, "stat/fuzz_test.go": `package stat

import "testing"

func FuzzSumSq(f *testing.F) {
	f.Add(10)
	f.Add(1000)
	f.Fuzz(func(t *testing.T, n int) {
		if n < 0 || n > 5000 {
			t.Skip()
		}
		want := 0
		for i := 0; i < n; i++ {
			want += i * i
		}
		if got := SumSq(n); got != want {
			t.Fatalf("SumSq(%d) = %d, want %d", n, got, want)
		}
	})
}
`})
	tr := filepath.Join(t.TempDir(), "t.sddf")
	res := runSvmc(t, dir, "test", "-n", "2", "--trace", tr, "./stat", "--", "-v", "-run", "FuzzSumSq")
	if res.code != 0 || !strings.Contains(res.stdout, "--- PASS: FuzzSumSq/seed#1") || strings.Contains(res.stderr, "runs all its iterations on this goroutine") {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if w := loopWorkers(t, tr); w != 2 {
		t.Errorf("the seeds' loops ran on %d processors, want 2", w)
	}
}

// TestSvmcTestSynctest: a test in a bubble of testing/synctest (fake
// time) that reaches pdos passes, its loops run serially on the bubble's
// goroutine — the processors outside the bubble must not touch its
// channels and timers — and svmc says so naming the bubble; the test
// beside it, outside any bubble, runs its loops on every processor.
func TestSvmcTestSynctest(t *testing.T) {
	dir := writeModule(t, map[string]string{"cache/cache.go": `package cache

import (
	"sync"
	"time"
)

type Cache struct {
	mu   sync.Mutex
	ttl  time.Duration
	vals map[string]entry
}

type entry struct {
	v   []float64
	exp time.Time
}

func New(ttl time.Duration) *Cache { return &Cache{ttl: ttl, vals: map[string]entry{}} }

func (c *Cache) Sum(key string, n int) float64 {
	c.mu.Lock()
	e, ok := c.vals[key]
	c.mu.Unlock()
	if !ok || time.Now().After(e.exp) {
		e = entry{make([]float64, n), time.Now().Add(c.ttl)}
		//svm:pdo loops(i)
		for i := range e.v {
			e.v[i] = float64(i)
		}
		c.mu.Lock()
		c.vals[key] = e
		c.mu.Unlock()
	}
	s := 0.0
	//svm:pdo loops(i) reduction(+: s)
	for i := range e.v {
		s += e.v[i]
	}
	return s
}
`, "cache/cache_test.go": `package cache

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(time.Minute)
		if got := c.Sum("a", 100); got != 4950 {
			t.Fatalf("sum %v", got)
		}
		time.Sleep(2 * time.Minute)
		if got := c.Sum("a", 10); got != 45 {
			t.Fatalf("after expiry: sum %v", got)
		}
	})
}

func TestPlain(t *testing.T) {
	if got := New(time.Hour).Sum("b", 1000); got != 499500 {
		t.Fatalf("sum %v", got)
	}
}
`})
	tr := filepath.Join(t.TempDir(), "t.sddf")
	res := runSvmc(t, dir, "test", "-n", "2", "--trace", tr, "./cache", "--", "-v")
	out := res.stdout + res.stderr
	if res.code != 0 || !strings.Contains(res.stdout, "--- PASS: TestExpiry") || !strings.Contains(res.stdout, "--- PASS: TestPlain") {
		t.Fatalf("exit %d\n%s", res.code, out)
	}
	for _, at := range []string{"cache.go:27:3", "cache.go:36:2"} {
		if !strings.Contains(out, "svmc: "+at+": pdo runs all its iterations on this goroutine: it was reached from a goroutine that is not one of the program's processors (b.RunParallel's goroutines, synctest.Test's bubble,") {
			t.Errorf("no word of the bubble's pdo at %s:\n%s", at, out)
		}
	}
	if w := loopWorkers(t, tr); w != 2 {
		t.Errorf("TestPlain's loops ran on %d processors, want 2", w)
	}
}

// TestSvmcTestTimeout: a test that hangs until go test's -timeout panics
// the test binary leaves its trace under its partial name; svmc test gives
// it the name asked for and says so, and the trace holds the calls the
// test made before the end (the writer drains the processors' chunks).
// Before, x520's trace stayed t.sddf.PID.partial without a word.
func TestSvmcTestTimeout(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"hang.go": `package hang

import "time"

func Work(n int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func Stuck() {
	for {
		Work(100)
		time.Sleep(time.Millisecond)
	}
}
`,
		"hang_test.go": "package hang\n\nimport \"testing\"\n\nfunc TestStuck(t *testing.T) { Stuck() }\n",
	})
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "test", "-n", "2", "--trace", tr, ".", "--", "-timeout", "1s")
	want := "svmc: the test binary ended without completing its trace (a test that timed out, or the binary killed): " + tr + " holds its records until about 0.1 s before the end and has no trace-end record\n"
	if res.code == 0 || !strings.Contains(res.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want a failure and %q", res.code, res.stderr, want)
	}
	works := 0
	for _, r := range readTrace(t, tr) {
		if r.Desc.Name == "trace-region-start" && r.Int("trace region type") == trace.RegionPDO {
			works++
		}
	}
	if works < 100 {
		t.Errorf("the trace holds %d pdo starts, want those of the second the test ran (a few hundred)", works)
	}
}

// TestSvmcTestVet: the checks go test runs before the tests (go vet's
// high-confidence subset) look at the package's own files, so a mistake
// is named at its line and in the user's words; -vet=off skips them as
// go test's flag does. Before, go test's vet read the instrumented files
// and reported "fmt.Fprintf format %d ..." at
// ../svmc-run-NNN/src/0/bad_test.go:9.
func TestSvmcTestVet(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"lib.go": `package lib

// Sum adds xs.
func Sum(xs []int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < len(xs); i++ {
		s += xs[i]
	}
	return s
}
`,
		"lib_test.go": `package lib

import (
	"fmt"
	"testing"
)

func TestSum(t *testing.T) {
	fmt.Printf("%d\n", "six")
	if Sum([]int{1, 2, 3}) != 6 {
		t.Fatal("wrong sum")
	}
}
`})
	res := runSvmc(t, dir, "test", "-n", "2", ".")
	want := "lib_test.go:9:14: fmt.Printf format %d has arg \"six\" of wrong type string\n"
	if res.code != 1 || res.stderr != want || res.stdout != "FAIL\texample.com/user [build failed]\nFAIL\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, go test's FAIL and %q", res.code, res.stdout, res.stderr, want)
	}
	res = runSvmc(t, filepath.Dir(dir), "test", "-n", "2", "./"+filepath.Base(dir))
	if want := filepath.Base(dir) + "/" + want; res.stderr != want {
		t.Errorf("from the parent directory: stderr %q, want %q", res.stderr, want)
	}
	res = runSvmc(t, dir, "test", "-n", "2", ".", "--", "-vet=off", "-v")
	if res.code != 0 || !strings.Contains(res.stdout, "--- PASS: TestSum") {
		t.Errorf("-vet=off: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestTraceWrittenByTheRun: a trace the run wrote is told from one an
// earlier run left by what stood at the path before, not by file times:
// the file system's coarse clock stamped a trace written a few
// milliseconds into a failing run before the run began (ci94's
// TestDifferentBarriers was told its trace was from an earlier run).
func TestTraceWrittenByTheRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.sddf")
	before := traceState(path)
	if err := os.WriteFile(path, []byte("trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	var msg bytes.Buffer
	before.settle(&msg, "the program", "why", true)
	if msg.Len() != 0 {
		t.Errorf("a trace the run wrote, stamped an hour back: %q", msg.String())
	}
	before = traceState(path) // the same file, untouched by the next run
	before.settle(&msg, "the program", "why", true)
	if !strings.Contains(msg.String(), "wrote no trace to "+path) || !strings.Contains(msg.String(), "is from an earlier run") {
		t.Errorf("a trace an earlier run left: %q", msg.String())
	}
	// A trace in a directory that is not there: the run said it could not
	// create it (SVMC_TRACE=nodir/t.sddf); svmc adds nothing, where it
	// said the program ended before its processors started.
	msg.Reset()
	traceState(filepath.Join(dir, "nodir", "t.sddf")).settle(&msg, "the program", "why", true)
	if msg.Len() != 0 {
		t.Errorf("a trace with no directory to go in: %q", msg.String())
	}
}
