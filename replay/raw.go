package replay

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/svmc/svmc/trace"
)

// The raw decoding of a binary trace (trace.Reader.NextData): the fields an
// Event holds are read from the record's bytes where they lie: at offsets
// computed once per descriptor when the record has no array, else by one
// walk over its fields. Only the records an Event keeps as a Record (see
// needsRecord) are decoded into one and go through decode.

// role is what a field gives an Event.
type role uint8

const (
	roleNone role = iota
	roleNode
	roleClock
	roleSub
	roleDir
	roleA
	roleF
	roleG
	roleCols
	roleArr
	roleName
	roleMsgBuf
	roleMsg // roleMsg+k: msgNames[k]
)

// rawOffsets are byte offsets of a layout's scalar fields in a record's
// fields (-1: absent) when the record has no array (fixed: its size), and
// every field's role for the walk otherwise.
type rawOffsets struct {
	ok                      bool // the offsets apply
	node, sub, dir, a, cols int
	clock, f, g             int
	clock32, f32, g32       bool // float, not double
	fixed                   int
	roles                   []role
}

func rawLayout(desc *trace.Descriptor, l *layout) rawOffsets {
	ro := rawOffsets{fixed: desc.FixedSize(), roles: make([]role, len(desc.Fields))}
	set := func(i int, r role) {
		if i >= 0 {
			ro.roles[i] = r
		}
	}
	set(l.node, roleNode)
	set(l.clock, roleClock)
	set(l.sub, roleSub)
	set(l.dir, roleDir)
	set(l.a, roleA)
	set(l.f, roleF)
	set(l.g, roleG)
	set(l.cols, roleCols)
	set(l.arr, roleArr)
	set(l.name, roleName)
	if l.msg != nil { // msgBuf is meaningful for message records only
		set(l.msgBuf, roleMsgBuf)
		for k, i := range l.msg {
			set(i, roleMsg+role(k))
		}
	}
	if ro.fixed < 0 || l.arr >= 0 || l.name >= 0 || l.msg != nil {
		return ro
	}
	off := func(i int) int {
		if i < 0 {
			return -1
		}
		return desc.FieldOffset(i)
	}
	ro.node, ro.sub, ro.dir, ro.a, ro.cols = off(l.node), off(l.sub), off(l.dir), off(l.a), off(l.cols)
	ro.clock, ro.f, ro.g = off(l.clock), off(l.f), off(l.g)
	is32 := func(i int) bool { return i >= 0 && desc.Fields[i].Type == trace.Float }
	ro.clock32, ro.f32, ro.g32 = is32(l.clock), is32(l.f), is32(l.g)
	ro.ok = true
	return ro
}

// needsRecord reports whether an Event of this tag keeps its Record (see
// Event.Rec), or the ordering needs it: the caller's OrderOptions.Message
// classifies records from tag 2000 (svmc's message records are classified
// from their Event, eventMessageKey).
func needsRecord(tag trace.Tag, keep, customMessage bool) bool {
	switch {
	case keep, AfterRun(tag), tag == trace.TagTraceThrottled, tag == trace.TagThrottledCalls, pageRecord(tag):
		return true
	}
	return customMessage && tag >= 2000 && tag != trace.TagPDOWork
}

// readEvent decodes the next record of the binary stream rd into e: from
// its raw fields where no Record is needed (needsRecord), else through one
// (keep: every record kept in e.Rec). It returns where the record lies,
// for an error about it later; a record it cannot use is a CorruptError
// there, the stream's end io.EOF.
func (d *decoder) readEvent(rd *trace.Reader, e *Event, keep bool) (recPos, error) {
	desc, f, err := rd.NextData()
	if err != nil {
		return recPos{}, err
	}
	var msg string
	if needsRecord(desc.Tag, keep, false) {
		msg = d.decode(rd.Record(desc, f), e, keep)
	} else {
		msg = d.decodeRaw(desc, f, e)
	}
	off, num := rd.LastRecord()
	if msg != "" {
		return recPos{}, rd.BadRecordAt(desc, off, num, msg)
	}
	return recPos{off, num, desc.Tag}, nil
}

// decodeRaw fills e from the fields f of a record of desc, as decode does
// from its Record; msg is what makes the record unusable. The fields are
// NextData's, checked against desc.
func (d *decoder) decodeRaw(desc *trace.Descriptor, f []byte, e *Event) (msg string) {
	l := d.layout(desc)
	ro := &l.raw
	*e = Event{Tag: desc.Tag, Node: -1}
	if ro.ok && len(f) == ro.fixed {
		d.fixedFields(ro, f, e)
	} else {
		d.walkFields(desc, ro, f, e)
	}
	if l.node >= 0 && (e.Node < 0 || e.Node >= MaxProcs) {
		return fmt.Sprintf("node %d is no processor number (0..%d)", e.Node, MaxProcs-1)
	}
	if notFinite(e.Clock) {
		return fmt.Sprintf("clock %v is not a time", e.Clock)
	}
	e.Time = e.Clock
	if l.f < 0 && e.Tag == trace.TagMeasureFinish {
		e.F = -1 // no elapsed time: the clocks' difference
	}
	if l.msg != nil {
		e.Dir = e.M.Site
	}
	d.setWriter(e)
	return ""
}

var le = binary.LittleEndian

// notFinite is math.IsNaN(x) || math.IsInf(x, 0) in one comparison: x-x
// is 0 for every finite x and NaN otherwise.
func notFinite(x float64) bool { return x-x != 0 }

func i32(f []byte, off int) int32 { return int32(le.Uint32(f[off:])) }

func num(f []byte, off int, f32 bool) float64 {
	if f32 {
		return float64(math.Float32frombits(le.Uint32(f[off:])))
	}
	return math.Float64frombits(le.Uint64(f[off:]))
}

// fixedFields reads the scalars of a record without arrays at their
// offsets.
func (d *decoder) fixedFields(ro *rawOffsets, f []byte, e *Event) {
	if ro.node >= 0 {
		e.Node = i32(f, ro.node)
	}
	if ro.clock >= 0 {
		e.Clock = num(f, ro.clock, ro.clock32)
	}
	if ro.sub >= 0 {
		e.Sub = i32(f, ro.sub)
	}
	if ro.dir >= 0 {
		e.Dir = i32(f, ro.dir)
	}
	if ro.a >= 0 {
		e.A = i32(f, ro.a)
	}
	if ro.f >= 0 {
		e.F = num(f, ro.f, ro.f32)
	}
	if ro.g >= 0 {
		e.G = num(f, ro.g, ro.g32)
	}
	if ro.cols >= 0 {
		e.Cols = int(i32(f, ro.cols))
	}
}

// walkFields reads a record's fields in order, arrays included.
func (d *decoder) walkFields(desc *trace.Descriptor, ro *rawOffsets, f []byte, e *Event) {
	var msg [13]*int32
	if desc.Tag == trace.TagMsgCallStart || desc.Tag == trace.TagMsgCallStop || desc.Tag == trace.TagMsgRequestDone {
		e.M = d.msgFields()
		m := e.M
		msg = [...]*int32{&m.Site, &m.Kind, &m.Peer, &m.Tag, &m.Group, &m.ID, &m.Req, &m.Count,
			&m.Src, &m.MTag, &m.MCount, &m.MID, &m.Completed}
		for _, p := range msg {
			*p = -1
		}
	}
	off := 0
	for i := range desc.Fields {
		fd := &desc.Fields[i]
		sz := elemSize(fd.Type)
		r := ro.roles[i]
		if fd.Dims == 0 {
			switch {
			case r == roleNone:
			case r == roleNode:
				e.Node = i32(f, off)
			case r == roleClock:
				e.Clock = num(f, off, fd.Type == trace.Float)
			case r == roleSub:
				e.Sub = i32(f, off)
			case r == roleDir:
				e.Dir = i32(f, off)
			case r == roleA:
				e.A = i32(f, off)
			case r == roleF:
				e.F = num(f, off, fd.Type == trace.Float)
			case r == roleG:
				e.G = num(f, off, fd.Type == trace.Float)
			case r == roleCols:
				e.Cols = int(i32(f, off))
			case r >= roleMsg:
				if p := msg[r-roleMsg]; p != nil {
					*p = i32(f, off)
				}
			}
			off += sz
			continue
		}
		n, cols := 1, 0
		for k := 0; k < fd.Dims; k++ {
			s := int(i32(f, off))
			n *= s
			if k == 1 {
				cols = s
			}
			off += 4
		}
		switch r {
		case roleArr:
			a := d.ints(n)
			for k := range a {
				a[k] = int(i32(f, off+4*k))
			}
			e.Arr = a
			if fd.Dims == 2 {
				e.Cols = cols
			} else {
				e.Cols = n
			}
		case roleName:
			e.Name = d.internBytes(f[off : off+n])
		case roleMsgBuf:
			if n == 4 && e.M != nil {
				lo := int64(i32(f, off))<<32 | int64(uint32(i32(f, off+4)))
				hi := int64(i32(f, off+8))<<32 | int64(uint32(i32(f, off+12)))
				if hi >= lo {
					e.M.Bytes = hi - lo + 1
				}
			}
		}
		off += n * sz
	}
}

func elemSize(t trace.FieldType) int {
	switch t {
	case trace.Char:
		return 1
	case trace.Double:
		return 8
	}
	return 4
}

// ints hands out slices for Event.Arr from larger allocations: they stay
// valid after the callback (Event's doc), and cost few allocations.
func (d *decoder) ints(n int) []int {
	if n > 256 {
		return make([]int, n)
	}
	if n > len(d.slab) {
		d.slab = make([]int, 4096)
	}
	a := d.slab[:n:n]
	d.slab = d.slab[n:]
	return a
}

// internBytes is intern of a char array's bytes up to the first NUL,
// without allocating when the name is known.
func (d *decoder) internBytes(b []byte) string {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	return d.intern(string(b))
}

// eventMessageKey is MessageKey of the record e was decoded from.
func eventMessageKey(e *Event) (key string, send, ok bool) {
	m := e.M
	if m == nil {
		return "", false, false
	}
	switch e.Tag {
	case trace.TagMsgCallStart:
		switch m.Kind {
		case trace.CallSend, trace.CallSsend, trace.CallIsend, trace.CallSendrecv:
			if m.ID > 0 {
				return strconv.Itoa(int(e.Node)) + "." + strconv.Itoa(int(m.ID)), true, true
			}
		}
	case trace.TagMsgCallStop:
		switch m.Kind {
		case trace.CallRecv, trace.CallSendrecv:
			if m.Src >= 0 && m.MID > 0 {
				return strconv.Itoa(int(m.Src)) + "." + strconv.Itoa(int(m.MID)), false, true
			}
		}
	case trace.TagMsgRequestDone:
		if m.Kind == trace.CallIrecv && m.Src >= 0 && m.MID > 0 {
			return strconv.Itoa(int(m.Src)) + "." + strconv.Itoa(int(m.MID)), false, true
		}
	}
	return "", false, false
}
