package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Go programs serialise writes with a sync.Mutex as often as with a
// critical directive: mu.Lock(); hits++; mu.Unlock() in a pdo's body is
// no race. mutexHeld tells the race checks which statements hold one.

// lockMethods are the methods whose call holds a lock until the matching
// Unlock (RLock is not among them: writes under a read lock race).
var lockMethods = map[string]bool{
	"(*sync.Mutex).Lock":   true,
	"(*sync.RWMutex).Lock": true,
	"(sync.Locker).Lock":   true,
}

// span is a range of source positions, from inclusive, to exclusive.
type span struct{ from, to token.Pos }

// mutexHeld reports whether pos lies in statements run holding a mutex:
// after x.Lock() up to the x.Unlock() of the same statement list, or to
// the list's end where there is none there (defer x.Unlock(), or an
// Unlock in a branch).
func (p *Package) mutexHeld(pos token.Pos) bool {
	if !p.mutexesDone {
		p.mutexesDone = true
		for _, f := range p.Files {
			p.mutexSpans = append(p.mutexSpans, p.heldSpans(f.Syntax)...)
			p.mutexSpans = append(p.mutexSpans, p.onceSpans(f.Syntax)...)
		}
	}
	return pos.IsValid() && slices.ContainsFunc(p.mutexSpans, func(s span) bool { return s.from <= pos && pos < s.to })
}

// heldSpans are the spans of n's statement lists run holding a mutex.
func (p *Package) heldSpans(n ast.Node) []span {
	var out []span
	ast.Inspect(n, func(n ast.Node) bool {
		list, end, ok := stmtList(n)
		if !ok {
			return true
		}
		for i, st := range list {
			x := p.lockCall(st, false)
			if x == "" {
				continue
			}
			s := span{st.End(), end}
			for _, later := range list[i+1:] {
				if p.lockCall(later, true) == x {
					s.to = later.Pos()
					break
				}
			}
			out = append(out, s)
		}
		return true
	})
	return out
}

// onceSpans are the bodies of the function literals n hands to a
// sync.Once's Do: once.Do(func() { first = v }) in a pdo's body runs its
// function once in all, on whichever processor comes first, so its writes
// are serialised as a lock's are. A Once declared inside the loop that
// holds the call (or picked by an index, onces[i]) is another Once each
// time, whose function every iteration runs: its body is not a span.
func (p *Package) onceSpans(n ast.Node) []span {
	var out []span
	var stack []ast.Node // the nodes enclosing the one inspected
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		lit, ok := ast.Unparen(call.Args[0]).(*ast.FuncLit)
		sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !isSel {
			return true
		}
		fn, ok := p.Info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.FullName() != "(*sync.Once).Do" {
			return true
		}
		root := fieldRoot(sel.X)
		if root == nil {
			return true
		}
		obj := p.Info.Uses[root]
		if obj == nil || innerLoopHolds(stack, obj.Pos()) {
			return true
		}
		out = append(out, span{lit.Body.Lbrace, lit.Body.Rbrace})
		return true
	})
	return out
}

// fieldRoot is the variable of x, x.f or (*x).f.g; nil for an indexed or
// called expression.
func fieldRoot(e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// innerLoopHolds reports whether the innermost loop of stack holds pos.
func innerLoopHolds(stack []ast.Node, pos token.Pos) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return stack[i].Pos() <= pos && pos < stack[i].End()
		}
	}
	return false
}

// stmtList is the statement list n holds (a block's, a case's or a
// select case's) and where it ends; ok is false for other nodes.
func stmtList(n ast.Node) (list []ast.Stmt, end token.Pos, ok bool) {
	switch b := n.(type) {
	case *ast.BlockStmt:
		return b.List, b.Rbrace, true
	case *ast.CaseClause:
		return b.Body, b.End(), true
	case *ast.CommClause:
		return b.Body, b.End(), true
	}
	return nil, token.NoPos, false
}

// unlockMethods release what lockMethods take.
var unlockMethods = map[string]bool{
	"(*sync.Mutex).Unlock":   true,
	"(*sync.RWMutex).Unlock": true,
	"(sync.Locker).Unlock":   true,
}

// lockCall names the lock a statement x.M() takes (unlock: releases): the
// text of x for a method of lockMethods (unlockMethods), or x's text and
// the field path of the lock for a method of the package that does it
// for its receiver (a.lock() for func (a *acc) lock() { a.mu.Lock() }
// names a.mu, as a.mu.Lock() does). "" for another statement.
func (p *Package) lockCall(st ast.Stmt, unlock bool) string {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return ""
	}
	call, _ := ast.Unparen(es.X).(*ast.CallExpr)
	recv, full := p.nullaryMethod(call)
	if recv == nil {
		return ""
	}
	if unlock && unlockMethods[full] || !unlock && lockMethods[full] {
		return p.Text(recv)
	}
	if w, ok := p.lockWrapper(full); ok && w.unlock == unlock {
		return p.Text(recv) + w.path
	}
	return ""
}

// wrapper is a method that takes or releases a lock of its receiver as
// its last act: path is the lock's selector from the receiver (".mu",
// or "" for the receiver itself).
type wrapper struct {
	unlock bool
	path   string
}

// lockWrapper says whether the package's method full (by its full name)
// is a wrapper: without parameters, its body's last statement r.P.Lock()
// or r.P.Unlock() on its receiver r, and an Unlock with no Lock of r.P
// before it (a method that locks and unlocks is no wrapper). Go programs
// hide a mutex behind such methods as often as they call it.
func (p *Package) lockWrapper(full string) (wrapper, bool) {
	if p.wrappers == nil {
		p.wrappers = map[string]wrapper{}
		for _, f := range p.Files {
			for _, d := range f.Syntax.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					p.noteWrapper(fd)
				}
			}
		}
	}
	w, ok := p.wrappers[full]
	return w, ok
}

// noteWrapper records fd in p.wrappers when it is a lock wrapper.
func (p *Package) noteWrapper(fd *ast.FuncDecl) {
	if fd.Recv == nil || len(fd.Recv.List) != 1 || len(fd.Recv.List[0].Names) != 1 || fd.Type.Params.NumFields() != 0 || fd.Body == nil || len(fd.Body.List) == 0 {
		return
	}
	fn, ok := p.Info.Defs[fd.Name].(*types.Func)
	if !ok {
		return
	}
	r := fd.Recv.List[0].Names[0].Name
	last := fd.Body.List[len(fd.Body.List)-1]
	for _, unlock := range []bool{false, true} {
		x := p.lockCall(last, unlock)
		if x != r && !strings.HasPrefix(x, r+".") {
			continue
		}
		if unlock && slices.ContainsFunc(fd.Body.List, func(st ast.Stmt) bool { return p.lockCall(st, false) == x }) {
			continue
		}
		p.wrappers[fn.FullName()] = wrapper{unlock: unlock, path: x[len(r):]}
	}
}

// nullaryMethod is the receiver and the full name ("(*sync.Mutex).Lock")
// of a call x.M() of a method without arguments; nil for another call.
func (p *Package) nullaryMethod(call *ast.CallExpr) (ast.Expr, string) {
	if call == nil || len(call.Args) != 0 {
		return nil, ""
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	fn, ok := p.Info.Uses[sel.Sel].(*types.Func)
	if !ok {
		return nil, ""
	}
	return sel.X, fn.Origin().FullName() // a generic type's methods by their declaration
}
