package compiler

import (
	"go/ast"
	"go/types"
)

// goStarters are the functions and methods that run a function argument on
// a goroutine of its own, as a go statement would, by the argument's index:
// the ways ordinary Go starts goroutines besides the go statement.
var goStarters = map[string]int{
	"(*sync.WaitGroup).Go":                      0, // Go 1.25
	"(*golang.org/x/sync/errgroup.Group).Go":    0,
	"(*golang.org/x/sync/errgroup.Group).TryGo": 0,
	"time.AfterFunc":                            1,
	"context.AfterFunc":                         1,
}

// GoStarted returns the function argument of call that call runs on a
// goroutine of its own (wg.Go(f), g.Go(f) of an errgroup, time.AfterFunc(d,
// f), context.AfterFunc(ctx, f)), or nil when call is no such call.
func GoStarted(info *types.Info, call *ast.CallExpr) ast.Expr {
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
		return nil
	}
	i, ok := goStarters[fn.Origin().FullName()]
	if !ok || i >= len(call.Args) {
		return nil
	}
	return call.Args[i]
}
