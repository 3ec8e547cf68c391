package compiler

import (
	"go/ast"
	"go/types"
)

// MutexesPass numbers the statements that lock a sync.Mutex or
// sync.RWMutex of the program's own in its subprograms (mu.Lock(),
// s.mu.RLock(), locks[k].Lock()), in file and source order from 1, so
// that the runtime records a wait for one by its number and the program
// information gives its position (rtlib/mutex.go). A lock through a
// sync.Locker is numbered too (the runtime measures it when the value in
// it is one of those mutexes), and so is a lock of a mutex a call returns
// (getMu().Lock(): the runtime's call takes the receiver, evaluated once, as
// the method call does); a deferred or a go statement's lock is left as it
// is.
var MutexesPass = newPass("mutexes", "number the statements that lock the program's sync mutexes", (*Package).numberMutexes, SubprogramsPass)

// MutexSite is one numbered lock statement.
type MutexSite struct {
	Num  int
	Func string // "Mutex.Lock", "RWMutex.Lock" or "RWMutex.RLock"
	Sub  *Sub
	File *File
	Stmt *ast.ExprStmt
	Recv ast.Expr // the expression the method is called on
	// Read: RLock; Ptr: Recv is a pointer already (else codegen takes
	// its address); Locker: Recv is a sync.Locker (LockerAt).
	Read, Ptr, Locker bool
}

// mutexMethods are the lock methods LockAt and RLockAt stand in for.
var mutexMethods = map[string]string{
	"(*sync.Mutex).Lock":    "Mutex.Lock",
	"(*sync.RWMutex).Lock":  "RWMutex.Lock",
	"(*sync.RWMutex).RLock": "RWMutex.RLock",
	"(sync.Locker).Lock":    "Locker.Lock",
}

func (p *Package) numberMutexes() []*MutexSite {
	var sites []*MutexSite
	for _, f := range p.Files {
		for _, decl := range f.Syntax.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			sub := p.subAt(fd.Body.Lbrace + 1)
			if sub == nil {
				continue
			}
			p.lockLeaks(fd.Body)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				// (defer mu.Lock() and go mu.Lock() are no ExprStmt.)
				st, ok := n.(*ast.ExprStmt)
				if !ok {
					return true
				}
				if s := p.mutexSite(st); s != nil {
					s.Num, s.Sub, s.File = p.cfg.MutexBase+len(sites)+1, sub, f
					sites = append(sites, s)
				}
				return true
			})
		}
	}
	return sites
}

// mutexSite is the lock statement st, or nil.
func (p *Package) mutexSite(st *ast.ExprStmt) *MutexSite {
	call, _ := ast.Unparen(st.X).(*ast.CallExpr)
	recv, full := p.nullaryMethod(call)
	name := mutexMethods[full]
	if recv == nil || name == "" {
		return nil
	}
	t := p.Info.TypeOf(recv)
	if t == nil {
		return nil
	}
	if name == "Locker.Lock" {
		return &MutexSite{Func: name, Stmt: st, Recv: recv, Ptr: true, Locker: true}
	}
	_, ptr := t.Underlying().(*types.Pointer)
	if !ptr && !p.addressable(recv) {
		return nil
	}
	return &MutexSite{Func: name, Stmt: st, Recv: recv, Read: name == "RWMutex.RLock", Ptr: ptr}
}

// addressable reports whether &e is valid: a variable, a field of an
// addressable struct or of a pointer's, an element of a slice or of an
// addressable array, a dereference.
func (p *Package) addressable(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := p.Info.Uses[x].(*types.Var)
		return ok
	case *ast.StarExpr:
		return true
	case *ast.SelectorExpr:
		if s := p.Info.Selections[x]; s != nil && s.Kind() == types.FieldVal {
			if _, ptr := p.Info.TypeOf(x.X).Underlying().(*types.Pointer); ptr {
				return true
			}
			return p.addressable(x.X)
		}
		return false
	case *ast.IndexExpr:
		switch p.Info.TypeOf(x.X).Underlying().(type) {
		case *types.Slice:
			return true
		case *types.Array:
			return p.addressable(x.X)
		case *types.Pointer:
			return true
		}
	}
	return false
}
