package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/internal/suggest"
	"github.com/svmc/svmc/progdb"
)

// handler is what the compiler does with one directive kind: check checks
// the construct (its arguments, the statement it applies to, the names it
// uses) and info writes the kind's own fields of its program information
// (the fields every kind has come from directives.Table). TestHandlers fails,
// naming the kind, when a kind of directives.Table has no handler here.
type handler struct {
	check func(p *Package, c *Construct)
	info  func(c *Construct, d *progdb.Directive)
}

// handlers is the compiler's half of the construct registry: one entry per
// directive kind. The checks live with their constructs (construct_*.go).
var handlers = map[directives.Kind]handler{
	directives.Processors:      {(*Package).checkProcessors, infoProcessors},
	directives.Template:        {(*Package).checkTemplate, infoTemplate},
	directives.Distribute:      {(*Package).checkDistribute, infoDistribute},
	directives.Redistribute:    {(*Package).checkDistribute, infoDistribute},
	directives.Create:          {(*Package).checkCreate, infoCreate},
	directives.Destroy:         {(*Package).checkTemplateName, infoTemplateName},
	directives.Undef:           {(*Package).checkTemplateName, infoTemplateName},
	directives.PDO:             {(*Package).checkPDO, infoPDO},
	directives.PSection:        {(*Package).checkPSection, noInfo},
	directives.Section:         {noCheck, noInfo}, // checked by its psection and by checkSections
	directives.Barrier:         {noCheck, noInfo},
	directives.BarrierCheckin:  {noCheck, noInfo},
	directives.BarrierCheckout: {noCheck, noInfo},
	directives.Critical:        {(*Package).checkCritical, infoLabel},
	directives.Lock:            {(*Package).checkLock, noInfo},
	directives.Atomic:          {(*Package).checkAtomic, noInfo},
	directives.Replicated:      {(*Package).checkClosureRegion, noInfo},
	directives.Exclusive:       {(*Package).checkClosureRegion, noInfo},
	directives.TraceRegion:     {(*Package).checkTraceRegion, infoLabel},
	directives.End:             {noCheck, noInfo}, // paired by pairEnds
	directives.Shared:          {(*Package).checkShared, noInfo},
	directives.Coherence:       {(*Package).checkCoherence, noInfo},
	directives.Prefetch:        {(*Package).checkPrefetch, noInfo},
	directives.Ignore:          {noCheck, noInfo}, // applied by RacesPass (suppress)
}

func noCheck(*Package, *Construct)                {}
func noInfo(*Construct, *progdb.Directive)        {}
func infoLabel(c *Construct, d *progdb.Directive) { d.Label = c.Dir.Label() }

func (p *Package) checkTraceRegion(c *Construct) {
	p.checkJumps(c, c.bodyStmts(), "trace_region", true)
}

// CoherenceStrategies are the strategies coherence(...) names: Li's
// write-invalidate protocol (one writer, many readers; the default) and
// multiple writers whose changes are merged at synchronisation (tolerates
// false sharing).
var CoherenceStrategies = []string{"invalidate", "multiple_writers"}

func (p *Package) checkCoherence(c *Construct) {
	d := c.Dir.Coherence
	if !slices.Contains(CoherenceStrategies, strings.ToLower(d.Strategy.Name)) {
		p.errorf(posOf(p, d.Strategy.Pos), "coherence(%s): unknown coherence strategy%s (the strategies are %s)",
			d.Strategy.Name, suggest.DidYouMean(strings.ToLower(d.Strategy.Name), CoherenceStrategies, false), strings.Join(CoherenceStrategies, ", "))
	}
	for _, v := range d.Vars {
		obj, ok := p.lookup(c.Pos(), v.Name).(*types.Var)
		switch {
		case !ok:
			p.errorf(posOf(p, v.Pos), "%s", p.notInScope(c.Pos(), "coherence", v.Name))
			obj = nil
		case !storageType(obj.Type()):
			p.errorf(posOf(p, v.Pos), "coherence: %s has type %s, not a slice or array: the strategy applies to the pages of a shared slice or array",
				v.Name, p.typeString(obj.Type()))
			obj = nil
		case !sharedIn(c.Sub, v.Name):
			p.warnf(posOf(p, v.Pos), "coherence: %s is not named in a shared directive of %s: its pages get the strategy, but its accesses are not checked, so no faults are counted", v.Name, c.Sub.Name)
		}
		c.Vars = append(c.Vars, obj)
	}
}

// checkPrefetch type-checks the references of a prefetch directive: each
// names a shared slice or array, whole or a part (a[lo:hi]).
func (p *Package) checkPrefetch(c *Construct) {
	for _, r := range c.Dir.Prefetch.Refs {
		tv, ok := p.exprType(c, r, c.Pos())
		if !ok {
			c.RefTypes = append(c.RefTypes, nil)
			continue
		}
		if !storageType(tv.Type) {
			p.errorf(posOf(p, r.Pos), "prefetch: %s has type %s, not a slice or array (prefetch a, or a part of it as a[lo:hi])", r.Text, p.typeString(tv.Type))
			c.RefTypes = append(c.RefTypes, nil)
			continue
		}
		c.RefTypes = append(c.RefTypes, tv.Type)
		if root := refRoot(r); root != "" && !sharedIn(c.Sub, root) {
			p.warnf(posOf(p, r.Pos), "prefetch: %s is not named in a shared directive of %s: its pages are not in the shared virtual memory layer, so nothing is prefetched", root, c.Sub.Name)
		}
	}
}

// refRoot is the variable a prefetch reference starts from (a in a,
// a[lo:hi], (a)[i:]), "" if it does not start from a name.
func refRoot(r *directives.Expr) string {
	x := r.X
	for x != nil {
		switch e := ast.Unparen(x).(type) {
		case *ast.Ident:
			return e.Name
		case *ast.SliceExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		default:
			return ""
		}
	}
	return ""
}

// storageType reports whether t is a slice, an array or a pointer to an
// array: storage the SVM layer keeps in pages.
func storageType(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Slice, *types.Array:
		return true
	case *types.Pointer:
		_, ok := u.Elem().Underlying().(*types.Array)
		return ok
	}
	return false
}

// sharedIn reports whether a shared directive of s names name.
func sharedIn(s *Sub, name string) bool {
	for _, c := range s.Constructs {
		if c.Kind() == directives.Shared {
			for _, v := range c.Dir.Shared.Vars {
				if v.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// checkLabels rejects a pdo label used twice in a subprogram: request
// files name a loop by its label.
func (p *Package) checkLabels(s *Sub) {
	first := map[string]*Construct{}
	for _, c := range s.Constructs {
		if c.Kind() != directives.PDO || c.Dir.PDO.Label == nil {
			continue
		}
		l := c.Dir.PDO.Label
		if f := first[l.Name]; f != nil {
			p.errorf(posOf(p, l.Pos), "pdo label(%s) is used twice in %s (first at line %d): request files name a loop by its label; give each loop its own",
				l.Name, s.Name, p.Fset.Position(f.Pos()).Line)
			continue
		}
		first[l.Name] = c
	}
}

// checkLifeCycle warns about a creatable template created again, or
// destroyed again, in the same statement list with no destroy (or create)
// between: the first shape is lost, or the second destroy has nothing to
// destroy.
func (p *Package) checkLifeCycle(s *Sub) {
	type key struct {
		list token.Pos
		name string
	}
	last := map[key]*Construct{}
	for _, c := range s.Constructs {
		var name string
		switch c.Kind() {
		case directives.Create:
			name = c.Dir.Create.Name.Name
		case directives.Destroy:
			name = c.Dir.Name.Name
		default:
			continue
		}
		k := key{c.ListPos, name}
		if prev := last[k]; prev != nil && prev.Kind() == c.Kind() {
			what := "created again without a destroy since its create"
			if c.Kind() == directives.Destroy {
				what = "destroyed again without a create since its destroy"
			}
			p.warnf(c.Pos(), "template %s is %s at line %d", name, what, p.Fset.Position(prev.Pos()).Line)
		}
		last[k] = c
	}
}

// checkShared numbers the variables of a shared directive.
func (p *Package) checkShared(c *Construct) {
	for _, v := range c.Dir.Shared.Vars {
		obj, ok := p.lookup(c.Pos(), v.Name).(*types.Var)
		if !ok {
			p.errorf(posOf(p, v.Pos), "%s", p.notInScope(c.Pos(), "shared", v.Name))
			continue
		}
		switch u := obj.Type().Underlying().(type) {
		case *types.Slice, *types.Array:
		case *types.Pointer:
			if _, ok := u.Elem().Underlying().(*types.Array); ok {
				break // new([64][64]float64): a[:] is its storage
			}
			p.errorf(posOf(p, v.Pos), "shared: %s has type %s, not a slice or array: the shared virtual memory layer keeps the storage of slices and arrays in pages (share the slice or array that holds the data)",
				v.Name, p.typeString(obj.Type()))
			continue
		default:
			// The SVM layer keeps storage in pages: a slice's backing
			// array or an array.
			p.errorf(posOf(p, v.Pos), "shared: %s has type %s, not a slice or array: the shared virtual memory layer keeps the storage of slices and arrays in pages (share the slice or array that holds the data)",
				v.Name, p.typeString(obj.Type()))
			continue
		}
		c.Sub.Shared = append(c.Sub.Shared, &SharedVar{Num: len(c.Sub.Shared) + 1, Name: v.Name, Obj: obj, Construct: c})
	}
}
