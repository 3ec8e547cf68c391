package compiler

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/svmc/svmc/directives"
)

// RacesPass applies the checks a reviewer of a parallel loop applies to
// each pdo body (issue 17): writes that every processor makes to the same
// place, loop-carried dependences between iterations that different
// processors may run, writes to shared maps, and barriers that only some
// processors reach. Each is a warning with the construct, the variables
// and a fix to try; "must" and "may" are said plainly. The checks reason
// about the body's text, the aliases of its function (aliases.go: a
// variable assigned once from another's storage) and, for package-level
// variables, the package's call graph.
var RacesPass = newPass("races", "find write conflicts, loop-carried dependences and rank-dependent barriers in parallel bodies", (*Package).checkRaces, ClassifyPass, CallsPass)

// access is one indexed access of a shared variable in a pdo body.
type access struct {
	root  types.Object
	name  string
	idx   []ast.Expr // outermost dimension first
	write bool
	at    ast.Expr
	// through is the alias the access names root by (nil: root itself);
	// offset: a re-slice of root whose start the checks cannot tell.
	through types.Object
	offset  bool
	via     string // "row is grid[0]" for an access through an alias
}

// text is the access as written, with the alias it goes through.
func (p *Package) accessText(a access) string {
	if a.via != "" {
		return p.Text(a.at) + " (" + a.via + ")"
	}
	return p.Text(a.at)
}

func (p *Package) checkRaces() bool {
	for _, s := range p.Subs {
		for _, c := range s.Constructs {
			switch {
			case c.PDO != nil:
				p.racesInPDO(c)
			case c.Kind() == directives.Barrier:
				p.rankDependent(c, "barrier")
			}
		}
	}
	p.rankDependentCalls()
	var ranksOnly []Diagnostic
	if p.cfg.Ranks {
		p.checkRanks()
	} else if p.hasIgnores() {
		ranksOnly = p.ranksProbe()
	}
	p.syncNesting()
	p.suppress(ranksOnly)
	return true
}

// checkRanks makes the checks of a build for ranks (--mpi): what a rank
// keeps to itself.
func (p *Package) checkRanks() {
	for _, s := range p.Subs {
		for _, c := range s.Constructs {
			switch {
			case c.PDO != nil:
				p.rankPrivate(c)
				p.rankRecover(c)
			case c.Kind() == directives.PSection:
				p.rankRecover(c)
			case c.Kind() == directives.Replicated:
				p.rankReplicated(c)
			}
		}
	}
	p.rankEverywhere()
	p.rankMessages()
}

// rankMessages warns, built for ranks, at each message call whose buffer's
// elements hold pointers (a struct with a string, a slice of slices): the
// runtime refuses such a message between processors of different ranks,
// as its bytes cannot carry what the pointers lead to (found at run time,
// in the middle of the job, before).
func (p *Package) rankMessages() {
	for _, mc := range callsOf(p) {
		inst, ok := p.Info.Instances[mc.Name]
		if !ok || inst.TypeArgs.Len() == 0 {
			continue
		}
		if t := inst.TypeArgs.At(0); hasPointers(t) {
			p.warnf(mc.Call.Pos(), "rtlib.%s of []%s: under --mpi a message between processors of different ranks travels as bytes, which pointers cannot, and the run stops at it; send numbers, arrays or structs of them (indexes into data every rank has in place of strings and slices)",
				mc.Func, types.TypeString(t, types.RelativeTo(p.Types)))
		}
	}
}

// ranksProbe returns the warnings checkRanks would give, leaving the
// package's diagnostics as they were: an //svm:ignore race written for
// one of them (mandel's SetGray, which changes a rank's own image under
// --mpi) suppresses something in the build it was written for, and is
// not reported as suppressing nothing in the others.
func (p *Package) ranksProbe() []Diagnostic {
	saved := p.Diags
	p.Diags, p.cfg.Ranks = nil, true
	p.checkRanks()
	probe := p.Diags
	p.Diags, p.cfg.Ranks = saved, false
	return probe
}

// hasIgnores reports whether a file of the package has //svm:ignore race.
func (p *Package) hasIgnores() bool {
	for _, f := range p.Files {
		for _, d := range f.Dirs {
			if d.Kind == directives.Ignore && d.Ignore != nil {
				return true
			}
		}
	}
	return false
}

// guard is a critical section, lock or atomic construct with the source it
// holds.
type guard struct {
	c        *Construct
	name     string // "critical c", "lock(m)"
	from, to token.Pos
}

// guards lists the critical sections, locks and atomic updates of s with
// their ranges.
func guards(p *Package, s *Sub) []guard {
	var gs []guard
	for _, c := range s.Constructs {
		var name string
		switch c.Kind() {
		case directives.Critical:
			name = "critical"
			if l := c.Dir.Label(); l != "" {
				name += " " + l
			}
		case directives.Lock:
			var vs []string
			if c.Dir.Lock != nil {
				for _, v := range c.Dir.Lock.Vars {
					vs = append(vs, v.Text)
				}
			}
			name = "lock(" + strings.Join(vs, ", ") + ")"
		case directives.Atomic:
			name = "atomic"
		default:
			continue
		}
		switch {
		case c.Stmt != nil:
			gs = append(gs, guard{c, name, c.Stmt.Pos(), c.Stmt.End()})
		case c.End != nil:
			gs = append(gs, guard{c, name, c.Pos(), c.End.Pos()})
		}
	}
	return gs
}

// guardedAt reports whether pos lies in a critical section, under a lock
// or in an atomic update of any subprogram of the package: a write there,
// in a function a pdo's body calls, is serialised (an orphaned critical
// section, as OpenMP calls one outside its parallel construct).
func (p *Package) guardedAt(pos token.Pos) bool {
	if !p.guardsDone {
		p.guardsDone = true
		for _, s := range p.Subs {
			p.allGuards = append(p.allGuards, guards(p, s)...)
		}
	}
	return pos.IsValid() && slices.ContainsFunc(p.allGuards, func(g guard) bool { return g.from <= pos && pos < g.to }) || p.mutexHeld(pos)
}

// syncNesting warns about a barrier inside a critical section or lock (a
// processor waits at the barrier holding it, the others wait to enter: a
// deadlock), and about two critical sections or locks taken in opposite
// orders in two places (a deadlock when both run at once).
func (p *Package) syncNesting() {
	type pair struct{ outer, inner string }
	seen := map[pair]token.Pos{}
	for _, s := range p.Subs {
		gs := guards(p, s)
		for _, c := range s.Constructs {
			if c.Kind() != directives.Barrier && c.Kind() != directives.BarrierCheckout {
				continue
			}
			for _, g := range gs {
				if g.from <= c.Pos() && c.Pos() < g.to {
					p.warnf(c.Pos(), "%s inside the %s at line %d: a processor waits at it holding the %s, and the others wait to enter it (a deadlock); move the barrier after the section",
						c.Kind(), g.name, p.Fset.Position(g.c.Pos()).Line, g.name)
				}
			}
		}
		for _, outer := range gs {
			for _, inner := range gs {
				if outer.c.Kind() == directives.Atomic || inner.c.Kind() == directives.Atomic || inner.c == outer.c || !(outer.from <= inner.c.Pos() && inner.c.Pos() < outer.to) {
					continue
				}
				k := pair{outer.name, inner.name}
				if other, ok := seen[pair{inner.name, outer.name}]; ok {
					p.warnf(inner.c.Pos(), "%s is taken inside %s here, and the other way round at %s: two processors taking them in opposite orders wait for each other for ever; take them in one order everywhere",
						inner.name, outer.name, p.position(other))
				}
				if _, ok := seen[k]; !ok {
					seen[k] = inner.c.Pos()
				}
			}
		}
	}
}

// raceChecks are the warnings //svm:ignore race suppresses: those of
// this pass and the classify pass's shared scalar.
var raceChecks = []string{"a deadlock", "wait for each other for ever", "may outlive its iteration", "write conflict", "possible write conflict", "loop-carried dependence", "is a map shared",
	"inside a branch on the processor number", "is shared and assigned in the body of the pdo", "is a channel shared",
	"not safe for concurrent use", "writes the package-level variable", "writes elements of the package-level variable", "is private to each rank",
	"is a channel of one rank", "cannot run under --mpi"}

// suppress marks the race warnings on the line after an //svm:ignore race
// directive with its reason; an ignore that suppresses nothing is a
// warning itself (the code changed, or it is misplaced), unless it
// suppresses one of other (the warnings of a build for ranks).
func (p *Package) suppress(other []Diagnostic) {
	type key struct {
		file string
		line int
	}
	ignores := map[key]*Dir{}
	used := map[*Dir]bool{}
	for _, f := range p.Files {
		for _, d := range f.Dirs {
			if d.Kind == directives.Ignore && d.Ignore != nil {
				pos := p.Fset.Position(d.Comment.Slash)
				ignores[key{pos.Filename, pos.Line + 1}] = d
			}
		}
	}
	if len(ignores) == 0 {
		return
	}
	ignoreOf := func(d *Diagnostic) *Dir {
		if !d.Warning || !d.At.IsValid() || !slices.ContainsFunc(raceChecks, func(s string) bool { return strings.Contains(d.Msg, s) }) {
			return nil
		}
		pos := p.Fset.Position(d.At)
		return ignores[key{pos.Filename, pos.Line}]
	}
	for i := range p.Diags {
		d := &p.Diags[i]
		if ig := ignoreOf(d); ig != nil {
			d.Suppressed = "//svm:ignore race: " + ig.Ignore.Reason
			used[ig] = true
		}
	}
	for i := range other {
		if ig := ignoreOf(&other[i]); ig != nil {
			used[ig] = true
		}
	}
	for _, ig := range ignores {
		if !used[ig] {
			p.warnf(ig.Comment.Slash, "//svm:ignore race suppresses nothing: no race warning on the next line")
		}
	}
}

// derivedFrom are the variables of inner loops of a pdo body that start
// from its distributed loop variables, directly or through locals computed
// from them: the loop over a block (lo := b*n/p; for i := lo; i < hi; i++),
// whose elements the iteration owns as it owns those indexed by b. (Only
// for "does the index depend on the iteration": a loop-carried dependence
// through i is one inside the iteration. A plain local, j := i/2, is not
// one: the index it stands for may repeat, which the checks see only as a
// write at an index that does not depend on i.)
func (p *Package) derivedFrom(body ast.Node, dist map[types.Object]string) map[types.Object]bool {
	derived := map[types.Object]bool{} // every local computed from them, first
	mentions := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				o := p.Info.Uses[id]
				found = found || dist[o] != "" || derived[o]
			}
			return !found
		})
		return found
	}
	define := func(id *ast.Ident, from ast.Expr) bool {
		o := p.Info.Defs[id]
		if o == nil || derived[o] || dist[o] != "" || !mentions(from) {
			return false
		}
		derived[o] = true
		return true
	}
	for changed := true; changed; {
		changed = false
		ast.Inspect(body, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.AssignStmt:
				if s.Tok != token.DEFINE {
					return true
				}
				for i, lhs := range s.Lhs {
					id, ok := lhs.(*ast.Ident)
					if !ok {
						continue
					}
					from := s.Rhs[0] // lo, hi := bounds(b)
					if len(s.Rhs) == len(s.Lhs) {
						from = s.Rhs[i]
					}
					changed = define(id, from) || changed
				}
			case *ast.ValueSpec:
				for i, id := range s.Names {
					if i < len(s.Values) {
						changed = define(id, s.Values[i]) || changed
					}
				}
			}
			return true
		})
	}
	loops := map[types.Object]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if f, ok := n.(*ast.ForStmt); ok {
			if init, ok := f.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
				for _, lhs := range init.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && derived[p.Info.Defs[id]] {
						loops[p.Info.Defs[id]] = true
					}
				}
			}
		}
		return true
	})
	return loops
}

func (p *Package) racesInPDO(c *Construct) {
	info := c.PDO
	nest := info.Loops[0].Stmt
	line := p.Fset.Position(c.Pos()).Line
	dist := loopVars(info)
	outside := func(o types.Object) bool {
		v, ok := o.(*types.Var)
		return ok && !v.IsField() && !(nest.Pos() <= v.Pos() && v.Pos() < nest.End())
	}
	red := map[types.Object]bool{}
	for _, r := range info.Reds {
		red[r.Obj] = true
	}
	writes := writtenExprs(info.Body)
	locals := p.localDefs(info.Body)
	var als map[types.Object]alias
	if c.Sub != nil && c.Sub.Decl != nil {
		als = p.aliases(c.Sub.Decl.Body)
	}
	// resolve names the shared storage an identifier of the body stands
	// for: itself when declared outside the loop nest, or the outside
	// variable a local alias shares storage with.
	resolve := func(id *ast.Ident) (o types.Object, a alias, aliased bool) {
		o = p.Info.Uses[id]
		if al, ok := als[o]; ok && outside(al.root) && !writes[id] {
			return al.root, al, true
		}
		return o, alias{}, false
	}
	// Writes in a critical section, under a lock or atomic are serialised:
	// not conflicts.
	gs := guards(p, c.Sub)
	isGuarded := func(pos token.Pos) bool {
		return slices.ContainsFunc(gs, func(g guard) bool { return g.from <= pos && pos < g.to }) || p.mutexHeld(pos)
	}
	var accs []access
	ast.Inspect(info.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			if !waitsAfter(info.Body, x.End()) && !p.receivesAfter(info.Body, x.Call.Fun, x.End()) {
				p.warnf(x.Pos(), "a goroutine started in the body of the pdo at line %d may outlive its iteration: the loop's barrier does not wait for it, so what it writes races with the code after the loop; wait for it in the iteration (sync.WaitGroup, or a receive of what it sends or closes last) or do its work in the iteration", line)
			}
		case *ast.SendStmt:
			if id, ok := ast.Unparen(x.Chan).(*ast.Ident); ok && outside(p.Info.Uses[id]) && !isGuarded(x.Pos()) {
				p.warnf(x.Pos(), "%s is a channel shared by the processors of the pdo at line %d: sends from every processor's iterations interleave in no fixed order, and a processor blocked on it blocks its share of the loop; pass values between processors with rtlib.Send/Recv, or collect results in an array indexed by the iteration", id.Name, line)
			}
		case *ast.CallExpr:
			if f, later := GoStarted(p.Info, x); f != nil && !waitsAfter(info.Body, x.End()) && !p.receivesAfter(info.Body, f, x.End()) {
				advice := "wait for it in the iteration (its group's Wait, or a receive of what it sends or closes last) or do its work in the iteration"
				if later {
					advice = "do its work in the iteration, or receive in the iteration what it sends or closes last"
				}
				p.warnf(x.Pos(), "a goroutine started in the body of the pdo at line %d (by %s) may outlive its iteration: the loop's barrier does not wait for it, so what it writes races with the code after the loop; %s", line, types.ExprString(x.Fun), advice)
			}
			if isGuarded(x.Pos()) {
				return true
			}
			if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
				if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && outside(p.Info.Uses[id]) {
					if t := unsafeShared(p.Info.TypeOf(id)); t != "" {
						p.warnf(x.Pos(), "%s.%s: %s is a %s shared by the processors of the pdo at line %d, and a %s is not safe for concurrent use; give each iteration or processor its own, or call it in a critical section", id.Name, sel.Sel.Name, id.Name, t, line, t)
					}
				}
			}
			if w := p.sharedCallWrite(x, dist, outside); w != nil && !red[w.v] {
				p.warnCallWrite(w, x.Pos(), line)
				return true
			}
			if fn := p.calledFunc(x); fn != nil && !isGuarded(x.Pos()) {
				g, chain, elem := p.globalWrite(fn, true)
				guarded := false
				if g == "" && p.cfg.Ranks {
					// Serialised, but what a rank writes stays on that rank.
					g, chain, _ = p.globalWrite(fn, false)
					guarded = true
				}
				if g == "" {
					return true
				}
				through := ""
				if len(chain) > 1 {
					through = " (through " + strings.Join(chain, " → ") + ")"
				}
				ranks := ""
				if p.cfg.Ranks {
					ranks = "; built for ranks, what each rank's calls write stays on that rank unless " + g + " is //svm:shared (declare it where the loop is)"
				}
				switch {
				case guarded:
					p.warnf(x.Pos(), "%s, called in the body of the pdo at line %d, writes the package-level variable %s%s in a critical section, under a lock or atomically: built for ranks, what each rank's calls write stays on that rank unless %s is //svm:shared (declare it where the loop is), or combine it with a reduction", fn.Name(), line, g, through, g)
				case elem:
					// hits[i] = …: calls that index differently do not race.
					p.warnf(x.Pos(), "%s, called in the body of the pdo at line %d, writes elements of the package-level variable %s%s: calls from different iterations that write the same element race (make it a parameter or a result, or call it in a critical section)%s", fn.Name(), line, g, through, ranks)
				default:
					p.warnf(x.Pos(), "%s, called in the body of the pdo at line %d, writes the package-level variable %s%s: every processor's calls write it at once (a race); make it a parameter or a result, or call it in a critical section%s", fn.Name(), line, g, through, ranks)
				}
			}
		case *ast.StarExpr:
			// A write through a pointer (issue 17's alias analysis).
			if !writes[x] || isGuarded(x.Pos()) {
				return true
			}
			id, ok := ast.Unparen(x.X).(*ast.Ident)
			if !ok {
				return true
			}
			o, al, aliased := resolve(id)
			switch {
			case aliased && al.ptr && len(al.idx) > 0:
				// p := &a[k]: a write of a's element k.
				accs = append(accs, access{root: o, name: id.Name, idx: al.idx, write: true, at: x, through: p.Info.Uses[id], via: id.Name + " is " + al.via})
			case aliased && al.ptr:
				p.warnf(x.Pos(), "write conflict: *%s writes %s (%s is %s), which every processor of the pdo at line %d shares: the writes race (use a reduction, per-iteration data or a critical section)", id.Name, o.Name(), id.Name, al.via, line)
			case !aliased && outside(o) && !writes[id]:
				p.warnf(x.Pos(), "write conflict: every processor writes *%s in the pdo at line %d: %s is the same pointer in every iteration, so the writes go to one variable and race (write per-iteration data, or use a reduction or a critical section)", id.Name, line, id.Name)
			}
			return true
		case *ast.SelectorExpr:
			// A field of a shared struct variable written by every
			// processor.
			if !writes[x] || isGuarded(x.Pos()) {
				return true
			}
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				if o, al, aliased := resolve(id); aliased && len(al.idx) == 0 && !red[o] {
					p.warnf(x.Pos(), "write conflict: every processor writes %s.%s (%s is %s) in the pdo at line %d, whatever its iterations: the writes race (write a field of per-iteration data, or use a reduction or a critical section)", id.Name, x.Sel.Name, id.Name, al.via, line)
					return true
				}
				if o := p.Info.Uses[id]; outside(o) && !red[o] {
					if _, isPkg := o.(*types.PkgName); !isPkg {
						p.warnf(x.Pos(), "write conflict: every processor writes %s.%s in the pdo at line %d, whatever its iterations: the writes race (write a field of per-iteration data, or use a reduction or a critical section)", id.Name, x.Sel.Name, line)
					}
				}
			} else if base := p.fieldPathBase(x); base != nil {
				// g.stats.max = v: a field of a field, the same storage in
				// every iteration (x234 kept a maximum this way).
				if o := p.Info.Uses[base]; outside(o) && !red[o] && !writes[base] {
					p.warnf(x.Pos(), "write conflict: every processor writes %s in the pdo at line %d, whatever its iterations: the writes race (write a field of per-iteration data, or use a reduction or a critical section)", p.Text(x), line)
				}
			}
			return true
		case *ast.IndexExpr:
			root, idx := indexChain(x)
			var o types.Object
			var al alias
			var aliased bool
			name := p.Text(root)
			id, ok := root.(*ast.Ident)
			if ok {
				o, al, aliased = resolve(id)
			} else if base := p.fieldPathBase(root); base != nil && outside(p.Info.Uses[base]) && !red[p.Info.Uses[base]] {
				// g.cells[i]: the slice a field of one struct holds, the
				// same for every iteration.
				o = p.fieldPathStorage(p.Info.Uses[base], name)
			} else {
				return true
			}
			for k, e := range idx {
				idx[k] = p.substLocals(e, locals, 0)
			}
			if !outside(o) || red[o] {
				return true // (a reduction's elements are each processor's own copy)
			}
			if _, ok := p.Info.TypeOf(ast.Unparen(x.X)).Underlying().(*types.Map); ok && len(idx) == 1 {
				if writes[x] && !isGuarded(x.Pos()) {
					p.warnf(x.Pos(), "%s is a map shared by the processors of the pdo at line %d and written here: Go maps must not be written concurrently (the runtime may crash); give each processor its own map and merge them after the loop, or write in a critical section", name, line)
				}
				return true
			}
			acc := access{root: o, name: name, idx: idx, write: writes[x], at: x}
			if aliased {
				acc.idx = append(append([]ast.Expr{}, al.idx...), idx...)
				acc.through, acc.offset, acc.via = p.Info.Uses[id], al.offset, id.Name+" is "+al.via
			}
			accs = append(accs, acc)
			for _, e := range idx {
				ast.Inspect(e, func(m ast.Node) bool {
					if ix, ok := m.(*ast.IndexExpr); ok {
						r, i2 := indexChain(ix)
						if rid, ok := r.(*ast.Ident); ok && outside(p.Info.Uses[rid]) {
							accs = append(accs, access{root: p.Info.Uses[rid], name: rid.Name, idx: i2, at: ix})
						}
						return false
					}
					return true
				})
			}
			return false
		}
		return true
	})
	// Write conflicts: an element written whatever the distributed loop
	// variables are.
	// An index that uses a distributed loop variable, or the processor's
	// number (parts[rtlib.ProcessorID()]: one element per processor).
	derived := p.derivedFrom(info.Body, dist)
	uses := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && (dist[p.Info.Uses[id]] != "" || derived[p.Info.Uses[id]]) {
				found = true
			}
			return !found
		})
		return found || p.callsProcessorID(e)
	}
	var loopNames []string
	for _, l := range info.Loops {
		loopNames = append(loopNames, l.Name)
	}
	one := p.pinsOf(c, dist, writes, outside)
	for _, a := range accs {
		if !a.write || isGuarded(a.at.Pos()) {
			continue
		}
		depends := false
		for _, e := range a.idx {
			if uses(e) {
				depends = true
			}
		}
		if !depends {
			// One iteration writes it (if me == 0 { out[0] = v }): no
			// conflict, unless other iterations touch the element too.
			if in := one.oneIteration(a.at); in != nil {
				i := slices.IndexFunc(accs, func(o access) bool {
					return o.root == a.root && (o.at.Pos() < in.Pos() || in.End() < o.at.End()) && !p.constApart(a.idx, o.idx)
				})
				if i < 0 {
					continue
				}
				kind := "read"
				if accs[i].write {
					kind = "written"
				}
				p.warnf(a.at.Pos(), "write conflict: %s is written in one iteration of the pdo at line %d (the condition at line %d) and %s at line %d by the others, which may run before or after it on other processors: the accesses race (set it before the loop, or keep it to that iteration)",
					p.accessText(a), line, p.Fset.Position(in.Pos()).Line, kind, p.Fset.Position(accs[i].at.Pos()).Line)
				continue
			}
		}
		if !depends && loopNames[0] == hiddenIndex {
			p.warnf(a.at.Pos(), "write conflict: %s is written at an index that does not depend on the iteration of the pdo at line %d: every processor writes the same elements and the writes race (index by the loop's position, for i, x := range ..., make it a reduction, or move the write out of the loop)",
				p.accessText(a), line)
			continue
		}
		if !depends {
			p.warnf(a.at.Pos(), "write conflict: %s is written at an index that does not depend on the distributed loop variable%s %s of the pdo at line %d: every processor writes the same elements and the writes race (index by %s, make it a reduction, or move the write out of the loop)",
				p.accessText(a), suffix(len(loopNames)), strings.Join(loopNames, ", "), line, loopNames[0])
			continue
		}
		if why := p.manyToOne(a.idx, dist, outside); why != "" {
			p.warnf(a.at.Pos(), "possible write conflict: %s is written at an index that %s in the pdo at line %d: if two iterations on different processors give the same index, their writes race (a may conflict; use a critical section or per-processor copies merged after the loop)",
				p.Text(a.at), why, line)
		}
	}
	// Loop-carried dependences between a write and another access of the
	// same variable whose indices differ by a constant in a distributed
	// loop variable and agree elsewhere.
	// One warning per line: a[i], a[i+1] = a[i+1], a[i] has four pairs
	// that say the same.
	reported := map[ast.Expr]bool{}
	lines := map[int]bool{}
	for _, w := range accs {
		if !w.write {
			continue
		}
		for _, o := range accs {
			if o.root != w.root || o.at == w.at || len(o.idx) != len(w.idx) || reported[o.at] || lines[p.Fset.Position(o.at.Pos()).Line] {
				continue
			}
			if (o.offset || w.offset) && o.through != w.through {
				// A re-slice with an offset the checks cannot tell: say
				// "may" when both follow the loop.
				if slices.ContainsFunc(w.idx, uses) && slices.ContainsFunc(o.idx, uses) {
					p.warnf(o.at.Pos(), "possible loop-carried dependence in the pdo at line %d: %s and %s (line %d) are the same array through a re-slice whose offset the checks cannot tell: if an element one iteration writes is one another touches, the result depends on their order (a may dependence; check the offset, or write to a second array)",
						line, p.accessText(o), p.accessText(w), p.Fset.Position(w.at.Pos()).Line)
					reported[o.at] = true
					lines[p.Fset.Position(o.at.Pos()).Line] = true
				}
				continue
			}
			if msg := p.dependence(w, o, info, dist); msg != "" {
				kind := "read"
				if o.write {
					kind = "written"
				}
				p.warnf(o.at.Pos(), "loop-carried dependence in the pdo at line %d: %s is %s here and %s is written at line %d, %s: iterations that different processors run touch the same element, so the result depends on their order (keep this loop serial, or write to a second array and swap after the loop)",
					line, p.accessText(o), kind, p.accessText(w), p.Fset.Position(w.at.Pos()).Line, msg)
				reported[o.at] = true
				lines[p.Fset.Position(o.at.Pos()).Line] = true
			}
		}
	}
}

// loopVars maps a pdo's distributed loop variables to their names.
func loopVars(info *PDO) map[types.Object]string {
	dist := map[types.Object]string{}
	for _, l := range info.Loops {
		dist[l.Obj] = l.Name
	}
	return dist
}

// pins finds the accesses of a pdo's body that one iteration makes at
// most (oneIteration); made once per pdo.
type pins struct {
	p       *Package
	c       *Construct
	dist    map[types.Object]string
	written map[types.Object]bool // variables the body assigns
	outside func(types.Object) bool
}

func (p *Package) pinsOf(c *Construct, dist map[types.Object]string, writes map[ast.Expr]bool, outside func(types.Object) bool) *pins {
	written := map[types.Object]bool{}
	for w := range writes {
		if id, ok := ast.Unparen(w).(*ast.Ident); ok {
			written[p.Info.Uses[id]] = true
		}
	}
	return &pins{p, c, dist, written, outside}
}

// invariant: constants and variables from outside the loop that the body
// does not assign, in arithmetic (n-1) and len or cap of them (len(xs)-1),
// no other calls or indexing.
func (q *pins) invariant(e ast.Expr) bool {
	uses := q.p.Info.Uses
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case nil, *ast.BasicLit, *ast.ParenExpr, *ast.BinaryExpr, *ast.UnaryExpr:
		case *ast.CallExpr:
			id, _ := ast.Unparen(x.Fun).(*ast.Ident)
			b, _ := uses[id].(*types.Builtin)
			ok = b != nil && (b.Name() == "len" || b.Name() == "cap") && len(x.Args) == 1
			if ok {
				_, ok = ast.Unparen(x.Args[0]).(*ast.Ident) // len(xs), not len(f())
			}
		case *ast.Ident:
			switch o := uses[x].(type) {
			case *types.Const, *types.Nil, *types.Builtin:
			case *types.Var:
				ok = q.outside(o) && !q.written[o]
			default:
				ok = false
			}
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// pin is the distributed loop variable v when it is held equal to an
// invariant k.
func (q *pins) pin(v, k ast.Expr) types.Object {
	if id, ok := ast.Unparen(v).(*ast.Ident); ok && q.dist[q.p.Info.Uses[id]] != "" && q.invariant(k) {
		return q.p.Info.Uses[id]
	}
	return nil
}

// other is the distributed variable that a condition v == k (or v != k,
// op) leaves one value on its other branch: v's loop has two values, k a
// constant one of them (if me == 0 {…} else {…} over me in 0..1).
func (q *pins) other(e ast.Expr, op token.Token) types.Object {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != op {
		return nil
	}
	for _, vk := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		id, ok := ast.Unparen(vk[0]).(*ast.Ident)
		k := q.p.Info.Types[vk[1]].Value
		if !ok || q.dist[q.p.Info.Uses[id]] == "" || k == nil || k.Kind() != constant.Int {
			continue
		}
		lo, hi, st, ok := q.p.loopBounds(q.c.PDO, q.p.Info.Uses[id])
		if kv, exact := constant.Int64Val(k); ok && exact && lo+st == hi && (kv == int64(lo) || kv == int64(hi)) {
			return q.p.Info.Uses[id]
		}
	}
	return nil
}

// oneIteration returns the if or case of the body that lets at run in
// one iteration of the pdo at most: at lies in then-branches of ifs whose
// conditions (or their && terms) hold each distributed loop variable
// equal to an invariant, or in a case of a switch on one, or in the other
// branch of v == k where v's loop has two values; nil otherwise.
func (q *pins) oneIteration(at ast.Node) ast.Node {
	held := map[types.Object]bool{}
	hold := func(o types.Object) {
		if o != nil {
			held[o] = true
		}
	}
	var terms func(e ast.Expr)
	terms = func(e ast.Expr) {
		if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok {
			switch b.Op {
			case token.LAND:
				terms(b.X)
				terms(b.Y)
			case token.EQL:
				hold(q.pin(b.X, b.Y))
				hold(q.pin(b.Y, b.X))
			}
		}
	}
	path, _ := astutil.PathEnclosingInterval(q.c.Dir.File.Syntax, at.Pos(), at.End())
	for i := 1; i < len(path) && path[i] != q.c.PDO.Body; i++ {
		switch x := path[i].(type) {
		case *ast.FuncLit:
			return nil // it may run anywhere, any number of times
		case *ast.IfStmt:
			if path[i-1] == x.Body {
				terms(x.Cond)
				hold(q.other(x.Cond, token.NEQ))
			} else if path[i-1] == x.Else {
				hold(q.other(x.Cond, token.EQL))
			}
		case *ast.CaseClause:
			if sw, ok := path[i+2].(*ast.SwitchStmt); ok && sw.Tag != nil && sw.Init == nil && len(x.List) > 0 && !slices.ContainsFunc(x.List, func(e ast.Expr) bool { return !q.invariant(e) }) {
				hold(q.pin(sw.Tag, x.List[0]))
			}
		}
		if len(held) == len(q.dist) {
			return path[i]
		}
	}
	return nil
}

// constApart reports whether two accesses' indices are constants that
// differ in some place (edge[0] and edge[1]): they touch other elements.
func (p *Package) constApart(x, y []ast.Expr) bool {
	for k := range min(len(x), len(y)) {
		a, b := p.Info.Types[x[k]].Value, p.Info.Types[y[k]].Value
		if a != nil && b != nil && a.Kind() == constant.Int && b.Kind() == constant.Int && !constant.Compare(a, token.EQL, b) {
			return true
		}
	}
	return false
}

// waitsAfter reports whether body calls a Wait method (a WaitGroup's, an
// errgroup's) after end, where a goroutine was started: the iteration
// waits for what it started.
func waitsAfter(body *ast.BlockStmt, end token.Pos) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok && c.Pos() > end {
			if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Wait" {
				found = true
			}
		}
		return true
	})
	return found
}

// receivesAfter reports whether the iteration waits for the goroutine that
// runs fun (started where end is) by receiving from a channel the goroutine's function literal
// sends on or closes as its last act, a channel the iteration declares
// (go func() { ...; ch <- v }() followed by x := <-ch, or a range or
// select over ch): nothing the
// goroutine does comes after what the iteration waits for. A send
// before other work (ch <- v; out[i] = ...) is not a wait for that work.
func (p *Package) receivesAfter(body *ast.BlockStmt, fun ast.Expr, end token.Pos) bool {
	lit, ok := ast.Unparen(fun).(*ast.FuncLit)
	if !ok || len(lit.Body.List) == 0 {
		return false
	}
	// chanOf is the channel variable e names when the iteration declares
	// it: a channel from outside the loop may carry another iteration's
	// goroutine's value, so a receive from it waits for no one goroutine.
	chanOf := func(e ast.Expr) types.Object {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if o := p.Info.Uses[id]; o != nil && body.Pos() <= o.Pos() && o.Pos() < body.End() {
				return o
			}
		}
		return nil
	}
	// lastAct is the channel the statement sends on or closes, if any.
	lastAct := func(st ast.Stmt) types.Object {
		switch st := st.(type) {
		case *ast.SendStmt:
			return chanOf(st.Chan)
		case *ast.ExprStmt:
			if c, ok := st.X.(*ast.CallExpr); ok && len(c.Args) == 1 {
				if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok && id.Name == "close" {
					if _, builtin := p.Info.Uses[id].(*types.Builtin); builtin {
						return chanOf(c.Args[0])
					}
				}
			}
		}
		return nil
	}
	signals := map[types.Object]bool{}
	if o := lastAct(lit.Body.List[len(lit.Body.List)-1]); o != nil {
		signals[o] = true
	}
	for _, st := range lit.Body.List {
		if d, ok := st.(*ast.DeferStmt); ok {
			if o := lastAct(&ast.ExprStmt{X: d.Call}); o != nil {
				signals[o] = true
			}
		}
	}
	if len(signals) == 0 {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false // a receive in another goroutine is not the iteration's
		}
		if n.Pos() < end {
			return n.End() > end // only what follows the start
		}
		switch x := n.(type) {
		case *ast.UnaryExpr:
			found = x.Op == token.ARROW && signals[chanOf(x.X)]
		case *ast.RangeStmt:
			found = signals[chanOf(x.X)]
		}
		return !found
	})
	return found
}

// unsafeShared names a standard library type that is not safe for
// concurrent use ("" for others): the value or a pointer to it.
func unsafeShared(t types.Type) string {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return ""
	}
	switch named.Obj().Pkg().Path() + "." + named.Obj().Name() {
	case "bytes.Buffer", "strings.Builder", "math/rand.Rand", "math/rand/v2.Rand", "bufio.Writer", "bufio.Reader",
		"bufio.Scanner", "bytes.Reader", "strings.Reader", "hash.Hash", "hash.Hash32", "hash.Hash64", "hash/maphash.Hash",
		"encoding/json.Encoder", "encoding/json.Decoder", "encoding/csv.Reader", "encoding/csv.Writer",
		"text/tabwriter.Writer", "compress/gzip.Writer", "compress/gzip.Reader", "container/list.List":
		return named.Obj().Pkg().Name() + "." + named.Obj().Name()
	}
	return ""
}

// calleeIdent is the name a call calls by: f in f(x), pkg.f(x), x.m()
// and f[T](x); nil for a call of an expression's value.
func calleeIdent(call *ast.CallExpr) *ast.Ident {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	case *ast.IndexExpr:
		return calleeIdent(&ast.CallExpr{Fun: f.X})
	case *ast.IndexListExpr:
		return calleeIdent(&ast.CallExpr{Fun: f.X})
	}
	return nil
}

// calledFunc is the function of the package a call calls by name, nil
// for others (methods, function values, other packages).
func (p *Package) calledFunc(call *ast.CallExpr) *types.Func {
	id := calleeIdent(call)
	if id == nil {
		return nil
	}
	fn, ok := p.Info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != p.Types || p.SubOf(fn) == nil {
		return nil
	}
	return fn
}

// globalWrite names a package-level variable fn writes, itself or through
// what it calls, with the chain of calls (globalWriteSSA, or writesGlobal
// where the package has no SSA form); skipGuarded as theirs.
func (p *Package) globalWrite(fn *types.Func, skipGuarded bool) (g string, chain []string, elem bool) {
	g, chain, elem, ok := p.globalWriteSSA(fn, skipGuarded)
	if !ok {
		return p.writesGlobal(fn, map[*types.Func]bool{}, 3, skipGuarded), nil, false
	}
	return g, chain, elem
}

// writesGlobal names a package-level variable fn assigns, itself or
// through the functions of the package it calls, depth levels deep ("" if
// none is seen); skipGuarded as globalWriteSSA's.
func (p *Package) writesGlobal(fn *types.Func, seen map[*types.Func]bool, depth int, skipGuarded bool) string {
	s := p.SubOf(fn)
	if s == nil || s.Decl.Body == nil || seen[fn] || depth == 0 {
		return ""
	}
	seen[fn] = true
	found := ""
	ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		if n != nil && skipGuarded && p.guardedAt(n.Pos()) {
			return false // serialised (guardedAt)
		}
		switch x := n.(type) {
		case *ast.AssignStmt, *ast.IncDecStmt:
			var lhs []ast.Expr
			if a, ok := x.(*ast.AssignStmt); ok {
				if a.Tok == token.DEFINE {
					return true
				}
				lhs = a.Lhs
			} else {
				lhs = []ast.Expr{x.(*ast.IncDecStmt).X}
			}
			for _, l := range lhs {
				root := ast.Unparen(l)
				for {
					switch r := root.(type) {
					case *ast.IndexExpr:
						root = ast.Unparen(r.X)
						continue
					case *ast.SelectorExpr:
						root = ast.Unparen(r.X)
						continue
					}
					break
				}
				if id, ok := root.(*ast.Ident); ok {
					if v, ok := p.Info.Uses[id].(*types.Var); ok && v.Parent() == p.Types.Scope() {
						found = v.Name()
					}
				}
			}
		case *ast.CallExpr:
			if g := p.calledFunc(x); g != nil {
				if w := p.writesGlobal(g, seen, depth-1, skipGuarded); w != "" {
					found = w
				}
			}
		}
		return true
	})
	return found
}

// manyToOne says why an index may send several iterations to one element:
// the loop variable only under %, / or a shift, or an index read from
// shared data (h[a[i]]++, a histogram). "" when it cannot tell.
func (p *Package) manyToOne(idx []ast.Expr, dist map[types.Object]string, outside func(types.Object) bool) string {
	for _, e := range idx {
		e = ast.Unparen(e)
		if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == token.REM || b.Op == token.QUO || b.Op == token.SHR || b.Op == token.AND) {
			if _, c, d, ok := p.affine(b.X, dist); ok {
				// (10*j)/10 is j again: a division exact for every
				// iteration sends each to an element of its own.
				if _, _, k, isConst := p.affine(b.Y, nil); b.Op == token.QUO && isConst && k != 0 && c != 0 && c%k == 0 && d%k == 0 {
					continue
				}
				return fmt.Sprintf("maps several iterations to one element (%s)", p.Text(e))
			}
		}
		// h[a[i]], h[a[i]+1]: an element read from data, shifted by a
		// constant, repeats as the data's values do.
		for {
			b, ok := e.(*ast.BinaryExpr)
			if !ok || b.Op != token.ADD && b.Op != token.SUB {
				break
			}
			if _, _, _, isConst := p.affine(b.Y, nil); isConst {
				e = ast.Unparen(b.X)
			} else if _, _, _, isConst := p.affine(b.X, nil); isConst && b.Op == token.ADD {
				e = ast.Unparen(b.Y)
			} else {
				break
			}
		}
		if ix, ok := e.(*ast.IndexExpr); ok {
			if root, _ := indexChain(ix); root != nil {
				if id, ok := root.(*ast.Ident); ok && outside(p.Info.Uses[id]) {
					return fmt.Sprintf("comes from shared data (%s), whose values may repeat", p.Text(e))
				}
			}
		}
	}
	return ""
}

// dependence says how write w and access o of one variable depend across
// iterations ("" if they do not, or it cannot tell): every dimension must
// be the same text, or affine in one distributed loop variable with equal
// coefficients and different constants (a must dependence at that
// distance), or with different coefficients whose gcd divides the
// difference of the constants (may).
func (p *Package) dependence(w, o access, info *PDO, dist map[types.Object]string) string {
	var parts []string
	carried := false
	for k := range w.idx {
		tw, to := p.Text(w.idx[k]), p.Text(o.idx[k])
		if tw == to {
			continue
		}
		v1, c1, d1, ok1 := p.affine(w.idx[k], dist)
		v2, c2, d2, ok2 := p.affine(o.idx[k], dist)
		if !ok1 || !ok2 || v1 != v2 || v1 == nil {
			return ""
		}
		name := dist[v1]
		switch {
		case c1 == c2 && c1 != 0:
			if (d2-d1)%c1 != 0 {
				return ""
			}
			d := (d1 - d2) / c1
			span, step, ok := p.loopShape(info, v1)
			if ok && (abs(d) > span || step != 0 && d%step != 0) {
				return "" // farther apart than the loop runs, or between its steps
			}
			if step > 1 {
				d /= step
			}
			parts = append(parts, fmt.Sprintf("%d iteration%s of %s apart (a must dependence)", abs(d), suffix(abs(d)), name))
			carried = true
		case c1 != c2:
			if g := gcd(abs(c1), abs(c2)); g == 0 || (d2-d1)%g != 0 {
				return ""
			}
			if lo, hi, step, ok := p.loopBounds(info, v1); ok {
				if (hi-lo)/step < exactIterations {
					// Constant bounds: look for the pair itself.
					i1, i2, found := dependentPair(c1, d1, c2, d2, lo, hi, step)
					if !found {
						return ""
					}
					parts = append(parts, fmt.Sprintf("iterations %s = %d and %s = %d touch one element (a must dependence)", name, i1, name, i2))
					carried = true
					continue
				}
				if !banerjee(c1, d1, c2, d2, lo, hi) {
					return ""
				}
			}
			parts = append(parts, fmt.Sprintf("for some iterations of %s (a may dependence: the GCD and Banerjee tests cannot rule it out)", name))
			carried = true
		default:
			return ""
		}
	}
	if !carried {
		return ""
	}
	return strings.Join(parts, ", ")
}

// affine reads e as c*v + d for one distributed loop variable v (v nil: a
// constant).
func (p *Package) affine(e ast.Expr, dist map[types.Object]string) (v types.Object, c, d int, ok bool) {
	e = ast.Unparen(e)
	if tv, has := p.Info.Types[e]; has && tv.Value != nil {
		if n, exact := constant.Int64Val(constant.ToInt(tv.Value)); exact {
			return nil, 0, int(n), true
		}
	}
	switch x := e.(type) {
	case *ast.Ident:
		if o := p.Info.Uses[x]; dist[o] != "" {
			return o, 1, 0, true
		}
	case *ast.CallExpr:
		// A conversion int64(i).
		if tv, has := p.Info.Types[x.Fun]; has && tv.IsType() && len(x.Args) == 1 {
			return p.affine(x.Args[0], dist)
		}
	case *ast.BinaryExpr:
		va, ca, da, oka := p.affine(x.X, dist)
		vb, cb, db, okb := p.affine(x.Y, dist)
		if !oka || !okb || va != nil && vb != nil && va != vb {
			return nil, 0, 0, false
		}
		v := va
		if v == nil {
			v = vb
		}
		switch x.Op {
		case token.ADD:
			return v, ca + cb, da + db, true
		case token.SUB:
			return v, ca - cb, da - db, true
		case token.MUL:
			switch {
			case va == nil:
				return v, da * cb, da * db, true
			case vb == nil:
				return v, ca * db, da * db, true
			}
		}
	}
	return nil, 0, 0, false
}

// loopShape is |hi - lo| and the step of the loop of v when they are
// constants.
func (p *Package) loopShape(info *PDO, v types.Object) (span, step int, ok bool) {
	lo, hi, step, ok := p.loopBounds(info, v)
	return hi - lo, step, ok
}

// exactIterations bounds the loops whose dependences are decided by
// looking for the pair of iterations itself.
const exactIterations = 1 << 16

// loopBounds are the first and last values and the step (> 0, lo <= hi)
// of the loop of v when they are constants.
func (p *Package) loopBounds(info *PDO, v types.Object) (lo, hi, step int, ok bool) {
	for _, l := range info.Loops {
		if l.Obj != v {
			continue
		}
		lo, ok1 := p.evalInt(l.Lo, l.Stmt.Pos())
		hi, ok2 := p.evalInt(l.Hi, l.Stmt.Pos())
		st, ok3 := p.evalInt(l.Step, l.Stmt.Pos())
		if !ok1 || !ok2 || !ok3 || st == 0 || (hi-lo)/st < 0 {
			return 0, 0, 0, false
		}
		if st < 0 { // count down: the same set of values
			lo, hi, st = lo+(hi-lo)/st*st, lo, -st
			lo, hi = min(lo, hi), max(lo, hi)
		}
		return lo, hi, st, true
	}
	return 0, 0, 0, false
}

// dependentPair finds two different iterations i1 != i2 of the loop lo,
// lo+step, ..., hi with c1*i1 + d1 == c2*i2 + d2: the write of one and
// the access of the other touch one element.
func dependentPair(c1, d1, c2, d2, lo, hi, step int) (int, int, bool) {
	in := func(i int) bool { return lo <= i && i <= hi && (i-lo)%step == 0 }
	for i1 := lo; i1 <= hi; i1 += step {
		num := c1*i1 + d1 - d2
		if c2 == 0 {
			if num == 0 && hi-lo >= step { // every other iteration touches what i1 writes
				i2 := i1 + step
				if i2 > hi {
					i2 = i1 - step
				}
				return i1, i2, true
			}
			continue
		}
		if num%c2 == 0 {
			if i2 := num / c2; i2 != i1 && in(i2) {
				return i1, i2, true
			}
		}
	}
	return 0, 0, false
}

// banerjee reports whether c1*i1 + d1 == c2*i2 + d2 may hold for some
// i1, i2 in [lo, hi] (Banerjee's inequalities): the difference must lie
// between the least and the greatest value of c1*i1 - c2*i2.
func banerjee(c1, d1, c2, d2, lo, hi int) bool {
	fmin := min(c1*lo, c1*hi) + min(-c2*lo, -c2*hi)
	fmax := max(c1*lo, c1*hi) + max(-c2*lo, -c2*hi)
	return fmin <= d2-d1 && d2-d1 <= fmax
}

// evalInt evaluates src, Go source text, as an integer constant.
func (p *Package) evalInt(src string, pos token.Pos) (int, bool) {
	tv, err := types.Eval(p.Fset, p.Types, pos, src)
	if err != nil || tv.Value == nil {
		return 0, false
	}
	n, exact := constant.Int64Val(constant.ToInt(tv.Value))
	return int(n), exact
}

// rankDependent warns about a barrier directive inside a branch on the
// processor number: the processors that do not take the branch never
// arrive (PARCOACH's rank-dependent control flow).
func (p *Package) rankDependent(c *Construct, what string) {
	if c.Dir.File == nil {
		return
	}
	path, _ := astutil.PathEnclosingInterval(c.Dir.File.Syntax, c.ListPos, c.ListPos)
	if cond := p.rankCondition(path); cond != nil {
		p.warnf(c.Pos(), "%s inside a branch on the processor number (%s, line %d): the processors that do not take the branch never reach it, and the others wait for ever; move it out of the branch", what, p.Text(cond), p.Fset.Position(cond.Pos()).Line)
	}
}

// rankDependentCalls warns about rtlib.Barrier and the collectives called
// in a branch on the processor number.
func (p *Package) rankDependentCalls() {
	collectives := map[string]bool{"Barrier": true, "Bcast": true, "Reduce": true, "Allreduce": true, "Gather": true,
		"Scatter": true, "Allgather": true, "Alltoall": true}
	for _, f := range p.Files {
		ast.Inspect(f.Syntax, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			_, fn := p.messageCall(call)
			if !collectives[fn] {
				return true
			}
			path, _ := astutil.PathEnclosingInterval(f.Syntax, call.Pos(), call.Pos())
			if cond := p.rankCondition(path); cond != nil {
				p.warnf(call.Pos(), "rtlib.%s inside a branch on the processor number (%s, line %d): a collective must be called by every processor of the set; the others never arrive", fn, p.Text(cond), p.Fset.Position(cond.Pos()).Line)
			}
			return true
		})
	}
}

// rankCondition is the condition of the innermost if or switch on the path
// that calls rtlib.ProcessorID, nil if none (function literals end the
// search: they may run elsewhere).
func (p *Package) rankCondition(path []ast.Node) ast.Expr {
	for i, n := range path {
		var cond ast.Expr
		switch x := n.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return nil
		case *ast.IfStmt:
			// Only the branches depend on the condition, not the if's init.
			if i > 0 && (path[i-1] == x.Body || path[i-1] == x.Else) {
				cond = x.Cond
			}
		case *ast.SwitchStmt:
			cond = x.Tag
		}
		if cond != nil && p.callsProcessorID(cond) {
			return cond
		}
	}
	return nil
}

func (p *Package) callsProcessorID(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if fn, ok := p.Info.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == RuntimePath && fn.Name() == "ProcessorID" {
				found = true
			}
		}
		return !found
	})
	return found
}

// indexChain returns the root of a[i][j] and its indices, outermost
// dimension first.
func indexChain(x *ast.IndexExpr) (ast.Expr, []ast.Expr) {
	var idx []ast.Expr
	var e ast.Expr = x
	for {
		ix, ok := ast.Unparen(e).(*ast.IndexExpr)
		if !ok {
			break
		}
		idx = append([]ast.Expr{ix.Index}, idx...)
		e = ix.X
	}
	return ast.Unparen(e), idx
}

// suffix is "s" unless n is 1.
func suffix(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
