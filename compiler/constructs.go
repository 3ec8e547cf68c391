package compiler

import (
	"go/types"

	"github.com/svmc/svmc/directives"
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
	directives.Coherence:       {(*Package).checkNoEffect, noInfo},
	directives.Prefetch:        {(*Package).checkNoEffect, noInfo},
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

// checkShared numbers the variables of a shared directive.
func (p *Package) checkShared(c *Construct) {
	for _, v := range c.Dir.Shared.Vars {
		obj, ok := p.lookup(c.Pos(), v.Name).(*types.Var)
		if !ok {
			p.errorf(posOf(p, v.Pos), "shared: %s is not a variable in scope", v.Name)
			continue
		}
		c.Sub.Shared = append(c.Sub.Shared, &SharedVar{Num: len(c.Sub.Shared) + 1, Name: v.Name, Obj: obj, Construct: c})
	}
}
