package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestRaceSuite runs the static checks' evaluation set
// (compiler/testdata/races) with svmc run --race on 2 processors and
// scores the race detector as svmc reports it: a racy program is found
// when a data race is reported (at its line, or in a function it calls),
// a race-free one is a false positive when any is. The detector sees only races that happen in the
// run (a rank-dependent barrier is no data race; a conflict between
// iterations of one processor is none either), so its recall is logged,
// not required; a false positive fails the test.
func TestRaceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 50 programs with the race detector")
	}
	if err := exec.Command("go", "env", "CGO_ENABLED").Run(); err != nil {
		t.Skip("no go env")
	}
	if out, _ := exec.Command("go", "env", "CGO_ENABLED").Output(); strings.TrimSpace(string(out)) != "1" {
		t.Skip("the race detector needs cgo")
	}
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "compiler", "testdata", "races", "*"))
	head := regexp.MustCompile(`^// want race=(yes|no)(?: line=(\d+))?`)
	var tp, fn, fp, tn int
	var table strings.Builder
	// The builds with the race detector are most of the time: two at once
	// (a link is single-threaded), the verdicts in the directories' order.
	stderr := make([]string, len(dirs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(runtime.NumCPU(), 2))
	for i, dir := range dirs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			abs, _ := filepath.Abs(dir)
			stderr[i] = runSvmc(t, abs, "run", "-n", "2", "--race", ".").stderr
		}()
	}
	wg.Wait()
	for i, dir := range dirs {
		name := filepath.Base(dir)
		src, err := os.ReadFile(filepath.Join(dir, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		m := head.FindStringSubmatch(string(src))
		reported := regexp.MustCompile(`(?m)^svmc: data race: .*$`).FindAllString(stderr[i], -1)
		atLine := m[1] == "yes" && strings.Contains(strings.Join(reported, "\n"), "main.go:"+m[2]+" ")
		verdict := ""
		switch {
		case m[1] == "yes" && atLine:
			tp++
			verdict = "found"
		case m[1] == "yes" && len(reported) > 0:
			// The race is where the memory is touched: in a function
			// the marked line calls.
			tp++
			verdict = "found (callee)"
		case m[1] == "yes":
			fn++
			verdict = "missed"
		case len(reported) > 0:
			fp++
			verdict = "FALSE POSITIVE"
		default:
			tn++
			verdict = "quiet"
		}
		first := ""
		if len(reported) > 0 {
			first = reported[0]
		}
		fmt.Fprintf(&table, "%-20s %-4s %-14s %s\n", name, m[1], verdict, first)
	}
	t.Logf("svmc run --race on the races set: %d found, %d missed, %d false positives, %d quiet: precision %.2f, recall %.2f\n%s",
		tp, fn, fp, tn, float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1)), table.String())
	if fp > 0 {
		t.Errorf("%d race-free programs got a data race report", fp)
	}
	// Races that do not happen in one run (iterations of one processor,
	// deadlocks, channel sends) are missed by nature; more than a third
	// missed means the reports are not being read (a filter that swallowed
	// every report once passed this test).
	if recall := float64(tp) / float64(max(tp+fn, 1)); recall < 0.6 {
		t.Errorf("svmc run --race found %d of %d races (recall %.2f): at least 0.6 expected", tp, tp+fn, recall)
	}
}
