package main

import (
	"encoding/json"
	"fmt"
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
	// One page with both timelines (view's TestChromiumMerged draws it).
	res = runSvmc(t, dir, "diff", "--format", "html", "n1.sddf", "n2.sddf")
	for _, want := range []string{"<title>svmc diff: n1.sddf and n2.sddf</title>", `"lanes":["A P0","B P0","B P1"]`, `<pre id="note">svmc diff`} {
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("svmc diff --format html: exit %d, no %q\n%.3000s", res.code, want, res.stderr)
		}
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

// The control-flow case: the racy count decides whether a repair
// loop runs and how many iterations a tail loop has, so the serial and the
// parallel run part where the repair loop starts; a message whose contents
// differ between two runs of one program on 2 processors is found by its
// checksum (svmc run --check).
func TestSvmcDiffBehaviour(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	a := make([]float64, 1<<16)
	var started atomic.Bool
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
	if a[len(a)-1] != float64(len(a)-1) {
		//svm:pdo label(repair) loops(i)
		for i := 1; i < len(a); i++ {
			a[i] = float64(i)
		}
	}
	n := len(os.Args) * 10
	//svm:pdo label(tail) loops(i)
	for i := 0; i < n; i++ {
		a[i] += 1
	}
	//svm:replicated
	{
		if rtlib.NumProcessors() == 2 {
			me := rtlib.ProcessorID()
			buf := []int{len(os.Args), me}
			rtlib.Sendrecv(1-me, 0, buf, 1-me, 0, make([]int, 2))
		}
	}
	fmt.Println(a[len(a)-1])
}
`})
	run := func(name string, args ...string) {
		if res := runSvmc(t, dir, append([]string{"run", "--trace", name}, args...)...); res.code != 0 {
			t.Fatalf("run %v: exit %d\n%s", args, res.code, res.stderr)
		}
	}
	run("n1.sddf", "-n", "1", ".")
	run("n4.sddf", "-n", "4", ".")
	res := runSvmc(t, dir, "diff", "n1.sddf", "n4.sddf")
	for _, want := range []string{
		"Behaviour (processor 0's regions and synchronisation outside parallel constructs (the runs have 1 and 4 processors",
		"A enters pdo tail (main.go:32)\n    B enters pdo repair (main.go:26)",
		"pdo repair (main.go:26) instance 1: did not run in A, ran 65535 iterations in B",
	} {
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("svmc diff n1 n4: no %q in\n%s%s", want, res.stdout, res.stderr)
		}
	}
	// The same control flow, but the tail loop's iterations differ with
	// the arguments; and the message contents with them.
	run("a.sddf", "-n", "2", "--check", ".")
	run("b.sddf", "-n", "2", "--check", ".", "--", "x")
	res = runSvmc(t, dir, "diff", "a.sddf", "b.sddf")
	for _, want := range []string{
		"pdo tail (main.go:32) instance 1: ran 10 iterations in A, ran 20 iterations in B",
		"the runs part first on processor 0 at step",
		"A calls Sendrecv (main.go:41) with processor 1, 2 elements, checksum",
	} {
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("svmc diff a b: no %q in\n%s%s", want, res.stdout, res.stderr)
		}
	}
	if res := runSvmc(t, dir, "diff", "a.sddf", "a.sddf"); !strings.Contains(res.stdout, "steps in both runs") || !strings.Contains(res.stdout, "every parallel loop instance ran the same iterations") {
		t.Errorf("svmc diff of a run with itself:\n%s", res.stdout)
	}
}

// Several runs a side: a region that sleeps 2 ms in the runs of A and 20
// ms in those of B changes beyond the noise (p = 2/70 for 4 runs a side,
// each of B's above each of A's); with 3 a side the note says no change
// can reach p < 0.05.
func TestSvmcDiffRuns(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	d := 2 * time.Millisecond
	if len(os.Args) > 1 {
		d = 20 * time.Millisecond
	}
	//svm:trace_region slow
	time.Sleep(d)
	fmt.Println("done")
}
`})
	var as, bs []string
	for i := range 4 {
		a, b := fmt.Sprintf("a%d.sddf", i), fmt.Sprintf("b%d.sddf", i)
		for _, r := range [][]string{{"run", "-n", "1", "--trace", a, "."}, {"run", "-n", "1", "--trace", b, ".", "--", "slow"}} {
			if res := runSvmc(t, dir, r...); res.code != 0 {
				t.Fatalf("%v: exit %d\n%s", r, res.code, res.stderr)
			}
		}
		as, bs = append(as, a), append(bs, b)
	}
	res := runSvmc(t, dir, append(append(append([]string{"diff"}, as...), "--"), bs...)...)
	if res.code != 0 || !strings.Contains(res.stdout, "Over the runs: 4 of A, 4 of B") {
		t.Fatalf("svmc diff of 4 runs a side: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	var slow string
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.Contains(line, "user slow") && strings.Contains(line, "0.029") {
			slow = line
		}
	}
	if slow == "" || strings.Contains(slow, "within the noise") {
		t.Errorf("the slow region is not a change beyond the noise (p 0.029):\n%s", res.stdout)
	}
	res = runSvmc(t, dir, "diff", as[0], as[1], as[2], "--", bs[0], bs[1], bs[2])
	if !strings.Contains(res.stdout, "note: with 3 and 3 runs no change can reach p < 0.05") {
		t.Errorf("3 runs a side: no note on the smallest p\n%s", res.stdout)
	}
}
