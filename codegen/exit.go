package codegen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/svmc/svmc/compiler"
)

// exitFuncs are the functions that end the process, with the runtime
// function that winds the run up first (rtlib.Exit: the trace is
// completed, the output flushed): os.Exit, syscall.Exit (which os.Exit
// calls after its hooks) and log's Fatal functions, and the Fatal methods
// of *log.Logger (called with the logger first), flag's Parse (which
// exits on -h and a bad flag); and os/signal's, which
// tell the runtime what the program handles.
var exitFuncs = map[string]string{
	"os.Exit":                    "Exit",
	"syscall.Exit":               "Exit",
	"golang.org/x/sys/unix.Exit": "Exit",
	"log.Fatal":                  "Fatal",
	"log.Fatalf":                 "Fatalf",
	"log.Fatalln":                "Fatalln",
	"(*log.Logger).Fatal":        "LoggerFatal",
	"(*log.Logger).Fatalf":       "LoggerFatalf",
	"(*log.Logger).Fatalln":      "LoggerFatalln",
	// flag's parsing, which exits on -h and on a bad flag: through
	// Exit, so that svmc run -- -h leaves a complete trace.
	"flag.Parse":            "FlagParse",
	"(*flag.FlagSet).Parse": "FlagSetParse",
	// os/signal's registrations, so that the runtime leaves the signals
	// the program handles itself to it (rtlib/signals.go).
	"os/signal.Notify":        "SignalNotify",
	"os/signal.NotifyContext": "SignalNotifyContext",
	"os/signal.Stop":          "SignalStop",
	"os/signal.Ignore":        "SignalIgnore",
	"os/signal.Reset":         "SignalReset",
}

// rankFileFuncs are os's functions that write files, with rtlib's versions
// a build for ranks calls: processor 0's copy of the exclusive code on the
// other ranks writes nothing, so that a file is written once, by rank 0,
// as its output is printed once (rtlib/rankfiles.go).
var rankFileFuncs = map[string]string{"os.Create": "RankCreate", "os.OpenFile": "RankOpenFile", "os.WriteFile": "RankWriteFile"}

// exits rewrites every use of os.Exit and of log's Fatal functions in the
// file (in the subprograms, init functions and package-level function
// literals alike) into the runtime's, so that a program that exits early
// still leaves a complete trace, and testing's methods that stop a test
// into the runtime's stand-ins (teststop.go). A method is rewritten where
// it is called on a receiver without calls (a variable or a field):
// l.Fatal(x) becomes svm_rt.LoggerFatal(l, x), t.Fatal(x)
// svm_rt.TestFatal(t, x).
func (g *gen) exits(subs []*compiler.Sub) {
	var skip [][2]token.Pos
	for _, s := range subs {
		skip = append(skip, headers(s)...)
	}
	info := g.p.Info
	g.inspectOutside(skip, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			s := info.Selections[sel]
			if s == nil || s.Kind() != types.MethodVal || !plainReceiver(sel.X) {
				return true
			}
			fn, ok := s.Obj().(*types.Func)
			if !ok {
				return true
			}
			to := exitFuncs[fn.FullName()]
			if to == "" && fn.Pkg() != nil && fn.Pkg().Path() == "testing" {
				to = testStopFuncs[fn.Name()] // teststop.go
			}
			if to != "" {
				g.receiverFirst(x, sel, to)
				g.usesRT = true
				return false
			}
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			if !ok {
				return true
			}
			pkg, ok := info.Uses[id].(*types.PkgName)
			if !ok {
				return true
			}
			fn, ok := info.Uses[x.Sel].(*types.Func)
			if !ok {
				return true
			}
			to := exitFuncs[fn.FullName()]
			if to == "" && g.p.ForRanks() {
				to = rankFileFuncs[fn.FullName()]
			}
			if to != "" {
				g.e.raw(g.off(x.Pos()), g.off(x.End()), rt+"."+to)
				g.drop(pkg, x)
				g.usesRT = true
			}
			return false
		}
		return true
	})
}

// inspectOutside walks the file's syntax as ast.Inspect does, leaving out
// the nodes within the spans of skip.
func (g *gen) inspectOutside(skip [][2]token.Pos, f func(ast.Node) bool) {
	ast.Inspect(g.f.Syntax, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		for _, h := range skip {
			if h[0] <= n.Pos() && n.End() <= h[1] {
				return false
			}
		}
		return f(n)
	})
}

// receiverFirst rewrites the method call x (x.Fun is sel) into a call of
// the runtime's function to with the receiver first: l.Fatal(v) becomes
// svm_rt.LoggerFatal(l, v). The receiver must be a plainReceiver.
func (g *gen) receiverFirst(x *ast.CallExpr, sel *ast.SelectorExpr, to string) {
	arg := rt + "." + to + "(" + g.p.Text(sel.X)
	if len(x.Args) > 0 {
		arg += ", "
	}
	g.e.raw(g.off(x.Fun.Pos()), g.off(x.Lparen)+1, arg)
}

// plainReceiver reports whether e is a variable or a field of one: an
// expression that another rewriting cannot touch.
func plainReceiver(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return plainReceiver(x.X)
	case *ast.StarExpr:
		return plainReceiver(x.X)
	}
	return false
}

// droppedUses are the uses of an imported package that the rewriting
// replaced.
type droppedUses struct {
	n     int
	first string // the text of the first, a reference that keeps the import used
}

// drop records that the rewriting replaced use sel of package pkg.
func (g *gen) drop(pkg *types.PkgName, sel *ast.SelectorExpr) {
	d := g.dropped[pkg]
	if d == nil {
		d = &droppedUses{first: pkg.Name() + "." + sel.Sel.Name}
		g.dropped[pkg] = d
	}
	d.n++
}

// keepImports keeps an import whose every use the rewriting replaced (a
// file that used os only for os.Exit or os.Stderr) used, with a blank
// declaration at the end of the file: Go rejects an unused import.
func (g *gen) keepImports() {
	if len(g.dropped) == 0 {
		return
	}
	total := map[*types.PkgName]int{}
	ast.Inspect(g.f.Syntax, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if pkg, ok := g.p.Info.Uses[id].(*types.PkgName); ok {
				total[pkg]++
			}
		}
		return true
	})
	end := len(g.f.Src)
	for pkg, d := range g.dropped {
		if d.n == total[pkg] {
			g.e.add(end, end, fmt.Sprintf("\nvar _ = %s // the rewriting replaced every other use\n", d.first), following)
		}
	}
}
