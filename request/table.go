package request

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// Table is a compiled request file: what the runtime consults to decide
// which records to write. The records enabled on a processor are
//
//   - at base (outside every requested region): the stage's records
//     (StageMask) and those of the GLOBAL requests that list the processor;
//   - inside a region: the records enabled outside it, plus those of the
//     LOCAL requests that name the region and list the processor.
//
// So requests only ever add to the stage, and a LOCAL request applies to
// its region and to everything executed inside it: the regions nested in it
// and the subprograms called from it, down to where the region ends. The
// runtime keeps the current mask per processor: it starts from Base, calls
// Enter on entering a subprogram (region 0) or a region and keeps the
// result until the region ends, then goes back to the mask it had outside.
// The records that open and close a region (trace-region-start/stop,
// pdo-info, ...) are tested against the mask inside the region, so that
// "(REGION)" on a region traces that region's own start and stop.
//
// A nil *Table has no requests: Base returns 0 and Enter returns outer.
type Table struct {
	cfg      Config
	nprocs   int
	stage    Mask
	base     []Mask     // per node
	local    [][][]Mask // [subprogram][region][node]; nil where nothing is requested
	hasLocal bool
	vars     map[[2]int][]varRule // [subprogram, region]
	named    []bool               // [subprogram]: a LOCAL request names it (not through *)
}

// varRule is one request word with a variable list on one region.
type varRule struct {
	nodes []Range // nil: every node
	mask  Mask
	all   bool // a word without a variable list: no restriction
	vars  []int
}

// Compile builds the table of f (and the files it includes) for a run of
// nprocs processors. It resolves the names of the local requests against
// prog as Check does, leaving out the requests Check dropped, and checks the
// node lists against nprocs. The error is an ErrorList of every problem.
func Compile(f *File, prog *progdb.Program, nprocs int) (*Table, error) {
	if nprocs < 1 {
		return nil, fmt.Errorf("request: cannot compile a request file for %d processors", nprocs)
	}
	if prog == nil {
		prog = &progdb.Program{}
	}
	t := &Table{cfg: f.Config(), nprocs: nprocs, vars: map[[2]int][]varRule{}}
	if t.cfg.Stage >= 0 {
		t.stage = StageMask(t.cfg.Stage)
	}
	t.base = make([]Mask, nprocs)
	for i := range t.base {
		t.base[i] = t.stage
	}
	rows := map[[2]int][]Mask{}
	var errs ErrorList
	walk(f, func(e Entry) {
		r, ok := e.(*Request)
		if !ok || r.Dropped {
			return
		}
		nodesOK := true
		for _, rg := range r.Nodes {
			if rg.Hi >= nprocs {
				errs = append(errs, Diagnostic{rg.Pos, fmt.Sprintf("node %d does not exist: %s", max(rg.Lo, nprocs), procsText(nprocs))})
				nodesOK = false
			}
		}
		switch {
		case r.Global != nil:
			var m Mask
			for _, it := range r.Global.Items {
				if int(it.Kind) < len(Globals) {
					m |= MaskOfTags(Globals[it.Kind].Tags...)
				}
			}
			if nodesOK {
				forNodes(r.Nodes, nprocs, func(n int) { t.base[n] |= m })
			}
		case r.Local != nil:
			targets, d := resolve(r.Local, prog)
			errs = append(errs, d...)
			if !nodesOK || len(d) > 0 {
				return
			}
			var m Mask
			for _, w := range r.Local.Words {
				if w.Kind >= 1 && w.Kind < numWords {
					m |= MaskOfTags(Words[w.Kind].Tags...)
				}
			}
			for _, tg := range targets {
				if r.Local.Sub.Kind != SubAll {
					for len(t.named) <= tg.sub.Num {
						t.named = append(t.named, false)
					}
					t.named[tg.sub.Num] = true
				}
				key := [2]int{tg.sub.Num, tg.region}
				row := rows[key]
				if row == nil {
					row = make([]Mask, nprocs)
					rows[key] = row
				}
				forNodes(r.Nodes, nprocs, func(n int) { row[n] |= m })
				t.addVarRules(key, tg.sub, r)
			}
		}
	})
	if len(errs) > 0 {
		return nil, errs
	}
	t.build(rows)
	return t, nil
}

func procsText(n int) string {
	if n == 1 {
		return "the run has 1 processor, node 0"
	}
	return fmt.Sprintf("the run has %d processors, 0 to %d", n, n-1)
}

// forNodes calls fn for every node of the list (every node if nodes is nil).
func forNodes(nodes []Range, nprocs int, fn func(int)) {
	if nodes == nil {
		for n := range nprocs {
			fn(n)
		}
		return
	}
	for _, rg := range nodes {
		for n := rg.Lo; n <= rg.Hi && n < nprocs; n++ {
			fn(n)
		}
	}
}

func inNodes(nodes []Range, n int) bool {
	if nodes == nil {
		return true
	}
	for _, rg := range nodes {
		if rg.Lo <= n && n <= rg.Hi {
			return true
		}
	}
	return false
}

func (t *Table) addVarRules(key [2]int, s *progdb.Subprogram, r *Request) {
	for _, w := range r.Local.Words {
		if w.Kind < 1 || w.Kind >= numWords || !Words[w.Kind].Vars {
			continue
		}
		rule := varRule{nodes: r.Nodes, mask: varMask(w.Kind), all: w.Vars == nil}
		if !rule.all {
			rule.vars = varNums(s, w.Vars)
		}
		t.vars[key] = append(t.vars[key], rule)
	}
}

// varMask is the records a variable list of word k restricts: the word's
// own, or for *.SVMInfo those of the page words (not SVMOverhead).
func varMask(k WordKind) Mask {
	if !Words[k].All {
		return MaskOfTags(Words[k].Tags...)
	}
	var m Mask
	for _, w := range Words[1:] {
		if w.Group == Words[k].Group && w.Vars && !w.All {
			m |= MaskOfTags(w.Tags...)
		}
	}
	return m
}

// build lays the per-region rows out as [sub][region][node], sharing rows
// with the same contents (a request on * names every region).
func (t *Table) build(rows map[[2]int][]Mask) {
	maxSub := -1
	for k := range rows {
		maxSub = max(maxSub, k[0])
	}
	if maxSub < 0 {
		return
	}
	t.hasLocal = true
	t.local = make([][][]Mask, maxSub+1)
	nreg := make([]int, maxSub+1)
	for k := range rows {
		nreg[k[0]] = max(nreg[k[0]], k[1]+1)
	}
	for s, n := range nreg {
		if n > 0 {
			t.local[s] = make([][]Mask, n)
		}
	}
	shared := map[string][]Mask{}
	buf := make([]byte, 8*t.nprocs)
	for k, row := range rows {
		for i, m := range row {
			binary.LittleEndian.PutUint64(buf[8*i:], uint64(m))
		}
		if old, ok := shared[string(buf)]; ok {
			row = old
		} else {
			shared[string(buf)] = row
		}
		t.local[k[0]][k[1]] = row
	}
}

// Base returns the records enabled on node outside every requested region:
// the stage's and the GLOBAL requests'.
func (t *Table) Base(node int) Mask {
	if t == nil {
		return 0
	}
	if uint(node) < uint(len(t.base)) {
		return t.base[node]
	}
	return t.stage
}

// Enter returns the records enabled on node inside region (0: the
// subprogram itself) of subprogram sub, given outer, the records enabled
// outside it: outer plus what the LOCAL requests naming that region add for
// node. It does not allocate and costs three bounds-checked loads.
func (t *Table) Enter(node, sub, region int, outer Mask) Mask {
	if t == nil {
		return outer
	}
	if uint(sub) < uint(len(t.local)) {
		if regs := t.local[sub]; uint(region) < uint(len(regs)) {
			if row := regs[region]; uint(node) < uint(len(row)) {
				return outer | row[node]
			}
		}
	}
	return outer
}

// Named reports whether a LOCAL request names subprogram sub itself (by its
// name or as @MAIN, not through *): the runtime never throttles the tracing
// of such a subprogram.
func (t *Table) Named(sub int) bool {
	return t != nil && uint(sub) < uint(len(t.named)) && t.named[sub]
}

// HasLocal reports whether any LOCAL request survived compilation; if not,
// Enter always returns outer and the runtime may skip it.
func (t *Table) HasLocal() bool { return t != nil && t.hasLocal }

// Config returns the configuration the file sets.
func (t *Table) Config() Config {
	if t == nil {
		return Config{Stage: -1}
	}
	return t.cfg
}

// Procs returns the number of processors the table was compiled for.
func (t *Table) Procs() int {
	if t == nil {
		return 0
	}
	return t.nprocs
}

// Vars reports the variable lists of the LOCAL requests that name region of
// sub and enable tag on node. If each of them has a variable list, restricted
// is true and vars holds the numbers (progdb Var.Num, sorted) of the
// variables of sub they name: records with tag inside the region concern
// only these. Otherwise (no such request, or one without a list) restricted
// is false. The stage and the requests of enclosing regions are not
// consulted. The SVM layer filters its page records on it.
func (t *Table) Vars(node, sub, region int, tag trace.Tag) (vars []int, restricted bool) {
	if t == nil {
		return nil, false
	}
	rules := t.vars[[2]int{sub, region}]
	for _, r := range rules {
		if !r.mask.Has(tag) || !inNodes(r.nodes, node) {
			continue
		}
		if r.all {
			return nil, false
		}
		restricted = true
		vars = append(vars, r.vars...)
	}
	slices.Sort(vars)
	return slices.Compact(vars), restricted
}

// Uses reports whether any node, anywhere in the program, may trace a
// record of m: the runtime turns on what those records need (the SVM
// layer's access checks for the page words) only then.
func (t *Table) Uses(m Mask) bool {
	if t == nil {
		return false
	}
	if t.stage&m != 0 {
		return true
	}
	for _, b := range t.base {
		if b&m != 0 {
			return true
		}
	}
	for _, sub := range t.local {
		for _, row := range sub {
			for _, x := range row {
				if x&m != 0 {
					return true
				}
			}
		}
	}
	return false
}
