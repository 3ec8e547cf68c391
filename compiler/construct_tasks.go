package compiler

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/svmc/svmc/directives"
)

// checkPSection checks that a psection is followed by a block of sections:
// each statement of the block follows a section directive.
func (p *Package) checkPSection(c *Construct) {
	blk, ok := c.Stmt.(*ast.BlockStmt)
	if !ok {
		p.errorf(c.Pos(), "psection must be followed by a block { //svm:section ... } holding its sections")
		return
	}
	claimed := map[ast.Stmt]bool{}
	for _, o := range c.Sub.Constructs {
		if o.Kind() != directives.Section || o.ListPos != blk.Lbrace {
			continue
		}
		o.Owner = c
		if o.Index >= len(o.List) {
			continue // reported: a section needs its statement
		}
		o.Stmt = o.List[o.Index] // sections are checked after their psection
		c.Sections = append(c.Sections, o)
		claimed[o.Stmt] = true
		p.checkJumps(o, []ast.Stmt{o.Stmt}, "section", false)
	}
	if len(c.Sections) == 0 {
		p.errorf(c.Pos(), "psection has no sections: put //svm:section before each statement of its block")
	}
	for _, st := range blk.List {
		if !claimed[st] {
			p.errorf(st.Pos(), "this statement of the psection block at line %d belongs to no section: put //svm:section before it", p.Fset.Position(c.Pos()).Line)
		}
	}
}

// checkSections reports sections that no psection claimed. It runs after
// every construct of the subprogram was checked.
func (p *Package) checkSections(s *Sub) {
	for _, c := range s.Constructs {
		if c.Kind() == directives.Section && c.Owner == nil {
			p.errorf(c.Pos(), "section outside a psection: sections stand directly in the block that follows //svm:psection")
		}
		if c.Kind() == directives.Section && c.Dir.Section != nil && c.Dir.Section.Processors != nil {
			p.resolveProcs(c, *c.Dir.Section.Processors)
			p.checkProcsPart(c, c.Dir.Section.Processors, c.Dir.Section.Part)
			if c.Dir.Section.Part == nil {
				p.warnShiftedProcs(c, c.Dir.Section.Processors)
			}
		}
	}
}

// checkClosureRegion checks a replicated or exclusive region, whose
// statements run as a closure: they may not leave it, and what they declare
// is not visible after it.
func (p *Package) checkClosureRegion(c *Construct) {
	what := c.Kind().String()
	p.checkJumps(c, c.bodyStmts(), what, false)
	if c.End == nil {
		return
	}
	line := p.Fset.Position(c.Pos()).Line
	for _, obj := range topLevelDefs(p.Info, c.Body) {
		for id, used := range p.Info.Uses {
			if used == obj && id.Pos() > c.End.Pos() && id.Pos() < c.Sub.Decl.End() {
				p.errorf(id.Pos(), "%s is declared in the %s region at line %d and used after it: the region runs as a closure on the processors of the APS; declare %s before the region",
					obj.Name(), what, line, obj.Name())
			}
		}
	}
}

// topLevelDefs are the objects declared by the statements themselves (not
// by blocks nested in them).
func topLevelDefs(info *types.Info, stmts []ast.Stmt) []types.Object {
	var out []types.Object
	add := func(id *ast.Ident) {
		if obj := info.Defs[id]; obj != nil {
			out = append(out, obj)
		}
	}
	for _, st := range stmts {
		switch s := st.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				for _, e := range s.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := s.Decl.(*ast.GenDecl); ok {
				for _, spec := range gd.Specs {
					switch sp := spec.(type) {
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							add(id)
						}
					case *ast.TypeSpec:
						add(sp.Name)
					}
				}
			}
		}
	}
	return out
}

// checkDynamic checks the clauses of a pdo with a dynamic strategy.
func (p *Package) checkDynamic(c *Construct, info *PDO) {
	d := c.Dir.PDO
	if st := d.Strategy; st.Chunk != nil {
		p.checkExpr(c, st.Chunk, c.Pos(), posInt)
	}
	if d.Processors != nil {
		p.errorf(posOf(p, d.Processors.Pos), "a dynamic strategy schedules over the active processors; drop processors(%s)", d.Processors.Name)
	}
	if d.Template != nil {
		if rank := p.resolveTemplate(c, *d.Template); rank > 0 && rank != len(info.Loops) {
			p.errorf(posOf(p, d.Template.Pos), "template(%s) records the schedule of %s, but %s has %s", d.Template.Name, plural(len(info.Loops), "loop"), d.Template.Name, plural(rank, "dimension"))
		}
	}
}

// checkProcsPart checks a section of an arrangement, processors(P(2:3)): a
// subscript per dimension of P (when its processors directive is in the
// function), each an integer index, a lo:hi range not empty, or ':'.
func (p *Package) checkProcsPart(c *Construct, n *directives.Name, part []directives.Dim) {
	if part == nil {
		return
	}
	if rank := p.procsRank(c, n.Name); rank > 0 && rank != len(part) {
		p.errorf(posOf(p, part[0].Pos), "section: %s has %d dimensions: a section of it needs a subscript for each, this one has %d", n.Name, rank, len(part))
	}
	for _, d := range part {
		switch {
		case d.Colon:
		case d.Size != nil:
			p.checkExpr(c, d.Size, c.Pos(), intType)
		default:
			p.checkDim(c, d)
		}
	}
}

// warnShiftedProcs warns about section processors(Q) where Q is declared
// with a constant lower bound above 0 (processors Q(2:3)): the bounds name
// Q's elements, which are on the first processors all the same, so the
// section does not run where its numbers suggest.
func (p *Package) warnShiftedProcs(c *Construct, n *directives.Name) {
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			break
		}
		if o.Kind() != directives.Processors || o.Dir.Processors.Name.Name != n.Name || len(o.Dir.Processors.Dims) != 1 {
			continue
		}
		d := o.Dir.Processors.Dims[0]
		if d.Lo == nil {
			continue
		}
		lo, ok1 := p.constInt(o, d.Lo)
		hi, ok2 := p.constInt(o, d.Hi)
		if ok1 && ok2 && lo > 0 && hi >= lo {
			p.warnf(posOf(p, n.Pos), "section processors(%s): %s(%d:%d) has %d elements on processors 0..%d; its bounds name the elements, they do not choose processors: to run the section on processors %d..%d, take a section of an arrangement of all of them, processors(P(%d:%d))",
				n.Name, n.Name, lo, hi, hi-lo+1, hi-lo, lo, hi, lo, hi)
		}
	}
}
