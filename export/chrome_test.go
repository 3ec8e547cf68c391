package export_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svmc/svmc/export"
	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
	"github.com/svmc/svmc/view"
)

// census is what a trace holds, counted straight from its records without
// the view: the slices an export must contain (regions, waits, and the
// locks and critical sections held) and the other records, per processor.
type census struct {
	slices   map[int]int            // per processor
	names    map[int]map[string]int // per processor: slices by region site (sub/dir/type)
	records  map[int]int            // per processor, all records
	instants map[int]int            // per processor: records that are neither start nor end
	mpi      map[int]int            // per processor: OTF2's other events (messages sent and received, collectives begun and ended, locks acquired and released, forks and joins)
	holds    int                    // locks and critical sections held
}

func count(t *testing.T, data []byte, atomicDirs map[[2]int]bool) census {
	t.Helper()
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := census{map[int]int{}, map[int]map[string]int{}, map[int]int{}, map[int]int{}, map[int]int{}, 0}
	writer := 0
	// Instances of the parallel constructs: the k-th start of a site on
	// each processor; OTF2 writes a fork and a join on the lowest.
	starts := map[[3]int]map[int]int{} // site -> processor -> starts
	for r, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		// template-dist names the owner, but the leader writes it.
		if r.Desc.Tag != trace.TagTemplateDist {
			writer = r.Node()
		}
		if r.Desc.Name == "trace-end" || r.Desc.Name == "stat-interval" || r.Desc.Name == "stat-group" {
			continue // written after the run: no processor's event
		}
		c.records[writer]++
		sd := [2]int{r.Int("subprogram number"), r.Int("directive number")}
		switch k := r.Int("call kind"); r.Desc.Name {
		case "msg-call-start":
			if trace.IsCollective(k) {
				c.mpi[writer] += 2
			} else if r.Int("message id") > 0 {
				c.mpi[writer]++
			}
		case "msg-call-stop":
			if (k == trace.CallRecv || k == trace.CallSendrecv) && r.Int("matched source") >= 0 {
				c.mpi[writer]++
			}
		case "msg-request-done":
			if k == trace.CallIrecv {
				c.mpi[writer]++
			}
		}
		switch r.Desc.Name {
		case "trace-region-start":
			c.slices[writer]++
			if ty := r.Int("trace region type"); ty == trace.RegionPSection || ty == trace.RegionPDO || ty == trace.RegionReplicated {
				k := [3]int{sd[0], sd[1], ty}
				if starts[k] == nil {
					starts[k] = map[int]int{}
				}
				starts[k][writer]++
			}
			if c.names[writer] == nil {
				c.names[writer] = map[string]int{}
			}
			c.names[writer][strconv.Itoa(sd[0])+"/"+strconv.Itoa(sd[1])+"/"+strconv.Itoa(r.Int("trace region type"))]++
		case "wait-barrier-start", "wait-bcheckout-start", "wait-lock-start", "wait-crit-sec-start", "msg-call-start":
			c.slices[writer]++
		case "wait-lock-stop":
			if !atomicDirs[sd] {
				c.slices[writer]++ // the lock is held until release-lock
				c.mpi[writer] += 2 // OTF2: acquire and release
				c.holds++
			}
		case "wait-crit-sec-stop":
			c.slices[writer]++ // the critical section is held until exit-crit-sec
			c.mpi[writer] += 2
			c.holds++
		case "trace-region-stop", "wait-barrier-stop", "wait-bcheckout-stop", "release-lock", "exit-crit-sec", "msg-call-stop":
		default:
			c.instants[writer]++
		}
	}
	for _, per := range starts {
		most := 0
		for _, n := range per {
			most = max(most, n)
		}
		for k := 0; k < most; k++ {
			lead := -1
			for p, n := range per {
				if n > k && (lead < 0 || p < lead) {
					lead = p
				}
			}
			c.mpi[lead] += 2
		}
	}
	return c
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func timeline(t *testing.T, data []byte) *view.Timeline {
	t.Helper()
	tl, err := view.Build(bytes.NewReader(data), int64(len(data)), "test.sddf", view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

type chromeFile struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Cat  string         `json:"cat"`
		Ph   string         `json:"ph"`
		TS   *float64       `json:"ts"`
		PID  *int           `json:"pid"`
		TID  *int           `json:"tid"`
		S    string         `json:"s"`
		ID   int            `json:"id"`
		BP   string         `json:"bp"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// checkChrome parses the export back and checks its structure against the
// trace's census. It returns the number of B events per tid.
func checkChrome(t *testing.T, out []byte, c census, procs int) map[int]int {
	t.Helper()
	var f chromeFile
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("the export is not trace-event JSON: %v", err)
	}
	procNames, threadNames := 0, map[int]string{}
	begins, instants := map[int]int{}, map[int]int{}
	stacks := map[int][]string{}
	last := map[int]float64{}
	type flowEv struct {
		ph string
		ts float64
	}
	flows := map[int][]flowEv{}
	for i, e := range f.TraceEvents {
		if e.TS == nil || e.PID == nil || e.TID == nil || e.Ph == "" {
			t.Fatalf("event %d lacks ph, ts, pid or tid: %+v", i, e)
		}
		if *e.PID != export.ChromePID {
			t.Errorf("event %d: pid %d, want one pid for the run", i, *e.PID)
		}
		tid := *e.TID
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name":
				procNames++
			case "thread_name":
				threadNames[tid], _ = e.Args["name"].(string)
			}
			continue
		case "B":
			begins[tid]++
			stacks[tid] = append(stacks[tid], e.Name)
			if e.Cat == "" {
				t.Errorf("event %d: B without a category", i)
			}
		case "E":
			st := stacks[tid]
			if len(st) == 0 {
				t.Fatalf("event %d: E on tid %d without an open B", i, tid)
			}
			if st[len(st)-1] != e.Name {
				t.Errorf("event %d: E %q closes B %q on tid %d", i, e.Name, st[len(st)-1], tid)
			}
			stacks[tid] = st[:len(st)-1]
		case "i":
			instants[tid]++
			if e.S != "t" || e.Args["record"] == nil {
				t.Errorf("event %d: instant %+v, want thread scope and the record", i, e)
			}
		case "s", "f":
			if e.ID <= 0 || e.Cat != "message" && e.Cat != "lock" && e.Cat != "barrier" || e.Ph == "f" && e.BP != "e" {
				t.Errorf("event %d: flow event %+v", i, e)
			}
			if len(stacks[tid]) == 0 {
				t.Errorf("event %d: flow event outside every slice on tid %d", i, tid)
			}
			flows[e.ID] = append(flows[e.ID], flowEv{e.Ph, *e.TS})
		default:
			t.Errorf("event %d: unexpected phase %q", i, e.Ph)
		}
		if *e.TS < last[tid] {
			t.Errorf("event %d: ts %v before %v on tid %d", i, *e.TS, last[tid], tid)
		}
		last[tid] = *e.TS
	}
	if procNames != 1 {
		t.Errorf("%d process_name events, want 1", procNames)
	}
	for p := 0; p < procs; p++ {
		if threadNames[p] != "processor "+strconv.Itoa(p) {
			t.Errorf("thread_name of tid %d = %q", p, threadNames[p])
		}
		if len(stacks[p]) != 0 {
			t.Errorf("tid %d: %d B without E: %q", p, len(stacks[p]), stacks[p])
		}
		if begins[p] != c.slices[p] {
			t.Errorf("tid %d: %d slices, the trace has %d regions, waits and holds", p, begins[p], c.slices[p])
		}
		if instants[p] != c.instants[p] {
			t.Errorf("tid %d: %d instants, the trace has %d other records", p, instants[p], c.instants[p])
		}
	}
	if len(threadNames) != procs {
		t.Errorf("%d thread names, want %d", len(threadNames), procs)
	}
	// The events are written thread by thread: a flow's two ends may come
	// in either order in the file, but the receive is never before the send.
	for id, ev := range flows {
		if len(ev) == 2 && ev[0].ph == "f" {
			ev[0], ev[1] = ev[1], ev[0]
		}
		if len(ev) != 2 || ev[0].ph != "s" || ev[1].ph != "f" || ev[1].ts < ev[0].ts {
			t.Errorf("flow %d: %v, want a start and a later finish", id, ev)
		}
	}
	return begins
}

func exportChrome(t *testing.T, tl *view.Timeline) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := export.WriteChrome(&buf, tl); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestChromeExample31(t *testing.T) {
	data := fixture(t, "ex31.sddf")
	tl := timeline(t, data)
	out := exportChrome(t, tl)
	checkChrome(t, out, count(t, data, nil), 4)
	// Slices carry their source.
	for _, want := range []string{`"name":"pdo fill","cat":"pdo","ph":"B"`, `"source":"main.go:30"`,
		`"name":"implicit barrier wait: pdo fill"`, `"function":"G"`, `"name":"template-info","cat":"record","ph":"i"`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the export lacks %s", want)
		}
	}
}

// TestChromeMessages: the halo exchange's messages are flow events from
// the send call to the receive, one pair per message.
func TestChromeMessages(t *testing.T) {
	data := fixture(t, "halo.sddf")
	tl := timeline(t, data)
	out := exportChrome(t, tl)
	checkChrome(t, out, count(t, data, nil), 4)
	if bytes.Contains(out, []byte(`"args":null`)) {
		t.Error("an event with null args")
	}
	if n := bytes.Count(out, []byte(`"cat":"message","ph":"s"`)); n != len(tl.Messages) || n == 0 {
		t.Errorf("%d flow starts, %d messages", n, len(tl.Messages))
	}
}

func TestChromeJacobi(t *testing.T) {
	data := fixture(t, "jacobi.sddf")
	checkChrome(t, exportChrome(t, timeline(t, data)), count(t, data, nil), 4)
}

func TestChromeSyncKinds(t *testing.T) {
	data, err := tracetest.Sync2().Encode(trace.ASCII, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	atomic := map[[2]int]bool{{tracetest.SubMain, tracetest.DirAtomic}: true}
	out := exportChrome(t, timeline(t, data))
	checkChrome(t, out, count(t, data, atomic), 2)
	for _, want := range []string{`"cat":"critical section"`, `"cat":"lock held"`, `"cat":"barrier checkout wait"`, `"label":"upd"`, `"name":"lock handoff","cat":"lock"`, `"name":"barrier release","cat":"barrier"`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the export lacks %s", want)
		}
	}
}

// TestChromeClockCorrection: a clock the order had to correct keeps its
// value in args, and ts is the corrected time.
func TestChromeClockCorrection(t *testing.T) {
	s := tracetest.New(2)
	for p, in := range []float64{12, 5} {
		s.Start(p, 0, 1, 0, trace.RegionProgram)
		s.Sync(p, in, trace.TagWaitBarrierStart, 1, tracetest.DirBar)
		s.Sync(p, []float64{13, 10}[p], trace.TagWaitBarrierStop, 1, tracetest.DirBar)
		s.Stop(p, 20, 1, 0, trace.RegionProgram)
	}
	data, err := s.Encode(trace.Binary, tracetest.Prog())
	if err != nil {
		t.Fatal(err)
	}
	out := string(exportChrome(t, timeline(t, data)))
	if !strings.Contains(out, `"ph":"E","ts":12,"pid":1,"tid":1,"args":{"clock":10}`) {
		t.Errorf("P1's barrier exit is not at the corrected time 12 with its clock 10:\n%s", out)
	}
}

// traceEngine returns the directory where .ci/setup.sh installed npm's
// @paulirish/trace_engine (SVMC_TRACE_ENGINE overrides it), or skips.
func traceEngine(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the check with DevTools' trace engine is skipped")
	}
	dir = os.Getenv("SVMC_TRACE_ENGINE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no cache directory for the trace engine: %v", err)
		}
		dir = filepath.Join(cache, "svmc", "trace_engine")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@paulirish", "trace_engine", "package.json")); err != nil {
		t.Skipf("npm @paulirish/trace_engine is not installed in %s (.ci/setup.sh installs it): skipped", dir)
	}
	return node, dir
}

// TestChromeTraceEngine reads the exports with DevTools' own trace model,
// the code behind the Performance panel, and checks that it sees one
// thread per processor with every slice.
func TestChromeTraceEngine(t *testing.T) {
	node, dir := traceEngine(t)
	for _, name := range []string{"ex31.sddf", "jacobi.sddf", "halo.sddf"} {
		data := fixture(t, name)
		tl := timeline(t, data)
		out := exportChrome(t, tl)
		begins := checkChrome(t, out, count(t, data, nil), tl.Procs)
		// Plain, and gzip-compressed as svmc export -o NAME.json.gz
		// writes it (the engine's reader takes it an event per line).
		path := filepath.Join(t.TempDir(), "trace.json")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(out)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+".gz", zb.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		engine := func(file string) []byte {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := exec.CommandContext(ctx, node, filepath.Join("testdata", "trace_engine_check.mjs"), dir, file).Output()
			if err != nil {
				msg := ""
				if ee, ok := err.(*exec.ExitError); ok {
					msg = string(ee.Stderr)
				}
				t.Fatalf("%s: the trace engine failed on %s: %v\n%s", name, filepath.Base(file), err, msg)
			}
			return res
		}
		res := engine(path)
		if gz := engine(path + ".gz"); !bytes.Equal(gz, res) {
			t.Errorf("%s: the trace engine read the gzip-compressed export as\n%s\nand the plain one as\n%s", name, gz, res)
		}
		var threads map[string]struct {
			PID    int
			Name   string
			Slices int
			Depth  int
		}
		if err := json.Unmarshal(res, &threads); err != nil {
			t.Fatalf("%s: trace engine output %q: %v", name, res, err)
		}
		t.Logf("%s: trace engine: %s", name, bytes.TrimSpace(res))
		if len(threads) != tl.Procs {
			t.Errorf("%s: the trace engine sees %d threads, want %d: %s", name, len(threads), tl.Procs, res)
		}
		depth := map[int]int{}
		for i := range tl.Intervals {
			iv := &tl.Intervals[i]
			depth[iv.Proc] = max(depth[iv.Proc], iv.Depth+1)
		}
		for p := 0; p < tl.Procs; p++ {
			th := threads[strconv.Itoa(p)]
			if th.PID != export.ChromePID || th.Name != "processor "+strconv.Itoa(p) || th.Slices != begins[p] || th.Depth != depth[p] {
				t.Errorf("%s: thread %d as the trace engine sees it: %+v; want %d slices %d deep", name, p, th, begins[p], depth[p])
			}
		}
	}
}
