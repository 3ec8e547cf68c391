package trace

// Tag is an SDDF record tag. The numbers are the seed's; where the seed leaves
// one out we pick the next free number of the group (documented per constant).
type Tag int32

// Kernel events (seed 002, appendix A): the page events of the SVM layer,
// a model that runs inside the program (rtlib/svm.go) on the accesses of
// shared variables the compiler checks.
const (
	TagReadPageFaultSum          Tag = 1001
	TagWritePageFaultSum         Tag = 1002
	TagReadPageFaultServiced     Tag = 1003
	TagWritePageFaultServiced    Tag = 1004
	TagInvalidateCopy            Tag = 1005
	TagReduceAccessPermission    Tag = 1006
	TagPageTravel                Tag = 1007
	TagOPageDist                 Tag = 1008
	TagCPageDist                 Tag = 1009
	TagPageOut                   Tag = 1010
	TagWaitBarrierStart          Tag = 1101 // the seed prints no tag; 1101 is the first of its group
	TagWaitBarrierStop           Tag = 1102
	TagBarrierCheckin            Tag = 1103
	TagWaitBCheckoutStart        Tag = 1104
	TagWaitBCheckoutStop         Tag = 1105
	TagWaitLockStart             Tag = 1106
	TagWaitLockStop              Tag = 1107
	TagReleaseLock               Tag = 1108
	TagWaitCritSecStart          Tag = 1109
	TagWaitCritSecStop           Tag = 1110
	TagExitCritSec               Tag = 1111 // not in the seed's appendix: next in its group
	TagSharedSegmentAddress      Tag = 1201
	TagCoherenceSwitch           Tag = 1202 // the seed prints no tag; between 1201 and 1203
	TagPrefetch                  Tag = 1203
	TagTraceRegionStart          Tag = 1301
	TagTraceRegionStop           Tag = 1302
	TagTemplateInfo              Tag = 1303
	TagTemplateDist              Tag = 1304
	TagUndefTemplate             Tag = 1305
	TagDestroyTemplate           Tag = 1306
	TagProcArrangement           Tag = 1307
	TagPDOInfo                   Tag = 1308
	TagPDOIterationSpace         Tag = 1309
	TagSectionInfo               Tag = 1310
	TagAPSInfo                   Tag = 1311
	TagVariableMapping           Tag = 1312
	TagTraceOverhead             Tag = 1401
	TagSVMOverhead               Tag = 1402
	TagKernelTraceBufferOverflow Tag = 1403

	// Records svmc adds take tags from 2000 up (DESIGN.md §4).

	// TagPDOWork: at the end of its part of a parallel loop, each member of
	// the APS writes how many iterations it ran and how long it was busy
	// (from its region start to its arrival at the implicit barrier), so a
	// report can show the load balance without per-iteration events.
	TagPDOWork Tag = 2001

	// Measured intervals (Lib-DVM's MeasureStart / MeasureFinish, seed 000
	// §9): the enclosure level (1 outermost) and the interval's name; the
	// finish also has the time since the start of the same level.
	TagMeasureStart  Tag = 2002
	TagMeasureFinish Tag = 2003

	// Statistics (seed 000 §11), written at the end of a run with
	// statistics on. TagStatInterval: the summary characteristics of one
	// measured interval (interval 0 is the whole program); TagStatGroup:
	// one element IM[caller][group] of its interval matrix. See rtlib's
	// documentation for the groups and the definitions.
	TagStatInterval Tag = 2004
	TagStatGroup    Tag = 2005

	// TagTraceEnd is the last record of a trace the runtime closed: how the
	// run ended, the processors that had not stopped when their buffers
	// were taken over, and the records that could not be written.
	TagTraceEnd Tag = 2006

	// Throttling (as TAU does it): a subprogram called very often for
	// very little time each stops being traced on a processor.
	// TagTraceThrottled says when (with the calls and their mean inclusive
	// time so far); TagThrottledCalls, written by each processor when it
	// ends, the calls it made afterwards, untraced, and their inclusive
	// time (a recursion counted once; estimated by rtlib from a timed
	// sample of the calls).
	TagTraceThrottled Tag = 2007
	TagThrottledCalls Tag = 2008

	// TagSegmentVariable: the shared variable whose storage a segment of
	// the SVM layer holds (the seed's shared-segment-address gives only
	// the address), with the segment's pages; written with it when the
	// layer is on (stage 4 and above, or an SVMInfo request), so that the
	// locality analysis names variables.
	TagSegmentVariable Tag = 2009

	// TagVarCheck: a checksum (CRC-32 of the bytes) of a shared variable's
	// storage at the exit of a region, written by processor 0 when a LOCAL
	// request asks VarCheck for the region: svmc diff finds the first
	// region instance whose values differ between two runs. No stage
	// enables it: only the request word does (Stage returns RequestOnly).
	TagVarCheck Tag = 2010

	// TagGCPause is a stop-the-world pause of Go's garbage collector during
	// the run (clock: its start), written with the records after the run
	// when svmc run --gotrace asks for the Go runtime's context; the
	// runtime keeps the last 256 pauses.
	TagGCPause Tag = 2011

	// TagGoroutineStart and TagGoroutineEnd open and close the lane of a
	// goroutine a processor's code started (node id N + k, the k-th lane;
	// a lane is reused by a later goroutine of the same processor once its
	// goroutine ended): the processor it belongs to, the goroutine's
	// number in the run and the go statement. Written whenever a traced
	// processor starts a goroutine; the regions it runs are on its lane.
	TagGoroutineStart Tag = 2012
	TagGoroutineEnd   Tag = 2013

	// TagRankInfo is written by each rank of a run whose processors are
	// the ranks of an MPI job (each rank writes its own trace; node id:
	// the rank), last before trace-end: its clock against rank 0's, "shift
	// microseconds" added to this trace's clocks giving rank 0's, measured
	// when the run started (Cristian's algorithm, the shortest of several
	// round trips; "error microseconds" bounds it), what the rank
	// exchanged at the ends of pdos and replicated regions (how many
	// exchanges and the bytes of shared storage it sent) and the program's
	// messages it sent to other ranks ("messages sent", "message bytes
	// sent"; a message to processor 0 counts once per rank it goes to),
	// and the shift measured again at the run's normal end, at the
	// record's clock ("end shift microseconds", "end error microseconds";
	// the error −1 where it was not measured: a run that failed, or a
	// single rank), the critical sections, locks and atomic updates its
	// processors took between ranks ("global locks taken") and the bytes it
	// published at their releases: between
	// the two the clocks drift apart linearly. Rank k runs processors k·K
	// to k·K + K − 1, K its "processors per rank". MergeRanks reads it.
	TagRankInfo Tag = 2014

	// TagWaitMutexStart and TagWaitMutexStop bracket a processor's wait
	// for a sync.Mutex or sync.RWMutex of the program's own (svmc's, not
	// the seed's: Go code locks its own mutexes as often as it names a
	// lock directive): the call site in the program information's mutex
	// sites, and the mutex's address. Written only when the mutex was
	// held by another goroutine, at stage 3 as the waits for locks.
	TagWaitMutexStart Tag = 2015
	TagWaitMutexStop  Tag = 2016

	// TagGoroutinesUntraced is written with the records after the run,
	// once per processor whose code started goroutines while MaxLanes
	// lanes were in use: "goroutines", how many of them ran without a
	// lane. Their work is in no record, so the goroutines' share of the
	// processors' idle time is counted short.
	TagGoroutinesUntraced Tag = 2017

	// MaxLanes bounds the goroutine lanes of a run: their node ids are N
	// to N + MaxLanes − 1.
	MaxLanes = 1024

	// Message passing (from #2100; seed 003's tracer): the entry and exit
	// of every call with its parameters, and the completion of a
	// non-blocking operation found by Wait, Test or WaitAll. A send's
	// "message id" is the sender's number of the message (from 1); the
	// receive that takes it names the same number with its "matched
	// source", which pairs the two. Collectives carry the active processor
	// set's "group" id, its "group size" and their instance number in it
	// as "message id"; Reduce and Allreduce their "operation" (rtlib.Op + 1,
	// 0 for the others). Addresses are [start_hi, start_lo, end_hi,
	// end_lo] as in wait-lock-start.
	TagMsgCallStart   Tag = 2101
	TagMsgCallStop    Tag = 2102
	TagMsgRequestDone Tag = 2103
)

// Call kinds of the message-passing records ("call kind").
const (
	CallSend = iota + 1
	CallSsend
	CallRecv
	CallIsend
	CallIrecv
	CallWait
	CallTest
	CallWaitAll
	CallSendrecv
	CallProbe
	CallBcast
	CallReduce
	CallAllreduce
	CallGather
	CallScatter
	CallAllgather
	CallAlltoall
	CallBarrier
	NumCallKinds
)

var callNames = [NumCallKinds]string{"?", "Send", "Ssend", "Recv", "Isend", "Irecv", "Wait", "Test", "WaitAll",
	"Sendrecv", "Probe", "Bcast", "Reduce", "Allreduce", "Gather", "Scatter", "Allgather", "Alltoall", "Barrier"}

// CallKindName is the rtlib function of a call kind.
func CallKindName(k int) string {
	if k > 0 && k < NumCallKinds {
		return callNames[k]
	}
	return "call kind " + itoa(k)
}

// IsCollective reports whether call kind k is a collective operation.
func IsCollective(k int) bool { return k >= CallBcast && k <= CallBarrier }

func itoa(v int) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// FieldType is one of the four SDDF scalar types.
type FieldType uint8

const (
	Char FieldType = iota + 1
	Int
	Float
	Double
)

func (t FieldType) String() string {
	switch t {
	case Char:
		return "char"
	case Int:
		return "int"
	case Float:
		return "float"
	case Double:
		return "double"
	}
	return "?"
}

// Field is one field of a record descriptor. Dims is the number of array
// dimensions (0 scalar, 1 for "x"[], 2 for "x"[][]).
type Field struct {
	Type FieldType
	Name string
	Dims int
}

// Descriptor describes one record: its tag, name, the "event" attribute and
// its fields in order.
type Descriptor struct {
	Tag    Tag
	Name   string
	Event  string // the value of the descriptor's "event" attribute
	Fields []Field
}

var (
	nodeID = Field{Int, "node id", 0}
	clock  = Field{Double, "clock microseconds", 0}
	subNo  = Field{Int, "subprogram number", 0}
	dirNo  = Field{Int, "directive number", 0}
)

func ints(names ...string) []Field {
	fs := make([]Field, len(names))
	for i, n := range names {
		fs[i] = Field{Int, n, 0}
	}
	return fs
}

func fields(groups ...[]Field) []Field {
	var out []Field
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func one(f ...Field) []Field { return f }

// syncRec is the layout shared by the synchronisation records.
func syncRec(tag Tag, name, event string) *Descriptor {
	return &Descriptor{tag, name, event, one(nodeID, clock, subNo, dirNo)}
}

// Catalog lists every record svmc knows, in tag order. The names, field names,
// field types and array dimensions are exactly those of seed 002.
var Catalog = []*Descriptor{
	{TagReadPageFaultSum, "read-page-fault-sum", "sum of read page faults",
		fields(one(nodeID, clock), ints("segment id", "data start address", "data end address", "number of page faults"))},
	{TagWritePageFaultSum, "write-page-fault-sum", "sum of write page faults",
		fields(one(nodeID, clock), ints("segment id", "data start address", "data end address", "number of page faults"))},
	{TagReadPageFaultServiced, "read-page-fault-serviced", "read page fault occur and service",
		fields(one(nodeID, Field{Double, "fault clock microseconds", 0}),
			ints("segment id", "faulting address", "faulting page number", "instruction address", "node id that sent the page"),
			one(Field{Double, "serviced clock microseconds", 0}))},
	{TagWritePageFaultServiced, "write-page-fault-serviced", "write page fault occur and service",
		fields(one(nodeID, Field{Double, "fault clock microseconds", 0}),
			ints("segment id", "faulting address", "faulting page number", "instruction address", "node id that sent the page"),
			one(Field{Double, "serviced clock microseconds", 0}))},
	{TagInvalidateCopy, "invalidate-copy", "invalidation message received",
		fields(one(nodeID, clock), ints("segment id", "faulting address", "faulting page number", "requesting node id"))},
	{TagReduceAccessPermission, "reduce-access-permission", "reduce access permission",
		fields(one(nodeID, clock), ints("segment id", "faulting address", "faulting page number", "requesting node id"))},
	{TagPageTravel, "page-travel", "page travel for a specific data region",
		fields(one(nodeID, clock), ints("segment id", "data start address", "data end address"), one(Field{Int, "received pages", 1}))},
	{TagOPageDist, "o-page-dist", "distribution of writable pages",
		fields(one(nodeID, clock), ints("segment id", "data start address", "data end address", "number of owned pages"), one(Field{Int, "owned pages", 1}))},
	{TagCPageDist, "c-page-dist", "distribution of read-only pages",
		fields(one(nodeID, clock), ints("segment id", "data start address", "data end address", "number of copied pages"), one(Field{Int, "copied pages", 1}))},
	{TagPageOut, "page-out", "page out a page",
		fields(one(nodeID, clock), ints("segment id", "page number"))},

	syncRec(TagWaitBarrierStart, "wait-barrier-start", "start waiting at a barrier"),
	syncRec(TagWaitBarrierStop, "wait-barrier-stop", "stop waiting at a barrier"),
	syncRec(TagBarrierCheckin, "barrier-checkin", "checking in for a barrier"),
	syncRec(TagWaitBCheckoutStart, "wait-bcheckout-start", "start waiting at a barrier checkout"),
	syncRec(TagWaitBCheckoutStop, "wait-bcheckout-stop", "stop waiting at a barrier checkout"),
	{TagWaitLockStart, "wait-lock-start", "start waiting at a lock",
		one(nodeID, clock, subNo, dirNo, Field{Int, "locking address", 2})},
	syncRec(TagWaitLockStop, "wait-lock-stop", "stop waiting at a lock"),
	syncRec(TagReleaseLock, "release-lock", "release a lock"),
	syncRec(TagWaitCritSecStart, "wait-crit-sec-start", "start waiting at a critical section"),
	syncRec(TagWaitCritSecStop, "wait-crit-sec-stop", "stop waiting at a critical section"),
	syncRec(TagExitCritSec, "exit-crit-sec", "exit a critical section"),

	{TagSharedSegmentAddress, "shared-segment-address", "shared segment address",
		fields(one(nodeID, clock), ints("segment id", "start address"))},
	{TagCoherenceSwitch, "coherence-switch", "switch coherence strategy",
		fields(one(nodeID, clock, subNo, dirNo), ints("segment id", "data start address", "data end address", "coherence strategy"),
			one(Field{Double, "time microseconds", 0}))},
	{TagPrefetch, "prefetch", "prefetch some data",
		fields(one(nodeID, clock, subNo, dirNo), ints("segment id", "data start address", "data end address"))},

	{TagTraceRegionStart, "trace-region-start", "start a trace region",
		one(nodeID, clock, subNo, dirNo, Field{Int, "trace region type", 0})},
	{TagTraceRegionStop, "trace-region-stop", "stop a trace region",
		one(nodeID, clock, subNo, dirNo, Field{Int, "trace region type", 0})},
	{TagTemplateInfo, "template-info", "information about a template",
		one(nodeID, clock, Field{Int, "template id", 0}, subNo, dirNo, Field{Int, "number of dimensions", 0}, Field{Int, "template shape", 2})},
	{TagTemplateDist, "template-dist", "distribution of a template",
		one(nodeID, clock, Field{Int, "template id", 0}, Field{Int, "owned indices", 2})},
	{TagUndefTemplate, "undef-template", "undefine a template",
		one(nodeID, clock, Field{Int, "template id", 0})},
	{TagDestroyTemplate, "destroy-template", "destroy a template",
		one(nodeID, clock, Field{Int, "template id", 0})},
	{TagProcArrangement, "proc-arrangement", "arrangement of a processor set",
		one(nodeID, clock, Field{Int, "proc arrangement id", 0}, subNo, dirNo, Field{Int, "number of dimensions", 0},
			Field{Int, "shape of dimensions", 2}, Field{Int, "pids", 1})},
	{TagPDOInfo, "pdo-info", "start a parallel loop",
		one(nodeID, clock, subNo, dirNo, Field{Int, "proc arrangement id", 0}, Field{Int, "proc arrangement shape", 2},
			Field{Int, "block cyclic length", 1}, Field{Int, "const template indices", 1}, Field{Double, "startup time microseconds", 0})},
	{TagPDOIterationSpace, "pdo-iteration-space", "parallel loop iteration space",
		one(nodeID, clock, subNo, dirNo, Field{Int, "iteration space", 2})},
	{TagSectionInfo, "section-info", "start a section of a parallel section",
		one(nodeID, clock, subNo, dirNo, Field{Int, "proc arrangement id", 0}, Field{Int, "shape of dimensions", 2})},
	{TagAPSInfo, "aps-info", "new active processor set",
		one(nodeID, clock, Field{Int, "pids", 1})},
	{TagVariableMapping, "variable-mapping", "shared variable mapping",
		one(nodeID, clock, subNo, Field{Int, "variable address", 2})},

	{TagTraceOverhead, "trace-overhead", "time for trace actions",
		one(nodeID, clock, Field{Double, "duration microseconds", 0}, Field{Int, "overhead type", 0})},
	{TagSVMOverhead, "svm-overhead-start", "time for svm actions",
		one(nodeID, clock, Field{Double, "duration microseconds", 0}, Field{Int, "overhead type", 0})},
	{TagKernelTraceBufferOverflow, "kernel-trace-buffer-overflow", "overflow of kernel trace buffer",
		one(nodeID, clock)},

	{TagPDOWork, "pdo-work", "iterations and busy time of a processor in a parallel loop; under self-scheduling the chunks it fetched and the time fetching took (estimated from a timed sample, part of the busy time)",
		one(nodeID, clock, subNo, dirNo, Field{Int, "iterations", 0}, Field{Double, "busy microseconds", 0},
			Field{Int, "chunks", 0}, Field{Double, "dispatch microseconds", 0})},
	{TagMeasureStart, "measure-start", "start of a measured interval",
		one(nodeID, clock, Field{Int, "level", 0}, Field{Char, "name", 1})},
	{TagMeasureFinish, "measure-finish", "end of a measured interval",
		one(nodeID, clock, Field{Int, "level", 0}, Field{Char, "name", 1}, Field{Double, "elapsed microseconds", 0})},
	{TagStatInterval, "stat-interval", "summary characteristics of a measured interval",
		one(nodeID, clock, Field{Int, "interval id", 0}, Field{Int, "parent id", 0}, Field{Int, "level", 0},
			Field{Char, "name", 1}, Field{Int, "entries", 0}, Field{Int, "processors", 0},
			Field{Double, "execution microseconds", 0}, Field{Double, "processor microseconds", 0},
			Field{Double, "user productive microseconds", 0}, Field{Double, "user lost microseconds", 0},
			Field{Double, "system productive microseconds", 0}, Field{Double, "system lost microseconds", 0},
			Field{Double, "productive microseconds", 0}, Field{Double, "lost microseconds", 0},
			Field{Double, "idle microseconds", 0}, Field{Double, "system calls", 0}, Field{Double, "efficiency", 0},
			Field{Double, "dissynchronisation microseconds", 0},
			Field{Double, "time variation microseconds", 0}, Field{Double, "potential dissynchronisation microseconds", 0})},
	{TagStatGroup, "stat-group", "calls, productive and lost time of a group of runtime functions in an interval",
		one(nodeID, clock, Field{Int, "interval id", 0}, Field{Int, "caller group", 0}, Field{Int, "group", 0},
			Field{Char, "group name", 1}, Field{Double, "calls", 0},
			Field{Double, "productive microseconds", 0}, Field{Double, "lost microseconds", 0})},
	{TagTraceEnd, "trace-end", "end of the trace",
		one(nodeID, clock, Field{Int, "status", 0}, Field{Char, "message", 1},
			Field{Int, "processors not stopped", 1}, Field{Int, "lost records", 0})},
	{TagMsgCallStart, "msg-call-start", "enter a message-passing call",
		one(nodeID, clock, subNo, Field{Int, "call site", 0}, Field{Int, "call kind", 0}, Field{Int, "peer", 0}, Field{Int, "tag", 0},
			Field{Int, "group", 0}, Field{Int, "message id", 0}, Field{Int, "request id", 0}, Field{Char, "element type", 1},
			Field{Int, "count", 0}, Field{Int, "buffer address", 1}, Field{Int, "checksum", 0},
			Field{Int, "recv peer", 0}, Field{Int, "recv tag", 0}, Field{Int, "recv count", 0}, Field{Int, "recv buffer address", 1},
			Field{Int, "group size", 0}, Field{Int, "operation", 0})},
	{TagMsgCallStop, "msg-call-stop", "leave a message-passing call",
		one(nodeID, clock, subNo, Field{Int, "call site", 0}, Field{Int, "call kind", 0}, Field{Int, "request id", 0},
			Field{Int, "matched source", 0}, Field{Int, "matched tag", 0}, Field{Int, "matched count", 0}, Field{Int, "message id", 0},
			Field{Int, "checksum", 0}, Field{Int, "completed", 0})},
	{TagMsgRequestDone, "msg-request-done", "a non-blocking operation found complete",
		one(nodeID, clock, subNo, Field{Int, "call site", 0}, Field{Int, "request id", 0}, Field{Int, "call kind", 0},
			Field{Int, "matched source", 0}, Field{Int, "matched tag", 0}, Field{Int, "matched count", 0}, Field{Int, "message id", 0},
			Field{Int, "checksum", 0})},
	{TagTraceThrottled, "trace-throttled", "a subprogram stops being traced on a processor: called often, briefly",
		one(nodeID, clock, subNo, Field{Int, "calls", 0}, Field{Double, "mean inclusive microseconds", 0})},
	{TagThrottledCalls, "throttled-calls", "calls of a throttled subprogram after it stopped being traced",
		one(nodeID, clock, subNo, Field{Int, "calls", 0}, Field{Double, "inclusive microseconds", 0})},
	{TagVarCheck, "var-check", "a checksum of a shared variable at the exit of a region",
		one(nodeID, clock, subNo, dirNo, Field{Int, "variable number", 0}, Field{Int, "instance", 0},
			Field{Int, "checksum", 0}, Field{Int, "bytes", 0})},
	{TagGCPause, "gc-pause", "a stop-the-world pause of Go's garbage collector during the run",
		one(nodeID, clock, Field{Double, "duration microseconds", 0}, Field{Int, "gc number", 0})},
	{TagGoroutineStart, "goroutine-start", "a goroutine a processor started begins on its lane",
		one(nodeID, clock, Field{Int, "processor", 0}, Field{Int, "goroutine number", 0}, Field{Char, "started at", 1})},
	{TagGoroutineEnd, "goroutine-end", "the goroutine of a lane returns",
		one(nodeID, clock)},
	{TagGoroutinesUntraced, "goroutines-untraced", "goroutines a processor started that ran without a lane: more than MaxLanes at once",
		one(nodeID, clock, Field{Int, "processor", 0}, Field{Int, "goroutines", 0})},
	{TagWaitMutexStart, "wait-mutex-start", "start waiting for a sync.Mutex the program locks",
		one(nodeID, clock, Field{Int, "mutex site", 0}, Field{Int, "mutex address", 0})},
	{TagWaitMutexStop, "wait-mutex-stop", "stop waiting for a sync.Mutex: it is locked",
		one(nodeID, clock, Field{Int, "mutex site", 0})},
	{TagRankInfo, "rank-info", "a rank's clock against rank 0's, for merging the ranks' traces, its exchanges of shared storage and its messages to other ranks",
		one(nodeID, clock, Field{Int, "rank", 0}, Field{Int, "ranks", 0}, Field{Int, "processors per rank", 0}, Field{Double, "shift microseconds", 0},
			Field{Double, "error microseconds", 0}, Field{Int, "exchanges", 0}, Field{Double, "bytes sent", 0},
			Field{Int, "messages sent", 0}, Field{Double, "message bytes sent", 0},
			Field{Double, "end shift microseconds", 0}, Field{Double, "end error microseconds", 0},
			Field{Int, "global locks taken", 0}, Field{Double, "bytes published", 0},
			Field{Int, "pages fetched", 0}, Field{Double, "page bytes received", 0}, Field{Int, "pages served", 0}, Field{Int, "stale pages synchronised", 0},
			Field{Int, "pages prefetched", 0})},
	{TagSegmentVariable, "segment-variable", "the shared variable a segment of the SVM layer holds, and its pages",
		one(nodeID, clock, Field{Int, "segment id", 0}, subNo, Field{Int, "variable number", 0},
			Field{Int, "first page number", 0}, Field{Int, "number of pages", 0}, Field{Int, "bytes", 0}, Field{Int, "page size", 0})},
}

var byTag = func() map[Tag]*Descriptor {
	m := make(map[Tag]*Descriptor, len(Catalog))
	for _, d := range Catalog {
		m[d.Tag] = d
	}
	return m
}()

// Lookup returns the catalogue descriptor of tag, or nil.
func Lookup(tag Tag) *Descriptor { return byTag[tag] }

// Trace region types written in the "trace region type" field. The seed names
// the kinds but gives no numbers; these are svmc's.
const (
	RegionProgram    = 0
	RegionSubroutine = 1
	RegionPSection   = 2
	RegionSection    = 3
	RegionPDO        = 4
	RegionReplicated = 5
	RegionExclusive  = 6
	RegionUser       = 7
)

// RegionTypeName names a trace region type for reports.
func RegionTypeName(t int) string {
	switch t {
	case RegionProgram:
		return "program"
	case RegionSubroutine:
		return "subroutine"
	case RegionPSection:
		return "psection"
	case RegionSection:
		return "section"
	case RegionPDO:
		return "pdo"
	case RegionReplicated:
		return "replicated"
	case RegionExclusive:
		return "exclusive"
	case RegionUser:
		return "user"
	}
	return "unknown"
}

// Overhead types of the trace-overhead record.
const (
	OverheadFlush = 1 // a processor's buffer was written to the trace file
	// OverheadRecording: the time a processor spent recording its trace
	// (its records, the calls of throttled subprograms it timed),
	// estimated from costs measured when the run started; written when
	// it ends, it is no interval of the run but spread through it.
	OverheadRecording = 2
)

// Status of the trace-end record: how the run ended.
const (
	EndNormal    = 0 // the program returned
	EndError     = 1 // a run-time error the user caused
	EndPanic     = 2 // a panic on a processor
	EndDeadlock  = 3 // the runtime detected a deadlock
	EndInterrupt = 4 // SIGINT
	EndTerminate = 5 // SIGTERM
	EndExit      = 6 // the program called os.Exit (or log.Fatal) with a status other than 0
)

// RequestOnly is the stage of records that no stage enables, only a
// request word (var-check).
const RequestOnly = 99

// Stage returns the lowest tracing stage (seed 002, Table 2) at which records
// with tag are written. Stage 1 regions and overhead; 2 scheduling and
// mapping; 3 synchronisation and message passing; 4-6 the SVM kernel's page events.
func Stage(tag Tag) int {
	switch {
	case tag == TagVarCheck:
		return RequestOnly
	case tag == TagTraceRegionStart, tag == TagTraceRegionStop,
		tag == TagTraceOverhead, tag == TagKernelTraceBufferOverflow:
		return 1
	case tag >= 1303 && tag <= 1312, tag == TagPDOWork:
		return 2
	case tag >= TagMeasureStart && tag <= TagThrottledCalls, tag == TagGCPause,
		tag == TagGoroutineStart, tag == TagGoroutineEnd, tag == TagRankInfo, tag == TagGoroutinesUntraced:
		return 1
	case tag >= 1101 && tag <= 1111, tag >= TagMsgCallStart && tag <= TagMsgRequestDone,
		tag == TagWaitMutexStart, tag == TagWaitMutexStop:
		return 3
	case tag == TagReadPageFaultSum, tag == TagWritePageFaultSum, tag == TagSegmentVariable:
		return 4
	case tag == TagPageTravel, tag == TagOPageDist, tag == TagCPageDist,
		tag == TagCoherenceSwitch, tag == TagPrefetch:
		return 5
	}
	return 6
}
