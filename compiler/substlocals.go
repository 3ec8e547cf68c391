package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A pdo body often names an index through a local: row := y * w;
// img[row+x] = …, or k := i; out[k] = …. The dependence tests reason
// about the index expression, so a local stands for what it was given:
// img[y*w+x], out[i]. localDefs finds the locals that can be replaced so,
// substLocals replaces them.

// localDefs are the variables body declares with := or var and a value,
// assigned nowhere else in body, with that value, when every variable the
// value reads is one body does not write, or a loop variable of a for
// statement of body (the value is then of the same iteration of that
// loop, the only place the local is in scope).
func (p *Package) localDefs(body *ast.BlockStmt) map[types.Object]ast.Expr {
	writes := writtenExprs(body)
	written := map[types.Object]bool{}     // assigned as a whole
	writtenRoot := map[types.Object]bool{} // or an element, field or what it points to
	for e := range writes {
		if id, ok := e.(*ast.Ident); ok {
			written[p.Info.Uses[id]] = true
		}
		if id := rootIdent(e); id != nil {
			writtenRoot[p.Info.Uses[id]] = true
		}
	}
	loopVars := map[types.Object]bool{}
	defs := map[types.Object]ast.Expr{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ForStmt:
			if init, ok := s.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
				for _, lhs := range init.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && p.Info.Defs[id] != nil {
						loopVars[p.Info.Defs[id]] = true
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if id, ok := e.(*ast.Ident); ok && s.Tok == token.DEFINE && p.Info.Defs[id] != nil {
					loopVars[p.Info.Defs[id]] = true
				}
			}
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE && len(s.Lhs) == len(s.Rhs) {
				for i, lhs := range s.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && p.Info.Defs[id] != nil {
						defs[p.Info.Defs[id]] = s.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			if len(s.Names) == len(s.Values) {
				for i, id := range s.Names {
					if o := p.Info.Defs[id]; o != nil {
						defs[o] = s.Values[i]
					}
				}
			}
		}
		return true
	})
	for o, e := range defs {
		if written[o] || !p.stableValue(e, written, writtenRoot, loopVars) {
			delete(defs, o)
		}
	}
	return defs
}

// stableValue reports whether e is made of operators, constants,
// conversions, variables that keep their value (see localDefs) and
// elements of storage the body does not write (perm[i]); no calls.
func (p *Package) stableValue(e ast.Expr, written, writtenRoot, loopVars map[types.Object]bool) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if v, isVar := p.Info.Uses[x].(*types.Var); isVar && written[v] && !loopVars[v] {
				ok = false
			}
		case *ast.CallExpr:
			if tv, has := p.Info.Types[x.Fun]; !has || !tv.IsType() {
				ok = false // a conversion, int(x), is a value
			}
		case *ast.IndexExpr:
			if id := rootIdent(x.X); id == nil || writtenRoot[p.Info.Uses[id]] {
				ok = false // an element the body may change in between
			}
		case *ast.UnaryExpr:
			ok = x.Op != token.AND && x.Op != token.ARROW // -x, ^x; not &x, <-ch
		case *ast.FuncLit, *ast.StarExpr, *ast.SliceExpr, *ast.TypeAssertExpr:
			ok = false
		}
		return ok
	})
	return ok
}

// substLocals returns e with each local of defs replaced by its value,
// through chains of them (a few deep); e itself when there are none.
// The expressions it makes are marked synthetic: Text prints them, having
// no source text of their own.
func (p *Package) substLocals(e ast.Expr, defs map[types.Object]ast.Expr, depth int) ast.Expr {
	out := p.subst(e, defs, depth)
	if out != e {
		if p.synthetic == nil {
			p.synthetic = map[ast.Node]bool{}
		}
		p.synthetic[out] = true
	}
	return out
}

func (p *Package) subst(e ast.Expr, defs map[types.Object]ast.Expr, depth int) ast.Expr {
	if depth > 4 || len(defs) == 0 {
		return e
	}
	switch x := e.(type) {
	case *ast.Ident:
		if d, ok := defs[p.Info.Uses[x]]; ok {
			d = p.subst(d, defs, depth+1)
			if _, bin := d.(*ast.BinaryExpr); bin {
				// (printed with its parentheses: row+x is (y*w)+x)
				d = &ast.ParenExpr{Lparen: x.Pos(), X: d, Rparen: x.End()}
			}
			return d
		}
	case *ast.ParenExpr:
		if in := p.subst(x.X, defs, depth); in != x.X {
			return &ast.ParenExpr{Lparen: x.Lparen, X: in, Rparen: x.Rparen}
		}
	case *ast.BinaryExpr:
		l, r := p.subst(x.X, defs, depth), p.subst(x.Y, defs, depth)
		if l != x.X || r != x.Y {
			return &ast.BinaryExpr{X: l, OpPos: x.OpPos, Op: x.Op, Y: r}
		}
	case *ast.UnaryExpr:
		if in := p.subst(x.X, defs, depth); in != x.X {
			return &ast.UnaryExpr{OpPos: x.OpPos, Op: x.Op, X: in}
		}
	case *ast.CallExpr: // a conversion
		if len(x.Args) == 1 {
			if in := p.subst(x.Args[0], defs, depth); in != x.Args[0] {
				return &ast.CallExpr{Fun: x.Fun, Lparen: x.Lparen, Args: []ast.Expr{in}, Rparen: x.Rparen}
			}
		}
	}
	return e
}
