package codegen

import (
	"fmt"
	"go/ast"
	"go/types"

	"github.com/svmc/svmc/compiler"
)

// guardGoroutines rewrites every go statement of the file so that a panic
// in the goroutine it starts ends the run with a complete trace
// (rtlib.Recover) instead of killing the process first:
//
//	go func(x T) { ... }(a)  ->  { svm_l := svm_rt.GoLane(); go func(x T) {
//	                               defer svm_rt.GoRecover(svm_l, "f.go:3:2"); svm_l.GoEnter("f.go:3:2"); ... }(a) }
//	go f(a, b)               ->  go svm_rt.Guard2(f, "f.go:3:2")(a, b)
//
// (GuardN for up to 3 parameters and no results, Guard, a reflect call,
// for the others). GoLane, evaluated in the goroutine that runs the go
// statement (GuardN calls it), gives the new goroutine its lane of the
// processor that started it while that processor traces (rtlib/lanes.go);
// the block keeps svm_l to the one statement, on its lines.
//
// Both keep where Go evaluates the function value and the arguments. Left
// as they are: builtins (go close(c)), whose value cannot be taken, and
// generic functions whose type arguments are inferred, which cannot be
// passed uninstantiated.
func (g *gen) guardGoroutines() {
	info := g.p.Info
	ast.Inspect(g.f.Syntax, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if f, later := compiler.GoStarted(info, call); f != nil {
				g.guardStarted(call, f, later)
			}
			return true
		}
		st, ok := n.(*ast.GoStmt)
		if !ok {
			return true
		}
		p := g.f.Tok.Position(st.Pos())
		pos := fmt.Sprintf("%q", fmt.Sprintf("%s:%d:%d", g.f.Rel, p.Line, p.Column))
		fun := ast.Unparen(st.Call.Fun)
		if lit, ok := fun.(*ast.FuncLit); ok {
			at := g.off(lit.Body.Lbrace) + 1
			g.e.add(g.off(st.Pos()), g.off(st.Pos()), "{ svm_l := "+rt+".GoLane(); ", opening)
			g.e.lines(at, "defer "+rt+".GoRecover(svm_l, "+pos+"); svm_l.GoEnter("+pos+")", opening, g.line(st.Pos()))
			// gofmt puts the closing brace on a line of its own: the text
			// after the statement is placed back where it was.
			g.e.add(g.off(st.End()), g.off(st.End()), " }\n"+g.e.resume(g.off(st.End()), true), following)
			g.usesRT = true
			return true
		}
		tv, ok := info.Types[st.Call.Fun]
		if !ok || tv.IsBuiltin() || inferred(info, fun) {
			return true
		}
		guard := rt + ".Guard("
		if sig, ok := tv.Type.Underlying().(*types.Signature); ok && sig.Results().Len() == 0 && !sig.Variadic() && sig.Params().Len() <= 3 {
			guard = fmt.Sprintf("%s.Guard%d(", rt, sig.Params().Len()) // a closure, not a reflect call
		}
		g.e.add(g.off(st.Call.Fun.Pos()), g.off(st.Call.Fun.Pos()), guard, opening)
		g.e.add(g.off(st.Call.Fun.End()), g.off(st.Call.Fun.End()), ", "+pos+")", following)
		g.usesRT = true
		return true
	})
}

// inferred reports whether fun names a generic function whose type
// arguments the call infers (f(x) rather than f[T](x)).
func inferred(info *types.Info, fun ast.Expr) bool {
	var id *ast.Ident
	switch x := fun.(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	default:
		return false
	}
	_, ok := info.Instances[id]
	return ok
}

// guardStarted wraps the function f that call runs on a goroutine of its
// own (compiler.GoStarted: wg.Go(f), an errgroup's g.Go(f),
// time.AfterFunc(d, f)) as guardGoroutines wraps a go statement's: the
// goroutine gets its lane of the processor that made the call, and a
// panic in it ends the run with a complete trace.
//
//	wg.Go(func() { ... })  ->  wg.Go(svm_rt.Guard0(func() { ... }, "f.go:3:2"))
//	g.Go(work)             ->  g.Go(svm_rt.Guard0_1(work, "f.go:3:2"))
//
// A call that may run f later or never (later: time.AfterFunc, TryGo) gets
// GuardLater0 or GuardLater0_1, which take the lane when f runs.
func (g *gen) guardStarted(call *ast.CallExpr, f ast.Expr, later bool) {
	tv, ok := g.p.Info.Types[f]
	if !ok || tv.IsNil() {
		return
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok {
		return
	}
	p := g.f.Tok.Position(call.Pos())
	pos := fmt.Sprintf("%q", fmt.Sprintf("%s:%d:%d", g.f.Rel, p.Line, p.Column))
	guard := rt + ".Guard("
	switch {
	case sig.Variadic() || sig.Params().Len() > 0:
	case sig.Results().Len() == 0 && later:
		guard = rt + ".GuardLater0("
	case sig.Results().Len() == 1 && later:
		guard = rt + ".GuardLater0_1("
	case sig.Results().Len() == 0:
		guard = rt + ".Guard0("
	case sig.Results().Len() == 1:
		guard = rt + ".Guard0_1("
	}
	g.e.add(g.off(f.Pos()), g.off(f.Pos()), guard, opening)
	g.e.add(g.off(f.End()), g.off(f.End()), ", "+pos+")", following)
	g.usesRT = true
}
