package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFindingsSuite runs the programs of testdata/findings, each with one
// injected bottleneck of known size (its first line says which: the
// finding's kind, its directive line or words of its title, the share of N
// × T it costs, words its advice must not have, a kind that must not be
// listed), and checks that the report's top finding names it. The
// severities are timing and are logged as the suite's score, not asserted
// (the machine is shared): svmc's note quotes them.
func TestFindingsSuite(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "findings", "*"))
	if len(dirs) < 12 {
		t.Fatalf("%d programs in testdata/findings, want at least 12", len(dirs))
	}
	wantRe := regexp.MustCompile(`(\w+)=("[^"]*"|\S+)`)
	var score strings.Builder
	fmt.Fprintf(&score, "%-12s %-15s %-8s %-8s %s\n", "program", "kind", "share", "found", "top finding")
	for _, dir := range dirs {
		name := filepath.Base(dir)
		src, err := os.ReadFile(filepath.Join(dir, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"procs": "2"}
		first, _, _ := strings.Cut(string(src), "\n")
		for _, m := range wantRe.FindAllStringSubmatch(first, -1) {
			want[m[1]] = strings.Trim(m[2], `"`)
		}
		abs, _ := filepath.Abs(dir)
		tr := filepath.Join(t.TempDir(), name+".sddf")
		args := []string{"run", "-n", want["procs"], "--trace", tr}
		if st, ok := want["stage"]; ok {
			args = append(args, "--stage", st)
		}
		var rep struct {
			Findings []struct {
				Kind     string
				Severity float64
				Title    string
				Advice   string
				Site     struct{ Line int }
			}
		}
		ok := true
		// A finding is timing: on a loaded machine a processor
		// descheduled for some milliseconds makes a loop unbalanced
		// beyond the injected cause (dynamic1's chunk fetching, cheaper
		// uncontended, lost to an 8% imbalance in one CI run). A second
		// run decides; both are logged.
		for try := range 2 {
			if res := runSvmc(t, abs, append(args, ".")...); res.code != 0 {
				t.Errorf("%s: run: exit %d\n%s", name, res.code, res.stderr)
				ok = false
				break
			}
			res := runSvmc(t, abs, "report", "--format", "json", "--findings", tr)
			if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || len(rep.Findings) == 0 {
				t.Errorf("%s: report: %v, %d findings\n%s", name, err, len(rep.Findings), res.stderr)
				ok = false
				break
			}
			// Processors that entered a loop late are the machine's
			// (a loaded CI host, more processors than CPUs), not the
			// program's: the program's top finding is the first other.
			for len(rep.Findings) > 1 && rep.Findings[0].Kind == "late start" && want["kind"] != "late start" {
				t.Logf("%s: %s", name, rep.Findings[0].Title)
				rep.Findings = rep.Findings[1:]
			}
			if rep.Findings[0].Kind == want["kind"] || try == 1 {
				break
			}
			t.Logf("%s: top finding %q (%s), want %q: run again", name, rep.Findings[0].Kind, rep.Findings[0].Title, want["kind"])
		}
		if !ok {
			continue
		}
		top := rep.Findings[0]
		if top.Kind != want["kind"] {
			t.Errorf("%s: top finding %q (%s), want %q", name, top.Kind, top.Title, want["kind"])
		}
		if l, ok := want["line"]; ok && strconv.Itoa(top.Site.Line) != l {
			t.Errorf("%s: top finding at line %d (%s), want %s", name, top.Site.Line, top.Title, l)
		}
		if s, ok := want["title"]; ok && !strings.Contains(top.Title, s) {
			t.Errorf("%s: top finding %q, want it to say %q", name, top.Title, s)
		}
		if s, ok := want["advice_not"]; ok && strings.Contains(top.Advice, s) {
			t.Errorf("%s: advice %q says %q", name, top.Advice, s)
		}
		if k, ok := want["not"]; ok {
			for _, f := range rep.Findings {
				if f.Kind == k {
					t.Errorf("%s: a %s finding beside the cause: %s", name, k, f.Title)
				}
			}
		}
		if tol, ok := want["tolerance"]; ok {
			share, _ := strconv.ParseFloat(want["share"], 64)
			rel, _ := strconv.ParseFloat(tol, 64)
			if d := top.Severity - share; d > rel*share || -d > rel*share {
				t.Errorf("%s: severity %.3f, want %.3f within %.0f%%", name, top.Severity, share, 100*rel)
			}
		}
		fmt.Fprintf(&score, "%-12s %-15s %-8s %-8.3f %s\n", name, want["kind"], want["share"], top.Severity, top.Title)
	}
	t.Logf("findings suite (share injected, severity found):\n%s", score.String())
}

// TestTune: svmc tune runs the program, reports, and runs it again with
// the narrowed request (stage 0, LOCAL requests for the top findings)
// until the request repeats: on the block triangle it converges in two
// rounds, the narrowed trace has fewer records, and the top finding holds.
// On a loaded machine a timing-made finding of round 2 can ask for one
// more round (seen once in CI: rounds of 18, 18 and 13 records); the last
// round must then have fewer records than the first.
func TestTune(t *testing.T) {
	dir := t.TempDir()
	res, rounds := tune(t, filepath.Join("testdata", "findings", "triangle"), dir)
	if len(rounds) < 2 || len(rounds) > 3 {
		t.Fatalf("rounds %v\n%s", rounds, res.stderr)
	}
	if len(rounds) == 3 {
		t.Logf("three rounds (load): %v", rounds)
	}
	r1, _ := strconv.Atoi(rounds[0][3])
	r2, _ := strconv.Atoi(rounds[len(rounds)-1][3])
	if rounds[0][2] != "the default stage" || rounds[1][2] != filepath.Join(dir, "round2.req") || r2 >= r1 ||
		rounds[0][4] != "imbalance" || rounds[1][4] != "imbalance" {
		t.Errorf("rounds %v", rounds)
	}
	req, _ := os.ReadFile(filepath.Join(dir, "round2.req"))
	if !strings.Contains(string(req), "CONFIG SVM_TraceStage: 0\n") || !strings.Contains(string(req), "REQUEST LOCAL @MAIN.REG_NO(1): (REGION), (PDOInfo), (BARRIER)") {
		t.Errorf("round2.req:\n%s", req)
	}
	if !strings.Contains(res.stdout, "the trace is narrowed") || !strings.Contains(res.stdout, "1. ") {
		t.Errorf("final report:\n%s", res.stdout)
	}
	// A first run without a trace gives each round's time a measure: its
	// ratio to the untraced run's, as printed.
	u := regexp.MustCompile(`svmc tune: untraced: (\d+\.\d+) s\n`).FindStringSubmatch(res.stderr)
	times := regexp.MustCompile(`, (\d+\.\d+) s \((\d+\.\d+)× untraced\); top:`).FindAllStringSubmatch(res.stderr, -1)
	if u == nil || len(times) != len(rounds) {
		t.Fatalf("the untraced run and the rounds' times:\n%s", res.stderr)
	}
	un, _ := strconv.ParseFloat(u[1], 64)
	for _, m := range times {
		took, _ := strconv.ParseFloat(m[1], 64)
		ratio, _ := strconv.ParseFloat(m[2], 64)
		if un <= 0 || math.Abs(ratio*un-took) > 0.006*ratio+0.006 {
			t.Errorf("a round of %s s said to be %s× an untraced run of %s s", m[1], m[2], u[1])
		}
	}
	// --untraced=false makes no such run.
	res, _ = tune(t, filepath.Join("testdata", "findings", "triangle"), t.TempDir(), "--untraced=false")
	if strings.Contains(res.stderr, "untraced") {
		t.Errorf("--untraced=false:\n%s", res.stderr)
	}
}

// The HTML report of a message-passing run has its message section: the
// time in message calls, the calls, the wait states and the matrix.
func TestReportHTMLMessages(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("testdata", "findings", "latesender"))
	tr := filepath.Join(t.TempDir(), "ls.sddf")
	if res := runSvmc(t, abs, "run", "-n", "2", "--trace", tr, "."); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	res := runSvmc(t, abs, "report", "--format", "html", tr)
	for _, want := range []string{`<h2 id="messages">Message passing</h2>`, `<td>late sender</td><td>Recv</td><td>main.go:20:4</td><td>Send main.go:17:4</td>`,
		`messages</td><td class="n">`, `<div class="msg" style="width:`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the HTML report lacks %s", want)
		}
	}
}

// OPAL's cycle on call-heavy serial code (issue 12: a serial finding in a
// main that sorts did not narrow — 400 k records in both rounds): the
// narrowed request throttles what the regions call after 1000 calls
// (SVM_Throttle_Calls), so round 2 has a small fraction of round 1's
// records, the same top finding, and the calls and time of Less and Swap
// still counted. Less and Swap are small enough for Go to inline, so svmc
// leaves them as written unless --instrument-all asks for their regions:
// the cycle is tried with them instrumented.
func TestTuneCallHeavy(t *testing.T) {
	res, rounds := tune(t, filepath.Join("testdata", "tune", "sorting"), t.TempDir(), "--instrument-all")
	if len(rounds) < 2 {
		t.Fatalf("rounds %v\n%s", rounds, res.stderr)
	}
	r1, _ := strconv.Atoi(rounds[0][3])
	r2, _ := strconv.Atoi(rounds[len(rounds)-1][3])
	t.Logf("records: round 1 %d, last round %d; top finding %s, then %s", r1, r2, rounds[0][4], rounds[len(rounds)-1][4])
	// The last round's top is serial: its LOCAL request names no
	// subprogram of the sort, so the throttled Less and Swap keep their
	// gate (throttle.go localAt). When every call of theirs took the
	// traced entry, that run took ten times the untraced one (0.5-0.6 s
	// against 0.05) and tracing was its top finding.
	last := rounds[len(rounds)-1][4]
	if r2*20 > r1 || rounds[0][4] != "serial" || last != "serial" {
		t.Errorf("rounds %v: want the last with under 5%% of the first's records, serial on top in both", rounds)
	}
	m := regexp.MustCompile(`byVal\.Less\s+main\.go:14\s+0\s+1000\s+\S+ µs\s+(\d+)`).FindStringSubmatch(res.stdout)
	if m == nil {
		t.Fatalf("the final report has no throttled Less with 1000 traced calls:\n%s", res.stdout)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1000000 {
		t.Errorf("the final report counts %d untraced calls of Less, want the sort's millions", n)
	}
}

// tune runs svmc tune -n 2 on the program in prog with its rounds kept in
// dir, and returns the result and each round's line (round, request,
// records, top finding); it stops the test unless the rounds converged.
func tune(t *testing.T, prog, dir string, flags ...string) (result, [][]string) {
	t.Helper()
	abs, _ := filepath.Abs(prog)
	res := runSvmc(t, abs, append(append([]string{"tune", "-n", "2", "--dir", dir}, flags...), ".")...)
	if res.code != 0 || !strings.Contains(res.stderr, "svmc tune: converged") {
		t.Fatalf("tune: exit %d\n%s", res.code, res.stderr)
	}
	return res, regexp.MustCompile(`svmc tune: round (\d) \(([^)]*)\): (\d+) records, [^;]*; top: (\S+) `).FindAllStringSubmatch(res.stderr, -1)
}

// TestLateSendersOfAnyReceive: a master receiving results from any worker
// waits for both workers' messages, and the late-sender finding names both
// (x217: it named only the one most often waited for).
func TestLateSendersOfAnyReceive(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	total := 0
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		if me == 0 {
			buf := make([]int, 1)
			for k := 0; k < 2*(n-1); k++ {
				rtlib.Recv(rtlib.AnySource, 1, buf)
				total += buf[0]
			}
		} else {
			for k := 0; k < 2; k++ {
				time.Sleep(2 * time.Millisecond) // the work before each result
				rtlib.Send(0, 1, []int{me})
			}
		}
	}
	fmt.Println(total)
}
`})
	tr := filepath.Join(t.TempDir(), "t.sddf")
	if res := runSvmc(t, dir, "run", "-n", "3", "--trace", tr, "."); res.code != 0 || res.stdout != "6\n" {
		t.Fatalf("run: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res := runSvmc(t, dir, "report", "--findings", tr)
	if !strings.Contains(res.stdout, "for messages that processors 1-2 send later (processor ") {
		t.Errorf("report:\n%s", res.stdout)
	}
}
