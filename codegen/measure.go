package codegen

import (
	"fmt"
	"go/ast"
	"go/types"

	"github.com/svmc/svmc/compiler"
)

// measureCalls rewrites the program's calls of rtlib.MeasureFinish into
// rtlib.MeasureFinishAt with the call's position, so that a run-time error
// of the call (no open interval, the wrong name) names its column; the
// runtime alone only knows the line.
func (g *gen) measureCalls() {
	info := g.p.Info
	ast.Inspect(g.f.Syntax, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || call.Ellipsis.IsValid() {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		fn, ok := info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != compiler.RuntimePath || fn.Name() != "MeasureFinish" {
			return true
		}
		if _, isPkg := info.Uses[identOf(sel.X)].(*types.PkgName); !isPkg {
			return true // a method value or the like: left as it is
		}
		p := g.f.Tok.Position(call.Pos())
		g.e.raw(g.off(sel.Sel.Pos()), g.off(sel.Sel.End()), "MeasureFinishAt")
		g.e.add(g.off(call.Rparen), g.off(call.Rparen), fmt.Sprintf(", %q", fmt.Sprintf("%s:%d:%d", g.f.Name, p.Line, p.Column)), following)
		return true
	})
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}
