package codegen

import (
	"go/ast"
	"go/types"
	"go/version"

	"github.com/svmc/svmc/compiler"
)

// orderedMapFuncs are the functions of package maps whose iterators a
// build for ranks replaces by ones in key order (rtlib/maporder.go).
var orderedMapFuncs = map[string]string{
	"maps.All":    "OrderedAll",
	"maps.Keys":   "OrderedKeys",
	"maps.Values": "OrderedValues",
}

// mapOrder makes the file visit maps in key order, in a build for ranks:
// every rank runs the exclusive code, and Go's map order, its own in each
// process, made their copies of a slice built from a map differ (the
// results of a pdo over it were mixed between the orders). A range over a
// map whose keys are ordered (integers, floating-point numbers, strings)
// becomes a range over rtlib.OrderedMap(m), and maps.All, Keys and Values
// of such maps rtlib's ordered iterators. The body of a pdo is left alone
// (its iterations run on one rank each), and so is a range over an
// expression with calls (it is evaluated once, the wrapper would not
// change that but another rewriting may edit inside it). Ranging over a
// function needs go 1.23: an older module keeps Go's order.
func (g *gen) mapOrder(subs []*compiler.Sub) {
	if !g.p.ForRanks() {
		return
	}
	if v := g.p.Types.GoVersion(); v != "" && version.Compare(v, "go1.23") < 0 {
		return
	}
	info := g.p.Info
	g.inspectOutside(pdoSpans(subs), func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.RangeStmt:
			if (x.Key != nil || x.Value != nil) && orderedKeys(info.TypeOf(x.X)) && plainReceiver(x.X) { // for range m: no order to keep
				g.e.add(g.off(x.X.Pos()), g.off(x.X.Pos()), rt+".OrderedMap(", exprOpen)
				g.e.add(g.off(x.X.End()), g.off(x.X.End()), ")", exprClose)
				g.usesRT = true
			}
		case *ast.CallExpr:
			sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
			if !ok || len(x.Args) != 1 || !orderedKeys(info.TypeOf(x.Args[0])) {
				return true
			}
			fn, ok := info.Uses[sel.Sel].(*types.Func)
			if !ok {
				return true
			}
			if to := orderedMapFuncs[fn.FullName()]; to != "" {
				// maps.Keys(m) → rtlib.OrderedKeys(maps.Keys, m): the
				// import of maps stays used (its functions are generic:
				// a blank declaration could not name one).
				g.e.add(g.off(sel.Pos()), g.off(sel.Pos()), rt+"."+to+"(", exprOpen)
				g.e.raw(g.off(sel.End()), g.off(x.Lparen)+1, ", ")
				g.usesRT = true
			}
		}
		return true
	})
}

// orderedKeys reports whether t is a map whose keys rtlib orders.
func orderedKeys(t types.Type) bool {
	m, ok := t.(*types.Map)
	if !ok && t != nil {
		m, ok = t.Underlying().(*types.Map)
	}
	if !ok {
		return false
	}
	b, ok := m.Key().Underlying().(*types.Basic)
	return ok && b.Info()&types.IsOrdered != 0
}
