package compiler

import (
	"go/ast"
	"go/types"
)

// CallsPass numbers the program's calls of the runtime's message-passing
// functions (package rtlib, DESIGN.md §3a) in file and source order, from
// 1, so that records and run-time errors name a call by its number and the
// program information file gives its position. A call made through a
// function value is not a call site (it runs with site 0).
var CallsPass = newPass("calls", "number the message-passing call sites", (*Package).numberCalls, SubprogramsPass)

// MsgCall is one numbered message-passing call.
type MsgCall struct {
	Num  int
	Func string // "Send", ..., "Request.Wait"
	Sub  *Sub   // the subprogram holding it; nil outside every subprogram
	File *File
	Call *ast.CallExpr
	// Name is the identifier codegen renames to the ...At form (the
	// selector's Sel).
	Name *ast.Ident
}

// MessageFuncs are rtlib's message-passing functions that take a call site
// in their ...At form; MessageMethods the methods of *rtlib.Request.
var (
	MessageFuncs = map[string]bool{"Send": true, "Ssend": true, "Recv": true, "Isend": true, "Irecv": true,
		"WaitAll": true, "Sendrecv": true, "Probe": true, "Bcast": true, "Reduce": true, "Allreduce": true,
		"Gather": true, "Scatter": true, "Allgather": true, "Alltoall": true, "Barrier": true}
	MessageMethods = map[string]bool{"Wait": true, "Test": true}
)

func (p *Package) numberCalls() []*MsgCall {
	var calls []*MsgCall
	for _, f := range p.Files {
		ast.Inspect(f.Syntax, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name, fn := p.messageCall(call)
			if name == nil {
				return true
			}
			calls = append(calls, &MsgCall{Num: p.cfg.CallBase + len(calls) + 1, Func: fn, Sub: p.subAt(call.Pos()), File: f, Call: call, Name: name})
			return true
		})
	}
	return calls
}

// messageCall returns the identifier to rename and the function's name if
// call calls a message-passing function of the runtime by name.
func (p *Package) messageCall(call *ast.CallExpr) (*ast.Ident, string) {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	fn, ok := p.Info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != RuntimePath {
		return nil, ""
	}
	if s := p.Info.Selections[sel]; s != nil {
		if s.Kind() != types.MethodVal || !MessageMethods[fn.Name()] || !isRuntimeNamed(s.Recv(), "Request") {
			return nil, ""
		}
		return sel.Sel, "Request." + fn.Name()
	}
	if id, ok := sel.X.(*ast.Ident); !ok || !isPkgName(p.Info.Uses[id]) || !MessageFuncs[fn.Name()] {
		return nil, ""
	}
	return sel.Sel, fn.Name()
}

func isPkgName(o types.Object) bool { _, ok := o.(*types.PkgName); return ok }

// isRuntimeNamed reports whether t is rtlib.name or a pointer to it.
func isRuntimeNamed(t types.Type, name string) bool {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == RuntimePath && named.Obj().Name() == name
}
