package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/svmc/svmc/check"
)

// TestCheckSuite runs the evaluation suite of svmc check (testdata/check,
// in the manner of the MPI Bugs Initiative): each program's first line
// says what it is — "want OK", or the class of its error, whose line is
// marked "// ERROR" (or "// ERROR below" on the line before) — and may
// set procs=N, flags="..." for svmc run, message="..." (a diagnosis
// must say it) and
// runs=N (a non-deterministic program, run N times with msg_perturb). A
// diagnosis counts when class and line are right (strict). The test
// prints coverage, recall, precision and F1 per class and fails below
// 0.95 overall.
func TestCheckSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every program of the suite")
	}
	all, _ := filepath.Glob(filepath.Join("testdata", "check", "*", "main.go"))
	var dirs []string
	for _, f := range all {
		dirs = append(dirs, filepath.Dir(f))
	}
	if len(dirs) < 40 {
		t.Fatalf("%d programs in testdata/check, want at least 40", len(dirs))
	}
	type outcome struct {
		name     string
		want     map[string]int // "class:line" -> count
		got      map[string]int
		correct  bool
		reported []string
	}
	wantRe := regexp.MustCompile(`(\w+)=("[^"]*"|\S+)`)
	results := make([]outcome, len(dirs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			name := filepath.Base(dir)
			src, err := os.ReadFile(filepath.Join(dir, "main.go"))
			if err != nil {
				t.Error(err)
				return
			}
			lines := strings.Split(string(src), "\n")
			opts := map[string]string{"procs": "2", "runs": "1"}
			for _, m := range wantRe.FindAllStringSubmatch(lines[0], -1) {
				opts[m[1]] = strings.Trim(m[2], `"`)
			}
			o := outcome{name: name, want: map[string]int{}, got: map[string]int{}}
			if opts["class"] == "" {
				o.correct = true
			} else {
				marked := false
				for n, l := range lines {
					switch strings.TrimSpace(l) {
					case "// ERROR below": // the line after it (a directive, which takes no comment)
						o.want[opts["class"]+":"+strconv.Itoa(n+2)]++
						marked = true
					default:
						if strings.HasSuffix(strings.TrimSpace(l), "// ERROR") {
							o.want[opts["class"]+":"+strconv.Itoa(n+1)]++
							marked = true
						}
					}
				}
				if !marked {
					o.want[opts["class"]+":0"]++
				}
			}
			abs, _ := filepath.Abs(dir)
			runs, _ := strconv.Atoi(opts["runs"])
			for r := range runs {
				tr := filepath.Join(t.TempDir(), name+".sddf")
				args := []string{"run", "--check", "-n", opts["procs"], "--trace", tr, "--deadlock-ms", "300"}
				if runs > 1 {
					args = append(args, "--msg-perturb", "1")
				}
				if f := opts["flags"]; f != "" {
					args = append(args, strings.Fields(f)...)
				}
				runSvmc(t, abs, append(args, ".")...)
				res := runSvmc(t, abs, "check", "--format", "json", tr)
				var ds []check.Diagnosis
				if err := json.Unmarshal([]byte(res.stdout), &ds); err != nil {
					t.Errorf("%s (run %d): svmc check: %v\n%s%s", name, r, err, res.stdout, res.stderr)
					return
				}
				for _, d := range ds {
					k := d.Class + ":" + strconv.Itoa(d.Line)
					if o.got[k] == 0 {
						o.reported = append(o.reported, fmt.Sprintf("%s line %d: %s", d.Class, d.Line, d.Message))
					}
					o.got[k] = 1 // a diagnosis per run counts once
				}
			}
			// message="…": a diagnosis says it.
			if m := opts["message"]; m != "" && !slices.ContainsFunc(o.reported, func(r string) bool { return strings.Contains(r, m) }) {
				t.Errorf("%s: no diagnosis says %q; reported %q", name, m, o.reported)
			}
			results[i] = o
		}()
	}
	wg.Wait()
	type score struct{ progs, tp, fp, fn int }
	per := map[string]*score{}
	get := func(c string) *score {
		if per[c] == nil {
			per[c] = &score{}
		}
		return per[c]
	}
	var tot score
	for _, o := range results {
		if o.name == "" {
			continue
		}
		for k := range o.want {
			c, _, _ := strings.Cut(k, ":")
			get(c).progs++
			if o.got[k] > 0 {
				get(c).tp++
				tot.tp++
			} else {
				get(c).fn++
				tot.fn++
				t.Logf("%s: missed %s; reported %q", o.name, k, o.reported)
			}
		}
		for k := range o.got {
			if o.want[k] == 0 {
				c, _, _ := strings.Cut(k, ":")
				get(c).fp++
				tot.fp++
				t.Logf("%s: false diagnosis %s; reported %q", o.name, k, o.reported)
			}
		}
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %5s %4s %4s %4s %7s %9s %6s\n", "class", "progs", "TP", "FP", "FN", "recall", "precision", "F1")
	classes := slices.Clone(check.Classes)
	sort.Strings(classes)
	covered := 0
	for _, c := range check.Classes {
		s := get(c)
		if s.progs > 0 {
			covered++
		}
		r, p := ratio(s.tp, s.tp+s.fn), ratio(s.tp, s.tp+s.fp)
		fmt.Fprintf(&b, "%-20s %5d %4d %4d %4d %7.2f %9.2f %6.2f\n", c, s.progs, s.tp, s.fp, s.fn, r, p, f1(r, p))
	}
	r, p := ratio(tot.tp, tot.tp+tot.fn), ratio(tot.tp, tot.tp+tot.fp)
	fmt.Fprintf(&b, "%-20s %5d %4d %4d %4d %7.2f %9.2f %6.2f\n", "all", len(dirs), tot.tp, tot.fp, tot.fn, r, p, f1(r, p))
	fmt.Fprintf(&b, "classes covered by the suite: %d of %d", covered, len(check.Classes))
	t.Logf("svmc check on its evaluation suite (strict: class and line):\n%s", b.String())
	if r < 0.95 || p < 0.95 {
		t.Errorf("recall %.2f, precision %.2f: want 0.95 or better", r, p)
	}
}

func f1(r, p float64) float64 {
	if r+p == 0 {
		return 0
	}
	return 2 * r * p / (r + p)
}

// The protocol of a deadlocked run: seed 003's stages in order, the cycle
// with each processor's call and line, the trace printed at the end; the
// analyser's parameter file; its errors with file and line.
func TestCheckProtocol(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join("testdata", "check", "deadlock"))
	tr := filepath.Join(t.TempDir(), "dl.sddf")
	run := runSvmc(t, dir, "run", "--check", "-n", "2", "--trace", tr, "--deadlock-ms", "200", ".")
	if run.code == 0 || !strings.Contains(run.stderr, "deadlock") {
		t.Fatalf("the run did not deadlock: exit %d\n%s", run.code, run.stderr)
	}
	res := runSvmc(t, dir, "check", "--print-trace", tr)
	if res.code != 0 {
		t.Fatalf("check: exit %d\n%s", res.code, res.stderr)
	}
	last := -1
	for _, stage := range []string{"== Analyzer initialization and trace reading", "== Task state and error printing",
		"== Deadlock printing", "real deadlock [error] processors [0 1]", "processor 0: Recv(from 1, tag 0, 1 × int) at main.go:15:3",
		"processor 1: Recv(from 0, tag 0, 1 × int) at main.go:15:3", "== Source points", "== Trace printing"} {
		i := strings.Index(res.stdout, stage)
		if i < 0 || i < last {
			t.Fatalf("the protocol lacks %q after position %d:\n%s", stage, last, res.stdout)
		}
		last = i
	}
	params := filepath.Join(t.TempDir(), "check.par")
	os.WriteFile(params, []byte("# only deadlocks\nclasses = real deadlock\nmax_errors = 5\n"), 0o644)
	if res := runSvmc(t, dir, "check", "--format", "json", "--params", params, tr); res.code != 0 || !strings.Contains(res.stdout, `"class": "real deadlock"`) {
		t.Errorf("with %s: exit %d\n%s%s", params, res.code, res.stdout, res.stderr)
	}
	os.WriteFile(params, []byte("classes = real deadlok\n"), 0o644)
	if res := runSvmc(t, dir, "check", "--params", params, tr); res.code == 0 || !strings.Contains(res.stderr, "check.par:1: classes: unknown class \"real deadlok\"") {
		t.Errorf("bad parameter file: exit %d\n%s", res.code, res.stderr)
	}
}
