package analysis

import (
	"github.com/svmc/svmc/trace"
)

// ev is the compact form of a record that the ordering and the model use:
// the fields they need, found by name through the record's own descriptor
// (streams are self-describing), so that a pass keeps no trace.Record alive.
type ev struct {
	t    float64 // the record's clock (µs)
	f    float64 // busy µs (pdo-work), duration (trace-overhead), startup (pdo-info)
	arr  []int   // lock rows (wait-lock-start), iteration space, pids (aps-info); shares the record's slice
	cols int     // columns of arr when it is a 2-D array
	tag  trace.Tag
	node int32 // the record's node id (-1 if none)
	w    int32 // the stream it belongs to: the processor that wrote it
	sub  int32
	dir  int32
	a    int32 // region type, iterations, overhead type, measure level
	x    *evx  // the rarer records' strings and values (measure, statistics, trace-end)
}

// evx is what an ev carries for the records of measured intervals, the
// runtime's statistics and the end of the run. The measure records of one
// name share one evx (interned per decoder), so that a measured interval
// costs no allocation in the pass.
type evx struct {
	name string
	si   *StatInterval // stat-interval
	sg   *statGroupRec // stat-group
	end  *RunEnd       // trace-end
}

// statGroupRec is a stat-group record: one element of an interval matrix.
type statGroupRec struct {
	interval int
	g        StatGroup
}

// layout holds the field indices of one descriptor (-1: absent).
type layout struct {
	node, clock, sub, dir, a, f, arr int
	name                             int // char array "name" (measure records)
}

// decoder turns records into evs. It caches a layout per descriptor and
// tracks the writer of the current run of records (see decode). Use one
// decoder per stream.
type decoder struct {
	byTag   []layoutEntry // tags below len(byTag)
	layouts map[*trace.Descriptor]*layout
	writer  int32           // writer of the previous record, -1 before the first
	names   map[string]*evx // interned names of measured intervals
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
		a:     -1, f: -1, arr: -1, name: -1,
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
	case trace.TagTraceOverhead, trace.TagSVMOverhead:
		l.a = scalarIndex(desc, "overhead type", trace.Int)
		l.f = scalarIndex(desc, "duration microseconds", trace.Double, trace.Float)
	case trace.TagPDOInfo:
		l.f = scalarIndex(desc, "startup time microseconds", trace.Double, trace.Float)
	case trace.TagWaitLockStart:
		l.arr = arrayIndex(desc, "locking address")
	case trace.TagPDOIterationSpace:
		l.arr = arrayIndex(desc, "iteration space")
	case trace.TagAPSInfo:
		l.arr = arrayIndex(desc, "pids")
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

// decode fills e from r. The writer of a record is its node id, except for
// template-dist: the APS leader writes one per owner with the owner's node
// id into its own buffer, so it belongs to the stream of the record before
// it (the runtime's buffers reach the trace as runs of one processor's
// records, and such a run never starts with a template-dist).
func (d *decoder) decode(r *trace.Record, e *ev) {
	l := d.layout(r.Desc)
	v := r.Values
	*e = ev{tag: r.Desc.Tag, node: -1}
	if l.node >= 0 {
		e.node = int32(v[l.node].Int)
	}
	if l.clock >= 0 {
		e.t = v[l.clock].Double
	}
	if l.sub >= 0 {
		e.sub = int32(v[l.sub].Int)
	}
	if l.dir >= 0 {
		e.dir = int32(v[l.dir].Int)
	}
	if l.a >= 0 {
		e.a = int32(v[l.a].Int)
	}
	if l.f >= 0 {
		e.f = v[l.f].Double
	} else if e.tag == trace.TagMeasureFinish {
		e.f = -1 // no elapsed time: the clocks' difference
	}
	if l.arr >= 0 {
		x := &v[l.arr]
		e.arr = x.Ints
		if len(x.Dims) == 2 {
			e.cols = x.Dims[1]
		} else {
			e.cols = len(x.Ints)
		}
	}
	switch e.tag {
	case trace.TagMeasureStart, trace.TagMeasureFinish:
		name := ""
		if l.name >= 0 {
			name = cstring(v[l.name].Str)
		}
		e.x = d.intern(name)
	case trace.TagStatInterval:
		e.x = &evx{si: decodeStatInterval(r)}
	case trace.TagStatGroup:
		e.x = &evx{sg: decodeStatGroup(r)}
	case trace.TagTraceEnd:
		e.x = &evx{end: decodeEnd(r)}
	}
	e.w = e.node
	if (e.tag == trace.TagTemplateDist || e.node < 0) && d.writer >= 0 {
		e.w = d.writer
	}
	if e.w < 0 {
		e.w = 0
	}
	d.writer = e.w
}

// intern returns the shared evx of a measured interval's name.
func (d *decoder) intern(name string) *evx {
	x := d.names[name]
	if x == nil {
		if d.names == nil {
			d.names = make(map[string]*evx)
		}
		x = &evx{name: name}
		d.names[name] = x
	}
	return x
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

// scalar returns the int and float value of the scalar field called name,
// and whether the record has it.
func scalar(r *trace.Record, name string) (int, float64, bool) {
	i := r.Desc.Index(name)
	if i < 0 || i >= len(r.Values) || r.Desc.Fields[i].Dims != 0 {
		return 0, 0, false
	}
	v := &r.Values[i]
	switch r.Desc.Fields[i].Type {
	case trace.Double, trace.Float:
		return int(v.Double), v.Double, true
	}
	return v.Int, float64(v.Int), true
}

func intField(r *trace.Record, name string, def int) int {
	if n, _, ok := scalar(r, name); ok {
		return n
	}
	return def
}

func floatField(r *trace.Record, name string) float64 {
	_, f, _ := scalar(r, name)
	return f
}

func decodeStatInterval(r *trace.Record) *StatInterval {
	return &StatInterval{
		ID:               intField(r, "interval id", 0),
		Parent:           intField(r, "parent id", -1),
		Level:            intField(r, "level", 0),
		Name:             r.String("name"),
		Entries:          intField(r, "entries", 0),
		Procs:            intField(r, "processors", 0),
		Exec:             floatField(r, "execution microseconds"),
		ProcTime:         floatField(r, "processor microseconds"),
		UserProductive:   floatField(r, "user productive microseconds"),
		UserLost:         floatField(r, "user lost microseconds"),
		SystemProductive: floatField(r, "system productive microseconds"),
		SystemLost:       floatField(r, "system lost microseconds"),
		Productive:       floatField(r, "productive microseconds"),
		Lost:             floatField(r, "lost microseconds"),
		Idle:             floatField(r, "idle microseconds"),
		SystemCalls:      floatField(r, "system calls"),
		Efficiency:       floatField(r, "efficiency"),
		Groups:           []StatGroup{},
	}
}

func decodeStatGroup(r *trace.Record) *statGroupRec {
	return &statGroupRec{interval: intField(r, "interval id", 0), g: StatGroup{
		Caller:     intField(r, "caller group", 0),
		Group:      intField(r, "group", 0),
		Name:       r.String("group name"),
		Calls:      floatField(r, "calls"),
		Productive: floatField(r, "productive microseconds"),
		Lost:       floatField(r, "lost microseconds"),
	}}
}

// RunEndOf reads a trace-end record (for tools that read the records
// themselves, such as svmc view).
func RunEndOf(r *trace.Record) RunEnd { return *decodeEnd(r) }

func decodeEnd(r *trace.Record) *RunEnd {
	e := &RunEnd{Recorded: true, Status: intField(r, "status", 0), Message: r.String("message"),
		NotStopped: []int{}, LostRecords: intField(r, "lost records", 0)}
	if _, ps := r.IntArray("processors not stopped"); len(ps) > 0 {
		e.NotStopped = append(e.NotStopped, ps...)
	}
	e.StatusName = EndStatusName(e.Status)
	return e
}
