package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// falseSharing is a loop that bumps a shared array of two pages 50 times;
// STRATEGY decides who writes which elements.
const falseSharing = `package main

import "fmt"

func main() {
	c := make([]int64, 1024) // two pages of 4 KiB
	//svm:shared c
	//COHERENCE
	for it := 0; it < 50; it++ {
		//svm:pdo label(bump) loops(i) strategy(STRATEGY)
		for i := 0; i < len(c); i++ {
			c[i] += int64(i) + work(i)
		}
	}
	fmt.Println(c[1023])
}

// work takes a little time and returns 0: the processors' writes
// interleave.
func work(i int) int64 {
	x := i
	for k := 0; k < 300; k++ {
		x = x*31 + k
	}
	return int64(x & 0)
}
`

// The false-sharing example: cyclic writes put both processors on
// both pages in every instance, and the report says so at the loop's line
// (stage 4 from the fault sums, stage 6 from the faults themselves); a
// block schedule gives each processor its own page, and the finding and
// the second writer's faults go away.
func TestFalseSharingLocality(t *testing.T) {
	type outcome struct {
		found    bool
		line     int
		writes   int
		title    string
		advice   string
		slowdown float64 // of the loop on the cost model's machine
	}
	runOne := func(strategy, stage string, extra ...string) outcome {
		dir := t.TempDir()
		src := strings.Replace(falseSharing, "STRATEGY", strategy, 1)
		if len(extra) > 0 && strings.HasPrefix(extra[0], "//svm:") {
			src = strings.Replace(src, "//COHERENCE", extra[0], 1)
			extra = extra[1:]
		}
		for name, data := range map[string]string{"go.mod": "module fs\n\ngo 1.22\n", "main.go": src} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tr := filepath.Join(dir, "t.sddf")
		if res := runSvmc(t, dir, append([]string{"run", "-n", "2", "--stage", stage, "--trace", tr}, append(extra, ".")...)...); res.code != 0 || res.stdout != "51150\n" {
			t.Fatalf("%s stage %s: exit %d, output %q\n%s", strategy, stage, res.code, res.stdout, res.stderr)
		}
		res := runSvmc(t, dir, "report", "--format", "json", tr)
		var rep struct {
			Model struct {
				Locality *struct {
					Variables []struct {
						Name   string
						Writes []int `json:"write_faults"`
					}
					Predicted []struct {
						Site     struct{ Line int }
						Slowdown float64
					}
				}
			}
			Findings []struct {
				Kind   string
				Title  string
				Advice string
				Site   struct{ Line int }
			}
		}
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
			t.Fatalf("report: %v\n%s", err, res.stderr)
		}
		var r outcome
		if loc := rep.Model.Locality; loc == nil || len(loc.Variables) != 1 {
			t.Fatalf("%s stage %s: no locality analysis of c", strategy, stage)
		} else {
			for _, w := range loc.Variables[0].Writes {
				r.writes += w
			}
			for _, pr := range loc.Predicted {
				if pr.Site.Line == 10 {
					r.slowdown = pr.Slowdown
				}
			}
		}
		for _, f := range rep.Findings {
			if f.Kind == "false sharing" {
				r.found, r.line, r.title, r.advice = true, f.Site.Line, f.Title, f.Advice
			}
		}
		return r
	}
	for _, stage := range []string{"4", "6"} {
		before, after := runOne("cyclic", stage), runOne("block", stage)
		t.Logf("stage %s: write faults cyclic %d, block %d; predicted slowdown of the loop %.2fx and %.2fx; finding: %s",
			stage, before.writes, after.writes, before.slowdown, after.slowdown, before.title)
		if before.slowdown <= 1 || after.slowdown <= 1 {
			t.Errorf("stage %s: predicted slowdowns %.2f and %.2f, want both above 1 (every fault costs)", stage, before.slowdown, after.slowdown)
		}
		if !before.found || before.line != 10 {
			t.Errorf("stage %s, cyclic: false sharing found %v at line %d, want at line 10", stage, before.found, before.line)
		}
		// The advice is for the loop's own schedule: deal whole pages.
		if !strings.Contains(before.advice, "cyclic deals the iterations out one at a time") || !strings.Contains(before.advice, "strategy(cyclic(512))") {
			t.Errorf("stage %s, cyclic: advice %q, want whole pages dealt out, strategy(cyclic(512))", stage, before.advice)
		}
		if after.found {
			t.Errorf("stage %s, block: a false-sharing finding: %s", stage, after.title)
		}
		// Under RC every writer of a page faults once per instance: both
		// processors on both pages, against one page each.
		if before.writes != 2*after.writes || after.writes != 100 {
			t.Errorf("stage %s: write faults cyclic %d, block %d; want 200 and 100", stage, before.writes, after.writes)
		}
	}
	// Under Li's write-invalidate protocol (svm_model sc) the two writers
	// take the pages from each other at every alternation the schedule
	// makes; coherence(multiple_writers) :: c gives c's pages the
	// protocol that merges the writes at the barrier: one fault per writer
	// and page per instance, whatever the schedule.
	sc := runOne("cyclic", "6", "--svm-model", "sc")
	mw := runOne("cyclic", "6", "//svm:coherence(multiple_writers) :: c", "--svm-model", "sc")
	t.Logf("svm_model sc: write faults cyclic %d; with coherence(multiple_writers) :: c %d", sc.writes, mw.writes)
	if mw.writes != 200 {
		t.Errorf("coherence(multiple_writers) under sc: %d write faults, want 200", mw.writes)
	}
	if !sc.found {
		t.Errorf("svm_model sc, cyclic: no false-sharing finding")
	}
}

// throughHelper is falseSharing with the write made two calls deep, through
// the helpers' own parameters (a row of a [][]int64 and a re-slice).
const throughHelper = `package main

import "fmt"

func main() {
	c := make([]int64, 1024) // two pages of 4 KiB
	//svm:shared c
	for it := 0; it < 50; it++ {
		//svm:pdo label(bump) loops(i) strategy(STRATEGY)
		for i := 0; i < len(c); i++ {
			bump(c[:], i)
		}
	}
	fmt.Println(c[1023], sum(make([]int64, 3)))
}

func bump(a []int64, i int) { add(a, i, int64(i)) }

func add(b []int64, i int, v int64) { b[i] += v }

// sum is called with storage no shared directive names: its checks record
// nothing.
func sum(b []int64) (s int64) {
	for i := range b {
		s += b[i]
	}
	return s
}
`

// throughClosure writes the pages in a function literal of the body, and
// reads them in goroutines the program starts (no processors: their checks
// do nothing) and in a sort.Slice callback on processor 0.
const throughClosure = `package main

import (
	"fmt"
	"sort"
	"sync"
)

func main() {
	c := make([]int64, 1024) // two pages of 4 KiB
	//svm:shared c
	for it := 0; it < 50; it++ {
		//svm:pdo label(bump) loops(i) strategy(STRATEGY)
		for i := 0; i < len(c); i++ {
			add := func(v int64) { c[i] += v }
			add(int64(i))
		}
	}
	idx := []int{3, 1, 2}
	sort.Slice(idx, func(a, b int) bool { return c[idx[a]] < c[idx[b]] })
	var wg sync.WaitGroup
	sums := make([]int64, 2)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := g * 512; k < (g+1)*512; k++ {
				sums[g] += c[k]
			}
		}()
	}
	wg.Wait()
	fmt.Println(c[1023], idx[0], sums[0]+sums[1])
}
`

// Accesses through a parameter that receives a shared variable's storage
// are checked in the called function (issue 15: "the functions they
// call"): the pages a helper writes fault as if the loop wrote them.
func TestSharedThroughParameters(t *testing.T) {
	var last string // the last run's trace
	faults := func(prog, strategy, out string) (writes int) {
		dir := t.TempDir()
		src := strings.Replace(prog, "STRATEGY", strategy, 1)
		for name, data := range map[string]string{"go.mod": "module fs\n\ngo 1.22\n", "main.go": src} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tr := filepath.Join(dir, "t.sddf")
		last = tr
		if res := runSvmc(t, dir, "run", "-n", "2", "--stage", "6", "--trace", tr, "."); res.code != 0 || res.stdout != out {
			t.Fatalf("%s: exit %d, output %q\n%s", strategy, res.code, res.stdout, res.stderr)
		}
		res := runSvmc(t, dir, "report", "--format", "json", tr)
		var rep struct {
			Model struct {
				Locality *struct {
					Variables []struct {
						Name   string
						Writes []int `json:"write_faults"`
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
			t.Fatalf("report: %v\n%s", err, res.stderr)
		}
		if rep.Model.Locality == nil || len(rep.Model.Locality.Variables) != 1 || rep.Model.Locality.Variables[0].Name != "c" {
			t.Fatalf("%s: no locality analysis of c:\n%s", strategy, res.stdout)
		}
		for _, w := range rep.Model.Locality.Variables[0].Writes {
			writes += w
		}
		return writes
	}
	for _, p := range []struct{ name, src, out string }{
		{"helpers", throughHelper, "51150 0\n"},
		{"closure", throughClosure, "51150 1 26188800\n"},
	} {
		cyclic, block := faults(p.src, "cyclic", p.out), faults(p.src, "block", p.out)
		t.Logf("write faults through the %s: cyclic %d, block %d", p.name, cyclic, block)
		if cyclic != 200 || block != 100 {
			t.Errorf("write faults through the %s: cyclic %d, block %d; want 200 and 100 as when the loop writes", p.name, cyclic, block)
		}
	}

	// The cost model: MILLIPAGE's measured figures by default (a 4 KB
	// read fault in 314 µs), a user's own with the flags.
	costOf := func(args ...string) (c struct {
		Latency float64 `json:"latency_us"`
		MBps    float64 `json:"bandwidth_mb_s"`
		Msg     float64 `json:"message_us"`
		Source  string  `json:"source"`
	}) {
		res := runSvmc(t, ".", append(append([]string{"report", "--format", "json"}, args...), last)...)
		var rep struct {
			Model struct {
				Locality struct {
					Cost json.RawMessage `json:"cost_model"`
				}
			}
		}
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
			t.Fatalf("report %v: %v\n%s", args, err, res.stderr)
		}
		if err := json.Unmarshal(rep.Model.Locality.Cost, &c); err != nil {
			t.Fatalf("report %v: cost model %s: %v", args, rep.Model.Locality.Cost, err)
		}
		return c
	}
	if d := costOf(); d.Latency+4096/d.MBps < 310 || d.Latency+4096/d.MBps > 318 || !strings.Contains(d.Source, "MILLIPAGE") {
		t.Errorf("default cost model %+v: want MILLIPAGE's 314 µs per 4 KB page", d)
	}
	if u := costOf("--svm-latency", "8", "--svm-bandwidth", "5000", "--svm-message", "2"); u.Latency != 8 || u.MBps != 5000 || u.Msg != 2 || !strings.Contains(u.Source, "svm-latency") {
		t.Errorf("cost model with the flags: %+v", u)
	}
}

// Two loops whose distributions give a shared array's pages to different
// processors (issue 15: "pages whose owner does not match the template
// distribution that schedules the loops touching them"): the report names
// the pair, the narrowed request it writes traces both loops' faults and
// finds the same; with one distribution for both loops nothing is found.
func TestDistributionMismatch(t *testing.T) {
	src, err := os.ReadFile("testdata/findings/mismatch/main.go")
	if err != nil {
		t.Fatal(err)
	}
	type finding struct {
		Kind, Title string
		Site        struct{ Line int }
	}
	report := func(dir, tr string, args ...string) []finding {
		if res := runSvmc(t, dir, append(append([]string{"run", "-n", "2", "--trace", tr}, args...), ".")...); res.code != 0 || res.stdout != "2046\n" {
			t.Fatalf("run %v: exit %d, output %q\n%s", args, res.code, res.stdout, res.stderr)
		}
		res := runSvmc(t, dir, "report", "--format", "json", "--next-request", filepath.Join(dir, "next.req"), tr)
		var rep struct{ Findings []finding }
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
			t.Fatalf("report: %v\n%s", err, res.stderr)
		}
		var out []finding
		for _, f := range rep.Findings {
			if f.Kind == "distribution mismatch" {
				out = append(out, f)
			}
		}
		return out
	}
	module := func(code string) string {
		dir := t.TempDir()
		for name, data := range map[string]string{"go.mod": "module mm\n\ngo 1.22\n", "main.go": code} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dir := module(string(src))
	fs := report(dir, filepath.Join(dir, "t.sddf"), "--stage", "6")
	if len(fs) != 1 || fs[0].Site.Line != 21 || !strings.Contains(fs[0].Title, "main.go:17, block") || !strings.Contains(fs[0].Title, "fetches 38 pages back") {
		t.Fatalf("stage 6: distribution mismatch findings %+v, want one at line 21 naming the block loop at line 17 and its 38 pages", fs)
	}
	t.Logf("stage 6: %s", fs[0].Title)
	req, err := os.ReadFile(filepath.Join(dir, "next.req"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PDO_LABEL(scale): (REGION), (WPF[c])", "PDO_LABEL(smooth): (REGION), (WPF[c])"} {
		if !strings.Contains(string(req), want) {
			t.Errorf("next request lacks %q:\n%s", want, req)
		}
	}
	narrowed := report(dir, filepath.Join(dir, "t2.sddf"), "--request", filepath.Join(dir, "next.req"))
	if len(narrowed) != 1 || narrowed[0].Site.Line != 21 {
		t.Errorf("narrowed run: distribution mismatch findings %+v, want the same at line 21", narrowed)
	}
	twin := module(strings.Replace(string(src), "strategy(cyclic(512))", "strategy(block)", 1))
	if fs := report(twin, filepath.Join(twin, "t.sddf"), "--stage", "6"); len(fs) != 0 {
		t.Errorf("both loops block: distribution mismatch findings %+v, want none", fs)
	}
}

// TestFalseSharingIsNoMismatch: a block-scheduled stencil whose blocks end
// in the middle of a page (x235) shares those pages between its writers in
// every instance. That is false sharing, said once; it is no distribution
// that moves between instances (the first writer of each instance fetched
// the page from the last writer of the one before, and the report also
// told the block loop to use "a static schedule").
func TestFalseSharingIsNoMismatch(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import "fmt"

func step(n int, t, next []float64) {
	//svm:shared t, next
	//svm:pdo loops(i)
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			next[i*n+j] = (t[(i-1)*n+j] + t[(i+1)*n+j] + t[i*n+j-1] + t[i*n+j+1]) / 4
		}
	}
	//svm:pdo loops(i)
	for i := 1; i < n-1; i++ {
		copy(t[i*n+1:i*n+n-1], next[i*n+1:i*n+n-1])
	}
}

func main() {
	n := 100
	t, next := make([]float64, n*n), make([]float64, n*n)
	for j := range n {
		t[j] = 100
	}
	for range 40 {
		step(n, t, next)
	}
	fmt.Printf("%.3f\n", t[2*n+50])
}
`})
	tr := filepath.Join(dir, "t.sddf")
	if res := runSvmc(t, dir, "run", "-n", "4", "--stage", "6", "--trace", tr, "."); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	var rep struct {
		Findings []struct{ Kind, Title string }
	}
	if err := json.Unmarshal([]byte(runSvmc(t, dir, "report", "--format", "json", tr).stdout), &rep); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, f := range rep.Findings {
		kinds[f.Kind]++
		if f.Kind == "distribution mismatch" {
			t.Errorf("finding %s", f.Title)
		}
	}
	if kinds["false sharing"] == 0 {
		t.Errorf("no false sharing finding: %v", kinds)
	}
}
