package compiler

import (
	"go/ast"
	"go/types"
)

// Code every rank runs. Under --mpi every rank runs the exclusive code
// with the same inputs; what it does to the world outside the process is
// done once per rank. The checks follow the package's static calls from
// main, init functions and the package-level initialisers, outside pdo
// bodies (whose iterations each run on one rank).

// randomConstructors make generators of the program's own, seeded as it
// says: the same on every rank.
var randomConstructors = map[string]bool{"New": true, "NewSource": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true}

// everyRankFiles are os's functions that change the file system and fail
// when another rank did the same first, with what to do instead. (Writing
// a file's content is rank 0's alone: codegen's rankFileFuncs.)
var everyRankFiles = map[string]string{
	"Mkdir":   "os.MkdirAll, which succeeds when the directory exists",
	"Remove":  "os.RemoveAll, which succeeds when there is nothing to remove, or ignore os.ErrNotExist",
	"Rename":  "a name each rank makes its own, or the rename in a branch on rtlib.ProcessorID() == 0 followed by a barrier",
	"Link":    "os.Link on processor 0 only (rtlib.ProcessorID() == 0)",
	"Symlink": "os.Symlink on processor 0 only (rtlib.ProcessorID() == 0)",
}

// rankEverywhere warns, in a build for ranks, of random draws from
// math/rand's and math/rand/v2's generators (each process seeds them for
// itself: data made from them differs between ranks, and a pdo over it
// mixes their results; math/rand's Seed is a no-op since Go 1.24) and of
// file-system changes that fail on every rank but the first, once per
// function and kind.
func (p *Package) rankEverywhere() {
	told := map[[2]any]bool{}
	p.everyRankCalls(func(root ast.Node, call *ast.CallExpr, fn *types.Func) {
		switch path := fn.Pkg().Path(); {
		case (path == "math/rand" || path == "math/rand/v2") && !randomConstructors[fn.Name()]:
			if k := [2]any{root, "rand"}; !told[k] {
				told[k] = true
				p.warnf(call.Pos(), "%s draws a random number in code every rank runs under --mpi, from a generator each process seeds for itself: data made from it differs between ranks, and what a pdo computes from it is mixed; draw from a generator of a fixed seed (rand.New(rand.NewPCG(1, 2))), or make the data in a pdo writing a //svm:shared slice", p.Text(call.Fun))
			}
		case path == "os" && everyRankFiles[fn.Name()] != "":
			if k := [2]any{root, fn.Name()}; !told[k] {
				told[k] = true
				p.warnf(call.Pos(), "%s in code every rank runs under --mpi: every rank does it, and all but the first fail; use %s", p.Text(call.Fun), everyRankFiles[fn.Name()])
			}
		}
	})
}

// everyRankCalls calls visit for each call of a package-level function of
// another package in code every rank runs, with the function or
// declaration it stands in (root).
func (p *Package) everyRankCalls(visit func(root ast.Node, call *ast.CallExpr, fn *types.Func)) {
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
		ast.Inspect(root, func(n ast.Node) bool {
			if b, ok := n.(*ast.BlockStmt); ok && pdoBodies[b] {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, ok := p.Info.Uses[calleeIdent(call)].(*types.Func)
			if !ok {
				return true
			}
			if fn.Pkg() != nil && fn.Pkg() != p.Types && fn.Signature().Recv() == nil {
				visit(root, call, fn)
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
