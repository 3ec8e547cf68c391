package golden

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/svmc/svmc/codegen"
	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/trace"
)

// TestRequests runs Example 3.1 on 4 processors once per trace request file
// in testdata/requests and records, for each record name the trace holds,
// the processors that wrote it and how many there are: what each stage and
// each kind of request selects. Every file of testdata/requests/errors must
// stop the run before it starts, with its message.
func TestRequests(t *testing.T) {
	runtimeInputs()
	dir := filepath.Join("testdata", "requests")
	p, err := compiler.Compile(compiler.Config{Dir: "../examples/example31", Pattern: "."})
	if err != nil {
		t.Fatal(err)
	}
	out, err := codegen.Generate(p, filepath.Join("testdata", "example31", "build"), nil)
	if err != nil {
		t.Fatal(err)
	}
	exe := buildWant(t, goldenCase{name: "example31"}, out)
	reqs, _ := filepath.Glob(filepath.Join(dir, "*.req"))
	if len(reqs) == 0 {
		t.Fatal("no request files")
	}
	got := map[string][]byte{}
	for _, req := range reqs {
		name := strings.TrimSuffix(filepath.Base(req), ".req")
		tr := filepath.Join(t.TempDir(), "t.sddf")
		abs, _ := filepath.Abs(req)
		run(t, exec.Command(exe), "", []string{"SVMC_NPROCS=4", "SVMC_TRACE=" + tr, "SVMC_REQUEST=" + abs})
		got[name+".txt"] = recordSets(t, tr)
	}
	errs, _ := filepath.Glob(filepath.Join(dir, "errors", "*.req"))
	for _, req := range errs {
		name := strings.TrimSuffix(filepath.Base(req), ".req")
		if name == "cycle2" {
			continue // the other half of cycle.req
		}
		got["errors-"+name+".txt"] = failingRun(t, exe, filepath.Dir(req), filepath.Base(req), nil)
	}
	// A name error is a warning with --lenient, and the run goes on.
	got["errors-label-lenient.txt"] = lenientRun(t, exe, filepath.Join(dir, "errors"), "label.req")
	compare(t, filepath.Join(dir, "want"), got)
}

// recordSets lists each record name of a trace with the processors that
// wrote it and the number of records.
func recordSets(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	nodes, count := map[string]map[int]bool{}, map[string]int{}
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		name := rec.Desc.Name
		if nodes[name] == nil {
			nodes[name] = map[int]bool{}
		}
		nodes[name][rec.Node()] = true
		count[name]++
	}
	var names []string
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		var ns []int
		for k := range nodes[n] {
			ns = append(ns, k)
		}
		sort.Ints(ns)
		fmt.Fprintf(&b, "%-22s nodes %v  records %d\n", n, ns, count[n])
	}
	if b.Len() == 0 {
		b.WriteString("(no records)\n")
	}
	return b.Bytes()
}

// failingRun runs the program with a request file that must be rejected
// and returns its exit status and error output.
func failingRun(t *testing.T, exe, dir, req string, env []string) []byte {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "SVMC_NPROCS=4", "SVMC_REQUEST="+req), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if xe, ok := err.(*exec.ExitError); ok {
		code = xe.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 0 {
		t.Errorf("%s: the run did not stop", req)
	}
	if stdout.Len() > 0 {
		t.Errorf("%s: the program ran and printed %q", req, stdout.String())
	}
	return []byte(fmt.Sprintf("exit status %d\n%s", code, stderr.Bytes()))
}

func lenientRun(t *testing.T, exe, dir, req string) []byte {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SVMC_NPROCS=4", "SVMC_REQUEST="+req, "SVMC_LENIENT=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s with SVMC_LENIENT=1: %v\n%s", req, err, stderr.Bytes())
	}
	return []byte(fmt.Sprintf("stdout: %sstderr:\n%s", stdout.Bytes(), stderr.Bytes()))
}
