package codegen

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/svmc/svmc/compiler"
)

// clockFuncs are the functions of package time whose readings a build for
// ranks takes from rtlib (rtlib/ranktime.go).
var clockFuncs = map[string]string{
	"time.Now":   "Now",
	"time.Since": "Since",
	"time.Until": "Until",
}

// rankClock makes processor 0's copies read one clock, in a build for
// ranks: each rank's copy read its own, and a loop bounded by time.Since
// ran a different number of pdos on each rank (x423). time.Now() becomes
// rtlib.Now(time.Now), time.Since(t) rtlib.Since(time.Since, t) (the
// function passed keeps the file's import of time used); the bodies of
// pdos are left alone (their iterations run on one rank each).
func (g *gen) rankClock(subs []*compiler.Sub) {
	if !g.p.ForRanks() {
		return
	}
	info := g.p.Info
	g.inspectOutside(pdoSpans(subs), func(n ast.Node) bool {
		x, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
		if !ok || x.Ellipsis.IsValid() {
			return true
		}
		fn, ok := info.Uses[sel.Sel].(*types.Func)
		if !ok {
			return true
		}
		to := clockFuncs[fn.FullName()]
		if to == "" {
			return true
		}
		sep := ", "
		if len(x.Args) == 0 {
			sep = ""
		}
		// x.Fun, not sel: a parenthesized (time.Now)() keeps its parentheses.
		g.e.add(g.off(x.Fun.Pos()), g.off(x.Fun.Pos()), rt+"."+to+"(", exprOpen)
		g.e.raw(g.off(x.Fun.End()), g.off(x.Lparen)+1, sep)
		g.usesRT = true
		return true
	})
}

// pdoSpans are the loop nests of the subs' pdos.
func pdoSpans(subs []*compiler.Sub) [][2]token.Pos {
	var skip [][2]token.Pos
	for _, s := range subs {
		for _, c := range s.Constructs {
			if c.PDO != nil {
				skip = append(skip, [2]token.Pos{c.PDO.Loops[0].Stmt.Pos(), c.PDO.Loops[0].Stmt.End()})
			}
		}
	}
	return skip
}
