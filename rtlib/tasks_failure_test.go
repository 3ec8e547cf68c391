package rtlib_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	rt "github.com/svmc/svmc/rtlib"
	"github.com/svmc/svmc/trace"
)

// Failure paths of tasks and synchronisation, run through rt.Main in a
// subprocess (see TestMain): message, exit status 2, no Go stack, the trace
// flushed with every processor's records and trace-end.

var lockedVar int

func init() {
	// A barrier in a branch only processor 0 takes, inside a replicated
	// region; the others go on to a split-barrier checkout that waits for
	// processor 0's check-in.
	bodies["deadlock"] = func(p *rt.Proc) {
		p.Replicated(1, 1, func(q *rt.Proc) {
			if q.ID() == 0 {
				q.Barrier(1, 2)
			}
			q.BarrierCheckin(1, 3)
			q.BarrierCheckout(1, 4)
		})
	}
	// Processor 1 takes a lock and then blocks at a barrier the others,
	// waiting for the lock, never reach.
	bodies["lockheld"] = func(p *rt.Proc) {
		p.Replicated(1, 1, func(q *rt.Proc) {
			if q.ID() != 1 {
				time.Sleep(20 * time.Millisecond)
			}
			h := q.Lock(1, 2, rt.VarOf(&lockedVar))
			if q.ID() == 1 {
				q.Barrier(1, 3)
			}
			q.Unlock(1, 2, h)
		})
	}
	// The leader enters a critical section it is inside of; the others
	// are idle.
	bodies["critself"] = func(p *rt.Proc) {
		p.CriticalEnter(1, 2, "c")
		p.CriticalEnter(1, 3, "c")
	}
	// Processor 0 at an explicit barrier, the others at the end of the
	// replicated region.
	bodies["sites"] = func(p *rt.Proc) {
		p.Replicated(1, 1, func(q *rt.Proc) {
			if q.ID() == 0 {
				q.Barrier(1, 2)
			}
		})
	}
	bodies["sectionpanic"] = sectionPanicBody
}

// traceEnd reads a trace file and returns its records by node and the
// status of trace-end.
func traceEnd(t *testing.T, path string) (map[int]int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := trace.NewReader(f)
	if err != nil {
		t.Fatalf("trace unreadable: %v", err)
	}
	nodes := map[int]int{}
	status := -1
	for r, err := range rd.All() {
		if err != nil {
			t.Fatalf("trace unreadable: %v", err)
		}
		if r.Desc.Name == "trace-end" {
			status = r.Int("status")
			continue
		}
		nodes[r.Node()]++
	}
	return nodes, status
}

func TestTaskFailures(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, procs string
		want        string
		status      int
	}{
		{"deadlock", "3", "svmc: deadlock: no processor can proceed\n" +
			"  processor 0: waiting at barrier (user.go:12:3)\n" +
			"  processor 1: waiting at barrier checkout (user.go:14:3)\n" +
			"  processor 2: waiting at barrier checkout (user.go:14:3)\n", trace.EndDeadlock},
		{"lockheld", "3", "svmc: deadlock: no processor can proceed\n" +
			"  processor 0: waiting for a lock (user.go:12:3)\n" +
			"  processor 1: waiting at barrier (user.go:13:3)\n" +
			"  processor 2: waiting for a lock (user.go:12:3)\n", trace.EndDeadlock},
		{"critself", "2", "svmc: deadlock: no processor can proceed\n" +
			"  processor 0: waiting to enter the critical section (user.go:13:3)\n" +
			"  processor 1: idle, waiting for work from processor 0\n", trace.EndDeadlock},
		{"sites", "3", "svmc: processors reached different barriers:\n" +
			"  user.go:12:3 barrier: processor 0\n" +
			"  user.go:11:3 end of replicated region: processors 1, 2\n", trace.EndError},
		{"sectionpanic", "3", "svmc: processor 2 panicked: assignment to entry in nil map\n\tat user.go:61\n", trace.EndPanic},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".sddf")
			start := time.Now()
			stderr, code := runProg(t, c.name, "SVMC_NPROCS="+c.procs, "SVMC_TRACE="+path, "SVMC_STAGE=3", "SVMC_DEADLOCK_MS=200")
			if code != 2 || stderr != c.want {
				t.Errorf("exit %d, stderr %q\nwant exit 2, %q", code, stderr, c.want)
			}
			if strings.Contains(stderr, "goroutine") {
				t.Errorf("stack trace printed")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			nodes, status := traceEnd(t, path)
			if status != c.status {
				t.Errorf("trace-end status %d, want %d", status, c.status)
			}
			// Every processor's records are flushed: at least its program
			// region start.
			if n, _ := strconv.Atoi(c.procs); len(nodes) != n {
				t.Errorf("records of nodes %v, want %d nodes", nodes, n)
			}
		})
	}
}
