package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
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
			x := p.lockCall(st, lockMethods)
			if x == "" {
				continue
			}
			s := span{st.End(), end}
			for _, later := range list[i+1:] {
				if p.lockCall(later, map[string]bool{"(*sync.Mutex).Unlock": true, "(*sync.RWMutex).Unlock": true, "(sync.Locker).Unlock": true}) == x {
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

// lockCall is the text of x in a statement x.M() whose method is one of
// methods (by full name), or "".
func (p *Package) lockCall(st ast.Stmt, methods map[string]bool) string {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return ""
	}
	call, _ := ast.Unparen(es.X).(*ast.CallExpr)
	if recv, full := p.nullaryMethod(call); recv != nil && methods[full] {
		return p.Text(recv)
	}
	return ""
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
	return sel.X, fn.FullName()
}
