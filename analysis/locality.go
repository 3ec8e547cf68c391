package analysis

import (
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/replay"
	"github.com/svmc/svmc/trace"
)

// Locality analysis (OPAL's "Optimizer and Locality Analyzer", seed 002
// §1; issue 15): what the SVM layer's page records say about each shared
// variable in each region — faults per processor, pages received from
// other processors, pages written by several processors in one instance
// (false sharing, or true sharing the distribution causes) — and what a
// distributed shared virtual memory machine would pay for it.

// CostModel is the machine the locality analysis predicts for: a page
// fault that fetches a page costs Latency plus the page's transfer at
// Bandwidth; a fault that only gains write permission costs Latency.
type CostModel struct {
	LatencyUs float64 `json:"latency_us"`     // a page fault's fixed cost: request, service, reply
	MBps      float64 `json:"bandwidth_mb_s"` // the page's transfer
	MsgUs     float64 `json:"message_us"`     // one protocol message (a write fault that fetches nothing: request and grant)
	Source    string  `json:"source"`         // where the figures come from
}

// DefaultCost is a real system's measured figures: MILLIPAGE, a page-based
// software DSM on a Myrinet cluster of Pentium II PCs (Itzkovitz and
// Schuster, OSDI 1999, Table 1), brings a 4 KB page for reading in 314 µs
// and a 128-byte one in 204 µs (so about 200 µs plus 36 MB/s), and takes
// 67-80 µs for a lock and unlock (a round trip of two messages). The era
// of seed 002's machines; a user with figures of their own machine sets
// them with svmc report --svm-latency, --svm-bandwidth and --svm-message.
var DefaultCost = CostModel{LatencyUs: 200, MBps: 36, MsgUs: 35,
	Source: "MILLIPAGE on Myrinet, Itzkovitz and Schuster, OSDI 1999"}

// fetch is the cost of a fault that brings a page of size bytes.
func (c CostModel) fetch(size int) float64 {
	t := c.LatencyUs
	if c.MBps > 0 {
		t += float64(size) / c.MBps // bytes / (MB/s) = µs
	}
	return t
}

// upgrade is the cost of a write fault on a page the processor holds: a
// request for the permission and its grant.
func (c CostModel) upgrade() float64 { return 2 * c.MsgUs }

// Locality is the SVM layer's side of a model (nil when the trace has no
// page records).
type Locality struct {
	PageSize int       `json:"page_size"`
	Cost     CostModel `json:"cost_model"`
	// Exact is true when per-fault records (stage 6) gave the pages
	// written by several processors; otherwise (stage 4) the count is a
	// lower bound from the fault sums.
	Exact bool            `json:"exact"`
	Vars  []*SharedVarUse `json:"variables"`
	Rows  []*LocalityRow  `json:"regions"`
	// Travel[r][s] is the pages processor r received from processor s
	// over the run (page-travel of the outermost regions).
	Travel [][]int `json:"page_travel,omitempty"`
	// Predicted is each region's time on the cost model's machine, the
	// regions that would slow down most first.
	Predicted []*RegionPrediction `json:"predicted,omitempty"`
	// Mismatches are parallel loops whose processors write pages that
	// another region's writes left with other owners (stage 6): the pages'
	// owners do not follow the distribution that schedules the loop.
	Mismatches []*OwnerMismatch `json:"owner_mismatches,omitempty"`
}

// OwnerMismatch is a parallel loop whose write faults fetched pages of a
// variable from the processor that wrote them last in another region (or
// in an earlier instance of the same loop): the owner of each such page
// is not the processor the loop's distribution gives its elements to.
type OwnerMismatch struct {
	Site      Site   `json:"site"`
	Region    int    `json:"region"`
	Code      int    `json:"region_code"`
	Strategy  string `json:"strategy"`
	Other     Site   `json:"other"` // where the owners wrote the pages last
	OtherReg  int    `json:"other_region"`
	OtherCode int    `json:"other_region_code"`
	OtherStr  string `json:"other_strategy,omitempty"`
	Var       string `json:"var"`
	Pages     int    `json:"pages"`     // page writes that fetched from their owner
	Instances int    `json:"instances"` // of the loop
}

// RegionPrediction is a region's measured time (the slowest processor's
// inclusive time over all its calls) and the time predicted on a
// distributed SVM machine: each processor's measured time plus what its
// page faults would cost there, the slowest processor's.
type RegionPrediction struct {
	Site      Site    `json:"site"`
	Code      int     `json:"region_code"`
	Measured  float64 `json:"measured_us"`
	Predicted float64 `json:"predicted_us"`
	Slowdown  float64 `json:"slowdown"`
}

// SufferFactor is the slowdown from which a region is said to suffer on
// the predicted machine.
const SufferFactor = 1.5

// predict fills l.Predicted from the regions' measured times and the
// rows' per-processor fault costs.
func (l *Locality) predict(regions []*RegionStat) {
	cost := map[[3]int][]float64{}
	for _, r := range l.Rows {
		k := [3]int{r.Site.Sub, r.Site.Dir, r.Code}
		c := cost[k]
		for len(c) < len(r.PerProc) {
			c = append(c, 0)
		}
		for p, x := range r.PerProc {
			c[p] += x
		}
		cost[k] = c
	}
	for _, rs := range regions {
		c, ok := cost[[3]int{rs.Sub, rs.Dir, rs.Code}]
		if !ok {
			continue
		}
		pr := &RegionPrediction{Site: rs.Site, Code: rs.Code}
		for p, rp := range rs.PerProc {
			pr.Measured = max(pr.Measured, rp.Incl)
			x := rp.Incl
			if p < len(c) {
				x += c[p]
			}
			pr.Predicted = max(pr.Predicted, x)
		}
		pr.Slowdown = ratio(pr.Predicted, pr.Measured)
		l.Predicted = append(l.Predicted, pr)
	}
	sort.SliceStable(l.Predicted, func(i, j int) bool {
		a, b := l.Predicted[i], l.Predicted[j]
		return a.Predicted-a.Measured > b.Predicted-b.Measured
	})
}

// SharedVarUse is a shared variable over the run.
type SharedVarUse struct {
	Name     string `json:"name"`
	Where    string `json:"where"`
	Sub      int    `json:"sub"`
	Var      int    `json:"var"`
	Segments int    `json:"segments"`
	Pages    int    `json:"pages"`
	Bytes    int    `json:"bytes"`
	Read     []int  `json:"read_faults"`  // per processor
	Write    []int  `json:"write_faults"` // per processor
}

// LocalityRow is one shared variable in one region (inclusive of the
// regions inside it).
type LocalityRow struct {
	Site      Site   `json:"site"`
	Region    int    `json:"region"` // progdb region, -1 unknown
	Code      int    `json:"region_code"`
	Var       string `json:"var"`
	ElemSize  int    `json:"elem_size,omitempty"`
	Instances int    `json:"instances"`
	Read      []int  `json:"read_faults"`
	Write     []int  `json:"write_faults"`
	Received  []int  `json:"received_pages"` // per processor, from the others
	// SharedPages counts page instances written by two or more processors
	// in one instance of the region; ExtraFaults the write faults beyond
	// one per such page.
	SharedPages int `json:"shared_pages"`
	ExtraFaults int `json:"extra_write_faults"`
	// Sites are the accesses that faulted most (stage 6), "file:line".
	Sites []string `json:"sites,omitempty"`
	// Predicted is the time the faults would cost on the cost model's
	// machine, summed over processors; Worst the most any one processor
	// would pay.
	Predicted float64   `json:"predicted_us"`
	Worst     float64   `json:"worst_proc_us"`
	PerProc   []float64 `json:"predicted_per_proc_us"`
}

// svmBuilder collects the page records during the replay.
type svmBuilder struct {
	segs  map[int]svmSeg
	exits map[regKey][]int // region exits seen per processor: the instance of a record
	rows  map[svmRowKey]*svmRowAgg
	// writers of each page per region instance (stage 6), and the write
	// faults per segment per region instance (stage 4).
	writers  map[svmPageKey]uint64
	instW    map[svmSegInst]int
	exact    bool
	travel   [][]int
	vars     map[[2]int]*SharedVarUse
	pageSize int
	// lastW is the processor and innermost region of each page's last
	// write fault (stage 6); mism counts the write faults of a parallel
	// loop that fetched a page from the processor that wrote it last.
	lastW map[int]pageWrite
	mism  map[mismKey]int
}

type pageWrite struct {
	proc int
	reg  regKey
}

type mismKey struct {
	reg, other regKey
	sub, var_  int
}

type svmSeg struct{ sub, v, first, pages, bytes int }

type svmRowKey struct {
	reg       regKey
	sub, var_ int
}

type svmRowAgg struct {
	read, write, recv []int
	sites             map[int]int
	segs              map[int]bool
}

type svmPageKey struct {
	reg  regKey
	k    int
	page int
}

type svmSegInst struct {
	reg regKey
	seg int
	k   int
}

func (b *builder) svmB() *svmBuilder {
	if b.svm == nil {
		b.svm = &svmBuilder{segs: map[int]svmSeg{}, exits: map[regKey][]int{}, rows: map[svmRowKey]*svmRowAgg{},
			writers: map[svmPageKey]uint64{}, instW: map[svmSegInst]int{}, vars: map[[2]int]*SharedVarUse{},
			lastW: map[int]pageWrite{}, mism: map[mismKey]int{}}
	}
	return b.svm
}

// svmRecord takes a page record of processor n.
func (b *builder) svmRecord(n *nodeState, e *replay.Event) {
	s := b.svmB()
	r := e.Rec
	if e.Tag == trace.TagSegmentVariable {
		seg := r.Int("segment id")
		sg := svmSeg{sub: int(e.Sub), v: r.Int("variable number"), first: r.Int("first page number"), pages: r.Int("number of pages"), bytes: r.Int("bytes")}
		s.segs[seg] = sg
		s.pageSize = r.Int("page size")
		vu := s.varUse(b, sg.sub, sg.v)
		vu.Segments++
		vu.Pages += sg.pages
		vu.Bytes += sg.bytes
		return
	}
	if len(n.stack) == 0 {
		return
	}
	top := n.stack[len(n.stack)-1].key
	outermost := len(n.stack) == 1
	seg := r.Int("segment id")
	sg, ok := s.segs[seg]
	if !ok {
		return
	}
	k := 0
	if ex := s.exits[top]; n.id < len(ex) {
		k = ex[n.id]
	}
	row := s.row(top, sg, b.procs())
	row.segs[seg] = true
	switch e.Tag {
	case trace.TagReadPageFaultSum, trace.TagWritePageFaultSum:
		c := r.Int("number of page faults")
		vu := s.varUse(b, sg.sub, sg.v)
		if e.Tag == trace.TagWritePageFaultSum {
			row.write[n.id] += c
			s.instW[svmSegInst{top, seg, k}] += c
			if outermost {
				vu.Write[n.id] += c
			}
		} else {
			row.read[n.id] += c
			if outermost {
				vu.Read[n.id] += c
			}
		}
	case trace.TagPageTravel:
		_, recv := r.IntArray("received pages")
		for from, c := range recv {
			if from != n.id {
				row.recv[n.id] += c
			}
			if outermost && from < b.procs() {
				s.travel[n.id][from] += c
			}
		}
	case trace.TagReadPageFaultServiced, trace.TagWritePageFaultServiced:
		if site := r.Int("instruction address"); site > 0 {
			for _, fr := range n.stack {
				s.row(fr.key, sg, b.procs()).sites[site]++
			}
		}
		if e.Tag == trace.TagWritePageFaultServiced {
			pg := r.Int("faulting page number")
			if from := r.Int("node id that sent the page"); from >= 0 && from != n.id && top.typ == trace.RegionPDO {
				if lw, ok := s.lastW[pg]; ok && lw.proc == from {
					s.mism[mismKey{top, lw.reg, sg.sub, sg.v}]++
				}
			}
			s.lastW[pg] = pageWrite{n.id, top}
		}
		if e.Tag == trace.TagWritePageFaultServiced && n.id < 64 {
			s.exact = true
			// Every open region holds this fault: each one's instance
			// sees the page's writers.
			for _, fr := range n.stack {
				kk := 0
				if ex := s.exits[fr.key]; n.id < len(ex) {
					kk = ex[n.id]
				}
				s.writers[svmPageKey{fr.key, kk, r.Int("faulting page number")}] |= 1 << uint(n.id)
			}
		}
	}
}

// svmExit counts an exit of region key on processor p.
func (s *svmBuilder) exit(key regKey, p int) {
	ex := s.exits[key]
	for len(ex) <= p {
		ex = append(ex, 0)
	}
	ex[p]++
	s.exits[key] = ex
}

func (s *svmBuilder) row(reg regKey, sg svmSeg, n int) *svmRowAgg {
	if s.travel == nil {
		s.travel = make([][]int, n)
		for i := range s.travel {
			s.travel[i] = make([]int, n)
		}
	}
	k := svmRowKey{reg, sg.sub, sg.v}
	a := s.rows[k]
	if a == nil {
		a = &svmRowAgg{read: make([]int, n), write: make([]int, n), recv: make([]int, n), sites: map[int]int{}, segs: map[int]bool{}}
		s.rows[k] = a
	}
	return a
}

func (s *svmBuilder) varUse(b *builder, sub, v int) *SharedVarUse {
	key := [2]int{sub, v}
	vu := s.vars[key]
	if vu == nil {
		n := b.procs()
		vu = &SharedVarUse{Sub: sub, Var: v, Name: fmt.Sprintf("variable %d of sub %d", v, sub), Read: make([]int, n), Write: make([]int, n)}
		if sp := b.pi.sub(sub); sp != nil && v >= 1 && v <= len(sp.Shared) {
			vu.Name, vu.Where = sp.Shared[v-1].Name, sp.Shared[v-1].Pos.File+":"+fmt.Sprint(sp.Shared[v-1].Pos.Line)
		}
		s.vars[key] = vu
	}
	return vu
}

// locality builds the Locality of the model.
func (s *svmBuilder) locality(b *builder, cost CostModel) *Locality {
	loc := &Locality{PageSize: s.pageSize, Cost: cost, Exact: s.exact, Travel: s.travel}
	for k, c := range s.mism {
		om := &OwnerMismatch{Code: int(k.reg.typ), OtherCode: int(k.other.typ), Pages: c,
			Strategy: b.pi.strategy(int(k.reg.sub), int(k.reg.dir))}
		om.Site, om.Region = b.pi.regionSite(int(k.reg.sub), int(k.reg.dir), int(k.reg.typ))
		om.Other, om.OtherReg = b.pi.regionSite(int(k.other.sub), int(k.other.dir), int(k.other.typ))
		if k.other.typ == trace.RegionPDO {
			om.OtherStr = b.pi.strategy(int(k.other.sub), int(k.other.dir))
		}
		for _, x := range s.exits[k.reg] {
			om.Instances = max(om.Instances, x)
		}
		if vu := s.vars[[2]int{k.sub, k.var_}]; vu != nil {
			om.Var = vu.Name
		}
		loc.Mismatches = append(loc.Mismatches, om)
	}
	sort.Slice(loc.Mismatches, func(i, j int) bool {
		a, c := loc.Mismatches[i], loc.Mismatches[j]
		if a.Pages != c.Pages {
			return a.Pages > c.Pages
		}
		return a.Site.Line < c.Site.Line || a.Site.Line == c.Site.Line && a.Other.Line < c.Other.Line
	})
	for _, vu := range s.vars {
		loc.Vars = append(loc.Vars, vu)
	}
	sort.Slice(loc.Vars, func(i, j int) bool {
		a, c := loc.Vars[i], loc.Vars[j]
		return a.Sub < c.Sub || a.Sub == c.Sub && a.Var < c.Var
	})
	// Shared pages per row: exact from the writers of each page, else a
	// lower bound: in one instance, the write faults on a segment beyond
	// its number of pages were faults of a second writer of some page
	// (under RC a processor faults once per page and interval).
	shared := map[svmRowKey][2]int{} // shared pages, extra faults
	if s.exact {
		ids := make([]int, 0, len(s.segs))
		for id := range s.segs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for pk, mask := range s.writers {
			if w := bits.OnesCount64(mask); w >= 2 {
				rk := s.rowOfPage(ids, pk)
				if rk == nil {
					continue
				}
				v := shared[*rk]
				shared[*rk] = [2]int{v[0] + 1, v[1] + w - 1}
			}
		}
	} else {
		for si, w := range s.instW {
			sg := s.segs[si.seg]
			if extra := w - sg.pages; extra > 0 {
				rk := svmRowKey{si.reg, sg.sub, sg.v}
				v := shared[rk]
				shared[rk] = [2]int{v[0] + extra, v[1] + extra}
			}
		}
	}
	fetch := cost.fetch(s.pageSize)
	for rk, a := range s.rows {
		site, region := b.pi.regionSite(int(rk.reg.sub), int(rk.reg.dir), int(rk.reg.typ))
		row := &LocalityRow{Site: site, Region: region, Code: int(rk.reg.typ), Read: a.read, Write: a.write, Received: a.recv}
		if vu := s.vars[[2]int{rk.sub, rk.var_}]; vu != nil {
			row.Var = vu.Name
		}
		if sp := b.pi.sub(rk.sub); sp != nil && rk.var_ >= 1 && rk.var_ <= len(sp.Shared) {
			row.ElemSize = int(sp.Shared[rk.var_-1].ElemSize)
		}
		for _, c := range s.exits[rk.reg] {
			row.Instances = max(row.Instances, c)
		}
		v := shared[rk]
		row.SharedPages, row.ExtraFaults = v[0], v[1]
		for p := range a.read {
			// A read fault and a write fault that fetches are page
			// transfers; the rest of the write faults only upgrade.
			fetches := a.recv[p]
			upgrades := max(0, a.read[p]+a.write[p]-fetches)
			t := float64(fetches)*fetch + float64(upgrades)*cost.upgrade()
			row.Predicted += t
			row.Worst = max(row.Worst, t)
			row.PerProc = append(row.PerProc, t)
		}
		type sc struct{ site, n int }
		var scs []sc
		for st, c := range a.sites {
			scs = append(scs, sc{st, c})
		}
		sort.Slice(scs, func(i, j int) bool { return scs[i].n > scs[j].n || scs[i].n == scs[j].n && scs[i].site < scs[j].site })
		for _, x := range scs[:min(3, len(scs))] {
			if ac := b.pi.p.Access(x.site); ac != nil {
				row.Sites = append(row.Sites, fmt.Sprintf("%s:%d", ac.Pos.File, ac.Pos.Line))
			}
		}
		loc.Rows = append(loc.Rows, row)
	}
	sort.Slice(loc.Rows, func(i, j int) bool {
		a, c := loc.Rows[i], loc.Rows[j]
		if a.Predicted != c.Predicted {
			return a.Predicted > c.Predicted
		}
		if a.Site.Sub != c.Site.Sub {
			return a.Site.Sub < c.Site.Sub
		}
		if a.Site.Dir != c.Site.Dir {
			return a.Site.Dir < c.Site.Dir
		}
		return a.Var < c.Var
	})
	return loc
}

// rowOfPage finds the row of a page's region: the variable whose segment
// holds the page (a page two segments share goes to the first; ids are
// the segments in order).
func (s *svmBuilder) rowOfPage(ids []int, pk svmPageKey) *svmRowKey {
	for _, id := range ids {
		sg := s.segs[id]
		k := svmRowKey{pk.reg, sg.sub, sg.v}
		if a := s.rows[k]; a != nil && a.segs[id] && sg.first <= pk.page && pk.page < sg.first+sg.pages {
			return &k
		}
	}
	return nil
}

// Locality finding kinds.
const (
	FindFalseSharing  = "false sharing"         // pages written by several processors in one instance
	FindPageTravel    = "page travel"           // pages fetched from other processors in every instance
	FindOwnerMismatch = "distribution mismatch" // pages owned where another distribution left them
)

// localityFindings are the findings of the locality analysis. Their cost
// is predicted (the cost model's machine), not measured: in one process
// pages do not travel. Rows of whole subprograms repeat what the
// constructs inside them show and give no findings.
func localityFindings(m *Model, pi progInfo) []Finding {
	loc := m.Locality
	if loc == nil {
		return nil
	}
	fetch := loc.Cost.fetch(loc.PageSize)
	fs, mismatched := mismatchFindings(loc, fetch)
	for _, r := range loc.Rows {
		if r.Code == trace.RegionSubroutine || r.Code == trace.RegionProgram {
			continue
		}
		where := fmt.Sprintf("%s (%s, %s)", regionTitle(r.Site, r.Code), r.Site.Func, r.Site.Where())
		if r.ExtraFaults > 0 {
			shared := plural(int64(r.SharedPages), "page")
			if !loc.Exact {
				shared = "at least " + shared // from the fault sums (stage 4)
			}
			title := fmt.Sprintf("several processors write %s on the same pages in %s: %s written by more than one processor within one instance (summed over %s), %s at %s each on the cost model",
				r.Var, where, shared, plural(int64(r.Instances), "instance"), plural(int64(r.ExtraFaults), "extra page fault"), Dur(fetch))
			advice := "give each processor whole pages: a block distribution of the loop, block sizes that are multiples of a page, or padding between the processors' parts"
			if r.ElemSize > 0 && loc.PageSize > 0 && loc.PageSize%r.ElemSize == 0 {
				var sched *progdb.Schedule
				if d := pi.directive(r.Site.Sub, r.Site.Dir); d != nil {
					sched = d.Schedule
				}
				advice = wholePages(r.Var, loc.PageSize/r.ElemSize, r.ElemSize, loc.PageSize, sched)
			}
			advice += fmt.Sprintf("; under the invalidate protocol (svm_model sc or coherence(invalidate)), coherence(multiple_writers) :: %s merges the writers' changes at the barrier instead of passing the page back and forth", r.Var)
			if len(r.Sites) > 0 {
				advice += "; the faulting writes are at " + strings.Join(r.Sites, ", ")
			}
			fs = append(fs, Finding{Kind: FindFalseSharing, Lost: float64(r.ExtraFaults) * fetch, Site: r.Site, Region: r.Region, Code: r.Code,
				Var: r.Var, Title: title, Advice: advice})
		}
		recv := 0
		for _, c := range r.Received {
			recv += c
		}
		if travel := recv - r.ExtraFaults; r.Instances >= 2 && travel >= r.Instances && !mismatched[[2]string{r.Site.Where(), r.Var}] {
			most := 0
			for p, c := range r.Received {
				if c > r.Received[most] {
					most = p
				}
			}
			title := fmt.Sprintf("%s fetches %d pages of %s from other processors in %s (%.1f per instance; processor %d the most, %d), %s each on the cost model",
				where, travel, r.Var, plural(int64(r.Instances), "instance"), float64(travel)/float64(r.Instances), most, r.Received[most], Dur(fetch))
			advice := fmt.Sprintf("the processors work on pages of %s that others wrote: schedule the loop by the template that distributes the data (strategy(on_home(...))) so each processor keeps its pages, or prefetch the neighbours' pages before the loop", r.Var)
			if len(r.Sites) > 0 {
				advice += "; the faulting accesses are at " + strings.Join(r.Sites, ", ")
			}
			fs = append(fs, Finding{Kind: FindPageTravel, Lost: float64(travel) * fetch, Site: r.Site, Region: r.Region, Code: r.Code,
				Var: r.Var, Title: title, Advice: advice})
		}
	}
	return fs
}

// wholePages is the false sharing finding's advice for a loop of schedule
// sched (nil: unknown) whose processors write var, per elements a page:
// what to change in the schedule the loop has (a loop already block-wise
// was told to schedule itself block-wise).
func wholePages(v string, per, elemSize, pageSize int, sched *progdb.Schedule) string {
	head := fmt.Sprintf("give each processor whole pages of %s (%d elements of %d bytes per %d-byte page)", v, per, elemSize, pageSize)
	format := ""
	if sched != nil && sched.Strategy == progdb.StrategyLoopLevel && len(sched.Formats) > 0 {
		format = sched.Formats[0]
	}
	switch {
	case sched == nil:
	case sched.Strategy == progdb.StrategyDefault || format == "block":
		return fmt.Sprintf("%s: the loop gives each processor one block, and the blocks end inside pages: make the iterations each processor gets a multiple of %d (the loop's bounds against the number of processors), or pad between the processors' parts", head, per)
	case format == "cyclic":
		return fmt.Sprintf("%s: cyclic deals the iterations out one at a time, so that every page has every processor's writes: deal whole pages, strategy(cyclic(%d)), or schedule the loop block-wise", head, per)
	case strings.HasPrefix(format, "cyclic("):
		return fmt.Sprintf("%s: %s deals the iterations out in pieces that end inside pages: make the piece a multiple of %d, strategy(cyclic(%d)), or schedule the loop block-wise", head, format, per, per)
	case sched.Strategy == progdb.StrategyDynamic || sched.Strategy == progdb.StrategyGuided:
		return fmt.Sprintf("%s: %s hands out chunks of iterations that end inside pages: chunks of a multiple of %d, strategy(%s(%d)), or a block schedule", head, sched, per, sched.Strategy, per)
	case sched.Strategy == progdb.StrategyOnHome:
		return fmt.Sprintf("%s: on_home(%s) gives the processors the parts of the template's distribution, which end inside pages: distribute it in blocks of a multiple of %d elements, or pad between the processors' parts", head, sched.Home, per)
	}
	return fmt.Sprintf("%s: schedule the loop block-wise or cyclic(%d) instead of element by element, make block sizes multiples of %d, or pad between the processors' parts", head, per, per)
}

// mismatchFindings are the loops whose processors must fetch pages from
// the owners another distribution made, at least one page per instance.
// Two loops that take a variable's pages from each other are one finding,
// at the loop that fetches more, with both counts. mismatched marks the
// (loop, variable) pairs whose page travel such a finding explains.
func mismatchFindings(loc *Locality, fetch float64) (fs []Finding, mismatched map[[2]string]bool) {
	mismatched = map[[2]string]bool{}
	name := func(s Site, code int, strategy string) string {
		n := fmt.Sprintf("%s (%s, %s", regionTitle(s, code), s.Func, s.Where())
		if strategy != "" && strategy != "?" {
			n += ", " + strategy
		}
		return n + ")"
	}
	// A loop whose processors share pages (false sharing) passes those
	// pages between its writers in every instance, and the first writer
	// of an instance fetches each from the last of the one before: that is
	// the false sharing's finding, not a distribution that moves (x235: a
	// block-scheduled stencil whose blocks end mid-page was told to use a
	// static schedule).
	extra := map[[2]string]int{}
	for _, r := range loc.Rows {
		extra[[2]string{r.Site.Where(), r.Var}] += r.ExtraFaults
	}
	// Mismatches are sorted by pages, most first: the first of a pair
	// speaks for both.
	for i, om := range loc.Mismatches {
		if om.Other == om.Site {
			if x := extra[[2]string{om.Site.Where(), om.Var}]; x > 0 {
				c := *om
				c.Pages = max(0, c.Pages-x)
				om = &c
			}
		}
		if om.Instances < 2 || om.Pages < om.Instances || mismatched[[2]string{om.Site.Where(), om.Var}] {
			continue // the first touch of the pages, not a pattern; or said already
		}
		mismatched[[2]string{om.Site.Where(), om.Var}] = true
		loop := name(om.Site, om.Code, om.Strategy)
		var title, advice string
		pages := om.Pages
		if om.Other == om.Site {
			title = fmt.Sprintf("the owners of %s's pages do not follow the distribution of %s: each instance gives its elements to other processors than the last, which fetch %s (%.1f per instance over %s), %s each on the cost model",
				om.Var, loop, plural(int64(om.Pages), "page"), float64(om.Pages)/float64(om.Instances), plural(int64(om.Instances), "instance"), Dur(fetch))
			advice = fmt.Sprintf("a static schedule (block, or cyclic(k) with k a multiple of a page's elements) or on_home of a template keeps each page of %s with one processor", om.Var)
		} else {
			back := 0 // the other loop's fetches of the pages this one left
			for _, o := range loc.Mismatches[i+1:] {
				if o.Site == om.Other && o.Other == om.Site && o.Var == om.Var {
					back = o.Pages
					mismatched[[2]string{o.Site.Where(), o.Var}] = true
				}
			}
			other := name(om.Other, om.OtherCode, om.OtherStr)
			title = fmt.Sprintf("the owners of %s's pages do not follow the distribution of %s: its processors fetch %s that %s left with other processors (%.1f per instance over %s)",
				om.Var, loop, plural(int64(om.Pages), "page"), other, float64(om.Pages)/float64(om.Instances), plural(int64(om.Instances), "instance"))
			if back > 0 {
				title += fmt.Sprintf(", and that loop fetches %s back", plural(int64(back), "page"))
				pages += back
			}
			title += fmt.Sprintf(", %s each on the cost model", Dur(fetch))
			advice = fmt.Sprintf("schedule the loops that write %s by one distribution (the same strategy over the same bounds, or on_home of one template), so each page stays with the processor that writes it", om.Var)
		}
		f := Finding{Kind: FindOwnerMismatch, Lost: float64(pages) * fetch, Site: om.Site, Region: om.Region, Code: om.Code,
			Var: om.Var, Title: title, Advice: advice}
		if om.Other != om.Site {
			// The next request traces the other loop's writes too: without
			// them the narrowed run cannot tell whose pages travel.
			f.Also = &Finding{Kind: FindOwnerMismatch, Site: om.Other, Region: om.OtherReg, Code: om.OtherCode, Var: om.Var}
		}
		fs = append(fs, f)
	}
	return fs, mismatched
}

// writeLocality prints the locality analysis.
func writeLocality(w io.Writer, m *Model) {
	loc := m.Locality
	if loc == nil {
		return
	}
	fmt.Fprintf(w, "\nShared virtual memory: page faults and locality (%d-byte pages; predicted on a machine with %s per page fault, %.0f MB/s and %s per protocol message: %s)\n",
		loc.PageSize, Dur(loc.Cost.LatencyUs), loc.Cost.MBps, Dur(loc.Cost.MsgUs), loc.Cost.Source)
	perProc := func(xs []int) string {
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = strconv.Itoa(x)
		}
		return strings.Join(parts, " ")
	}
	t := newTable("variable", "where", ">pages", "read faults / proc", "write faults / proc")
	for _, v := range loc.Vars {
		t.add(v.Name, v.Where, strconv.Itoa(v.Pages), perProc(v.Read), perProc(v.Write))
	}
	t.write(w, "  ")
	if len(loc.Rows) > 0 {
		fmt.Fprintf(w, "\n  By region and variable (inclusive, by predicted cost)\n")
		t = newTable("region", "where", "variable", ">inst", "read / proc", "write / proc", "received / proc", ">shared pages", ">predicted")
		for i, r := range loc.Rows {
			if i == maxRows {
				t.add(fmt.Sprintf("... %d more (--format json has all)", len(loc.Rows)-maxRows), "", "", "", "", "", "", "", "")
				break
			}
			shared := strconv.Itoa(r.SharedPages)
			if !loc.Exact && r.SharedPages > 0 {
				shared = ">=" + shared
			}
			t.add(regionTitle(r.Site, r.Code), r.Site.Where(), r.Var, strconv.Itoa(r.Instances),
				perProc(r.Read), perProc(r.Write), perProc(r.Received), shared, Dur(r.Predicted))
		}
		t.write(w, "    ")
	}
	if len(loc.Predicted) > 0 {
		fmt.Fprintf(w, "\n  Predicted on the cost model's machine (slowest processor: measured time + its page faults)\n")
		t = newTable("region", "where", ">measured", ">predicted", ">slowdown", "")
		for i, pr := range loc.Predicted {
			if i == maxRows {
				t.add(fmt.Sprintf("... %d more", len(loc.Predicted)-maxRows), "", "", "", "", "")
				break
			}
			note := ""
			if pr.Slowdown >= SufferFactor {
				note = "suffers"
			}
			t.add(regionTitle(pr.Site, pr.Code), pr.Site.Where(), Dur(pr.Measured), Dur(pr.Predicted),
				strconv.FormatFloat(pr.Slowdown, 'f', 2, 64)+"x", note)
		}
		t.write(w, "    ")
	}
	if len(loc.Travel) > 0 && len(loc.Travel) <= 16 {
		fmt.Fprintf(w, "\n  Pages received (row: receiver, column: sender)\n")
		cols := []string{">to\\from"}
		for p := range loc.Travel {
			cols = append(cols, ">"+strconv.Itoa(p))
		}
		t = newTable(cols...)
		for r, row := range loc.Travel {
			cells := []string{strconv.Itoa(r)}
			for _, c := range row {
				cells = append(cells, strconv.Itoa(c))
			}
			t.add(cells...)
		}
		t.write(w, "    ")
	}
}
