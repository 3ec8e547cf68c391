package codegen

import (
	"go/ast"
	"go/types"

	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/directives"
)

// testStopFuncs are the methods of testing's T, B and F that end a test,
// with the runtime's stand-ins for them in a pdo's body
// (rtlib/teststop.go): called on another processor's goroutine, or on the
// test's in the middle of the pdo, they would end that goroutine.
var testStopFuncs = map[string]string{
	"Fatal": "TestFatal", "Fatalf": "TestFatalf", "FailNow": "TestFailNow",
	"Skip": "TestSkip", "Skipf": "TestSkipf", "SkipNow": "TestSkipNow",
}

// testStops rewrites t.Fatal(x) and its kin called in the body of a pdo
// or of a section into svm_rt.TestFatal(t, x), on a receiver without calls (a variable or
// a field), as exits rewrites log.Fatal. A function literal of the body
// is left: it may run anywhere, later.
func (g *gen) testStops(subs []*compiler.Sub) {
	info := g.p.Info
	done := map[*ast.CallExpr]bool{} // a nested pdo's body is in its outer one's
	for _, s := range subs {
		for _, c := range s.Constructs {
			var body ast.Node
			switch {
			case c.PDO != nil && c.PDO.Body != nil:
				body = c.PDO.Body
			case c.Kind() == directives.Section && c.Owner != nil && c.Stmt != nil:
				body = c.Stmt // a section ends as a pdo's share does
			default:
				continue
			}
			ast.Inspect(body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.CallExpr:
					sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
					if !ok || done[x] {
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
					done[x] = true
					g.receiverFirst(x, sel, testStopFuncs[fn.Name()])
				}
				return true
			})
		}
	}
}
