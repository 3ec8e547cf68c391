package replay

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
	"github.com/svmc/svmc/trace/tracetest"
)

// skewed is a run on two processors whose processor 1 clock is 50 µs
// behind. True times (processor 1 writes true − 50):
//
//	p0: region 100, barrier entry 200, exit 210, lock wait 300, grant 300,
//	    release 400, critical wait 440, enter 450, exit 480, region end 600
//	p1: region 100, barrier entry 205, exit 210, lock wait 310, grant 405,
//	    release 420, critical wait 460, enter 510, exit 520, region end 600
//
// The consistent order must put p1's barrier exit (clock 160) after p0's
// entry (200), p1's grant (355) after p0's release (400) and p1's entry
// into the critical section (460) after p0's exit (480). Records with a
// clock earlier than a causal predecessor: p1's exit, grant, release
// (after the grant at 400 in its own order, clock 370), critical entry and
// exit: 5. Synchronisation edges backwards in time: barrier, lock,
// critical: 3.
func skewed() *tracetest.Synth {
	s := tracetest.New(2)
	for p, off := range []float64{0, -50} {
		tm := func(t0, t1 float64) float64 {
			if p == 0 {
				return t0
			}
			return t1 + off
		}
		const m = tracetest.SubMain
		s.Start(p, tm(100, 100), m, 0, trace.RegionProgram)
		s.Start(p, tm(100, 100), m, tracetest.DirRepl, trace.RegionReplicated)
		s.Sync(p, tm(200, 205), trace.TagWaitBarrierStart, m, tracetest.DirBar)
		s.Sync(p, tm(210, 210), trace.TagWaitBarrierStop, m, tracetest.DirBar)
		s.LockWait(p, tm(300, 310), m, tracetest.DirLock, 0x1000)
		s.Sync(p, tm(300, 405), trace.TagWaitLockStop, m, tracetest.DirLock)
		s.Sync(p, tm(400, 420), trace.TagReleaseLock, m, tracetest.DirLock)
		s.Sync(p, tm(440, 460), trace.TagWaitCritSecStart, m, tracetest.DirCrit)
		s.Sync(p, tm(450, 510), trace.TagWaitCritSecStop, m, tracetest.DirCrit)
		s.Sync(p, tm(480, 520), trace.TagExitCritSec, m, tracetest.DirCrit)
		s.Stop(p, tm(600, 600), m, tracetest.DirRepl, trace.RegionReplicated)
		s.Stop(p, tm(600, 600), m, 0, trace.RegionProgram)
	}
	return s
}

type ordered struct {
	node  int
	name  string
	clock float64
	time  float64
}

func (o ordered) String() string {
	return fmt.Sprintf("p%d %s %g→%g", o.node, o.name, o.clock, o.time)
}

func collect(evs *[]ordered) func(*Event) error {
	return func(e *Event) error {
		if int64(len(*evs)) != e.Seq {
			return fmt.Errorf("seq %d at position %d", e.Seq, len(*evs))
		}
		*evs = append(*evs, ordered{int(e.Proc), e.Rec.Desc.Name, e.Clock, e.Time})
		return nil
	}
}

func find(evs []ordered, node int, name string, k int) int {
	for i, e := range evs {
		if e.node == node && e.name == name {
			if k == 0 {
				return i
			}
			k--
		}
	}
	return -1
}

func checkSkewed(t *testing.T, evs []ordered, st OrderStats) {
	t.Helper()
	if len(evs) != 24 || st.Records != 24 {
		t.Fatalf("%d records ordered (stats %d), want 24", len(evs), st.Records)
	}
	before := func(a, b int, what string) {
		t.Helper()
		if a < 0 || b < 0 || a >= b {
			t.Errorf("%s: positions %d, %d\n%v", what, a, b, evs)
		}
	}
	for x := 0; x < 2; x++ {
		for y := 0; y < 2; y++ {
			before(find(evs, x, "wait-barrier-start", 0), find(evs, y, "wait-barrier-stop", 0), fmt.Sprintf("entry p%d before exit p%d", x, y))
		}
	}
	before(find(evs, 0, "release-lock", 0), find(evs, 1, "wait-lock-stop", 0), "p0 release before p1 grant")
	before(find(evs, 0, "exit-crit-sec", 0), find(evs, 1, "wait-crit-sec-stop", 0), "p0 exit before p1 entry")
	// Each processor's records keep their order; Time never decreases.
	last := map[int]float64{}
	for i, e := range evs {
		if e.time < e.clock {
			t.Errorf("record %d: Time %v before its clock %v", i, e.time, e.clock)
		}
		if i > 0 && e.time < evs[i-1].time {
			t.Errorf("record %d (%v): Time decreases", i, e)
		}
		if e.clock < last[e.node] {
			t.Errorf("record %d (%v): processor order changed", i, e)
		}
		last[e.node] = e.clock
	}
	if st.Violations != 5 || st.EdgeViolations != 3 || st.Forced != 0 || st.OutOfOrder != 0 {
		t.Errorf("stats %+v, want 5 violations, 3 edge violations, nothing forced or out of order", st)
	}
	near(t, "max correction", st.MaxCorrection, 400-355)
	if g := evs[find(evs, 1, "wait-lock-stop", 0)]; g.time != 400 {
		t.Errorf("p1 grant corrected to %v, want 400", g.time)
	}
}

func TestOrderSkewedClocks(t *testing.T) {
	for _, f := range []trace.Format{trace.ASCII, trace.Binary} {
		t.Run(f.String(), func(t *testing.T) {
			data := skewed().MustEncode(t, f, tracetest.Prog())
			// One stream (processor 0's records first, then processor 1's).
			rd, err := trace.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var evs []ordered
			st, err := Order(rd, OrderOptions{Records: true}, collect(&evs))
			if err != nil {
				t.Fatal(err)
			}
			if st.PerNode {
				t.Error("a stream was read per processor")
			}
			checkSkewed(t, evs, st)
			// Indexed, one reader per processor (binary only).
			var evs2 []ordered
			st2, err := OrderFile(bytes.NewReader(data), int64(len(data)), "skewed", OrderOptions{Records: true}, collect(&evs2))
			if err != nil {
				t.Fatal(err)
			}
			if st2.PerNode != (f == trace.Binary) {
				t.Errorf("indexed: per node %v", st2.PerNode)
			}
			checkSkewed(t, evs2, st2)
			if fmt.Sprint(evs) != fmt.Sprint(evs2) {
				t.Errorf("stream and indexed orders differ:\n%v\n%v", evs, evs2)
			}
		})
	}
}

// Without program information the critical section is known by its
// directive; the order is the same here.
func TestOrderWithoutProgram(t *testing.T) {
	data := skewed().MustEncode(t, trace.Binary, nil)
	var evs []ordered
	st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "skewed", OrderOptions{Records: true}, collect(&evs))
	if err != nil {
		t.Fatal(err)
	}
	checkSkewed(t, evs, st)
}

// A look-ahead shorter than a processor's run of records: the order still
// respects causality; records of a processor the merge could not see yet
// come out with an earlier Time and are counted.
func TestOrderShortLookahead(t *testing.T) {
	s := tracetest.New(2)
	for p := 0; p < 2; p++ {
		s.Start(p, 0, 2, 0, trace.RegionProgram)
		for k := 0; k < 50; k++ {
			s.Start(p, float64(10*k+p), 3, 0, trace.RegionSubroutine)
			s.Stop(p, float64(10*k+p+5), 3, 0, trace.RegionSubroutine)
		}
		s.Sync(p, 600, trace.TagWaitBarrierStart, 2, 2)
		s.Sync(p, 601, trace.TagWaitBarrierStop, 2, 2)
		s.Stop(p, 700, 2, 0, trace.RegionProgram)
	}
	data := s.MustEncode(t, trace.Binary, nil)
	rd, _ := trace.NewReader(bytes.NewReader(data))
	var evs []ordered
	st, err := Order(rd, OrderOptions{Lookahead: 8, Records: true}, collect(&evs))
	if err != nil {
		t.Fatal(err)
	}
	if st.OutOfOrder == 0 || st.Forced != 0 || st.MaxBuffered > 8*maxBufferFactor {
		t.Errorf("stats %+v", st)
	}
	x0, x1 := find(evs, 0, "wait-barrier-stop", 0), find(evs, 1, "wait-barrier-stop", 0)
	e0, e1 := find(evs, 0, "wait-barrier-start", 0), find(evs, 1, "wait-barrier-start", 0)
	if max(e0, e1) > min(x0, x1) {
		t.Errorf("barrier exit before an entry: entries %d %d, exits %d %d", e0, e1, x0, x1)
	}
	// With enough look-ahead the same stream is in time order.
	rd, _ = trace.NewReader(bytes.NewReader(data))
	evs = nil
	st, err = Order(rd, OrderOptions{Records: true}, collect(&evs))
	if err != nil || st.OutOfOrder != 0 || st.Violations != 0 {
		t.Errorf("full look-ahead: %+v %v", st, err)
	}
}

// An incomplete barrier instance (a processor's entry is missing) cannot
// hold the merge forever: the constraint is dropped and counted.
func TestOrderForced(t *testing.T) {
	s := tracetest.New(2)
	s.Sync(0, 10, trace.TagWaitBarrierStart, 2, 2)
	s.Sync(0, 20, trace.TagWaitBarrierStop, 2, 2)
	s.Sync(1, 5, trace.TagReleaseLock, 2, 3) // a release without a grant
	s.Sync(1, 30, trace.TagWaitBarrierStop, 2, 2)
	data := s.MustEncode(t, trace.Binary, nil)
	var evs []ordered
	st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "forced", OrderOptions{Records: true}, collect(&evs))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 4 || st.Forced != 1 {
		t.Errorf("forced: %+v %v", st, evs)
	}
}

// msgTrace writes a trace of procs processors with two message records
// of its own (test-send, test-recv: node, clock, peer) and any record of
// the catalog (node, clock, then ints); order orders it with the message
// hook that pairs them.
type msgTrace struct {
	t          *testing.T
	out        bytes.Buffer
	w          *trace.Writer
	send, recv *trace.Descriptor
}

const tagTestSend, tagTestRecv = 2990, 2991

func newMsgTrace(t *testing.T, procs int) *msgTrace {
	m := &msgTrace{t: t}
	m.send = &trace.Descriptor{Tag: tagTestSend, Name: "test-send", Fields: []trace.Field{{Type: trace.Int, Name: "node id"}, {Type: trace.Double, Name: "clock microseconds"}, {Type: trace.Int, Name: "peer"}}}
	m.recv = &trace.Descriptor{Tag: tagTestRecv, Name: "test-recv", Fields: m.send.Fields}
	w, err := trace.NewWriter(&m.out, trace.Binary, []trace.Attr{{Key: "processors", Value: fmt.Sprint(procs)}})
	if err != nil {
		t.Fatal(err)
	}
	m.w = w
	return m
}

func (m *msgTrace) write(d *trace.Descriptor, node int, t0 float64, ints ...int) {
	r := trace.NewRecord(d)
	r.Values[0].Int, r.Values[1].Double = node, t0
	for k, v := range ints {
		r.Values[2+k].Int = v
	}
	if err := m.w.WriteRecord(r); err != nil {
		m.t.Fatal(err)
	}
}

func (m *msgTrace) order() ([]ordered, OrderStats) {
	m.w.Close()
	data := m.out.Bytes()
	hook := func(r *trace.Record) (string, bool, bool) {
		switch r.Desc.Tag {
		case tagTestSend:
			return fmt.Sprint(r.Node(), "→", r.Int("peer")), true, true
		case tagTestRecv:
			return fmt.Sprint(r.Int("peer"), "→", r.Node()), false, true
		}
		return "", false, false
	}
	var evs []ordered
	st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "msg", OrderOptions{Message: hook, Records: true}, collect(&evs))
	if err != nil {
		m.t.Fatal(err)
	}
	return evs, st
}

// The message hook: a receive comes after its send.
func TestOrderMessages(t *testing.T) {
	m := newMsgTrace(t, 2)
	m.write(m.recv, 1, 10, 0) // processor 1's clock is behind: receive at 10
	m.write(m.send, 0, 50, 1) // sent at 50
	evs, st := m.order()
	if len(evs) != 2 || evs[0].name != "test-send" || evs[1].time != 50 || st.Violations != 1 || st.EdgeViolations != 1 {
		t.Errorf("messages: %+v %v", st, evs)
	}
}

// Damaged input: the trace package's error with its byte offset, also
// through the per-processor readers.
func TestOrderCorrupt(t *testing.T) {
	data := skewed().MustEncode(t, trace.Binary, tracetest.Prog())
	bad := append([]byte(nil), data...)
	// Make the last record's length field claim more than the file has.
	bad = bad[:len(bad)-3]
	_, err := OrderFile(bytes.NewReader(bad), int64(len(bad)), "bad.sddf", OrderOptions{}, discard)
	if err == nil || !strings.Contains(err.Error(), "bad.sddf: byte offset") {
		t.Errorf("truncated trace: %v", err)
	}
	// A record whose field is damaged inside an intact packet: the
	// per-processor reader reports the offset in the file.
	bad = append([]byte(nil), data...)
	i := bytes.LastIndex(bad, []byte{byte(trace.TagTraceRegionStop & 0xff), byte(trace.TagTraceRegionStop >> 8), 0, 0})
	copy(bad[i:], []byte{0xff, 0xff, 0, 0}) // a tag without descriptor
	_, err = OrderFile(bytes.NewReader(bad), int64(len(bad)), "bad.sddf", OrderOptions{}, discard)
	if err == nil || !strings.Contains(err.Error(), "bad.sddf: byte offset") {
		t.Errorf("bad tag: %v", err)
	}
	// A damaged array size in processor 1's wait-lock-start: the packet
	// framing is intact, so the file is indexed and processor 1's reader
	// finds the damage; its offset must be the file's.
	bad = append([]byte(nil), data...)
	tag := []byte{byte(trace.TagWaitLockStart & 0xff), byte(trace.TagWaitLockStart >> 8), 0, 0, 1, 0, 0, 0}
	i = bytes.LastIndex(bad, tag)
	if i < 0 {
		t.Fatal("no wait-lock-start of processor 1")
	}
	copy(bad[i+4+4+8+4+4:], []byte{0xe8, 0x03, 0, 0}) // 1000 rows
	if segs, _, _ := indexBinary(bytes.NewReader(bad), int64(len(bad)), nil); segs == nil {
		t.Fatal("the damaged trace is not indexable")
	}
	_, err = OrderFile(bytes.NewReader(bad), int64(len(bad)), "bad.sddf", OrderOptions{}, discard)
	if err == nil || !strings.Contains(err.Error(), "of processor 1") {
		t.Errorf("bad array size: %v", err)
	}
	rd, _ := trace.NewReader(bytes.NewReader(bad))
	_, err2 := Order(rd, OrderOptions{}, discard)
	if err2 == nil {
		t.Fatal("stream analysis accepted a bad tag")
	}
	t.Logf("indexed: %v\nstream:  %v", err, err2)
	if a, b := offsetOf(err.Error()), offsetOf(err2.Error()); a != b {
		t.Errorf("indexed error offset %s, stream %s:\n%v\n%v", a, b, err, err2)
	}
}

func offsetOf(s string) string {
	i := strings.Index(s, "byte offset ")
	if i < 0 {
		return ""
	}
	s = s[i+len("byte offset "):]
	return s[:strings.IndexAny(s, " :")]
}

func TestOrderedIterator(t *testing.T) {
	data := skewed().MustEncode(t, trace.Binary, tracetest.Prog())
	rd, _ := trace.NewReader(bytes.NewReader(data))
	var st OrderStats
	var evs []ordered
	for e, err := range Ordered(rd, OrderOptions{Records: true}, &st) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ordered{int(e.Proc), e.Rec.Desc.Name, e.Clock, e.Time})
	}
	checkSkewed(t, evs, st)
	// Stopping early is no error.
	rd, _ = trace.NewReader(bytes.NewReader(data))
	n := 0
	for _, err := range Ordered(rd, OrderOptions{Records: true}, &st) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if st.Records != 3 {
		t.Errorf("stopped after 3, stats count %d", st.Records)
	}
}

// Without the "processors" attribute the processors are those seen.
func TestOrderNoAttributes(t *testing.T) {
	s := skewed()
	var out bytes.Buffer
	w, _ := trace.NewWriter(&out, trace.Binary, nil)
	w.WriteBuf(&s.Bufs[0])
	w.WriteBuf(&s.Bufs[1])
	w.Close()
	rd, _ := trace.NewReader(bytes.NewReader(out.Bytes()))
	var evs []ordered
	st, err := Order(rd, OrderOptions{Records: true}, collect(&evs))
	if err != nil {
		t.Fatal(err)
	}
	checkSkewed(t, evs, st)
	// An empty trace.
	out.Reset()
	w, _ = trace.NewWriter(&out, trace.Binary, nil)
	w.Close()
	rd, _ = trace.NewReader(bytes.NewReader(out.Bytes()))
	if st, err := Order(rd, OrderOptions{Records: true}, collect(&evs)); err != nil || st.Records != 0 {
		t.Errorf("empty trace: %+v %v", st, err)
	}
}

func discard(*Event) error { return nil }

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// svmc's message records order themselves: a receive's completion comes
// after the start of the send it took (MessageKey, the default hook), also
// when the receiver's clock is behind.
func TestOrderMessageRecords(t *testing.T) {
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, trace.Binary, []trace.Attr{{Key: "processors", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(tag trace.Tag, node int, clock float64, set map[string]int) {
		r := trace.NewRecord(trace.Lookup(tag))
		r.Values[0].Int, r.Values[1].Double = node, clock
		for name, v := range set {
			r.Value(name).Int = v
		}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	rec(trace.TagMsgCallStart, 1, 5, map[string]int{"call kind": trace.CallRecv, "peer": 0, "call site": 2})
	rec(trace.TagMsgCallStop, 1, 10, map[string]int{"call kind": trace.CallRecv, "call site": 2, "matched source": 0, "message id": 1})
	rec(trace.TagMsgCallStart, 0, 50, map[string]int{"call kind": trace.CallSend, "peer": 1, "call site": 1, "message id": 1})
	rec(trace.TagMsgCallStop, 0, 51, map[string]int{"call kind": trace.CallSend, "call site": 1})
	w.Close()
	data := out.Bytes()
	var evs []ordered
	st, err := OrderFile(bytes.NewReader(data), int64(len(data)), "msg", OrderOptions{Records: true}, collect(&evs))
	if err != nil {
		t.Fatal(err)
	}
	var send, recv float64 = -1, -1
	for _, e := range evs {
		switch {
		case e.name == "msg-call-start" && e.node == 0:
			send = e.time
		case e.name == "msg-call-stop" && e.node == 1:
			recv = e.time
		}
	}
	if recv < send || send != 50 || st.EdgeViolations != 1 {
		t.Errorf("send at %v, receive completed at %v (corrected); stats %+v", send, recv, st)
	}
}

// TestOrderForcedHeuristics: when no head can go, VISTOP's heuristics
// decide which constraint to drop (seed 001). Processor 1 entered a
// critical section and never left it (it died there) and waits for a
// message; processor 0 waits for the section and then sends that message.
// Dropping the oldest head (the receive, at 5 µs) would put the receive
// before its send although the send is in the buffer; the look-ahead sees
// that the section's exit will never come, so processor 0's entry is
// forced instead, and the send and receive keep their order.
func TestOrderForcedHeuristics(t *testing.T) {
	m := newMsgTrace(t, 3)
	crit := func(tag trace.Tag, node int, t0 float64) { m.write(trace.Lookup(tag), node, t0, 2, 3) }
	crit(trace.TagWaitCritSecStart, 1, 1)
	crit(trace.TagWaitCritSecStop, 1, 2) // processor 1 holds the section for good
	m.write(m.recv, 1, 5, 0)
	crit(trace.TagWaitCritSecStart, 0, 3)
	crit(trace.TagWaitCritSecStop, 0, 10) // cannot be granted
	m.write(m.send, 0, 20, 1)
	// The same with a barrier processor 2 never reaches.
	m.write(m.recv, 2, 21, 0)
	crit(trace.TagWaitBarrierStart, 0, 22)
	crit(trace.TagWaitBarrierStop, 0, 30)
	m.write(m.send, 0, 40, 2)
	evs, st := m.order()
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	// (The receives' clocks stay earlier than their sends': edge
	// violations the skew makes, whichever order.)
	if st.Forced != 2 || len(evs) != 10 || evs[4].name != "test-send" || evs[5].name != "test-recv" ||
		evs[8].name != "test-send" || evs[9].name != "test-recv" {
		t.Errorf("forced %d, order %v; want a forced grant and a forced barrier exit, each send before its receive", st.Forced, names)
	}
}
