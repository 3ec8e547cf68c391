package codegen

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/svmc/svmc/compiler"
)

// testStopFuncs are the methods of testing's T, B and F that end a test,
// with the runtime's stand-ins for them (rtlib/teststop.go): called in a
// pdo's body on another processor's goroutine, or on the test's in the
// middle of the pdo, they would end that goroutine.
var testStopFuncs = map[string]string{
	"Fatal": "TestFatal", "Fatalf": "TestFatalf", "FailNow": "TestFailNow",
	"Skip": "TestSkip", "Skipf": "TestSkipf", "SkipNow": "TestSkipNow",
}

// testStops rewrites t.Fatal(x) and its kin into svm_rt.TestFatal(t, x),
// on a receiver without calls (a variable or a field), as exits rewrites
// log.Fatal: everywhere in the file, since a helper that a pdo's body
// calls (check(t, xs[i])) stops the test as the body does, and the runtime
// tells a body's call, whose share it ends, from one outside any body,
// which stops the test at once as the method does.
func (g *gen) testStops(subs []*compiler.Sub) {
	var skip [][2]token.Pos
	for _, s := range subs {
		skip = append(skip, headers(s)...)
	}
	info := g.p.Info
	g.inspectOutside(skip, func(n ast.Node) bool {
		x, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		sl := info.Selections[sel]
		if sl == nil || sl.Kind() != types.MethodVal || !plainReceiver(sel.X) {
			return true
		}
		fn, ok := sl.Obj().(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "testing" || testStopFuncs[fn.Name()] == "" {
			return true
		}
		g.receiverFirst(x, sel, testStopFuncs[fn.Name()])
		g.usesRT = true
		return true
	})
}
