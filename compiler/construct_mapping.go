package compiler

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/types"
	"strings"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/internal/suggest"
	"github.com/svmc/svmc/progdb"
)

// declares resolves the name a processors or template directive declares:
// an existing variable of the runtime's type is assigned, otherwise the
// directive declares a new variable.
func (p *Package) declares(c *Construct, n directives.Name, typeName string, kind directives.Kind) bool {
	for _, o := range c.Sub.Constructs {
		if o == c {
			break
		}
		if o.Kind() == kind && declName(o) == n.Name {
			p.errorf(posOf(p, n.Pos), "%s %s is declared twice (first at line %d); give the second another name", kind, n.Name, p.Fset.Position(o.Pos()).Line)
			return false
		}
	}
	obj := p.lookup(c.Pos(), n.Name)
	if obj == nil {
		return true
	}
	v, ok := obj.(*types.Var)
	if !ok || !isRuntimeType(v.Type(), typeName) {
		p.errorf(posOf(p, n.Pos), "%s %s: %s is already declared as %s; a %s variable has type *rtlib.%s (rename one of them)", kind, n.Name, n.Name, p.describe(obj), kind, typeName)
		return false
	}
	return false
}

func declName(c *Construct) string {
	switch c.Kind() {
	case directives.Processors:
		return c.Dir.Processors.Name.Name
	case directives.Template:
		return c.Dir.Template.Name.Name
	}
	return ""
}

// templateDecl returns the template directive of the subprogram that
// declares name before c, or nil.
func (p *Package) templateDecl(c *Construct, name string) *Construct {
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			break
		}
		if o.Kind() == directives.Template && o.Dir.Template.Name.Name == name {
			return o
		}
	}
	return nil
}

// resolveTemplate checks that name is a template and returns its rank when
// it is known statically (0 otherwise).
func (p *Package) resolveTemplate(c *Construct, n directives.Name) int {
	if tc := p.templateDecl(c, n.Name); tc != nil {
		return len(tc.Dir.Template.Dims)
	}
	if v, ok := p.lookup(c.Pos(), n.Name).(*types.Var); ok && isRuntimeType(v.Type(), "Template") {
		return 0
	}
	p.errorf(posOf(p, n.Pos), "unknown template %s%s", n.Name, p.suggest(c, n.Name, directives.Template, "*rtlib.Template"))
	return 0
}

func (p *Package) resolveProcs(c *Construct, n directives.Name) {
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			break
		}
		if o.Kind() == directives.Processors && o.Dir.Processors.Name.Name == n.Name {
			return
		}
	}
	if v, ok := p.lookup(c.Pos(), n.Name).(*types.Var); ok && isRuntimeType(v.Type(), "Procs") {
		return
	}
	p.errorf(posOf(p, n.Pos), "unknown processor arrangement %s%s", n.Name, p.suggest(c, n.Name, directives.Processors, "*rtlib.Procs"))
}

// procsRank is the rank of a processors directive of the subprogram, or 0.
func (p *Package) procsRank(c *Construct, name string) int {
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			break
		}
		if o.Kind() == directives.Processors && o.Dir.Processors.Name.Name == name {
			return len(o.Dir.Processors.Dims)
		}
	}
	return 0
}

// suggest says what to do about an unknown template or arrangement name: the
// closest name declared in the subprogram before c, or how to declare one.
func (p *Package) suggest(c *Construct, name string, kind directives.Kind, typ string) string {
	var earlier []string
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			if o.Kind() == kind && declName(o) == name {
				return fmt.Sprintf(": its %s directive is at line %d, after this one; declare it before its use", kind, p.Fset.Position(o.Pos()).Line)
			}
			continue
		}
		if o.Kind() == kind {
			earlier = append(earlier, declName(o))
		}
	}
	if dym := suggest.DidYouMean(name, earlier, false); dym != "" {
		return dym
	}
	return fmt.Sprintf(": no %s directive declares it earlier in this function, and no variable %s of type %s is in scope", kind, name, typ)
}

// checkDim checks a dimension (e: a positive extent; lo:hi: integers, hi
// not below lo when both are constant) and returns its constant size, or
// -1 when it is not constant.
func (p *Package) checkDim(c *Construct, d directives.Dim) int64 {
	if d.Size != nil {
		if p.checkExpr(c, d.Size, c.Pos(), posInt) != nil {
			if n, ok := p.constInt(c, d.Size); ok {
				return n
			}
		}
		return -1
	}
	if d.Lo == nil || d.Hi == nil {
		return -1
	}
	if p.checkExpr(c, d.Lo, c.Pos(), intType) == nil || p.checkExpr(c, d.Hi, c.Pos(), intType) == nil {
		return -1
	}
	lo, okLo := p.constInt(c, d.Lo)
	hi, okHi := p.constInt(c, d.Hi)
	if !okLo || !okHi {
		return -1
	}
	if hi < lo {
		p.errorf(posOf(p, d.Pos), "%s: the dimension %s:%s is empty (its upper bound is below its lower bound)", c.Kind(), d.Lo.Text, d.Hi.Text)
		return -1
	}
	return hi - lo + 1
}

// constInt is the value of a directive expression (one checkExpr accepted)
// when it is a constant in the directive's scope, and whether it is one.
func (p *Package) constInt(c *Construct, e *directives.Expr) (int64, bool) {
	if strings.Contains(e.Text, "nprocs") {
		return 0, false
	}
	x, err := parser.ParseExpr(e.Text)
	if err != nil {
		return 0, false
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if types.CheckExpr(p.Fset, p.Types, c.Pos(), x, info) != nil || info.Types[x].Value == nil {
		return 0, false
	}
	return constant.Int64Val(constant.ToInt(info.Types[x].Value))
}

// maxArrangement bounds the elements of a processor arrangement whose
// shape is constant: the runtime keeps the processor of each element.
const maxArrangement = 1 << 20

func (p *Package) checkFormat(c *Construct, f directives.Format) {
	if f.Arg == nil {
		return
	}
	switch f.Kind {
	case directives.Cyclic:
		p.checkExpr(c, f.Arg, c.Pos(), posInt)
	case directives.GeneralBlock, directives.Indirect:
		p.checkExpr(c, f.Arg, c.Pos(), intSlice)
	}
}

// ---- data mapping: processors, template, distribute, redistribute,
// create, destroy, undef

func (p *Package) checkProcessors(c *Construct) {
	d := c.Dir.Processors
	c.Declares = p.declares(c, d.Name, "Procs", directives.Processors)
	size := int64(1)
	for _, dim := range d.Dims {
		if n := p.checkDim(c, dim); n > 0 && size > 0 && size <= maxArrangement {
			size *= n
		} else {
			size = -1
		}
	}
	if size > maxArrangement {
		p.errorf(c.Pos(), "processors %s has %d elements; an arrangement has at most %d", d.Name.Name, size, maxArrangement)
	}
}

func (p *Package) checkTemplate(c *Construct) {
	d := c.Dir.Template
	c.Declares = p.declares(c, d.Name, "Template", directives.Template)
	for _, dim := range d.Dims {
		p.checkDim(c, dim)
	}
}

func (p *Package) checkDistribute(c *Construct) {
	kind, dd := c.Kind(), c.Dir.Distribute
	if dd.Onto != nil {
		p.resolveProcs(c, *dd.Onto)
	}
	if dd.With != nil {
		p.resolveTemplate(c, *dd.With)
	}
	countsOK := true
	for _, t := range dd.Templates {
		if rank := p.resolveTemplate(c, t); rank > 0 && dd.With == nil && len(dd.Formats) != rank {
			p.errorf(c.Pos(), "%s: template %s has %s, but %s given: give one format per dimension (* for one that is not distributed)",
				kind, t.Name, plural(rank, "dimension"), plural(len(dd.Formats), "format"))
			countsOK = false
		}
	}
	for _, f := range dd.Formats {
		p.checkFormat(c, f)
	}
	if dd.Onto == nil {
		return
	}
	if prank := p.procsRank(c, dd.Onto.Name); prank > 0 {
		n := 0
		for _, f := range dd.Formats {
			if f.Kind != directives.Star {
				n++
			}
		}
		if dd.With == nil && countsOK && n != prank {
			p.errorf(c.Pos(), "%s: %s distributed (not *) onto %s, which has %s: distribute as many dimensions as the arrangement has",
				kind, plural(n, "dimension"), dd.Onto.Name, plural(prank, "dimension"))
		}
	}
}

func (p *Package) checkCreate(c *Construct) {
	d := c.Dir.Create
	if rank := p.resolveTemplate(c, d.Name); rank > 0 && rank != len(d.Dims) {
		p.errorf(c.Pos(), "create %s: the template has %s, but %s given", d.Name.Name, plural(rank, "dimension"), plural(len(d.Dims), "extent"))
	}
	if tc := p.templateDecl(c, d.Name.Name); tc != nil && !tc.Dir.Template.Creatable {
		colons := strings.Repeat(":, ", len(tc.Dir.Template.Dims))
		p.errorf(c.Pos(), "create %s: %s is not a creatable template (its shape is fixed at line %d); declare it as template %s(%s) to give its shape at create",
			d.Name.Name, d.Name.Name, p.Fset.Position(tc.Pos()).Line, d.Name.Name, colons[:len(colons)-2])
	}
	for _, dim := range d.Dims {
		p.checkDim(c, dim)
	}
}

// checkTemplateName checks the template of destroy and undef.
func (p *Package) checkTemplateName(c *Construct) { p.resolveTemplate(c, *c.Dir.Name) }

func infoProcessors(c *Construct, d *progdb.Directive) { d.Procs = c.Dir.Processors.Name.Name }
func infoTemplate(c *Construct, d *progdb.Directive)   { d.Template = c.Dir.Template.Name.Name }
func infoCreate(c *Construct, d *progdb.Directive)     { d.Template = c.Dir.Create.Name.Name }
func infoTemplateName(c *Construct, d *progdb.Directive) {
	d.Template = c.Dir.Name.Name
}

func infoDistribute(c *Construct, d *progdb.Directive) {
	dd := c.Dir.Distribute
	for _, t := range dd.Templates {
		d.Templates = append(d.Templates, t.Name)
	}
	if len(d.Templates) > 0 {
		d.Template = d.Templates[0]
	}
	if dd.Onto != nil {
		d.Procs = dd.Onto.Name
	}
	if dd.With != nil {
		d.With = dd.With.Name
	}
	for _, f := range dd.Formats {
		d.Formats = append(d.Formats, f.String())
	}
}
