package compiler

import (
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
}

func noCheck(*Package, *Construct)                {}
func noInfo(*Construct, *progdb.Directive)        {}
func infoLabel(c *Construct, d *progdb.Directive) { d.Label = c.Dir.Label() }

func (p *Package) checkTraceRegion(c *Construct) {
	p.checkJumps(c, c.bodyStmts(), "trace_region", true)
}

// checkNoEffect warns about a directive of the SVM run-time support that
// svmc accepts and numbers but cannot act on: Go has no shared virtual
// memory layer whose coherence or prefetching it would steer. Each use
// gets a warning, so it is never a silent no-op.
func (p *Package) checkNoEffect(c *Construct) {
	p.warnf(c.Pos(), "%s has no effect: Go has no shared virtual memory layer to steer; the directive is recorded in the program information file only", c.Kind())
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
		if _, ok := p.lookup(c.Pos(), v.Name).(*types.Var); !ok {
			p.errorf(posOf(p, v.Pos), "coherence: %s is not a variable in scope", v.Name)
		}
	}
	p.checkNoEffect(c)
}

// checkPrefetch type-checks the references of a prefetch directive.
func (p *Package) checkPrefetch(c *Construct) {
	for _, r := range c.Dir.Prefetch.Refs {
		p.exprType(c, r, c.Pos())
	}
	p.checkNoEffect(c)
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
			p.errorf(posOf(p, v.Pos), "shared: %s is not a variable in scope", v.Name)
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
