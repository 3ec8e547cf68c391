package compiler

import (
	"go/ast"
	"go/types"
)

// The race checks follow the elements of a variable; a slice or map a
// struct's field holds (g.cells[i], st.hist[k]) is storage of its own,
// named by the variable and the field path that reach it.

// fieldPathBase is the variable a chain of field selections starts from
// (g in g.cells, s.grid.rows, (*p).cells), nil for anything else (a call,
// an index, a package-qualified name).
func (p *Package) fieldPathBase(e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			if s := p.Info.Selections[x]; s == nil || s.Kind() != types.FieldVal {
				return nil
			}
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.Ident:
			if _, ok := p.Info.Uses[x].(*types.Var); ok {
				return x
			}
			return nil
		default:
			return nil
		}
	}
}

// fieldPathStorage is one object per variable and field path (g and
// "g.cells"), standing for the storage the path reaches in the race
// checks: two paths from one variable are the same storage when they read
// the same, from two variables (cur.cells, next.cells) not.
func (p *Package) fieldPathStorage(base types.Object, path string) types.Object {
	k := fieldKey{base, path}
	if v, ok := p.fieldVars[k]; ok {
		return v
	}
	if p.fieldVars == nil {
		p.fieldVars = map[fieldKey]types.Object{}
	}
	v := types.NewVar(base.Pos(), base.Pkg(), path, types.Typ[types.Invalid])
	p.fieldVars[k] = v
	return v
}

type fieldKey struct {
	base types.Object
	path string
}
