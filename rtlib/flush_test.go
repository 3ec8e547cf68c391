package rtlib

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/svmc/svmc/request"
	"github.com/svmc/svmc/trace"
)

// TestSmallBuffers: with buffers of a few records, every processor hands
// its buffers over many times while the others go on; the trace holds
// every record once, in order per processor, with an overflow and an
// overhead record per hand-over.
func TestSmallBuffers(t *testing.T) {
	const iters = 400
	for _, f := range []trace.Format{trace.Binary, trace.ASCII} {
		var buf bytes.Buffer
		err := Run(testProg(), Params{NProcs: 3, Stage: 3, Trace: &buf, Format: f, BufSize: 200, Stderr: io.Discard}, func(p *Proc) {
			p.PDO(1, 1, DefaultSchedule(), []Range{{Lo: 0, Hi: 3*iters - 1, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					q.RegionStart(1, 2, trace.RegionUser)
					q.RegionStop(1, 2, trace.RegionUser)
				}
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		recs := readTrace(t, buf.Bytes())
		checkClocks(t, recs)
		for node, rs := range byNode(recs) {
			var starts, stops, overflows, overheads int
			for _, r := range rs {
				switch r.Desc.Name {
				case "trace-region-start":
					if r.Int("directive number") == 2 {
						starts++
					}
				case "trace-region-stop":
					if r.Int("directive number") == 2 {
						stops++
					}
				case "kernel-trace-buffer-overflow":
					overflows++
				case "trace-overhead":
					overheads++
				}
			}
			if starts != iters || stops != iters || overflows < 10 || overheads != overflows {
				t.Errorf("%v node %d: %d starts, %d stops, %d overflows, %d overheads", f, node, starts, stops, overflows, overheads)
			}
			if first := rs[0]; first.Desc.Name != "trace-region-start" || first.Int("trace region type") != trace.RegionProgram {
				t.Errorf("%v node %d starts with %s", f, node, evString(first))
			}
			if last := rs[len(rs)-1]; last.Desc.Name != "trace-region-stop" || last.Int("trace region type") != trace.RegionProgram {
				t.Errorf("%v node %d ends with %s", f, node, evString(last))
			}
		}
	}
}

// TestTraceEnd: the last record of every trace says how the run ended.
func TestTraceEnd(t *testing.T) {
	for _, c := range []struct {
		body   func(p *Proc)
		status int
		msg    string
	}{
		{func(p *Proc) {}, trace.EndNormal, ""},
		{func(p *Proc) { p.Distribute(1, 1, nil, []Format{Block()}, &Template{name: "T"}) }, trace.EndError,
			"main.go:10:1: distribute T(): the template is undefined"},
		{func(p *Proc) { panic("boom") }, trace.EndPanic, "processor 0 panicked: boom"},
	} {
		var buf bytes.Buffer
		Run(testProg(), Params{NProcs: 2, Stage: 1, Trace: &buf, Stderr: io.Discard}, c.body)
		rd, err := trace.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		var last *trace.Record
		for r, err := range rd.All() {
			if err != nil {
				t.Fatal(err)
			}
			last = r
		}
		if last == nil || last.Desc.Name != "trace-end" || last.Int("status") != c.status || len(last.String("message")) < len(c.msg) ||
			last.String("message")[:len(c.msg)] != c.msg || last.Int("lost records") != 0 {
			t.Errorf("last record %v, want status %d %q", last, c.status, c.msg)
		}
	}
}

// TestEndStatus classifies failures, a deadlock included.
func TestEndStatus(t *testing.T) {
	for err, want := range map[error]int{
		nil:                                   trace.EndNormal,
		&Error{Msg: "x"}:                      trace.EndError,
		&Error{Msg: "deadlock: no processor"}: trace.EndDeadlock,
		&PanicError{Value: 1}:                 trace.EndPanic,
		&InterruptError{Signal: sigint()}:     trace.EndInterrupt,
		&InterruptError{Signal: sigterm()}:    trace.EndTerminate,
		statusErr{}:                           7,
	} {
		if got, _ := endStatus(err); got != want {
			t.Errorf("%v: %d, want %d", err, got, want)
		}
	}
}

type statusErr struct{}

func (statusErr) Error() string  { return "x" }
func (statusErr) EndStatus() int { return 7 }

// TestSealRunning: a processor still running when the run ends is sealed:
// its published records are taken, later records are not, and it does not
// flush any more.
func TestSealRunning(t *testing.T) {
	r := &run{prog: testProg(), n: 1, bufLimit: 64, startNano: nanotime()}
	r.flushQ = make(chan flushItem, 1)
	p := &Proc{id: 0, r: r, track: true, mask: request.StageMask(1)}
	p.initChunks(64)
	p.RegionStart(1, 1, trace.RegionUser)
	b, ok := p.seal(0, nil)
	if !ok || len(b) == 0 {
		t.Fatalf("seal: %d bytes, %v", len(b), ok)
	}
	n := len(b)
	for range 10 { // past the buffer size: the flush finds the seal
		p.RegionStart(1, 2, trace.RegionUser)
	}
	if len(r.flushQ) != 0 {
		t.Error("a sealed processor handed a buffer over")
	}
	// What was published when it was sealed stays as it was.
	if b2, _ := p.seal(0, nil); len(b2) < n || !bytes.Equal(b2[:n], b) {
		t.Errorf("published %d bytes after the seal, had %d", len(b2), n)
	}
}

func sigint() os.Signal  { return syscall.SIGINT }
func sigterm() os.Signal { return syscall.SIGTERM }

// TestInterruptErrorText: in one process a signal is "interrupted (SIGTERM)";
// a rank of an MPI job says which rank and that mpirun stops every rank
// when one fails, so that a user reading it after another rank's error
// knows which came first.
func TestInterruptErrorText(t *testing.T) {
	if got := (&InterruptError{Signal: sigterm()}).Error(); got != "interrupted (SIGTERM)" {
		t.Errorf("one process: %q", got)
	}
	got := (&InterruptError{Signal: sigterm(), InJob: true, Rank: 0}).Error()
	if !strings.HasPrefix(got, "rank 0 interrupted (SIGTERM): mpirun stops every rank of the job when one ends with an error") {
		t.Errorf("a rank: %q", got)
	}
}

// chunkRun is a processor of a run with trace memory of limit bytes whose
// writer is the test: it takes the chunks from flushQ itself.
func chunkRun(limit int) (*run, *Proc) {
	r := &run{prog: testProg(), n: 1, bufLimit: limit, startNano: nanotime()}
	r.flushQ = make(chan flushItem, 64)
	p := &Proc{id: 0, r: r, track: true, mask: request.StageMask(1)}
	p.initChunks(limit)
	return r, p
}

// countRecs counts the whole records of a chunk.
func countRecs(t *testing.T, b []byte) int {
	t.Helper()
	n := 0
	for ; len(b) > 0; n++ {
		size := 4 + int(binary.LittleEndian.Uint32(b)) // the length field does not count itself
		if size <= 4 || size > len(b) {
			t.Fatalf("record %d: size %d with %d bytes left", n, size, len(b))
		}
		b = b[size:]
	}
	return n
}

// TestChunksReused: a processor whose writer keeps up fills the same two
// chunks over and over (in buffers of 1 MiB each of its 16 MB of records
// would take fresh memory), each chunk handed over holds whole records
// and no more than a chunk's size, and none is lost.
func TestChunksReused(t *testing.T) {
	r, p := chunkRun(1 << 20)
	arrays := map[*byte]bool{}
	written, read, chunks := 0, 0, 0
	for chunks < 64 {
		p.RegionStart(1, 2, trace.RegionUser)
		p.RegionStop(1, 2, trace.RegionUser)
		written += 2
		for len(r.flushQ) > 0 {
			it := <-r.flushQ
			if len(it.b) > chunkSize+recordRoom {
				t.Fatalf("a chunk of %d bytes handed over", len(it.b))
			}
			arrays[unsafe.SliceData(it.b)] = true
			read += countRecs(t, it.b)
			chunks++
			select {
			case p.tr.spare <- it.b[:0]:
			default:
				t.Fatalf("after %d hand-overs, %d chunks given back wait unused (%d made)", chunks, len(p.tr.spare), p.tr.made)
			}
		}
	}
	if len(arrays) != 2 || p.tr.made != 2 {
		t.Errorf("%d chunks handed over in %d arrays (%d made), want 2", chunks, len(arrays), p.tr.made)
	}
	// Each hand-over adds kernel-trace-buffer-overflow and trace-overhead.
	if got := read + countRecs(t, p.buf.B); got != written+2*chunks {
		t.Errorf("%d records handed over or filling, want %d region records and %d for the hand-overs", got, written, 2*chunks)
	}
}

// TestChunksBounded: a processor whose writer stalls owns at most
// chunkSlots chunks and then waits for one to come back, and goes on when
// it does.
func TestChunksBounded(t *testing.T) {
	const limit = 1 << 20
	slots := chunkSlots(limit)
	if slots != 5 {
		t.Fatalf("chunkSlots(%d) = %d, want 5 (4 at the writer, 1 filling)", limit, slots)
	}
	// A buffer size of a terabyte (the parameter allows it) is cut into
	// larger chunks, not into a channel of 16 million.
	if n := chunkSlots(1 << 40); n > maxChunks+1 {
		t.Errorf("chunkSlots(1 TiB) = %d, want at most %d", n, maxChunks+1)
	}
	r, p := chunkRun(limit)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				p.RegionStart(1, 2, trace.RegionUser)
				p.RegionStop(1, 2, trace.RegionUser)
			}
		}
	}()
	var out []flushItem
	for len(out) < slots {
		out = append(out, <-r.flushQ)
	}
	select { // all its chunks are out: it cannot hand over another
	case <-r.flushQ:
		t.Fatalf("a processor with %d chunks out handed over another", len(out))
	case <-time.After(50 * time.Millisecond):
	}
	p.tr.spare <- out[0].b[:0]
	<-r.flushQ // it goes on with the chunk given back
	close(stop)
	// Be its writer until it stops, so that no goroutine of this test
	// is left blocked for the tests after it.
	for _, it := range out[1:] {
		p.tr.spare <- it.b[:0]
	}
	for {
		select {
		case it := <-r.flushQ:
			p.tr.spare <- it.b[:0]
		case <-done:
			return
		}
	}
}

// TestDrainedOnce: while a processor writes records, hands chunks over and
// grows its first, a writer that drains the chunk it fills every few
// microseconds writes each record to the stream once, in the order
// written, and the end of the run adds only what it did not drain.
func TestDrainedOnce(t *testing.T) {
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, trace.Binary, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, p := chunkRun(64 << 10) // small chunks: many hand-overs
	r.procs = []*Proc{p}
	r.w, r.writerDone, r.drainEvery = w, make(chan struct{}), 20*time.Microsecond
	go r.writer()
	const n = 100_000
	for k := range n {
		p.begin(trace.TagTraceOverhead, p.id)
		p.buf.Double(float64(k))
		p.buf.Int(-1) // this test's, not a hand-over's
		p.end()
	}
	b, ok := p.seal(0, nil)
	close(r.flushQ)
	<-r.writerDone
	if !ok || p.tr.handed.Load() < 10 {
		t.Fatalf("sealed %v after %d hand-overs, want 10 at least", ok, p.tr.handed.Load())
	}
	r.write(sealedBuf{p, b}.unwritten())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := trace.NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after record %d: %v", next, err)
		}
		if rec.Desc.Tag != trace.TagTraceOverhead || rec.Int("overhead type") != -1 {
			continue
		}
		if k := int(rec.Double("duration microseconds")); k != next {
			t.Fatalf("record %d where %d comes next", k, next)
		}
		next++
	}
	if next != n {
		t.Errorf("%d records in the stream, want %d", next, n)
	}
}
