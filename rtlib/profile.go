package rtlib

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	rtrace "runtime/trace"
	"strconv"

	"github.com/svmc/svmc/trace"
)

// A CPU profile of the run (Params.CPUProfile, svmc run --cpuprofile)
// whose samples carry three pprof labels: svmc_processor, the processor
// the goroutine runs for; svmc_region, the innermost trace region it is in
// (a subprogram by its name, a construct by its kind and label or line);
// svmc_path, the open regions outermost first ("main > solve > pdo sweep
// > spin"). Goroutines the program starts inherit the labels of the code
// that started them, so their time counts for that processor and region.
// `go tool pprof -tagfocus svmc_region=solve` keeps one region's own
// time, `-tagfocus 'svmc_path=pdo sweep'` everything under it.

// procLabels are a processor's label sets: one per region and enclosing
// label set, made once, and the stack of those of its open regions.
type procLabels struct {
	base  context.Context
	sets  map[labelKey]labelSet
	stack []labelSet // one per open region (Proc.regions)
}

type labelKey struct {
	parent context.Context
	at     Site
}

type labelSet struct {
	ctx  context.Context
	path string
}

// startProfile starts the CPU profile into path.
func (r *run) startProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("cpuprofile: %v", err)
	}
	r.profFile = f
	for _, p := range r.procs {
		p.prof = &procLabels{base: pprof.WithLabels(context.Background(), pprof.Labels("svmc_processor", strconv.Itoa(p.id))),
			sets: map[labelKey]labelSet{}}
		p.track = true // regions are entered for their labels; records still follow the mask
	}
	return nil
}

// stopProfile ends the profile and closes its file.
func (r *run) stopProfile() {
	if r.profFile == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := r.profFile.Close(); err != nil {
		r.setWriteErr(fmt.Errorf("cpuprofile: %v", err))
	}
	r.profFile = nil
}

// labelRegions gives p's goroutine the labels of its innermost open region
// (its processor's alone outside every region).
func (p *Proc) labelRegions() {
	pl := p.prof
	pl.stack = pl.stack[:min(len(pl.stack), len(p.regions))]
	for i := len(pl.stack); i < len(p.regions); i++ {
		parent := labelSet{ctx: pl.base}
		if i > 0 {
			parent = pl.stack[i-1]
		}
		rg := p.regions[i]
		k := labelKey{parent.ctx, rg.at}
		set, ok := pl.sets[k]
		if !ok {
			name := p.r.regionName(rg.at, rg.typ)
			set.path = name
			if parent.path != "" {
				set.path = parent.path + " > " + name
			}
			set.ctx = pprof.WithLabels(parent.ctx, pprof.Labels("svmc_region", name, "svmc_path", set.path))
			pl.sets[k] = set
		}
		pl.stack = append(pl.stack, set)
	}
	ctx := pl.base
	if n := len(pl.stack); n > 0 {
		ctx = pl.stack[n-1].ctx
	}
	pprof.SetGoroutineLabels(ctx)
}

// regionName names a region for a label: a subprogram by its name, a
// construct by its kind and label, or its kind and line.
func (r *run) regionName(at Site, typ int) string {
	if at.Sub <= 0 || at.Sub >= len(r.prog.Subs) {
		return trace.RegionTypeName(typ)
	}
	s := &r.prog.Subs[at.Sub]
	if at.Dir <= 0 || at.Dir >= len(s.Dirs) {
		return s.Name
	}
	d := &s.Dirs[at.Dir]
	if d.Label != "" {
		return d.Kind + " " + d.Label
	}
	return fmt.Sprintf("%s %s:%d", d.Kind, s.File, d.Line)
}

// The Go execution trace of the run (Params.GoTrace, svmc run --gotrace):
// runtime/trace with every svmc region as a user region of a task per
// processor ("svmc processor N"), so that `go tool trace` shows svmc's
// regions beside the collector's pauses, the scheduler's latency and the
// goroutines the program starts.

// goTracer is a processor's task and region names for the Go trace.
type goTracer struct {
	ctx   context.Context
	task  *rtrace.Task
	names map[Site]string
}

// startGoTrace starts the execution trace into path.
func (r *run) startGoTrace(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gotrace: %v", err)
	}
	if err := rtrace.Start(f); err != nil {
		f.Close()
		return fmt.Errorf("gotrace: %v", err)
	}
	r.goTraceFile = f
	for _, p := range r.procs {
		ctx, task := rtrace.NewTask(context.Background(), "svmc processor "+strconv.Itoa(p.id))
		p.gt = &goTracer{ctx: ctx, task: task, names: map[Site]string{}}
		p.track = true
	}
	return nil
}

// stopGoTrace ends the execution trace (the processors' tasks first).
func (r *run) stopGoTrace() {
	if r.goTraceFile == nil {
		return
	}
	for _, p := range r.procs {
		if p.gt != nil {
			p.gt.task.End()
		}
	}
	rtrace.Stop()
	if err := r.goTraceFile.Close(); err != nil {
		r.setWriteErr(fmt.Errorf("gotrace: %v", err))
	}
	r.goTraceFile = nil
}

// gcPauseRecs appends a gc-pause record for every stop-the-world pause of
// the collector since the run started that the Go runtime still holds
// (its last 256), oldest first.
func (r *run) gcPauseRecs(b *trace.Buf) {
	var st debug.GCStats
	debug.ReadGCStats(&st)
	for i := len(st.PauseEnd) - 1; i >= 0; i-- {
		if i >= len(st.Pause) {
			continue
		}
		start := st.PauseEnd[i].Add(-st.Pause[i])
		if start.Before(r.start) {
			continue
		}
		b.Begin(trace.TagGCPause, 0, float64(start.Sub(r.start).Nanoseconds())/1e3)
		b.Double(float64(st.Pause[i].Nanoseconds()) / 1e3)
		b.Int(int(st.NumGC) - i)
		b.End()
	}
}

// goRegion starts the Go trace's user region of a region p enters.
func (p *Proc) goRegion(at Site, typ int) *rtrace.Region {
	name, ok := p.gt.names[at]
	if !ok {
		name = p.r.regionName(at, typ)
		p.gt.names[at] = name
	}
	return rtrace.StartRegion(p.gt.ctx, name)
}
