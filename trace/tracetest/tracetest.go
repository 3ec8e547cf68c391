// Package tracetest builds synthetic traces for tests, record by record
// per processor like the runtime: one buffer per processor, flushed as one
// run each. It covers what the examples do not trace yet (locks, critical
// sections, split barriers, sections, atomics, clock skew, measured
// intervals, the runtime's statistics).
//
// It is not part of the runtime: instrumented programs embed only
// trace/*.go, not this directory.
package tracetest

import (
	"bytes"
	"slices"
	"strconv"
	"testing"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// progAttr is the stream attribute that carries the program information.
const progAttr = "svmc program info"

// Synth collects records per processor.
type Synth struct {
	Bufs []trace.Buf
	// Procs is the "processors" attribute when the buffers beyond it are
	// goroutine lanes (0: every buffer is a processor's).
	Procs int
}

// New returns a Synth for n processors.
func New(n int) *Synth { return &Synth{Bufs: make([]trace.Buf, n)} }

// Rec writes a record with int fields after the node id and the clock.
func (s *Synth) Rec(node int, t float64, tag trace.Tag, ints ...int) {
	b := &s.Bufs[node]
	b.Begin(tag, node, t)
	for _, v := range ints {
		b.Int(v)
	}
	b.End()
}

// GoroutineStart opens goroutine lane lane (a node id from N on) for the
// num-th goroutine of processor owner, started by the go statement at.
func (s *Synth) GoroutineStart(lane int, t float64, owner, num int, at string) {
	b := &s.Bufs[lane]
	b.Begin(trace.TagGoroutineStart, lane, t)
	b.Int(owner)
	b.Int(num)
	b.Chars(at)
	b.End()
}

// Start writes trace-region-start.
func (s *Synth) Start(node int, t float64, sub, dir, typ int) {
	s.Rec(node, t, trace.TagTraceRegionStart, sub, dir, typ)
}

// Stop writes trace-region-stop.
func (s *Synth) Stop(node int, t float64, sub, dir, typ int) {
	s.Rec(node, t, trace.TagTraceRegionStop, sub, dir, typ)
}

// Sync writes a record of the synchronisation layout (sub, dir).
func (s *Synth) Sync(node int, t float64, tag trace.Tag, sub, dir int) {
	s.Rec(node, t, tag, sub, dir)
}

// LockWait writes wait-lock-start with one locking-address row per
// address, as the runtime does (rtlib's appendAddrRow): the 4 ints
// [start hi, start lo, end hi, end lo] of an 8-byte variable at the
// address, the end inclusive, each half as a 32-bit int.
func (s *Synth) LockWait(node int, t float64, sub, dir int, addrs ...int) {
	b := &s.Bufs[node]
	b.Begin(trace.TagWaitLockStart, node, t)
	b.Int(sub)
	b.Int(dir)
	var rows []int
	for _, a := range addrs {
		rows = appendAddrRow(rows, uint64(a), uint64(a)+7)
	}
	b.IntRows(4, rows)
	b.End()
}

func appendAddrRow(rows []int, a, e uint64) []int {
	return append(rows, int(int32(uint32(a>>32))), int(int32(uint32(a))), int(int32(uint32(e>>32))), int(int32(uint32(e))))
}

// PDOWork writes pdo-work: a processor's iterations and busy time in a pdo
// (statically scheduled: no chunks fetched).
func (s *Synth) PDOWork(node int, t float64, sub, dir, iters int, busy float64) {
	s.PDOWorkDyn(node, t, sub, dir, iters, busy, 0, 0)
}

// PDOWorkDyn writes pdo-work of a self-scheduled pdo: also the chunks
// fetched and the time fetching took.
func (s *Synth) PDOWorkDyn(node int, t float64, sub, dir, iters int, busy float64, chunks int, dispatch float64) {
	b := &s.Bufs[node]
	b.Begin(trace.TagPDOWork, node, t)
	b.Int(sub)
	b.Int(dir)
	b.Int(iters)
	b.Double(busy)
	b.Int(chunks)
	b.Double(dispatch)
	b.End()
}

// Throttle writes trace-throttled (sub stopped being traced after calls
// of mean µs) or, with tag TagThrottledCalls, throttled-calls (calls and
// their inclusive µs afterwards).
func (s *Synth) Throttle(node int, t float64, tag trace.Tag, sub, calls int, us float64) {
	b := &s.Bufs[node]
	b.Begin(tag, node, t)
	b.Int(sub)
	b.Int(calls)
	b.Double(us)
	b.End()
}

// Overhead writes trace-overhead of a buffer flush lasting d microseconds.
func (s *Synth) Overhead(node int, t, d float64) { s.overhead(node, t, d, trace.OverheadFlush) }

// Recording writes the trace-overhead record of the estimated time node
// spent recording its trace (d µs), as a processor writes it when it ends.
func (s *Synth) Recording(node int, t, d float64) { s.overhead(node, t, d, trace.OverheadRecording) }

func (s *Synth) overhead(node int, t, d float64, typ int) {
	b := &s.Bufs[node]
	b.Begin(trace.TagTraceOverhead, node, t)
	b.Double(d)
	b.Int(typ)
	b.End()
}

// PDOInfo writes pdo-info: arrangement 0 over all processors, no block
// cyclic lengths or constant template indices, and the startup time.
func (s *Synth) PDOInfo(node int, t float64, sub, dir int, startup float64) {
	b := &s.Bufs[node]
	b.Begin(trace.TagPDOInfo, node, t)
	b.Int(sub)
	b.Int(dir)
	b.Int(0)
	b.IntRows(2, []int{0, len(s.Bufs) - 1})
	b.Ints(nil)
	b.Ints(nil)
	b.Double(startup)
	b.End()
}

// IterSpace writes pdo-iteration-space: one loop over [lo, hi], step 1.
func (s *Synth) IterSpace(node int, t float64, sub, dir, lo, hi int) {
	b := &s.Bufs[node]
	b.Begin(trace.TagPDOIterationSpace, node, t)
	b.Int(sub)
	b.Int(dir)
	b.IntRows(9, []int{lo, hi, 1, lo, hi, 1, 0, 0, 0})
	b.End()
}

// APSInfo writes aps-info with the given pids.
func (s *Synth) APSInfo(node int, t float64, pids ...int) {
	b := &s.Bufs[node]
	b.Begin(trace.TagAPSInfo, node, t)
	b.Ints(pids)
	b.End()
}

// MeasureStart writes measure-start: a measured interval's level and name.
func (s *Synth) MeasureStart(node int, t float64, level int, name string) {
	b := &s.Bufs[node]
	b.Begin(trace.TagMeasureStart, node, t)
	b.Int(level)
	b.Chars(name)
	b.End()
}

// MeasureFinish writes measure-finish with the elapsed microseconds.
func (s *Synth) MeasureFinish(node int, t float64, level int, name string, elapsed float64) {
	b := &s.Bufs[node]
	b.Begin(trace.TagMeasureFinish, node, t)
	b.Int(level)
	b.Chars(name)
	b.Double(elapsed)
	b.End()
}

// StatInterval writes stat-interval as the runtime does: processor 0, at
// the end of the run. vals are the eleven doubles from execution to
// efficiency; the dissynchronisation (message passing) is 0.
func (s *Synth) StatInterval(t float64, id, parent, level int, name string, entries, procs int, vals [11]float64) {
	b := &s.Bufs[0]
	b.Begin(trace.TagStatInterval, 0, t)
	b.Int(id)
	b.Int(parent)
	b.Int(level)
	b.Chars(name)
	b.Int(entries)
	b.Int(procs)
	for _, v := range vals {
		b.Double(v)
	}
	b.Double(0)
	b.Double(0) // time variation
	b.Double(0) // potential dissynchronisation
	b.End()
}

// StatGroup writes a stat-group record (processor 0).
func (s *Synth) StatGroup(t float64, interval, caller, group int, name string, calls, prod, lost float64) {
	b := &s.Bufs[0]
	b.Begin(trace.TagStatGroup, 0, t)
	b.Int(interval)
	b.Int(caller)
	b.Int(group)
	b.Chars(name)
	b.Double(calls)
	b.Double(prod)
	b.Double(lost)
	b.End()
}

// GCPause writes a gc-pause record (processor 0, after the run): a pause
// of the collector from t for dur µs, its gc number n.
func (s *Synth) GCPause(t, dur float64, n int) {
	b := &s.Bufs[0]
	b.Begin(trace.TagGCPause, 0, t)
	b.Double(dur)
	b.Int(n)
	b.End()
}

// TraceEnd writes trace-end (processor 0).
func (s *Synth) TraceEnd(t float64, status int, msg string, notStopped []int, lost int) {
	b := &s.Bufs[0]
	b.Begin(trace.TagTraceEnd, 0, t)
	b.Int(status)
	b.Chars(msg)
	b.Ints(notStopped)
	b.Int(lost)
	b.End()
}

// Encode writes the trace in format f as the runtime's final flush does:
// the attributes ("processors", "stage" and, if prog is not nil, the
// program information), then each processor's buffer as one run,
// processor 0 first.
func (s *Synth) Encode(f trace.Format, prog *progdb.Program) ([]byte, error) {
	procs := len(s.Bufs)
	if s.Procs > 0 {
		procs = s.Procs
	}
	attrs := []trace.Attr{{Key: "processors", Value: strconv.Itoa(procs)}, {Key: "stage", Value: "3"}}
	if prog != nil {
		js, err := progdb.Marshal(prog)
		if err != nil {
			return nil, err
		}
		attrs = append([]trace.Attr{{Key: progAttr, Value: string(js)}}, attrs...)
	}
	var out bytes.Buffer
	w, err := trace.NewWriter(&out, f, attrs)
	if err != nil {
		return nil, err
	}
	for i := range s.Bufs {
		if err := w.WriteBuf(&s.Bufs[i]); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// MustEncode is Encode that fails the test on an error.
func (s *Synth) MustEncode(t testing.TB, f trace.Format, prog *progdb.Program) []byte {
	t.Helper()
	data, err := s.Encode(f, prog)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Program numbers of Prog.
const (
	SubMain   = 1 // main, region 0 is the program
	DirPhase  = 1 // trace_region phase (user region 1)
	DirBar    = 2 // barrier
	DirLock   = 3 // lock(x)
	DirCrit   = 4 // critical upd
	DirIn     = 5 // barrier_checkin
	DirOut    = 6 // barrier_checkout
	DirAtomic = 7 // atomic
	DirRepl   = 8 // replicated (region 2)
	DirPSec   = 9 // psection (region 3)
	DirSec    = 10
	DirPDO    = 11 // pdo label(work) (region 5)

	SubWork = 2 // Work, a subroutine
)

// sites are the site kinds of the directive kinds, as svmc's compiler
// writes them.
var sites = map[string]string{
	"processors": progdb.SiteMapping, "template": progdb.SiteMapping, "distribute": progdb.SiteMapping,
	"pdo": progdb.SiteLoop, "psection": progdb.SiteSections, "section": progdb.SiteSection,
	"barrier": progdb.SiteBarrier, "barrier_checkin": progdb.SiteCheckin, "barrier_checkout": progdb.SiteCheckout,
	"critical": progdb.SiteCritical, "lock": progdb.SiteLock, "atomic": progdb.SiteAtomic,
	"replicated": progdb.SiteMode, "exclusive": progdb.SiteMode, "trace_region": progdb.SiteRegion,
	"end": progdb.SiteEnd, "shared": progdb.SiteSVM,
}

// Directive fills the fields of d that svmc's compiler derives from its
// kind (site, implicit barrier; a pdo without a schedule gets the default
// one) and returns d.
func Directive(d *progdb.Directive) *progdb.Directive {
	d.Site = sites[d.Kind]
	switch d.Kind {
	case "pdo", "psection", "replicated", "exclusive":
		d.ImplicitBarrier = true
	}
	if d.Kind == "pdo" && d.Schedule == nil {
		d.Schedule = &progdb.Schedule{Strategy: progdb.StrategyDefault}
	}
	return d
}

func withSchedule(d *progdb.Directive, s *progdb.Schedule) *progdb.Directive {
	d.Schedule = s
	return d
}

// Prog is the program information of the synthetic traces.
func Prog() *progdb.Program {
	pos := func(line int) progdb.Pos { return progdb.Pos{File: "main.go", Line: line, Col: 2} }
	d := func(num int, kind, text string, line int, label string) *progdb.Directive {
		return Directive(&progdb.Directive{Num: num, Kind: kind, Text: text, Pos: pos(line), Label: label})
	}
	return &progdb.Program{
		Version: progdb.Version, Tool: "svmc", Package: "example.com/synth", Name: "main",
		Files: []string{"main.go"},
		Subprograms: []*progdb.Subprogram{
			{Num: SubMain, Name: "main", Main: true, Pos: progdb.Pos{File: "main.go", Line: 10, Col: 1},
				Directives: []*progdb.Directive{
					d(DirPhase, "trace_region", "//svm:trace_region phase", 12, "phase"),
					d(DirBar, "barrier", "//svm:barrier", 20, ""),
					d(DirLock, "lock", "//svm:lock(x)", 22, ""),
					d(DirCrit, "critical", "//svm:critical upd", 24, "upd"),
					d(DirIn, "barrier_checkin", "//svm:barrier_checkin", 26, ""),
					d(DirOut, "barrier_checkout", "//svm:barrier_checkout", 28, ""),
					d(DirAtomic, "atomic", "//svm:atomic", 30, ""),
					d(DirRepl, "replicated", "//svm:replicated", 32, ""),
					d(DirPSec, "psection", "//svm:psection", 36, ""),
					d(DirSec, "section", "//svm:section", 37, ""),
					withSchedule(d(DirPDO, "pdo", "//svm:pdo label(work) loops(i) strategy(block)", 40, "work"),
						&progdb.Schedule{Strategy: progdb.StrategyLoopLevel, Formats: []string{"block"}}),
				},
				Regions: []*progdb.Region{
					{Num: 0, Type: "program", Code: 0, Parent: -1, Pos: progdb.Pos{File: "main.go", Line: 10, Col: 1}, End: pos(50)},
					{Num: 1, Type: "user", Code: 7, Label: "phase", Parent: 0, Directive: DirPhase, Pos: pos(12), End: pos(31)},
					{Num: 2, Type: "replicated", Code: 5, Parent: 0, Directive: DirRepl, Pos: pos(32), End: pos(34)},
					{Num: 3, Type: "psection", Code: 2, Parent: 0, Directive: DirPSec, Pos: pos(36), End: pos(39)},
					{Num: 4, Type: "section", Code: 3, Parent: 3, Directive: DirSec, Pos: pos(37), End: pos(38)},
					{Num: 5, Type: "pdo", Code: 4, Label: "work", Parent: 0, Directive: DirPDO, Pos: pos(40), End: pos(45)},
				}},
			{Num: SubWork, Name: "Work", Pos: progdb.Pos{File: "main.go", Line: 60, Col: 1},
				Directives: []*progdb.Directive{},
				Regions: []*progdb.Region{
					{Num: 0, Type: "subroutine", Code: 1, Parent: -1, Pos: progdb.Pos{File: "main.go", Line: 60, Col: 1}, End: pos(70)},
				}},
		},
	}
}

// Sync2 is a run of two processors through every kind of synchronisation:
// a user region holding a lock, a critical section, a split barrier and an
// atomic update; a replicated region, a psection with one section each, a
// pdo calling a subroutine, and a barrier, each construct ending with its
// implicit barrier. Processor 1 waits for processor 0 at the lock and the
// critical section. It returns the synthetic run.
func Sync2() *Synth {
	s := New(2)
	for p := 0; p < 2; p++ {
		o := float64(p) * 0.5 // processor 1 runs a little behind
		s.Start(p, 0+o, SubMain, 0, trace.RegionProgram)
		s.Start(p, 1+o, SubMain, DirPhase, trace.RegionUser)
		s.LockWait(p, 2+o, SubMain, DirLock, 4096)
		if p == 0 {
			s.Sync(p, 3, trace.TagWaitLockStop, SubMain, DirLock)
			s.Sync(p, 5, trace.TagReleaseLock, SubMain, DirLock)
		} else {
			s.Sync(p, 5.5, trace.TagWaitLockStop, SubMain, DirLock)
			s.Sync(p, 6, trace.TagReleaseLock, SubMain, DirLock)
		}
		s.Sync(p, 6.5+o, trace.TagWaitCritSecStart, SubMain, DirCrit)
		if p == 0 {
			s.Sync(p, 7, trace.TagWaitCritSecStop, SubMain, DirCrit)
			s.Sync(p, 8, trace.TagExitCritSec, SubMain, DirCrit)
		} else {
			s.Sync(p, 8.2, trace.TagWaitCritSecStop, SubMain, DirCrit)
			s.Sync(p, 9, trace.TagExitCritSec, SubMain, DirCrit)
		}
		s.Sync(p, 9.5+o, trace.TagBarrierCheckin, SubMain, DirIn)
		s.Sync(p, 10.5, trace.TagWaitBCheckoutStart, SubMain, DirOut)
		s.Sync(p, 12, trace.TagWaitBCheckoutStop, SubMain, DirOut)
		s.LockWait(p, 13+o, SubMain, DirAtomic, 8192)
		s.Sync(p, 13.2+o, trace.TagWaitLockStop, SubMain, DirAtomic)
		s.Stop(p, 14+o, SubMain, DirPhase, trace.RegionUser)
		s.Start(p, 15, SubMain, DirRepl, trace.RegionReplicated)
		s.Sync(p, 15.5+o, trace.TagWaitBarrierStart, SubMain, DirRepl)
		s.Sync(p, 16.2, trace.TagWaitBarrierStop, SubMain, DirRepl)
		s.Stop(p, 16.3, SubMain, DirRepl, trace.RegionReplicated)
		s.Start(p, 17, SubMain, DirPSec, trace.RegionPSection)
		s.APSInfo(p, 17.1, p)
		s.Start(p, 17.2, SubMain, DirSec, trace.RegionSection)
		s.Stop(p, 18+2*o, SubMain, DirSec, trace.RegionSection)
		s.Sync(p, 18.1+2*o, trace.TagWaitBarrierStart, SubMain, DirPSec)
		s.Sync(p, 19.3, trace.TagWaitBarrierStop, SubMain, DirPSec)
		s.Stop(p, 19.4, SubMain, DirPSec, trace.RegionPSection)
		s.Start(p, 20, SubMain, DirPDO, trace.RegionPDO)
		s.Start(p, 20.5, SubWork, 0, trace.RegionSubroutine)
		s.Stop(p, 22+o, SubWork, 0, trace.RegionSubroutine)
		s.Sync(p, 22.1+o, trace.TagWaitBarrierStart, SubMain, DirPDO)
		s.Sync(p, 23, trace.TagWaitBarrierStop, SubMain, DirPDO)
		s.Stop(p, 23.1, SubMain, DirPDO, trace.RegionPDO)
		s.Sync(p, 24+o, trace.TagWaitBarrierStart, SubMain, DirBar)
		s.Sync(p, 25, trace.TagWaitBarrierStop, SubMain, DirBar)
		s.Stop(p, 26, SubMain, 0, trace.RegionProgram)
	}
	return s
}

// Lanes builds a run of procs processors with n pdo instances each, every
// instance a pdo region holding a subroutine call and its implicit-barrier
// wait: 3n intervals per processor plus the program region. For tests of
// large pages.
func Lanes(procs, n int) *Synth {
	s := New(procs)
	for p := 0; p < procs; p++ {
		s.Start(p, 0, SubMain, 0, trace.RegionProgram)
		for i := 0; i < n; i++ {
			t := 1 + float64(i)*10
			w := 3 + float64((i+p)%5)
			s.Start(p, t, SubMain, DirPDO, trace.RegionPDO)
			s.Start(p, t+0.5, SubWork, 0, trace.RegionSubroutine)
			s.Stop(p, t+w, SubWork, 0, trace.RegionSubroutine)
			s.Sync(p, t+w+0.1, trace.TagWaitBarrierStart, SubMain, DirPDO)
			s.Sync(p, t+8.2, trace.TagWaitBarrierStop, SubMain, DirPDO)
			s.Stop(p, t+8.3, SubMain, DirPDO, trace.RegionPDO)
		}
		s.Stop(p, 1+float64(n)*10, SubMain, 0, trace.RegionProgram)
	}
	return s
}

// Measured is a run of two processors with measured intervals: P0 runs
// "setup" [1, 4] and "solve" [5, 20] with two "row" [6, 9] and [10, 14]
// (level 2) inside the pdo inside it; P1 runs "row" [6.5, 12] (level 1)
// in the pdo, a measure-finish without a start at 13, and leaves "tail"
// open from 15. The runtime's statistics and trace-end (normal) follow at
// 30, after the processors' last records (20 and 16).
func Measured() *Synth {
	s := New(2)
	s.Start(0, 0, SubMain, 0, trace.RegionProgram)
	s.MeasureStart(0, 1, 1, "setup")
	s.MeasureFinish(0, 4, 1, "setup", 2.9)
	s.MeasureStart(0, 5, 1, "solve")
	s.Start(0, 5.5, SubMain, DirPDO, trace.RegionPDO)
	s.MeasureStart(0, 6, 2, "row")
	s.MeasureFinish(0, 9, 2, "row", 3)
	s.MeasureStart(0, 10, 2, "row")
	s.MeasureFinish(0, 14, 2, "row", 4)
	s.Stop(0, 15, SubMain, DirPDO, trace.RegionPDO)
	s.MeasureFinish(0, 19, 1, "solve", 14)
	s.Stop(0, 20, SubMain, 0, trace.RegionProgram)

	s.Start(1, 0.5, SubMain, 0, trace.RegionProgram)
	s.Start(1, 5.5, SubMain, DirPDO, trace.RegionPDO)
	s.MeasureStart(1, 6.5, 1, "row")
	s.MeasureFinish(1, 12, 1, "row", 5.5)
	s.MeasureFinish(1, 13, 1, "ghost", 1) // no start
	s.Stop(1, 14.5, SubMain, DirPDO, trace.RegionPDO)
	s.MeasureStart(1, 15, 1, "tail") // never finished
	s.Stop(1, 16, SubMain, 0, trace.RegionProgram)

	s.StatInterval(30, 0, -1, 0, "program", 1, 2, [11]float64{20, 40, 25, 0, 1, 10, 26, 10, 4, 3, 0.65})
	s.StatGroup(30, 0, 0, 0, "UserGrp", 0, 25, 0)
	s.StatGroup(30, 0, 7, 12, "SyncGrp", 0.5, 1, 10)
	s.TraceEnd(30, trace.EndNormal, "", nil, 0)
	return s
}

// WithoutEstimates leaves out the trace-overhead records of type recording
// with which the runtime ends every processor's records (its estimate of
// the time it spent recording, rtlib/recording.go): tests that compare the
// sequences of other records compare them without it.
func WithoutEstimates(recs []*trace.Record) []*trace.Record {
	return slices.DeleteFunc(recs, func(r *trace.Record) bool {
		return r.Desc.Tag == trace.TagTraceOverhead && r.Int("overhead type") == trace.OverheadRecording
	})
}
