package rtlib

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// printEach makes every processor print one line in a PDO body, and the
// leader one on stderr.
func printEach(p *Proc) {
	p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: p.NProcs() - 1, Step: 1}}, func(q *Proc, it *Iter) {
		for it.Next() {
			fmt.Fprintf(q.Stdout(), "out %d\n", q.ID())
		}
	})
	fmt.Fprintf(p.Stderr(), "err %d\n", p.ID())
}

// TestOutputProc0: by default what every processor runs a copy of
// (replicated code) prints once, processor 0's copy; what one processor
// runs alone (a pdo's iterations, a section) prints wherever it runs, as
// the plain program prints it.
func TestOutputProc0(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(testProg(), Params{NProcs: 3, Stderr: io.Discard,
		UserStdout: Output{W: &out}, UserStderr: Output{W: &errOut}}, func(p *Proc) {
		printEach(p)
		p.Replicated(1, 2, func(q *Proc) {
			fmt.Fprintf(q.Stdout(), "replicated %d\n", q.ID())
			q.PDO(1, 3, DefaultSchedule(), []Range{{Lo: 0, Hi: 2, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					fmt.Fprintf(q.Stdout(), "iteration %d\n", it.Index(0))
				}
			})
		})
		secs := make([]Section, 3)
		for i := range secs {
			secs[i] = Section{Dir: 5 + i, Body: func(q *Proc) { fmt.Fprintf(q.Stdout(), "section %d\n", i) }}
		}
		p.PSection(1, 4, secs)
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(lines)
	want := []string{"iteration 0", "iteration 1", "iteration 2", "out 0", "out 1", "out 2", "replicated 0", "section 0", "section 1", "section 2"}
	if !slices.Equal(lines, want) || errOut.String() != "err 0\n" {
		t.Errorf("stdout %q, stderr %q", lines, errOut.String())
	}
}

func TestOutputCommon(t *testing.T) {
	var out bytes.Buffer
	err := Run(testProg(), Params{NProcs: 3, Stderr: io.Discard, UserStdout: Output{Mode: OutCommon, W: &out},
		UserStderr: Output{W: io.Discard}}, printEach)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(lines)
	if !slices.Equal(lines, []string{"out 0", "out 1", "out 2"}) {
		t.Errorf("stdout %q", out.String())
	}
	// A common file.
	path := filepath.Join(t.TempDir(), "all.txt")
	if err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard, UserStdout: Output{Mode: OutCommon, Path: path},
		UserStderr: Output{W: io.Discard}}, printEach); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if got := strings.Count(string(b), "out "); got != 2 {
		t.Errorf("common file %q", b)
	}
}

func TestOutputEach(t *testing.T) {
	dir := t.TempDir()
	pattern := filepath.Join(dir, "out%d.txt")
	stale := filepath.Join(dir, "out7.txt")
	writeFile(t, dir, "out7.txt", "old\n")
	writeFile(t, dir, "out0.txt", "old\n")
	writeFile(t, dir, "other.txt", "keep\n")
	run := func(keep bool) {
		t.Helper()
		err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard, KeepOld: keep,
			UserStdout: Output{Mode: OutEach, Path: pattern}, UserStderr: Output{Mode: OutProc0, Path: filepath.Join(dir, "err.txt")}}, printEach)
		if err != nil {
			t.Fatal(err)
		}
	}
	run(false)
	for i := range 2 {
		b, err := os.ReadFile(fmt.Sprintf(pattern, i))
		if err != nil || string(b) != fmt.Sprintf("out %d\n", i) {
			t.Errorf("file %d: %q %v", i, b, err)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("old file of processor 7 kept: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "other.txt")); string(b) != "keep\n" {
		t.Error("a file outside the pattern was removed")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "err.txt")); string(b) != "err 0\n" {
		t.Errorf("stderr file %q", b)
	}
	// keep_old: appended.
	run(true)
	if b, _ := os.ReadFile(fmt.Sprintf(pattern, 1)); string(b) != "out 1\nout 1\n" {
		t.Errorf("kept file %q", b)
	}
	// A file that cannot be created.
	err := Run(testProg(), Params{NProcs: 1, Stderr: io.Discard, UserStdout: Output{Mode: OutEach, Path: filepath.Join(dir, "no", "x%d")}}, printEach)
	if err == nil || !strings.HasPrefix(err.Error(), "stdout: open ") {
		t.Errorf("got %v", err)
	}
}

// TestDetachedOutput: a goroutine the program starts writes as processor 0.
func TestDetachedOutput(t *testing.T) {
	var out bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard, UserStdout: Output{W: &out}}, func(p *Proc) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			fmt.Fprint(Current().Stdout(), "detached\n")
		}()
		<-done
	})
	if err != nil || out.String() != "detached\n" {
		t.Errorf("%v %q", err, out.String())
	}
}

// TestNoOutputAfterFailure: a goroutine the program started panics; its
// deferred wg.Done lets processor 0 go on to print. In plain Go the panic
// ends the process; in a run nothing written after the failure appears
// (it printed the results computed without the goroutine's part).
func TestNoOutputAfterFailure(t *testing.T) {
	var out bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard, UserStdout: Output{W: &out}, UserStderr: Output{W: io.Discard}}, func(p *Proc) {
		fmt.Fprintln(p.Stdout(), "before")
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer Recover("main.go:9:2")
			defer wg.Done()
			panic("bad input")
		}()
		wg.Wait()
		// wg.Done ran while the goroutine panicked, Recover after it:
		// wait for the failure (a print in between still gets out, as
		// in plain Go while the panic unwinds).
		for deadline := time.Now().Add(10 * time.Second); !p.r.aborting.Load() && time.Now().Before(deadline); {
			time.Sleep(50 * time.Microsecond)
		}
		fmt.Fprintln(p.Stdout(), "after")
	})
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Run: %v, want the goroutine's panic", err)
	}
	if out.String() != "before\n" {
		t.Errorf("stdout %q, want only what was written before the panic", out.String())
	}
}

// TestOutputEachGoroutine: with a file per processor, a goroutine started
// in an iteration prints into the file of the processor that started it
// (it printed into processor 0's: with no trace it had no lane).
func TestOutputEachGoroutine(t *testing.T) {
	dir := t.TempDir()
	pattern := filepath.Join(dir, "out%d.txt")
	err := Run(testProg(), Params{NProcs: 2, Stderr: io.Discard, UserStdout: Output{Mode: OutEach, Path: pattern}}, func(p *Proc) {
		p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			for it.Next() {
				l := GoLane()
				done := make(chan struct{})
				go func() {
					defer close(done)
					defer GoRecover(l, "out_test.go:1:1")
					l.GoEnter("out_test.go:1:1")
					fmt.Fprintf(Current().Stdout(), "goroutine of %d\n", q.ID())
				}()
				<-done
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		b, err := os.ReadFile(fmt.Sprintf(pattern, i))
		if want := fmt.Sprintf("goroutine of %d\n", i); err != nil || string(b) != want {
			t.Errorf("file %d: %q %v, want %q", i, b, err, want)
		}
	}
}
