package analysis

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// genTrace writes a runtime-like binary trace of about events records on
// procs processors to w: per processor a 1 MiB buffer written out as one
// run when full (as rtlib does), loops of testProg's G alternating a
// triangular (sub 1 dir 2) and a balanced (sub 1 dir 3) one, each instance
// with pdo-info, aps-info and pdo-iteration-space by the leader and
// region start, pdo-work, barrier start and stop and region stop on every
// processor, and a call of T.M on the leader between loops. It returns the
// number of records written.
func genTrace(w io.Writer, procs int, events int64) (int64, error) {
	js, err := progdb.Marshal(testProg())
	if err != nil {
		return 0, err
	}
	tw, err := trace.NewWriter(w, trace.Binary, []trace.Attr{
		{Key: replay.ProgAttr, Value: string(js)},
		{Key: "processors", Value: strconv.Itoa(procs)},
		{Key: "stage", Value: "3"},
	})
	if err != nil {
		return 0, err
	}
	bufs := make([]trace.Buf, procs)
	pids := make([]int, procs)
	for p := range pids {
		pids[p] = p
	}
	var n int64
	flush := func(p int, force bool) error {
		if b := &bufs[p]; b.Len() > 0 && (force || b.Len() >= 1<<20) {
			n += int64(b.Records())
			if err := tw.WriteBuf(b); err != nil {
				return err
			}
			b.Reset()
		}
		return nil
	}
	rec := func(p int, t float64, tag trace.Tag, ints ...int) {
		b := &bufs[p]
		b.Begin(tag, p, t)
		for _, v := range ints {
			b.Int(v)
		}
		b.End()
	}
	perInstance := int64(5*procs + 3 + 2)
	instances := max(1, (events-int64(4*procs))/perInstance)
	t := 0.0
	for p := 0; p < procs; p++ {
		rec(p, t, trace.TagTraceRegionStart, 2, 0, trace.RegionProgram)
	}
	rec(0, t, trace.TagTraceRegionStart, 1, 0, trace.RegionSubroutine)
	for k := int64(0); k < instances; k++ {
		dir := 2 + int(k%2)
		t += 10
		rec(0, t, trace.TagTraceRegionStart, 3, 0, trace.RegionSubroutine)
		t += 5
		rec(0, t, trace.TagTraceRegionStop, 3, 0, trace.RegionSubroutine)
		start := t + 1
		var end float64
		for p := 0; p < procs; p++ {
			busy := 100.0
			if dir == 2 {
				busy = 50 * float64(2*p+1) // 1:3:5:7...
			}
			end = max(end, start+busy)
		}
		for p := 0; p < procs; p++ {
			busy := 100.0
			if dir == 2 {
				busy = 50 * float64(2*p+1)
			}
			rec(p, start, trace.TagTraceRegionStart, 1, dir, trace.RegionPDO)
			b := &bufs[p]
			if p == 0 {
				b.Begin(trace.TagPDOInfo, 0, start+0.5)
				b.Int(1)
				b.Int(dir)
				b.Int(0)
				b.IntRows(2, []int{0, procs - 1})
				b.Ints(nil)
				b.Ints(nil)
				b.Double(0.5)
				b.End()
				b.Begin(trace.TagAPSInfo, 0, start+0.6)
				b.Ints(pids)
				b.End()
			}
			b.Begin(trace.TagPDOWork, p, start+busy)
			b.Int(1)
			b.Int(dir)
			b.Int(100)
			b.Double(busy)
			b.Int(0)    // chunks: a static schedule fetches none
			b.Double(0) // dispatch
			b.End()
			rec(p, start+busy, trace.TagWaitBarrierStart, 1, dir)
			rec(p, end+2, trace.TagWaitBarrierStop, 1, dir)
			if p == 0 {
				b.Begin(trace.TagPDOIterationSpace, 0, end+3)
				b.Int(1)
				b.Int(dir)
				b.IntRows(9, []int{0, 99, 1, 0, 99, 1, 0, 0, 0})
				b.End()
			}
			rec(p, end+4, trace.TagTraceRegionStop, 1, dir, trace.RegionPDO)
		}
		t = end + 4
		for p := 0; p < procs; p++ {
			if err := flush(p, false); err != nil {
				return n, err
			}
		}
	}
	t += 10
	rec(0, t, trace.TagTraceRegionStop, 1, 0, trace.RegionSubroutine)
	for p := 0; p < procs; p++ {
		rec(p, t+1, trace.TagTraceRegionStop, 2, 0, trace.RegionProgram)
	}
	for p := 0; p < procs; p++ {
		if err := flush(p, true); err != nil {
			return n, err
		}
	}
	return n, tw.Close()
}

// benchTraces holds genTrace's traces of a million records by their
// processors.
var benchTraces = map[int]benchTraceData{}

type benchTraceData struct {
	data    []byte
	records int64
}

func benchTrace(b *testing.B) ([]byte, int64) {
	return benchTraceOf(b, 4)
}

func benchTraceOf(b *testing.B, procs int) ([]byte, int64) {
	t, ok := benchTraces[procs]
	if !ok {
		var buf bytes.Buffer
		n, err := genTrace(&buf, procs, 1_000_000)
		if err != nil {
			b.Fatal(err)
		}
		t = benchTraceData{buf.Bytes(), n}
		benchTraces[procs] = t
	}
	return t.data, t.records
}

// BenchmarkReport is the report pass (svmc report): an indexed binary
// trace, read from a file as svmc report reads it (mapped), in clock
// order where its clocks allow (this one's do), into the model; of two
// processors (one stream per core, as the figure was taken) and of
// four. cpu-ns/event is the CPU of all cores per record: on two cores the
// elapsed time cannot go below half of it, and on a shared machine it
// varies less than events/s.
func BenchmarkReport(b *testing.B) {
	for _, procs := range []int{2, 4} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			benchReport(b, procs)
		})
	}
}

func benchReport(b *testing.B, procs int) {
	data, n := benchTraceOf(b, procs)
	path := filepath.Join(b.TempDir(), "bench.sddf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		m, err := AnalyzeReaderAt(f, int64(len(data)), path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !m.Order.ClockOrder {
			b.Fatal("the trace was not taken in clock order")
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*int64(b.N)), "cpu-ns/event")
	}
}

// BenchmarkReportOrdered is the report pass through the consistent
// order's merge (a trace with messages or locks, or skewed clocks), the
// trace in memory.
func BenchmarkReportOrdered(b *testing.B) {
	data, n := benchTrace(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := analyzeOrdered(bytes.NewReader(data), int64(len(data)), "bench", Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReportStream is the report pass over one stream with the
// look-ahead merge (how an ASCII trace or a pipe is read).
func BenchmarkReportStream(b *testing.B) {
	data, n := benchTrace(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd, err := trace.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(rd, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReportFileOrder is the model alone, records in file order.
func BenchmarkReportFileOrder(b *testing.B) {
	data, n := benchTrace(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd, err := trace.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(rd, Options{FileOrder: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestGenerateLargeTrace writes a large trace for a measurement by hand
// (skipped unless SVMC_GEN_TRACE names the file):
//
//	SVMC_GEN_TRACE=/tmp/big.sddf [SVMC_GEN_EVENTS=50000000] [SVMC_GEN_PROCS=4] \
//	    go test -run TestGenerateLargeTrace ./analysis
//	/usr/bin/time -v svmc report /tmp/big.sddf
func TestGenerateLargeTrace(t *testing.T) {
	path := os.Getenv("SVMC_GEN_TRACE")
	if path == "" {
		t.Skip("set SVMC_GEN_TRACE=FILE to write a large trace")
	}
	events, procs := int64(50_000_000), 4
	if s := os.Getenv("SVMC_GEN_EVENTS"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		events = v
	}
	if s := os.Getenv("SVMC_GEN_PROCS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		procs = v
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Now()
	n, err := genTrace(bw, procs, events)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	t.Logf("%s: %d records on %d processors, %d bytes, in %v", path, n, procs, fi.Size(), time.Since(t0))
}
