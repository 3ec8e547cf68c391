package compiler

import (
	"go/ast"
	"go/types"
)

// Random numbers in code every rank runs. Under --mpi every rank runs the
// exclusive code with the same inputs, but math/rand's and math/rand/v2's
// top-level functions draw from a generator seeded afresh in each process
// (math/rand's Seed does nothing since Go 1.24): data a program makes from
// them in main differs between ranks, and a pdo over it mixes their
// results. The check follows the package's static calls from main and the
// package-level initialisers, outside pdo bodies (whose iterations each
// run on one rank), and warns at the first such draw in each function.

// randomConstructors make generators of the program's own, seeded as it
// says: the same on every rank.
var randomConstructors = map[string]bool{"New": true, "NewSource": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true}

func (p *Package) rankRandom() {
	if p.Types.Name() != "main" {
		return // a library's callers are not known here
	}
	pdoBodies := map[*ast.BlockStmt]bool{}
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, s := range p.Subs {
		if s.Decl != nil && s.Obj != nil {
			decls[s.Obj.Origin()] = s.Decl
		}
		for _, c := range s.Constructs {
			if c.PDO != nil {
				pdoBodies[c.PDO.Body] = true
			}
		}
	}
	seen := map[ast.Node]bool{}
	var walk func(n ast.Node)
	walk = func(root ast.Node) {
		if root == nil || seen[root] {
			return
		}
		seen[root] = true
		warned := false
		ast.Inspect(root, func(n ast.Node) bool {
			if b, ok := n.(*ast.BlockStmt); ok && pdoBodies[b] {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var id *ast.Ident
			switch f := ast.Unparen(call.Fun).(type) {
			case *ast.Ident:
				id = f
			case *ast.SelectorExpr:
				id = f.Sel
			case *ast.IndexExpr: // rand.N[time.Duration](...)
				if sel, ok := f.X.(*ast.SelectorExpr); ok {
					id = sel.Sel
				}
			}
			fn, ok := p.Info.Uses[id].(*types.Func)
			if !ok {
				return true
			}
			if pkg := fn.Pkg(); pkg != nil && (pkg.Path() == "math/rand" || pkg.Path() == "math/rand/v2") &&
				fn.Signature().Recv() == nil && !randomConstructors[fn.Name()] && !warned {
				warned = true
				p.warnf(call.Pos(), "%s draws a random number in code every rank runs under --mpi, from a generator each process seeds for itself: data made from it differs between ranks, and what a pdo computes from it is mixed; draw from a generator of a fixed seed (rand.New(rand.NewPCG(1, 2))), or make the data in a pdo writing a //svm:shared slice", p.Text(call.Fun))
			}
			if d := decls[fn.Origin()]; d != nil {
				walk(d)
			}
			return true
		})
	}
	for _, s := range p.Subs {
		if s.Main && s.Decl != nil {
			walk(s.Decl)
		}
	}
	for _, f := range p.Files {
		for _, d := range f.Syntax.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				walk(d) // package-level initialisers run on every rank
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					walk(d) // and so do init functions
				}
			}
		}
	}
}
