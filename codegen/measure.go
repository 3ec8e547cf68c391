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
		g.e.add(g.off(call.Rparen), g.off(call.Rparen), fmt.Sprintf(", %q", fmt.Sprintf("%s:%d:%d", g.f.Rel, p.Line, p.Column)), following)
		return true
	})
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

// messageCalls rewrites the program's calls of the message-passing
// functions into their ...At forms with the call site's number (compiler's
// CallsPass): rtlib.Send(to, tag, buf) becomes rtlib.SendAt(3, to, tag,
// buf), q.Wait() becomes q.WaitAt(4).
func (g *gen) messageCalls() {
	calls, _ := compiler.ResultOf[[]*compiler.MsgCall](g.p, compiler.CallsPass)
	for _, c := range calls {
		if c.File != g.f {
			continue
		}
		g.e.raw(g.off(c.Name.Pos()), g.off(c.Name.End()), c.Name.Name+"At")
		num := fmt.Sprint(c.Num)
		if len(c.Call.Args) > 0 {
			num += ", "
		}
		g.e.add(g.off(c.Call.Lparen)+1, g.off(c.Call.Lparen)+1, num, following)
	}
}

// mutexCalls rewrites the statements that lock the program's sync mutexes
// (compiler's MutexesPass) into the runtime's, which record a wait for a
// mutex another goroutine holds: mu.Lock() becomes rtlib.LockAt(5, &(mu)),
// p.mu.RLock() with p.mu a *sync.RWMutex rtlib.RLockAt(6, p.mu).
func (g *gen) mutexCalls() {
	sites, _ := compiler.ResultOf[[]*compiler.MutexSite](g.p, compiler.MutexesPass)
	for _, m := range sites {
		if m.File != g.f {
			continue
		}
		fn := "LockAt"
		switch {
		case m.Read:
			fn = "RLockAt"
		case m.Locker:
			fn = "LockerAt"
		}
		open, close := fmt.Sprintf("%s.%s(%d, &(", rt, fn, m.Num), "))"
		if m.Ptr {
			open, close = fmt.Sprintf("%s.%s(%d, ", rt, fn, m.Num), ")"
		}
		g.e.add(g.off(m.Recv.Pos()), g.off(m.Recv.Pos()), open, exprOpen)
		g.e.raw(g.off(m.Recv.End()), g.off(m.Stmt.End()), close)
	}
}
