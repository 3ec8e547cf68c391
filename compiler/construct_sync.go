package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
)

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

func (p *Package) checkCritical(c *Construct) {
	p.checkJumps(c, c.bodyStmts(), "critical section", false)
}
