package compiler

import (
	"go/ast"
	"go/types"
)

// rankPrivate warns, for a program built to run as the ranks of an MPI
// job (Config.Ranks: svmc run|build --mpi), where a pdo body writes a
// variable declared outside the loop nest that is neither shared nor a
// reduction variable: each rank runs only its processor's iterations and
// keeps the variable to itself, so after the loop every rank holds its
// own part of it (issue 16). Writes in critical sections and under locks
// count too: those order the processors of one rank only.
func (p *Package) rankPrivate(c *Construct) {
	if c.Sub == nil {
		return
	}
	info := c.PDO
	nest := info.Loops[0].Stmt
	line := p.Fset.Position(c.Pos()).Line
	keep := map[types.Object]bool{}
	for _, r := range info.Reds {
		keep[r.Obj] = true
	}
	for _, v := range c.Sub.Shared {
		keep[v.Obj] = true
	}
	var als map[types.Object]alias
	if c.Sub.Decl != nil {
		als = p.aliases(c.Sub.Decl.Body)
	}
	outside := func(o types.Object) bool {
		v, ok := o.(*types.Var)
		return ok && !v.IsField() && !(nest.Pos() <= v.Pos() && v.Pos() < nest.End())
	}
	warned := map[types.Object]bool{}
	writes := writtenExprs(info.Body)
	ast.Inspect(info.Body, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok || !writes[e] {
			return true
		}
		id := rootIdent(e)
		if id == nil {
			return true
		}
		o := p.Info.Uses[id]
		if al, ok := als[o]; ok && outside(al.root) {
			o = al.root // row := grid[i] writes grid's storage
		}
		if o == nil || !outside(o) || keep[o] || warned[o] {
			return true
		}
		warned[o] = true
		fix := "declare it //svm:shared " + o.Name() + " (the elements each rank writes travel at the loop's end)"
		if _, whole := ast.Unparen(e).(*ast.Ident); whole {
			fix = "combine it with a reduction, reduction(+: " + o.Name() + ") for a count or sum (a shared scalar that every rank writes keeps one rank's value)"
		}
		p.warnf(e.Pos(), "%s is private to each rank under --mpi: the pdo at line %d writes it in each processor's iterations on that processor's rank only, so after the loop every rank holds its own part of it; %s", o.Name(), line, fix)
		return true
	})
}

// rootIdent is the variable an assigned expression writes into: a of
// a[i].f, *a, a[1:].
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		default:
			return nil
		}
	}
}
