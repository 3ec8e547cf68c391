package replay

import (
	"fmt"
	"math"
	"strconv"

	"github.com/svmc/svmc/trace"
)

// Event is one record in the form the tools use: the fields they need,
// found by name through the record's own descriptor (streams are
// self-describing), so that a pass keeps no trace.Record alive unless it
// asks for them (OrderOptions.Records). The Event passed to a callback is
// reused: it is valid during the call only (its Rec and Arr stay valid).
type Event struct {
	Tag  trace.Tag
	Proc int32 // the processor whose stream holds the record: its writer
	Node int32 // the record's node id (-1 if none); template-dist names the owner
	Sub  int32 // subprogram number
	Dir  int32 // directive number
	// A is the region type (trace-region-*), iterations (pdo-work),
	// overhead type (trace-overhead), level (measure-*) or the processor
	// of a goroutine lane (goroutine-start; Cols its goroutine number, Name
	// its go statement), or the mutex address (wait-mutex-*).
	A int32
	// F is busy µs (pdo-work), duration (trace-overhead), startup
	// (pdo-info) or elapsed µs (measure-finish; -1 when the record has
	// none).
	F float64
	// G is the µs spent fetching chunks (pdo-work of a self-scheduled
	// pdo; 0 when the record has none).
	G float64
	// Arr is the lock rows (wait-lock-start), the iteration space or the
	// pids (aps-info), sharing the record's slice; Cols is its columns,
	// or the chunks fetched (pdo-work).
	Arr  []int
	Cols int
	Name string // a measured interval's name (interned per stream)
	// M holds the fields of the message-passing records (msg-*; nil for
	// the others); for them Dir is the call site, so that an interval
	// names its call.
	M *MsgFields

	Clock float64 // the record's own time stamp (µs)
	// Time is the corrected logical time (µs) in the causally consistent
	// order: the largest Clock of the record and of all its causal
	// predecessors; Clock when the records are read in file order.
	Time float64
	Seq  int64 // position in the order, from 0

	// Rec is the record itself: always for the rare records the compact
	// form does not hold (those written after the run, statistics and
	// trace-end, and the throttling records), for every record when the
	// order keeps them (OrderOptions.Records).
	Rec *trace.Record
}

// MsgFields are the fields of msg-call-start, msg-call-stop and
// msg-request-done (trace.TagMsgCallStart...); -1 where a record has none.
type MsgFields struct {
	Site, Kind, Peer, Tag, Group, ID, Req, Count int32
	// Bytes is the size of the (send) buffer from its address range, 0
	// when the record has none.
	Bytes int64
	// The matched source, tag, count and message id of a completed
	// receive (stop, request-done), and whether a call completed.
	Src, MTag, MCount, MID, Completed int32
}

// msgNames are the field names of MsgFields in order (buffer addresses
// apart).
var msgNames = [...]string{"call site", "call kind", "peer", "tag", "group", "message id", "request id", "count",
	"matched source", "matched tag", "matched count", "message id", "completed"}

// Violation reports whether the event's clock had to be corrected.
func (e *Event) Violation() bool { return e.Time > e.Clock }

// layout holds the field indices of one descriptor (-1: absent).
type layout struct {
	node, clock, sub, dir, a, f, arr int
	g, cols                          int   // pdo-work: dispatch µs, chunks
	name                             int   // char array "name" (measure records)
	msg                              []int // msg-*: indices of msgNames; msgBuf: "buffer address"
	msgBuf                           int
	raw                              rawOffsets // raw.go
}

// decoder turns records into Events. It caches a layout per descriptor and
// tracks the writer of the current run of records (see decode). Use one
// decoder per stream.
type decoder struct {
	byTag   []layoutEntry // tags below len(byTag)
	layouts map[*trace.Descriptor]*layout
	writer  int32             // writer of the previous record, -1 before the first
	names   map[string]string // interned names of measured intervals
	slab    []int             // Event.Arr of raw records (raw.go)
	msgs    []MsgFields       // Event.M, handed out a chunk at a time
}

// msgFields returns fresh MsgFields for an Event: they stay valid as Arr
// does, and cost an allocation per 256 message records.
func (d *decoder) msgFields() *MsgFields {
	if len(d.msgs) == 0 {
		d.msgs = make([]MsgFields, 256)
	}
	m := &d.msgs[0]
	d.msgs = d.msgs[1:]
	return m
}

type layoutEntry struct {
	desc *trace.Descriptor
	l    *layout
}

func newDecoder() *decoder {
	return &decoder{byTag: make([]layoutEntry, 2048), layouts: make(map[*trace.Descriptor]*layout), writer: -1}
}

func (d *decoder) layout(desc *trace.Descriptor) *layout {
	t := int(desc.Tag)
	if t >= 0 && t < len(d.byTag) && d.byTag[t].desc == desc {
		return d.byTag[t].l
	}
	l := d.layouts[desc]
	if l == nil {
		l = newLayout(desc)
		l.raw = rawLayout(desc, l)
		d.layouts[desc] = l
	}
	if t >= 0 && t < len(d.byTag) {
		d.byTag[t] = layoutEntry{desc, l}
	}
	return l
}

func scalarIndex(desc *trace.Descriptor, name string, types ...trace.FieldType) int {
	i := desc.Index(name)
	if i < 0 || desc.Fields[i].Dims != 0 {
		return -1
	}
	for _, t := range types {
		if desc.Fields[i].Type == t {
			return i
		}
	}
	return -1
}

func arrayIndex(desc *trace.Descriptor, name string) int {
	i := desc.Index(name)
	if i < 0 || desc.Fields[i].Dims == 0 || desc.Fields[i].Type != trace.Int {
		return -1
	}
	return i
}

func newLayout(desc *trace.Descriptor) *layout {
	l := &layout{
		node:  scalarIndex(desc, "node id", trace.Int),
		clock: -1,
		sub:   scalarIndex(desc, "subprogram number", trace.Int),
		dir:   scalarIndex(desc, "directive number", trace.Int),
		a:     -1, f: -1, arr: -1, name: -1, g: -1, cols: -1,
	}
	// The clock: "clock microseconds", else the first scalar double whose
	// name mentions a clock (as trace.Record.Clock does).
	for i, fd := range desc.Fields {
		if fd.Dims != 0 || (fd.Type != trace.Double && fd.Type != trace.Float) {
			continue
		}
		if fd.Name == "clock microseconds" {
			l.clock = i
			break
		}
		if l.clock < 0 && containsClock(fd.Name) {
			l.clock = i
		}
	}
	switch desc.Tag {
	case trace.TagTraceRegionStart, trace.TagTraceRegionStop:
		l.a = scalarIndex(desc, "trace region type", trace.Int)
	case trace.TagPDOWork:
		l.a = scalarIndex(desc, "iterations", trace.Int)
		l.f = scalarIndex(desc, "busy microseconds", trace.Double, trace.Float)
		l.cols = scalarIndex(desc, "chunks", trace.Int)
		l.g = scalarIndex(desc, "dispatch microseconds", trace.Double, trace.Float)
	case trace.TagTraceOverhead, trace.TagSVMOverhead:
		l.a = scalarIndex(desc, "overhead type", trace.Int)
		l.f = scalarIndex(desc, "duration microseconds", trace.Double, trace.Float)
	case trace.TagPDOInfo:
		l.f = scalarIndex(desc, "startup time microseconds", trace.Double, trace.Float)
	case trace.TagWaitLockStart:
		l.arr = arrayIndex(desc, "locking address")
	case trace.TagWaitMutexStart, trace.TagWaitMutexStop:
		l.dir = scalarIndex(desc, "mutex site", trace.Int) // Sub stays 0: the site is the program's
		l.a = scalarIndex(desc, "mutex address", trace.Int)

	case trace.TagPDOIterationSpace:
		l.arr = arrayIndex(desc, "iteration space")
	case trace.TagAPSInfo:
		l.arr = arrayIndex(desc, "pids")
	case trace.TagMsgCallStart, trace.TagMsgCallStop, trace.TagMsgRequestDone:
		l.msg = make([]int, len(msgNames))
		for i, n := range msgNames {
			l.msg[i] = scalarIndex(desc, n, trace.Int)
		}
		if desc.Tag != trace.TagMsgCallStart {
			l.msg[5] = -1 // "message id" of a completion is the matched one
		} else {
			l.msg[11] = -1
		}
		l.msgBuf = arrayIndex(desc, "buffer address")
	case trace.TagGoroutineStart:
		l.a = scalarIndex(desc, "processor", trace.Int)
		l.cols = scalarIndex(desc, "goroutine number", trace.Int)
		if i := desc.Index("started at"); i >= 0 && desc.Fields[i].Type == trace.Char && desc.Fields[i].Dims == 1 {
			l.name = i
		}
	case trace.TagMeasureStart, trace.TagMeasureFinish:
		l.a = scalarIndex(desc, "level", trace.Int)
		l.f = scalarIndex(desc, "elapsed microseconds", trace.Double, trace.Float)
		if i := desc.Index("name"); i >= 0 && desc.Fields[i].Type == trace.Char && desc.Fields[i].Dims == 1 {
			l.name = i
		}
	}
	return l
}

func containsClock(s string) bool {
	for i := 0; i+5 <= len(s); i++ {
		if s[i:i+5] == "clock" {
			return true
		}
	}
	return false
}

// AfterRun reports whether records with this tag are written by the runtime
// once the processors have stopped (statistics, trace-end, a rank's
// rank-info): they belong to no processor's time.
func AfterRun(tag trace.Tag) bool {
	return tag == trace.TagStatInterval || tag == trace.TagStatGroup || tag == trace.TagTraceEnd || tag == trace.TagGCPause ||
		tag == trace.TagRankInfo || tag == trace.TagGoroutinesUntraced
}

// decode fills e from r; keep keeps r in e.Rec. The writer of a record is
// its node id, except for template-dist: the APS leader writes one per owner
// with the owner's node id into its own buffer, so it belongs to the stream
// of the record before it (the runtime's buffers reach the trace as runs of
// one processor's records, and such a run never starts with a
// template-dist).
// decode returns what makes the record unusable ("" if nothing): a node
// that is no processor number, a clock that is no finite number.
func (d *decoder) decode(r *trace.Record, e *Event, keep bool) string {
	l := d.layout(r.Desc)
	v := r.Values
	*e = Event{Tag: r.Desc.Tag, Node: -1}
	if keep || AfterRun(e.Tag) || e.Tag == trace.TagTraceThrottled || e.Tag == trace.TagThrottledCalls || pageRecord(e.Tag) {
		e.Rec = r
	}
	if l.node >= 0 {
		n := v[l.node].Int
		if n < 0 || n >= MaxProcs {
			return fmt.Sprintf("node %d is no processor number (0..%d)", n, MaxProcs-1)
		}
		e.Node = int32(n)
	}
	if l.clock >= 0 {
		e.Clock = v[l.clock].Double
		if math.IsNaN(e.Clock) || math.IsInf(e.Clock, 0) {
			return fmt.Sprintf("clock %v is not a time", e.Clock)
		}
	}
	e.Time = e.Clock
	if l.sub >= 0 {
		e.Sub = int32(v[l.sub].Int)
	}
	if l.dir >= 0 {
		e.Dir = int32(v[l.dir].Int)
	}
	if l.a >= 0 {
		e.A = int32(v[l.a].Int)
	}
	if l.f >= 0 {
		e.F = v[l.f].Double
	} else if e.Tag == trace.TagMeasureFinish {
		e.F = -1 // no elapsed time: the clocks' difference
	}
	if l.g >= 0 {
		e.G = v[l.g].Double
	}
	if l.cols >= 0 {
		e.Cols = int(v[l.cols].Int)
	}
	if l.arr >= 0 {
		x := &v[l.arr]
		e.Arr = x.Ints
		if len(x.Dims) == 2 {
			e.Cols = x.Dims[1]
		} else {
			e.Cols = len(x.Ints)
		}
	}
	if l.name >= 0 {
		e.Name = d.intern(cstring(v[l.name].Str))
	}
	if l.msg != nil {
		e.M = d.msgFields()
		decodeMsg(l, v, e.M)
		e.Dir = e.M.Site
	}
	d.setWriter(e)
	return ""
}

// setWriter sets the processor whose stream holds e (see decode).
func (d *decoder) setWriter(e *Event) {
	e.Proc = e.Node
	if (e.Tag == trace.TagTemplateDist || e.Node < 0) && d.writer >= 0 {
		e.Proc = d.writer
	}
	if e.Proc < 0 {
		e.Proc = 0
	}
	d.writer = e.Proc
}

func decodeMsg(l *layout, v []trace.Value, m *MsgFields) {
	f := [...]*int32{&m.Site, &m.Kind, &m.Peer, &m.Tag, &m.Group, &m.ID, &m.Req, &m.Count,
		&m.Src, &m.MTag, &m.MCount, &m.MID, &m.Completed}
	for i, j := range l.msg {
		*f[i] = -1
		if j >= 0 {
			*f[i] = int32(v[j].Int)
		}
	}
	if l.msgBuf >= 0 {
		if a := v[l.msgBuf].Ints; len(a) == 4 {
			lo := int64(a[0])<<32 | int64(uint32(a[1]))
			hi := int64(a[2])<<32 | int64(uint32(a[3]))
			if hi >= lo {
				m.Bytes = hi - lo + 1
			}
		}
	}
}

// MessageKey is the default OrderOptions.Message: a point-to-point
// message is named by its sender and the sender's message id; the send's
// msg-call-start is the send side, the completion of the receive that
// took it (msg-call-stop of Recv and Sendrecv, msg-request-done of an
// Irecv) the receive side.
func MessageKey(r *trace.Record) (key string, send, ok bool) {
	switch r.Desc.Tag {
	case trace.TagMsgCallStart:
		switch r.Int("call kind") {
		case trace.CallSend, trace.CallSsend, trace.CallIsend, trace.CallSendrecv:
			if id := r.Int("message id"); id > 0 {
				return strconv.Itoa(r.Node()) + "." + strconv.Itoa(id), true, true
			}
		}
	case trace.TagMsgCallStop:
		switch r.Int("call kind") {
		case trace.CallRecv, trace.CallSendrecv:
			if src, id := r.Int("matched source"), r.Int("message id"); src >= 0 && id > 0 {
				return strconv.Itoa(src) + "." + strconv.Itoa(id), false, true
			}
		}
	case trace.TagMsgRequestDone:
		if r.Int("call kind") == trace.CallIrecv {
			if src, id := r.Int("matched source"), r.Int("message id"); src >= 0 && id > 0 {
				return strconv.Itoa(src) + "." + strconv.Itoa(id), false, true
			}
		}
	}
	return "", false, false
}

// intern returns the one copy of a measured interval's name, so that a
// measured interval costs no allocation in the pass.
func (d *decoder) intern(name string) string {
	if s, ok := d.names[name]; ok {
		return s
	}
	if d.names == nil {
		d.names = make(map[string]string)
	}
	d.names[name] = name
	return name
}

// cstring is a char array as a Go string: its bytes up to the first NUL.
func cstring(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

// pageRecord reports whether tag is a record the analysis reads field by
// field: the SVM layer's page records, var-check.
func pageRecord(tag trace.Tag) bool {
	switch tag {
	case trace.TagReadPageFaultSum, trace.TagWritePageFaultSum, trace.TagPageTravel,
		trace.TagReadPageFaultServiced, trace.TagWritePageFaultServiced, trace.TagSegmentVariable, trace.TagVarCheck:
		return true
	}
	return false
}
