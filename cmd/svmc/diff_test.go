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
