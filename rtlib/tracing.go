package rtlib

import (
	"time"

	"github.com/svmc/svmc/trace"
)

// Stages of the records the runtime writes (seed 002, Table 2; checked
// against trace.Stage by the tests). Every record site compares the run's
// stage with one of these before building anything.
const (
	stageRegion = 1 // trace-region-start/stop, trace-overhead, buffer overflow
	stageSched  = 2 // pdo-info, aps-info, templates, arrangements, mapping
	stageSync   = 3 // barrier, lock and critical section waits
	// MaxStage is the highest tracing stage.
	MaxStage = 6
)

// on reports whether records with tag are traced on p now. New code guards
// every record with it; the request-file work replaces its body by a mask
// test (per-region masks of package request).
func (p *Proc) on(tag trace.Tag) bool { return p.stage >= trace.Stage(tag) }

// now is the clock of the run: microseconds since it started.
func (p *Proc) now() float64 {
	return float64(time.Since(p.r.start)) / 1e3
}

// begin opens a record on p's buffer with node id node and the current clock.
func (p *Proc) begin(tag trace.Tag, node int) {
	p.buf.Begin(tag, node, p.now())
}

// end closes the open record and writes the buffer out when it is full.
func (p *Proc) end() {
	p.buf.End()
	if len(p.buf.B) >= p.bufLimit {
		p.flushFull()
	}
}

// flushFull writes the full buffer to the trace and records the overflow and
// the time the write took.
func (p *Proc) flushFull() {
	t0 := time.Now()
	c0 := float64(t0.Sub(p.r.start)) / 1e3
	p.r.writeBuf(&p.buf)
	d := float64(time.Since(t0)) / 1e3
	p.buf.Begin(trace.TagKernelTraceBufferOverflow, p.id, c0)
	p.buf.End()
	p.buf.Begin(trace.TagTraceOverhead, p.id, c0)
	p.buf.Double(d)
	p.buf.Int(trace.OverheadFlush)
	p.buf.End()
}

// region is an open trace region of a processor.
type region struct{ sub, dir, typ int }

// pushRegion writes trace-region-start and remembers the region. Callers
// check p.stage >= stageRegion.
func (p *Proc) pushRegion(sub, dir, typ int) {
	p.regions = append(p.regions, region{sub, dir, typ})
	p.regionRec(trace.TagTraceRegionStart, sub, dir, typ)
}

func (p *Proc) regionRec(tag trace.Tag, sub, dir, typ int) {
	p.begin(tag, p.id)
	p.buf.Int(sub)
	p.buf.Int(dir)
	p.buf.Int(typ)
	p.end()
}

// popRegion closes the innermost open region (sub, dir, typ) and every
// region opened inside it. It does nothing if no such region is open.
func (p *Proc) popRegion(sub, dir, typ int) {
	for i := len(p.regions) - 1; i >= 0; i-- {
		if rg := p.regions[i]; rg.sub == sub && rg.dir == dir && rg.typ == typ {
			p.closeRegionsAbove(i)
			return
		}
	}
}

// closeRegionsAbove closes the open regions from the innermost down to
// index i.
func (p *Proc) closeRegionsAbove(i int) {
	for j := len(p.regions) - 1; j >= i; j-- {
		rg := p.regions[j]
		p.regionRec(trace.TagTraceRegionStop, rg.sub, rg.dir, rg.typ)
	}
	if i < len(p.regions) {
		p.regions = p.regions[:i]
	}
}

// syncRec writes one of the four-field synchronisation records. Callers
// check p.stage >= stageSync.
func (p *Proc) syncRec(tag trace.Tag, sub, dir int) {
	p.begin(tag, p.id)
	p.buf.Int(sub)
	p.buf.Int(dir)
	p.end()
}

// isLeader reports whether p writes the APS-global records.
func (p *Proc) isLeader() bool { return p.aps.leader == p }

// Enter opens the region of subprogram sub (trace-region-start, type
// subroutine, directive 0).
func (p *Proc) Enter(sub int) {
	if p.stage < stageRegion {
		return
	}
	p.pushRegion(sub, 0, trace.RegionSubroutine)
}

// Exit closes the regions still open inside the innermost region of sub (a
// return out of a user region), then the subroutine region itself. Generated
// code calls it with defer.
func (p *Proc) Exit(sub int) {
	if p.stage < stageRegion {
		return
	}
	p.popRegion(sub, 0, trace.RegionSubroutine)
}

// RegionStart opens a trace region of type typ (trace.RegionUser, ...)
// at directive dir of sub.
func (p *Proc) RegionStart(sub, dir, typ int) {
	if p.stage < stageRegion {
		return
	}
	p.pushRegion(sub, dir, typ)
}

// RegionStop closes the region opened by RegionStart with the same
// arguments, and any region still open inside it.
func (p *Proc) RegionStop(sub, dir, typ int) {
	if p.stage < stageRegion {
		return
	}
	p.popRegion(sub, dir, typ)
}

// SharedVar is one shared variable: its number and address.
type SharedVar struct {
	Num  int
	Addr uintptr
}

// Shared writes variable-mapping (stage 2): one row [number, addr>>32,
// addr&0xffffffff] per variable.
func (p *Proc) Shared(sub, dir int, vars ...SharedVar) {
	if p.stage < stageSched {
		return
	}
	p.begin(trace.TagVariableMapping, p.id)
	p.buf.Int(sub)
	p.buf.Int(len(vars))
	p.buf.Int(3)
	for _, v := range vars {
		a := uint64(v.Addr)
		p.buf.Int(v.Num)
		p.buf.Int(int(int32(uint32(a >> 32))))
		p.buf.Int(int(int32(uint32(a))))
	}
	p.end()
}
