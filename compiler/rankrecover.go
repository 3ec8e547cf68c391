package compiler

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/svmc/svmc/directives"
)

// A panic in a pdo's iteration or a section is raised again after the
// construct in one process, where a deferred recover of the function
// around it may take it (rtlib/bodypanic.go). Between ranks it ends the
// job: the value cannot travel to the other ranks, and one rank must not
// recover and go on without them. rankRecover warns where a program
// counts on that recover.

// rankRecover warns, in a build for ranks, of a pdo or psection in a
// function that defers a recover (in a function literal, or a function
// of the package whose body calls recover).
func (p *Package) rankRecover(c *Construct) {
	if c.Sub == nil || c.Dir == nil || (c.PDO == nil && c.Kind() != directives.PSection) {
		return
	}
	path, _ := astutil.PathEnclosingInterval(c.Dir.File.Syntax, c.ListPos, c.ListPos)
	var body *ast.BlockStmt
	for _, n := range path {
		if f, ok := n.(*ast.FuncLit); ok {
			body = f.Body
		} else if f, ok := n.(*ast.FuncDecl); ok {
			body = f.Body
		}
		if body != nil {
			break
		}
	}
	if body == nil {
		return
	}
	at := p.deferredRecover(body)
	if !at.IsValid() {
		return
	}
	what := "an iteration of the pdo"
	if c.PDO == nil {
		what = "a section of the psection"
	}
	p.warnf(c.Pos(), "under --mpi a panic in %s ends the whole job, naming its rank and line: the recover deferred at line %d takes it in one process only (the panic's value cannot travel to the other ranks, and one rank must not go on without them); have the iterations return errors instead (an error per iteration in a slice, checked after the loop)", what, p.Fset.Position(at).Line)
}

// deferredRecover is the position of the first defer statement of body
// (not of a function literal inside it) whose function calls recover.
func (p *Package) deferredRecover(body *ast.BlockStmt) token.Pos {
	var at token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		if at.IsValid() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			var fb *ast.BlockStmt
			if f, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				fb = f.Body
			} else if fn := p.calledFunc(n.Call); fn != nil && p.SubOf(fn).Decl != nil {
				fb = p.SubOf(fn).Decl.Body
			}
			if fb != nil && p.callsRecover(fb) {
				at = n.Pos()
			}
			return false
		}
		return true
	})
	return at
}

// callsRecover reports whether body calls the builtin recover itself
// (recover stops a panic only when the deferred function calls it).
func (p *Package) callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := p.Info.Uses[id].(*types.Builtin); ok && b.Name() == "recover" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
