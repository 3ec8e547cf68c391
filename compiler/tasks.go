package compiler

import (
	"go/ast"
	"go/parser"
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

// checkLock checks that every variable of a lock directive is addressable.
func (p *Package) checkLock(c *Construct) {
	p.checkJumps(c, c.bodyStmts(), "lock", false)
	for _, v := range c.Dir.Lock.Vars {
		tv, ok := p.exprType(c, v, c.Pos())
		if ok && !tv.Addressable() {
			p.errorf(posOf(p, v.Pos), "lock(%s): %s is not a variable or an element of one; a lock guards an addressable variable", v.Text, v.Text)
		}
	}
}

// checkAtomic checks that an atomic directive stands before an update of a
// numeric variable: x op= e, x++ or x--.
func (p *Package) checkAtomic(c *Construct) {
	var lhs ast.Expr
	integerOnly := false
	switch st := c.Stmt.(type) {
	case *ast.IncDecStmt:
		lhs = st.X
	case *ast.AssignStmt:
		switch st.Tok {
		case token.ADD_ASSIGN, token.SUB_ASSIGN, token.MUL_ASSIGN, token.QUO_ASSIGN:
		case token.AND_ASSIGN, token.OR_ASSIGN, token.XOR_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN, token.REM_ASSIGN, token.AND_NOT_ASSIGN:
			integerOnly = true
		default:
			p.errorf(c.Pos(), "atomic must be followed by an update x op= e, x++ or x--; found an assignment with %s", st.Tok)
			return
		}
		if len(st.Lhs) != 1 || len(st.Rhs) != 1 {
			p.errorf(c.Pos(), "atomic updates one variable; the statement after it assigns %d", len(st.Lhs))
			return
		}
		lhs = st.Lhs[0]
	default:
		p.errorf(c.Pos(), "atomic must be followed by an update x op= e, x++ or x--; found %s", stmtKind(c.Stmt))
		return
	}
	tv, ok := p.Info.Types[lhs]
	if !ok {
		return
	}
	if !tv.Addressable() {
		p.errorf(lhs.Pos(), "atomic: %s is not an addressable variable", p.Text(lhs))
		return
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsNumeric == 0 || b.Info()&types.IsComplex != 0 || integerOnly && b.Info()&types.IsInteger == 0 {
		want := "a number"
		if integerOnly {
			want = "an integer"
		}
		p.errorf(lhs.Pos(), "atomic: %s has type %s; this update needs %s", p.Text(lhs), tv.Type, want)
	}
}

// checkDynamic checks the clauses of a pdo with a dynamic strategy.
func (p *Package) checkDynamic(c *Construct, info *PDO) {
	d := c.Dir.PDO
	if st := d.Strategy; st.Chunk != nil {
		p.checkExpr(c, st.Chunk, c.Pos(), intType)
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

// exprType type-checks a directive expression in the scope at pos.
func (p *Package) exprType(c *Construct, e *directives.Expr, pos token.Pos) (types.TypeAndValue, bool) {
	src := ExprCode(e, "int(1)")
	x, err := parser.ParseExprFrom(p.Fset, "", src, 0)
	if err != nil {
		p.errorf(posOf(p, e.Pos), "%s: %v", c.Kind(), err)
		return types.TypeAndValue{}, false
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if err := types.CheckExpr(p.Fset, p.Types, pos, x, info); err != nil {
		msg := err.Error()
		if te, ok := err.(types.Error); ok {
			msg = te.Msg
		}
		p.errorf(posOf(p, e.Pos), "%s: %s", c.Kind(), msg)
		return types.TypeAndValue{}, false
	}
	return info.Types[x], true
}
