package compiler

import (
	"go/ast"
	"go/types"
)

// goStarters are the functions and methods that run a function argument on
// a goroutine of its own, as a go statement would: the ways ordinary Go
// starts goroutines besides the go statement. arg is the argument's index;
// later marks those that run it later or maybe never (a timer stopped
// first, a TryGo that found its group full).
var goStarters = map[string]struct {
	arg   int
	later bool
}{
	"(*sync.WaitGroup).Go":                      {0, false}, // Go 1.25
	"(*golang.org/x/sync/errgroup.Group).Go":    {0, false},
	"(*golang.org/x/sync/errgroup.Group).TryGo": {0, true},
	"time.AfterFunc":                            {1, true},
	"context.AfterFunc":                         {1, true},
}

// GoStarted returns the function argument of call that call runs on a
// goroutine of its own (wg.Go(f), g.Go(f) of an errgroup, time.AfterFunc(d,
// f), context.AfterFunc(ctx, f)), or nil when call is no such call; later
// reports whether the call may run it later or never.
func GoStarted(info *types.Info, call *ast.CallExpr) (f ast.Expr, later bool) {
	var obj types.Object
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		if sel := info.Selections[fun]; sel != nil {
			obj = sel.Obj()
		} else {
			obj = info.Uses[fun.Sel]
		}
	case *ast.Ident:
		obj = info.Uses[fun]
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return nil, false
	}
	st, ok := goStarters[fn.Origin().FullName()]
	if !ok || st.arg >= len(call.Args) {
		return nil, false
	}
	return call.Args[st.arg], st.later
}
