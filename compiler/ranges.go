package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
)

// rangeAliases adds to shared the value variables of ranges over shared
// storage whose elements are rows (for _, row := range a, a [][]T): each
// stands for the variable ranged over, so that its accesses (row[j], a
// range over row) are checked too. It reports whether it added any
// (sharedStorage repeats it with reachParams until neither does: a row
// may be passed to a function, which ranges over it).
func (p *Package) rangeAliases(shared map[types.Object]*SharedVar) bool {
	changed := false
	p.inspectBodies(func(n ast.Node) bool {
		r, ok := n.(*ast.RangeStmt)
		if !ok || r.Value == nil || r.Tok != token.DEFINE {
			return true
		}
		id, ok := r.Value.(*ast.Ident)
		if !ok || p.Info.Defs[id] == nil || shared[p.Info.Defs[id]] != nil || !holdsStorage(p.Info.Defs[id].Type()) {
			return true
		}
		if v := p.rangedVar(r.X, shared); v != nil {
			shared[p.Info.Defs[id]] = v
			changed = true
		}
		return true
	})
	return changed
}

// rangedVar is the shared variable whose storage a range over e reads: e
// is the variable (or a variable standing for one), a row of it or a
// slicing of those, written without calls or other accesses.
func (p *Package) rangedVar(e ast.Expr, shared map[types.Object]*SharedVar) *SharedVar {
	switch p.Info.TypeOf(e).Underlying().(type) {
	case *types.Slice, *types.Array:
	default:
		return nil
	}
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return shared[p.Info.Uses[x]]
		case *ast.SelectorExpr: // a field a shared variable was taken from
			if f := p.fieldOf(x); f != nil && p.pure(x.X) {
				return shared[f]
			}
			return nil
		case *ast.IndexExpr:
			if !p.pure(x.Index) || !p.indexesSliceOrArray(x.X) {
				return nil
			}
			e = x.X
		case *ast.SliceExpr:
			if x.Slice3 || !p.pure(x.Low) || !p.pure(x.High) {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// pure reports whether evaluating e twice gives the same value with no
// effect: constants, variables and arithmetic on them (nil: absent).
func (p *Package) pure(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case nil:
		return true
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		switch p.Info.Uses[x].(type) {
		case *types.Const, *types.Var, *types.Nil:
			return true
		}
		return false
	case *ast.BinaryExpr:
		return p.pure(x.X) && p.pure(x.Y)
	case *ast.UnaryExpr:
		return (x.Op == token.SUB || x.Op == token.ADD) && p.pure(x.X)
	}
	return false
}

// checkableRanges are the range statements that read shared storage by
// value and can have their check before them: not a pdo's loop (svmc
// replaces its header) nor a labelled statement (the check would come
// between label and loop).
func (p *Package) checkableRanges(shared map[types.Object]*SharedVar) map[*ast.RangeStmt]*SharedVar {
	out := map[*ast.RangeStmt]*SharedVar{}
	for _, s := range p.Subs {
		if s.Decl.Body == nil {
			continue
		}
		skip := map[ast.Stmt]bool{}
		for _, c := range s.Constructs {
			if c.PDO != nil {
				for _, l := range c.PDO.Loops {
					skip[l.Stmt] = true
				}
			}
		}
		ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.LabeledStmt:
				skip[x.Stmt] = true
			case *ast.RangeStmt:
				if x.Value == nil || skip[x] {
					return true
				}
				if id, ok := x.Value.(*ast.Ident); ok && id.Name == "_" {
					return true
				}
				if v := p.rangedVar(x.X, shared); v != nil {
					out[x] = v
				}
			}
			return true
		})
	}
	return out
}
