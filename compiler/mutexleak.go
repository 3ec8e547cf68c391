package compiler

import (
	"go/ast"
	"go/token"
	"slices"
)

// A mutex a path leaves locked is the classic way Go code deadlocks: in a
// pdo the next iteration's Lock waits for ever, and the processors with
// it. lockLeaks warns where a function that unlocks a mutex it locked
// leaves it locked on some path: a return, break or continue between the
// Lock and its Unlock, or an Unlock made only in some branches (a goto is
// not followed: it may jump to the Unlock). A function that never unlocks what it locks (a helper whose
// caller unlocks) is left alone.

// unlockOf are the methods that release what lockMethods and RLock take.
var unlockOf = map[string]string{
	"Mutex.Lock":    "(*sync.Mutex).Unlock",
	"RWMutex.Lock":  "(*sync.RWMutex).Unlock",
	"RWMutex.RLock": "(*sync.RWMutex).RUnlock",
}

// lockLeaks checks the lock statements of body (a function's).
func (p *Package) lockLeaks(body *ast.BlockStmt) {
	ast.Inspect(body, func(n ast.Node) bool {
		list, _, ok := stmtList(n)
		if !ok {
			return true
		}
		for i, st := range list {
			es, ok := st.(*ast.ExprStmt)
			if !ok {
				continue
			}
			site := p.mutexSite(es)
			if site == nil {
				continue
			}
			h := held{p: p, recv: p.Text(site.Recv), unlock: unlockOf[site.Func], line: p.Fset.Position(st.Pos()).Line}
			if !h.unlocksSomewhere(body) || h.deferredBefore(body, st.Pos()) {
				continue // a helper that locks for its caller; or unlocked at return
			}
			// A path that leaves early is a leak when the others unlock
			// where they go on: a lock handed to the caller (a return
			// holding it, the others returning too) is not one.
			h.mainUnlock = slices.ContainsFunc(list[i+1:], h.isUnlock)
			if !h.walk(list[i+1:], 0) && !h.told {
				if at := h.fallthroughUnlock(list[i+1:]); at.IsValid() {
					p.warnf(at, "%s, locked at line %d, is unlocked here on some paths only: a path that skips this Unlock leaves it locked, and the next %s.%s() waits for ever (a deadlock of the processors in a pdo); unlock on every path, or write defer %s.%s() right after the Lock (in a function of its own inside a loop)",
						h.recv, h.line, h.recv, lockName(site), h.recv, unlockName(h.unlock))
				}
			}
		}
		return true
	})
}

func lockName(s *MutexSite) string {
	if s.Read {
		return "RLock"
	}
	return "Lock"
}

func unlockName(full string) string {
	if full == "(*sync.RWMutex).RUnlock" {
		return "RUnlock"
	}
	return "Unlock"
}

// held follows the statements after a Lock while the mutex is held.
type held struct {
	p          *Package
	recv       string // the receiver's text: mu, s.mu
	unlock     string // the full name of the method that releases it
	line       int    // the Lock's
	mainUnlock bool   // the Lock's own block unlocks it later
	told       bool   // a leak was reported
}

// isUnlock reports whether st is recv's unlock, as a statement or
// deferred.
func (h *held) isUnlock(st ast.Stmt) bool {
	var call *ast.CallExpr
	switch s := st.(type) {
	case *ast.ExprStmt:
		call, _ = ast.Unparen(s.X).(*ast.CallExpr)
	case *ast.DeferStmt:
		call = s.Call
	}
	if d, ok := st.(*ast.DeferStmt); ok {
		if lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit); ok {
			// defer func() { mu.Unlock(); … }()
			return slices.ContainsFunc(lit.Body.List, h.isUnlock)
		}
	}
	recv, full := h.p.nullaryMethod(call)
	return recv != nil && full == h.unlock && h.p.Text(recv) == h.recv
}

// deferredBefore reports whether body defers the mutex's release before
// pos (Lock; defer Unlock; … Unlock; Wait; Lock; return): a return there
// releases it.
func (h *held) deferredBefore(body *ast.BlockStmt, pos token.Pos) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit || found || n == nil || n.Pos() >= pos {
			return false
		}
		if d, ok := n.(*ast.DeferStmt); ok && h.isUnlock(d) {
			found = true
		}
		return !found
	})
	return found
}

// walk reports whether every path through list releases the mutex (or
// ends: a leak reported); loops is how many loops of list's own it is in
// (a break or continue there stays inside).
func (h *held) walk(list []ast.Stmt, loops int) bool {
	for _, st := range list {
		if h.isUnlock(st) {
			return true
		}
		switch s := st.(type) {
		case *ast.ReturnStmt:
			h.leak(s.Pos(), "this return")
			return true
		case *ast.BranchStmt:
			// (A goto may jump to the Unlock: not followed.)
			if loops == 0 && (s.Tok == token.BREAK || s.Tok == token.CONTINUE) {
				h.leak(s.Pos(), "this "+s.Tok.String())
				return true
			}
		case *ast.LabeledStmt:
			if h.walk([]ast.Stmt{s.Stmt}, loops) {
				return true
			}
		case *ast.BlockStmt:
			if h.walk(s.List, loops) {
				return true
			}
		case *ast.IfStmt:
			then := h.walk(s.Body.List, loops)
			other := false
			switch e := s.Else.(type) {
			case *ast.BlockStmt:
				other = h.walk(e.List, loops)
			case *ast.IfStmt:
				other = h.walk([]ast.Stmt{e}, loops)
			}
			if then && other {
				return true
			}
		case *ast.ForStmt:
			h.walk(s.Body.List, loops+1)
		case *ast.RangeStmt:
			h.walk(s.Body.List, loops+1)
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			// break inside leaves the switch only; its clauses are
			// followed for returns.
			ast.Inspect(s, func(n ast.Node) bool {
				switch c := n.(type) {
				case *ast.CaseClause:
					h.walk(c.Body, loops+1)
					return false
				case *ast.CommClause:
					h.walk(c.Body, loops+1)
					return false
				case *ast.FuncLit:
					return false
				}
				return true
			})
		}
	}
	return false
}

// leak reports a statement that leaves with the mutex held, once, when
// the paths that go on unlock it.
func (h *held) leak(pos token.Pos, what string) {
	if h.told || !h.mainUnlock {
		return
	}
	h.told = true
	h.p.warnf(pos, "%s leaves %s locked (locked at line %d, not unlocked on this path): the next Lock of it waits for ever (a deadlock of the processors in a pdo); unlock before it, or write defer %s.%s() right after the Lock", what, h.recv, h.line, h.recv, unlockName(h.unlock))
}

// unlocksSomewhere reports whether body releases the mutex anywhere.
func (h *held) unlocksSomewhere(body *ast.BlockStmt) bool {
	return h.someUnlock(body.List).IsValid()
}

// fallthroughUnlock is the position of a release of the mutex in a block
// nested in list that goes on after it (if c { mu.Unlock() }), not one
// that leaves (if c { mu.Unlock(); return }), or NoPos.
func (h *held) fallthroughUnlock(list []ast.Stmt) token.Pos {
	var at token.Pos
	for _, st := range list {
		ast.Inspect(st, func(n ast.Node) bool {
			if _, lit := n.(*ast.FuncLit); lit {
				return false
			}
			body, _, _ := stmtList(n)
			if at.IsValid() || len(body) == 0 {
				return !at.IsValid()
			}
			switch body[len(body)-1].(type) {
			case *ast.ReturnStmt, *ast.BranchStmt:
				return true
			}
			if k := slices.IndexFunc(body, h.isUnlock); k >= 0 {
				at = body[k].Pos()
			}
			return !at.IsValid()
		})
	}
	return at
}

// someUnlock is the position of the first release of the mutex in list,
// at any depth, or NoPos.
func (h *held) someUnlock(list []ast.Stmt) token.Pos {
	var at token.Pos
	for _, st := range list {
		ast.Inspect(st, func(n ast.Node) bool {
			if s, ok := n.(ast.Stmt); ok && !at.IsValid() && h.isUnlock(s) {
				at = s.Pos()
			}
			return !at.IsValid()
		})
	}
	return at
}
