package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// InlinePass finds the subprograms svmc leaves as they are written: those
// small enough for the Go compiler to inline (Less, Swap, accessors, a
// function passed as a value) and without a loop, in which svmc has
// nothing to see; a small function with a loop may run long, and keeps
// its region, unless the loop calls a function it was passed (apply,
// each: inlined, the caller calls that function directly). An instrumented function takes the processor as a
// parameter and tests whether to open its region, which the Go compiler
// no longer inlines: a
// sort's Less and Swap cost twice their time that way, and tracing them is
// what TAU's throttle exists to stop. They are still numbered (the
// program information marks them plain) and their calls run as in the
// plain build; Config.InstrumentAll instruments them too.
var InlinePass = newPass("inline", "leave alone the subprograms the Go compiler would inline", (*Package).findPlain, SubprogramsPass, AttachPass, CallsPass, AccessesPass)

// inlineBudget is the Go compiler's inlining budget (cmd/compile's
// inlineMaxBudget), and callCost what it charges for a call it cannot
// inline (inlineExtraCallCost).
const (
	inlineBudget = 80
	callCost     = 57
	// paramCallCost: a call of a function-typed parameter, which the Go
	// compiler charges far less (the call may become direct once the
	// function is inlined where the argument is known): measured on
	// apply(xs, f), cost 41 with its loop.
	paramCallCost = 10
)

// findPlain marks and returns the plain subprograms.
func (p *Package) findPlain() []*Sub {
	if p.cfg.InstrumentAll {
		return nil
	}
	calls, _ := ResultOf[[]*MsgCall](p, CallsPass)
	accs, _ := ResultOf[[]*Access](p, AccessesPass)
	busy := map[*Sub]bool{} // svmc rewrites something in them
	for _, c := range calls {
		busy[c.Sub] = true
	}
	for _, a := range accs {
		busy[a.Sub] = true
	}
	e := p.plainEstimate(busy)
	var plain []*Sub
	for _, s := range p.Subs {
		if e.of(s) <= inlineBudget {
			s.Plain = true
			plain = append(plain, s)
		}
	}
	return plain
}

// plainEstimate estimates the inlining cost of subprograms that may stay
// plain: not main, a test or broken, with no constructs, shared
// variables or //go: directives, and nothing svmc rewrites (busy).
func (p *Package) plainEstimate(busy map[*Sub]bool) *inlineEstimate {
	return &inlineEstimate{p: p, cost: map[*Sub]int{}, may: func(s *Sub) bool {
		return !s.Main && !s.broken && !busy[s] && len(s.Constructs) == 0 && len(s.Shared) == 0 && !testFunc(s) && !pragmas(s.Decl)
	}}
}

// testFunc reports whether go test calls s by its name.
func testFunc(s *Sub) bool {
	if !strings.HasSuffix(s.File.Name, "_test.go") || s.Decl.Recv != nil {
		return false
	}
	for _, prefix := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if strings.HasPrefix(s.Decl.Name.Name, prefix) {
			return true
		}
	}
	return false
}

// pragmas reports whether fd has //go: directives (go:noinline among
// them): the user chose how it compiles.
func pragmas(fd *ast.FuncDecl) bool {
	if fd.Doc == nil {
		return false
	}
	for _, c := range fd.Doc.List {
		if strings.HasPrefix(c.Text, "//go:") {
			return true
		}
	}
	return false
}

// inlineEstimate is the Go compiler's inlining cost of subprograms, roughly:
// a unit per syntax node, calls as the compiler charges them, and
// inlineBudget+1 for whatever it does not inline or svmc must rewrite, and
// for a loop (Go inlines small loops, but a function with one may run
// long: it keeps its region) that calls no function it was passed.
type inlineEstimate struct {
	p    *Package
	cost map[*Sub]int // -1 while being estimated (a cycle of calls)
	may  func(*Sub) bool
}

const tooCostly = inlineBudget + 1

func (e *inlineEstimate) of(s *Sub) int {
	if c, ok := e.cost[s]; ok {
		if c < 0 {
			return tooCostly // recursive
		}
		return c
	}
	if !e.may(s) {
		e.cost[s] = tooCostly
		return tooCostly
	}
	e.cost[s] = -1
	c := e.body(s)
	e.cost[s] = c
	return c
}

func (e *inlineEstimate) body(s *Sub) int {
	info := e.p.Info
	params := map[types.Object]bool{}
	for _, f := range s.Decl.Type.Params.List {
		for _, n := range f.Names {
			if obj := info.Defs[n]; obj != nil {
				params[obj] = true
			}
		}
	}
	cost, loops, higher := 0, false, false
	ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
		if n == nil || cost > inlineBudget {
			return false
		}
		cost++
		switch x := n.(type) {
		case *ast.GoStmt, *ast.DeferStmt, *ast.FuncLit, *ast.LabeledStmt, *ast.SelectStmt:
			cost = tooCostly // not inlined, or rewritten by svmc (go statements)
		case *ast.ForStmt, *ast.RangeStmt:
			loops = true
		case *ast.BranchStmt:
			if x.Tok == token.GOTO {
				cost = tooCostly
			}
		case *ast.SelectorExpr:
			if StdStream(info, x) != "" {
				cost = tooCostly // svmc routes the user's output through the processor
			}
		case *ast.CallExpr:
			c := e.call(x, params)
			higher = higher || c == paramCallCost && params[calledObj(info, x)]
			cost += c
		}
		return true
	})
	if loops && !higher {
		// A small loop may still run long: it keeps its region. One
		// that calls a function it was passed (apply(xs, f), each) is a
		// higher-order helper: inlined, its caller calls the function
		// directly (and inlines it), which an instrumented helper's
		// indirect call per element cost 1.3× on such a program.
		return tooCostly
	}
	return min(cost, tooCostly)
}

// calledObj is the object a call names (a function, a method, a
// variable of function type), nil for other calls.
func calledObj(info *types.Info, call *ast.CallExpr) types.Object {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return info.Uses[f]
	case *ast.SelectorExpr:
		return info.Uses[f.Sel]
	case *ast.IndexExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			return info.Uses[id]
		}
	}
	return nil
}

// call is the cost of a call beyond its syntax.
func (e *inlineEstimate) call(call *ast.CallExpr, params map[types.Object]bool) int {
	info := e.p.Info
	if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "recover" {
			return tooCostly
		}
		return 0
	}
	obj := calledObj(info, call)
	if params[obj] {
		return paramCallCost
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return callCost
	}
	if fn.Pkg() != nil {
		switch fn.Pkg().Path() {
		case "fmt":
			if strings.HasPrefix(fn.Name(), "Print") {
				return tooCostly // routed through the processor
			}
		case "math", "math/bits", "sync/atomic":
			// Mostly intrinsics (math.Sqrt, bits.Len, atomic.AddInt64)
			// or small enough to be inlined themselves.
			return 1
		}
	}
	if s := e.p.SubOf(fn.Origin()); s != nil {
		// A subprogram of the package: inlined in turn if it is plain,
		// otherwise instrumented, and its call passes the processor.
		return e.of(s)
	}
	return callCost
}

// StdStream returns "Stdout" or "Stderr" when e is os.Stdout or os.Stderr
// (which svmc routes through the processor), else "".
func StdStream(info *types.Info, e ast.Expr) string {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	v, ok := info.Uses[sel.Sel].(*types.Var)
	if !ok || v.Pkg() == nil || v.Pkg().Path() != "os" {
		return ""
	}
	if v.Name() == "Stdout" || v.Name() == "Stderr" {
		return v.Name()
	}
	return ""
}
