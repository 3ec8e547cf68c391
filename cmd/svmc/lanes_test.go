package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
)

// A program whose main starts goroutines the ways Go programs do (a
// closure over a WaitGroup, a method value, a function with arguments)
// that call an instrumented function, and one that never ends.
const lanesProg = `package main

import (
	"fmt"
	"sync"
)

func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i % 7
	}
	return s
}

type acc struct {
	mu  sync.Mutex
	sum int
}

func (a *acc) add(n int, wg *sync.WaitGroup) {
	defer wg.Done()
	v := work(n)
	a.mu.Lock()
	a.sum += v
	a.mu.Unlock()
}

func main() {
	var a acc
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 4; k++ {
				v := work(20000)
				a.mu.Lock()
				a.sum += v
				a.mu.Unlock()
			}
		}()
	}
	wg.Add(2)
	go a.add(30000, &wg)
	go a.add(30000, &wg)
	wg.Wait()
	block := make(chan int)
	go func() { work(10); <-block }()
	out := make([]int, 4)
	//svm:pdo loops(i)
	for i := 0; i < 4; i++ {
		out[i] = work(1000)
	}
	fmt.Println(a.sum, out[3])
}
`

// TestGoroutineLanes (issue 11, item 2): the goroutines a processor
// starts are traced on lanes of their own (node ids from N on, named
// P0/g1 ... in the view) whose regions count as that processor's work in
// the report; N stays the run's processors; a goroutine still blocked at
// the end keeps its records; without a trace the program runs as before.
func TestGoroutineLanes(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": lanesProg})
	plain := runSvmc(t, dir, "run", "-n", "2", ".")
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 0 || plain.code != 0 || res.stdout != plain.stdout || res.stdout != "899954 2997\n" {
		t.Fatalf("runs: exit %d and %d, output %q and %q\n%s", plain.code, res.code, plain.stdout, res.stdout, res.stderr)
	}
	starts, ends, onLanes := 0, 0, 0
	lanes := map[int]bool{}
	for _, r := range readTrace(t, tr) {
		node := r.Int("node id")
		switch r.Desc.Tag {
		case trace.TagGoroutineStart:
			starts++
			lanes[node] = true
			if node < 2 || r.Int("processor") != 0 || !strings.HasPrefix(r.String("started at"), "main.go:") {
				t.Errorf("goroutine-start on node %d of processor %d at %q", node, r.Int("processor"), r.String("started at"))
			}
		case trace.TagGoroutineEnd:
			ends++
		case trace.TagTraceRegionStart:
			if node >= 2 {
				onLanes++
			}
		}
	}
	// 3 closures, 2 method values, the blocked one: 6 goroutines, 5 ended;
	// work called 12 + 2 + 1 times on the lanes, acc.add twice.
	if starts != 6 || ends != 5 || onLanes != 17 || len(lanes) < 2 || len(lanes) > 6 {
		t.Errorf("%d goroutine-start, %d goroutine-end, %d regions on %d lanes; want 6, 5, 17 on 2 to 6", starts, ends, onLanes, len(lanes))
	}

	rep := runSvmc(t, dir, "report", "--format", "json", tr)
	var out struct {
		Model struct {
			Procs      int
			PerProc    []json.RawMessage `json:"per_proc"`
			Goroutines []struct {
				Proc, Goroutines, Lanes, Unfinished int
				Life                                float64 `json:"life_us"`
				Where                               []struct {
					At         string
					Goroutines int
				}
			}
			Serial []struct {
				Time       float64 `json:"time_us"`
				Goroutines float64 `json:"goroutines_us"`
			}
			Regions []struct {
				Func    string
				Type    string
				PerProc []struct{ Calls int } `json:"per_proc"`
			}
		}
	}
	if err := json.Unmarshal([]byte(rep.stdout), &out); err != nil {
		t.Fatalf("report: %v\n%s", err, rep.stderr)
	}
	m := out.Model
	if m.Procs != 2 || len(m.PerProc) != 2 {
		t.Errorf("report: %d processors (%d rows), want 2: lanes are no processors", m.Procs, len(m.PerProc))
	}
	if len(m.Goroutines) != 1 || m.Goroutines[0].Proc != 0 || m.Goroutines[0].Goroutines != 6 || m.Goroutines[0].Unfinished != 1 ||
		m.Goroutines[0].Life <= 0 || len(m.Goroutines[0].Where) != 4 {
		t.Errorf("goroutines %+v; want processor 0's 6 from 4 go statements, 1 unfinished", m.Goroutines)
	}
	for _, r := range m.Regions {
		if r.Func == "work" && r.Type == "subroutine" {
			// 15 calls on processor 0's lanes, 2 by each processor in the pdo.
			if len(r.PerProc) != 2 || r.PerProc[0].Calls != 17 || r.PerProc[1].Calls != 2 {
				t.Errorf("work's calls per processor %+v, want 17 (15 from processor 0's goroutines) and 2", r.PerProc)
			}
		}
	}
	// main waits for its goroutines in serial code: the serial time says
	// how much of it they were alive.
	during := 0.0
	for _, s := range m.Serial {
		if s.Goroutines > s.Time+1e-6 {
			t.Errorf("serial code of %.1f µs with goroutines alive for %.1f µs of it", s.Time, s.Goroutines)
		}
		during += s.Goroutines
	}
	if during <= 0 || during > m.Goroutines[0].Life+1e-6 {
		t.Errorf("serial time with goroutines alive: %.1f µs, want some and at most their lives' %.1f µs", during, m.Goroutines[0].Life)
	}
	text := runSvmc(t, dir, "report", tr)
	if !strings.Contains(text.stdout, "Goroutines the processors started") || strings.Contains(text.stdout, "in a trace of 2 processors") {
		t.Errorf("text report:\n%s", text.stdout)
	}

	page := filepath.Join(dir, "v.html")
	if res := runSvmc(t, dir, "view", "-o", page, tr); res.code != 0 {
		t.Fatalf("view: %s", res.stderr)
	}
	data, _ := os.ReadFile(page)
	if !strings.Contains(string(data), `"lanes":["P0","P1","P0/g1"`) || !strings.Contains(string(data), "goroutine main.go:") {
		t.Errorf("the view does not name the goroutines' lanes after processor 0")
	}
}

// goMutexProg: goroutines of the program contend for a mutex (the second
// locks while the first holds it for 20 ms); with an argument, two
// goroutines lock two mutexes in opposite orders and deadlock.
const goMutexProg = `package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

type account struct {
	mu  sync.Mutex
	bal int
}

func hold(a *account, held chan<- bool, d time.Duration, wg *sync.WaitGroup) {
	defer wg.Done()
	a.mu.Lock()
	held <- true
	time.Sleep(d)
	a.bal++
	a.mu.Unlock()
}

func take(a *account, wg *sync.WaitGroup) {
	defer wg.Done()
	a.mu.Lock()
	a.bal++
	a.mu.Unlock()
}

func transfer(from, to *account, mine, theirs chan bool, wg *sync.WaitGroup) {
	defer wg.Done()
	from.mu.Lock()
	mine <- true
	<-theirs
	to.mu.Lock()
	from.bal--
	to.bal++
	to.mu.Unlock()
	from.mu.Unlock()
}

func main() {
	x, y := &account{}, &account{}
	var wg sync.WaitGroup
	if len(os.Args) > 1 {
		a, b := make(chan bool, 1), make(chan bool, 1)
		wg.Add(2)
		go transfer(x, y, a, b, &wg)
		go transfer(y, x, b, a, &wg)
		wg.Wait()
		return
	}
	held := make(chan bool)
	wg.Add(2)
	go hold(x, held, 20*time.Millisecond, &wg)
	<-held
	go take(x, &wg)
	wg.Wait()
	fmt.Println(x.bal)
}
`

// TestGoroutineMutexWaits: the waits of goroutines the program started
// for its own mutexes are their processor's: the waiting table lists them
// in processor 0's column, counted as goroutines' waits, and the lock
// finding says goroutines wait. A run in which two goroutines lock two
// mutexes in opposite orders deadlocks: both waits last to the run's end,
// the goroutines' lives and regions too, and the finding names the
// lock-order inversion.
func TestGoroutineMutexWaits(t *testing.T) {
	t.Setenv("SVMC_DEADLOCK_MS", "100")
	dir := writeModule(t, map[string]string{"main.go": goMutexProg})
	type wait struct {
		Wait       string    `json:"wait"`
		Line       int       `json:"line"`
		Total      float64   `json:"total_us"`
		PerProc    []float64 `json:"per_proc_us"`
		Count      int64     `json:"count"`
		Goroutines int64     `json:"goroutine_waits"`
		Unfinished int64     `json:"unfinished"`
	}
	type report struct {
		Model struct {
			Duration     float64 `json:"duration_us"`
			Waits        []wait  `json:"waits"`
			StuckMutexes int     `json:"stuck_mutexes"`
			Goroutines   []struct {
				Life float64 `json:"life_us"`
			} `json:"goroutines"`
		} `json:"model"`
		Findings []struct {
			Kind   string `json:"kind"`
			Title  string `json:"title"`
			Advice string `json:"advice"`
		} `json:"findings"`
	}
	run := func(args ...string) (report, result) {
		tr := filepath.Join(t.TempDir(), "t.sddf")
		res := runSvmc(t, dir, append([]string{"run", "-n", "2", "--trace", tr, ".", "--"}, args...)...)
		rep := runSvmc(t, dir, "report", "--format", "json", tr)
		var r report
		if err := json.Unmarshal([]byte(rep.stdout), &r); err != nil {
			t.Fatalf("report: %v\n%s", err, rep.stderr)
		}
		return r, res
	}
	r, res := run()
	if res.code != 0 || strings.TrimSpace(res.stdout) != "2" {
		t.Fatalf("contended run: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	var lockFinding string
	for _, f := range r.Findings {
		if f.Kind == "lock" {
			lockFinding = f.Title
		}
	}
	found := false
	for _, w := range r.Model.Waits {
		if w.Wait == "mutex" && w.Line == 26 {
			found = true
			if w.Goroutines != w.Count || w.Count < 1 || w.PerProc[0] < 5e3 {
				t.Errorf("the goroutine's mutex wait %+v, want processor 0's, about 20 ms", w)
			}
		}
	}
	if !found || !strings.HasPrefix(lockFinding, "goroutines of processor 0 wait ") {
		t.Errorf("waits %+v, lock finding %q: want take's wait at line 26, by goroutines of processor 0", r.Model.Waits, lockFinding)
	}

	r, res = run("deadlock")
	if res.code != 2 || !strings.Contains(res.stderr, "blocked (sync.Mutex.Lock) in main.transfer at main.go:36") {
		t.Fatalf("inverted run: exit %d\n%s", res.code, res.stderr)
	}
	var w0 *wait
	for i := range r.Model.Waits {
		if r.Model.Waits[i].Wait == "mutex" {
			w0 = &r.Model.Waits[i]
		}
	}
	// The deadlock is found after ten quiet looks of the watchdog (1 s):
	// the waits began within milliseconds of the start.
	if w0 == nil || w0.Line != 36 || w0.Unfinished != 2 || w0.Total < 1.5*0.9*r.Model.Duration || r.Model.StuckMutexes != 2 {
		t.Fatalf("waits of the deadlocked run %+v (stuck mutexes %d, run %v µs), want 2 unfinished at line 36 lasting to the end", r.Model.Waits, r.Model.StuckMutexes, r.Model.Duration)
	}
	if len(r.Model.Goroutines) != 1 || r.Model.Goroutines[0].Life < 1.8*r.Model.Duration*0.9 {
		t.Errorf("goroutines %+v: want two lives lasting to the end of a %v µs run", r.Model.Goroutines, r.Model.Duration)
	}
	for _, f := range r.Findings {
		if f.Kind == "lock" && strings.Contains(f.Title, "for different mutexes") && strings.Contains(f.Advice, "lock-order inversion") {
			return
		}
	}
	t.Errorf("no lock-order finding in %+v", r.Findings)
}

// TestGoroutinesFillIdleTime: main starts eight goroutines that compute
// and waits for them. On two processors the goroutines run on both cores:
// the report counts processor 1's time outside constructs as their work,
// not as idle time, and finds no serial code to parallelise. (Without the
// goroutines' work processor 1 would idle the whole run: efficiency 0.5, a
// serial finding of severity 0.5. A loaded machine runs fewer goroutines
// at once and starts processor 1 late, behind them: that much is idle.)
func TestGoroutinesFillIdleTime(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"sync"
)

func work(seed int) float64 {
	s := 0.0
	for i := 0; i < 3_000_000; i++ {
		s += float64((i*seed)%7) * 0.5
	}
	return s
}

func main() {
	res := make([]float64, 8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[g] = work(g + 1)
		}()
	}
	wg.Wait()
	fmt.Println(len(res))
}
`})
	var rep struct {
		Model struct {
			Time struct {
				Efficiency float64 `json:"efficiency"`
				Goroutines float64 `json:"goroutines_us"`
				Serial     float64 `json:"serial_us"`
			} `json:"time"`
		} `json:"model"`
		Findings []struct {
			Kind     string  `json:"kind"`
			Severity float64 `json:"severity"`
		} `json:"findings"`
	}
	reportJSON(t, dir, ".", 2, &rep)
	tm := rep.Model.Time
	if tm.Goroutines <= 0 || tm.Serial > tm.Goroutines || tm.Efficiency < 0.65 {
		t.Errorf("time %+v: want processor 1's time as the goroutines' work, efficiency near 1", tm)
	}
	for _, f := range rep.Findings {
		if f.Kind == "serial" && f.Severity > 0.3 {
			t.Errorf("serial finding of severity %.2f though goroutines used the idle core", f.Severity)
		}
	}
}

// startedProg starts goroutines by calls, as Go 1.25 programs do
// (WaitGroup.Go) and timers do (time.AfterFunc), each calling work.
const startedProg = `package main

import (
	"fmt"
	"sync"
	"time"
)

func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i % 7
	}
	return s
}

func main() {
	var wg sync.WaitGroup
	sums := make([]int, 3)
	for g := range 3 {
		wg.Go(func() { sums[g] = work(1000 * (g + 1)) })
	}
	wg.Wait()
	// Timeouts set and stopped before they fire, more than a run's lanes.
	for range 2000 {
		t := time.AfterFunc(time.Hour, func() { work(1) })
		t.Stop()
	}
	done := make(chan int)
	time.AfterFunc(time.Millisecond, func() { done <- work(10) })
	fmt.Println(sums, <-done)
}
`

// TestStartedGoroutineLanes: a goroutine that a call starts (wg.Go,
// time.AfterFunc) gets its lane of the processor that made the call, as a
// go statement's does, with the call's position as where it started, and
// its regions on that lane. Before, such goroutines had no lane and their
// calls were left out of the trace. A timer stopped before it fires holds
// no lane: 2000 of them leave the run its lanes.
func TestStartedGoroutineLanes(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": startedProg})
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 0 || res.stdout != "[2997 5995 8994] 24\n" || res.stderr != "" {
		t.Fatalf("exit %d, output %q, stderr:\n%s", res.code, res.stdout, res.stderr)
	}
	where := map[string]int{}
	onLanes := 0
	for _, r := range readTrace(t, tr) {
		switch r.Desc.Tag {
		case trace.TagGoroutineStart:
			where[r.String("started at")]++
		case trace.TagTraceRegionStart:
			if r.Int("node id") >= 2 {
				onLanes++
			}
		}
	}
	if want := map[string]int{"main.go:21:3": 3, "main.go:30:2": 1}; !maps.Equal(where, want) {
		t.Errorf("goroutine-start records by where they started: %v, want %v", where, want)
	}
	if onLanes != 4 { // work on each of the four lanes
		t.Errorf("%d regions on lanes, want 4", onLanes)
	}
}
