package compiler

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// alias is the storage a local variable shares with another variable,
// when the function assigns it once from that variable (issue 17: "through
// pointers where alias analysis can tell"; local reasoning: a make, new or
// composite literal is storage of its own, a re-slice, a row or an address
// is not).
type alias struct {
	root types.Object // the variable whose storage it is
	// idx are the indices taken on the way, outermost first: row := a[k]
	// gives [k], p := &a[k][j] gives [k j].
	idx []ast.Expr
	// offset: a re-slice with a start that is not a constant 0, so that
	// element k of the alias is another element of root.
	offset bool
	ptr    bool // a pointer to root or to its element idx
	via    string
}

// definitions calls def for each assignment in root of a variable by
// name (a declaration, =, :=, op=, ++, a range clause) with the value it
// is given, nil where svmc cannot follow it (op=, ++, a range, a call of
// several results).
func (p *Package) definitions(root ast.Node, def func(o types.Object, rhs ast.Expr)) {
	one := func(lhs ast.Expr, rhs ast.Expr) {
		id, ok := ast.Unparen(lhs).(*ast.Ident)
		if !ok {
			return
		}
		o := p.Info.Defs[id]
		if o == nil {
			o = p.Info.Uses[id]
		}
		if o != nil {
			def(o, rhs)
		}
	}
	ast.Inspect(root, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				var r ast.Expr
				if len(x.Rhs) == len(x.Lhs) && (x.Tok == token.DEFINE || x.Tok == token.ASSIGN) {
					r = x.Rhs[i]
				}
				one(l, r)
			}
		case *ast.ValueSpec:
			for i, name := range x.Names {
				var r ast.Expr
				if len(x.Values) == len(x.Names) {
					r = x.Values[i]
				}
				one(name, r)
			}
		case *ast.IncDecStmt:
			one(x.X, nil)
		case *ast.RangeStmt:
			if x.Key != nil {
				one(x.Key, nil)
			}
			if x.Value != nil {
				one(x.Value, nil)
			}
		}
		return true
	})
}

// aliases lists the variables of body assigned exactly once (a
// declaration with a value, or one assignment) from the storage of another
// variable, their address never taken. Chains (c := b; b := a) are
// followed.
func (p *Package) aliases(body *ast.BlockStmt) map[types.Object]alias {
	if body == nil {
		return nil
	}
	if a, ok := p.aliasesOf[body]; ok { // a function with several pdos
		return a
	}
	out := p.findAliases(body)
	if p.aliasesOf == nil {
		p.aliasesOf = map[*ast.BlockStmt]map[types.Object]alias{}
	}
	p.aliasesOf[body] = out
	return out
}

func (p *Package) findAliases(body *ast.BlockStmt) map[types.Object]alias {
	defs := map[types.Object][]ast.Expr{}
	taken := map[types.Object]bool{}
	p.definitions(body, func(o types.Object, rhs ast.Expr) { defs[o] = append(defs[o], rhs) })
	ast.Inspect(body, func(n ast.Node) bool {
		if x, ok := n.(*ast.UnaryExpr); ok && x.Op == token.AND {
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				taken[p.Info.Uses[id]] = true
			}
		}
		return true
	})
	direct := map[types.Object]alias{}
	for o, rhs := range defs {
		if len(rhs) != 1 || rhs[0] == nil || taken[o] {
			continue
		}
		// The storage of a variable the body assigns again is not fixed:
		// a, b = b, a swaps two buffers, and a is b's storage of the
		// moment, not b's.
		if a, ok := p.aliasOf(rhs[0]); ok && len(defs[a.root]) <= 1 {
			a.via = p.Text(rhs[0])
			direct[o] = a
		}
	}
	out := map[types.Object]alias{}
	for o, a := range direct {
		for range 8 { // follow b := a, c := b
			up, ok := direct[a.root]
			if !ok {
				break
			}
			if up.ptr { // q := p with p := &x: q points to x too
				if len(a.idx) == 0 && !a.ptr && !a.offset {
					a = alias{root: up.root, idx: up.idx, ptr: true, via: up.via}
				}
				break
			}
			a = alias{root: up.root, idx: append(append([]ast.Expr{}, up.idx...), a.idx...), offset: a.offset || up.offset, ptr: a.ptr, via: a.via}
		}
		out[o] = a
	}
	return out
}

// aliasOf reads e as storage of a variable: y (of a slice, map or pointer
// type), y[lo:hi], y[k] of a reference type, &y, &y[k].
func (p *Package) aliasOf(e ast.Expr) (alias, bool) {
	e = ast.Unparen(e)
	ptr := false
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e, ptr = ast.Unparen(u.X), true
	}
	offset := false
	if s, ok := e.(*ast.SliceExpr); ok && !ptr {
		offset = s.Low != nil && !p.isZero(s.Low)
		e = ast.Unparen(s.X)
	}
	var root ast.Expr = e
	var idx []ast.Expr
	if ix, ok := e.(*ast.IndexExpr); ok {
		root, idx = indexChain(ix)
		if _, isMap := p.Info.TypeOf(ast.Unparen(ix.X)).Underlying().(*types.Map); isMap {
			return alias{}, false
		}
	}
	id, ok := root.(*ast.Ident)
	if !ok {
		return alias{}, false
	}
	v, ok := p.Info.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return alias{}, false
	}
	if !ptr {
		switch p.Info.TypeOf(e).Underlying().(type) {
		case *types.Slice, *types.Map, *types.Pointer:
		default:
			return alias{}, false // a copy of a value
		}
	}
	return alias{root: v, idx: idx, offset: offset, ptr: ptr}, true
}

func (p *Package) isZero(e ast.Expr) bool {
	tv, ok := p.Info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Int && constant.Sign(tv.Value) == 0
}
