package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// svmc diff of Jacobi on 1 and 2 processors: the same program, both pdos
// in the region table with a speedup and a scaling efficiency, and the
// JSON form.
func TestSvmcDiff(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"1", "2"} {
		if res := runSvmc(t, "../..", "run", "-n", n, "--trace", filepath.Join(dir, "n"+n+".sddf"), "./examples/jacobi", "--", "-n", "32", "-iters", "20"); res.code != 0 {
			t.Fatalf("run -n %s: exit %d\n%s", n, res.code, res.stderr)
		}
	}
	res := runSvmc(t, dir, "diff", "n1.sddf", "n2.sddf")
	for _, want := range []string{"same program: github.com/svmc/svmc/examples/jacobi", "pdo sweep", "pdo update", "scaling efficiency"} {
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("svmc diff: exit %d, no %q in\n%s%s", res.code, want, res.stdout, res.stderr)
		}
	}
	res = runSvmc(t, dir, "diff", "--format", "json", "n1.sddf", "n2.sddf")
	var r struct {
		SameProgram bool `json:"same_program"`
		Regions     []struct {
			Name    string
			Speedup float64
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &r); err != nil || !r.SameProgram || len(r.Regions) < 3 {
		t.Errorf("svmc diff --format json: %v %+v\n%s", err, r, res.stdout)
	}
}

// The behaviour case: a program with a race in one pdo (each
// element counts from its predecessor), run on 1 and 4 processors with
// VarCheck; svmc diff names that pdo and the variable, and not the pdo
// before it, whose values agree. So that the race shows on a busy machine
// too, processor 0 waits at its first iteration until processor 3 has
// read its first predecessor (still 0) — only with several processors.
func TestSvmcDiffValues(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"sync/atomic"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	a := make([]float64, 1<<16)
	b := make([]float64, 1<<16)
	var started atomic.Bool
	//svm:shared a, b
	//svm:pdo label(init) loops(i)
	for i := 0; i < len(a); i++ {
		a[i] = 0
	}
	//svm:pdo label(count) loops(i)
	for i := 1; i < len(a); i++ {
		if i == 1 && rtlib.NumProcessors() > 1 {
			for !started.Load() {
			}
		}
		a[i] = a[i-1] + 1
		if i == len(a)-len(a)/4 {
			started.Store(true)
		}
	}
	//svm:pdo label(copy) loops(i)
	for i := 0; i < len(a); i++ {
		b[i] = a[i]
	}
	fmt.Println(b[len(b)-1] > 0)
}
`, "vc.req": "REQUEST LOCAL @MAIN.*: (VarCheck)\n"})
	for _, n := range []string{"1", "4"} {
		if res := runSvmc(t, dir, "run", "-n", n, "--request", "vc.req", "--trace", "n"+n+".sddf", "."); res.code != 0 {
			t.Fatalf("run -n %s: exit %d\n%s", n, res.code, res.stderr)
		}
	}
	res := runSvmc(t, dir, "diff", "n1.sddf", "n4.sddf")
	if res.code != 0 || !strings.Contains(res.stdout, "the values first differ at the exit of pdo count (main.go:19), instance 1: variable a (") {
		t.Errorf("svmc diff: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := runSvmc(t, dir, "diff", "n1.sddf", "n1.sddf"); !strings.Contains(res.stdout, "the same at all") {
		t.Errorf("svmc diff of a run with itself:\n%s", res.stdout)
	}
}
