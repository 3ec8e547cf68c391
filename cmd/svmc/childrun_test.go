package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
)

// reexecProgram starts itself again with "child", as daemons and Go's
// tests of an exit do, reads the child's output through a pipe, and both
// run a pdo of their own size.
const reexecProgram = `package main

import (
	"fmt"
	"os"
	"os/exec"
)

func sum(n int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		fmt.Println("child", sum(1000))
		return
	}
	cmd := exec.Command(os.Args[0], "child")
	cmd.Stderr = os.Stderr
	if own := os.Getenv("CHILD_TRACE"); own != "" {
		cmd.Env = append(os.Environ(), "SVMC_TRACE="+own)
	}
	out, err := cmd.Output()
	if err != nil {
		fmt.Println("the child failed:", err)
		os.Exit(1)
	}
	fmt.Print(string(out))
	fmt.Println("parent", sum(100))
}
`

// TestChildProcessTrace: a program that starts itself again (x626) passes
// the run's parameters to the child through its environment; the child
// wrote the parent's trace, and the parent, ending last, wrote over it
// without a word. Now the child writes TRACE.child-PID, svmc run names
// it, both traces are complete, and each holds its own run.
func TestChildProcessTrace(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": reexecProgram})
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 0 || res.stdout != "child 499500\nparent 4950\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	m := regexp.MustCompile(`^svmc: a process the program started, an instrumented program too, wrote its own trace: (.*\.child-(\d+))\n$`).FindStringSubmatch(res.stderr)
	if m == nil || m[1] != tr+".child-"+m[2] {
		t.Fatalf("stderr %q; want the child's trace named", res.stderr)
	}
	iterations := func(path string) (n int, startedBy string) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := trace.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range r.Attrs() {
			if a.Key == "svmc started by" {
				startedBy = a.Value
			}
		}
		end := false
		for rec, err := range r.All() {
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			switch rec.Desc.Tag {
			case trace.TagPDOWork:
				n += rec.Int("iterations")
			case trace.TagTraceEnd:
				end = true
			}
		}
		if !end {
			t.Errorf("%s has no trace-end record", path)
		}
		return n, startedBy
	}
	if n, by := iterations(tr); n != 100 || by != "" {
		t.Errorf("the parent's trace: %d iterations, started by %q; want 100, none", n, by)
	}
	if n, by := iterations(m[1]); n != 1000 || !strings.Contains(by, "a run of an instrumented program writing these files, started this one") {
		t.Errorf("the child's trace: %d iterations, started by %q; want 1000 and the parent", n, by)
	}
	if rep := runSvmc(t, dir, "report", m[1]); !strings.Contains(rep.stdout, "\na child's run: process ") {
		t.Errorf("the report of the child's trace does not say whose child it is:\n%s", rep.stdout)
	}

	// The program built and run directly, its trace named in the
	// environment; a child given a trace of its own keeps its name.
	exe := filepath.Join(dir, "prog")
	if res := runSvmc(t, dir, "build", "-o", exe, "."); res.code != 0 {
		t.Fatalf("svmc build: %s", res.stderr)
	}
	own, tr2 := filepath.Join(dir, "own.sddf"), filepath.Join(dir, "t2.sddf")
	c := exec.Command(exe)
	c.Dir = dir
	c.Env = append(os.Environ(), "SVMC_NPROCS=2", "SVMC_TRACE="+tr2, "CHILD_TRACE="+own)
	if out, err := c.CombinedOutput(); err != nil || string(out) != "child 499500\nparent 4950\n" {
		t.Fatalf("%v: %q", err, out)
	}
	if n, by := iterations(own); n != 1000 || by != "" {
		t.Errorf("the child's own trace: %d iterations, started by %q; want 1000, none", n, by)
	}
	if n, _ := iterations(tr2); n != 100 {
		t.Errorf("the parent's trace: %d iterations; want 100", n)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.child-*")); len(names) != 1 {
		t.Errorf("children's files: %q; want only the first run's", names)
	}
}

// TestChildProcessTraceOfATest: Go's way of testing an exit, a test that
// runs the test binary again for one test with a variable set, under
// svmc test --trace: the child test's run has its trace of its own, named.
func TestChildProcessTraceOfATest(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"sum.go": sumLibrary("sum"),
		"sum_test.go": `package sum

import (
	"os"
	"os/exec"
	"testing"
)

func TestExits(t *testing.T) {
	if os.Getenv("BE_CHILD") == "1" {
		if Sum(1000) == 499500 {
			os.Exit(3)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestExits$")
	cmd.Env = append(os.Environ(), "BE_CHILD=1")
	err := cmd.Run()
	if e, ok := err.(*exec.ExitError); !ok || e.ExitCode() != 3 {
		t.Fatalf("the child: %v", err)
	}
	if Sum(100) != 4950 {
		t.Fatal("sum")
	}
}
`})
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "test", "-n", "2", "--trace", tr, ".")
	if res.code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	m := regexp.MustCompile(`(?m)^svmc: a process the program started, an instrumented program too, wrote its own trace: (.*\.child-\d+)$`).FindStringSubmatch(res.stderr)
	if m == nil || !strings.HasPrefix(m[1], tr+".child-") {
		t.Fatalf("stderr %q; want the child's trace named", res.stderr)
	}
	if _, err := os.Stat(tr); err != nil {
		t.Errorf("the test binary's own trace: %v", err)
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("the child's trace: %v", err)
	}
}

// TestPartialsOf: the partial traces svmc may rename to a trace's name
// after a run are its own, not those of the program's children.
func TestPartialsOf(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t[1].sddf")
	for _, name := range []string{"t[1].sddf.4242.partial", "t[1].sddf.child-77.77.partial", "t[1].sddf.child-78", "other.sddf.5.partial"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := partialsOf(tr); len(got) != 1 || got[0] != tr+".4242.partial" {
		t.Errorf("partialsOf(%s) = %q", tr, got)
	}
}
