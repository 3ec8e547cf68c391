package compiler

import (
	"go/ast"
	"go/types"
	"strings"
)

// Method calls as writes, for the warnings of a build for ranks
// (ranks.go): a call of a method with a pointer receiver changes what it
// is called on as an assignment would, unless the method is known to
// change nothing another rank reads.

// methodCall is a call of a method that may change its receiver.
type methodCall struct {
	fn   *types.Func
	recv ast.Expr // what it is called on: st of st.Count(x), also of count(x) with count := st.Count
	text string   // the call as the messages name it: st.Count, or count (st.Count)
}

// methodWrites are the calls in body of methods with a pointer receiver
// that may change it (acct.Withdraw(n), hits.Add(1), mu.Lock(), and
// count(x) with count := st.Count), by the expression written at the call
// (the receiver, or the variable holding the method value): each such
// call writes its receiver's storage as an assignment would. A method of
// the package that changes nothing through its receiver is left out, as
// are a few of the standard library's that only read.
func (p *Package) methodWrites(body ast.Node) map[ast.Expr]*methodCall {
	m := map[ast.Expr]*methodCall{}
	p.methodCalls(body, func(at ast.Expr, sel *ast.SelectorExpr, fn *types.Func) {
		if p.mayChangeReceiver(fn, map[*types.Func]bool{}) {
			mc := &methodCall{fn: fn, recv: ast.Unparen(sel.X), text: p.Text(sel)}
			if at != mc.recv {
				mc.text = p.Text(at) + " (" + p.Text(sel) + ")"
			}
			m[at] = mc
		}
	})
	return m
}

// methodCalls calls f for each call in body of a method with a pointer
// receiver, with the expression written at the call (the receiver, or the
// variable holding the method value) and the selector of the method.
func (p *Package) methodCalls(body ast.Node, f func(at ast.Expr, sel *ast.SelectorExpr, fn *types.Func)) {
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		at := ast.Expr(nil) // the written expression
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if ok {
			at = ast.Unparen(sel.X)
		} else if id, isID := ast.Unparen(call.Fun).(*ast.Ident); isID {
			// count(x) with count := st.Count: a call of st.Count.
			if v, isVar := p.Info.Uses[id].(*types.Var); isVar {
				sel, at = p.methodValueOf(v), id
			}
		}
		if sel == nil {
			return true
		}
		s := p.Info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal {
			return true
		}
		fn, ok := s.Obj().(*types.Func)
		if !ok || fn.Signature().Recv() == nil {
			return true
		}
		if _, ptr := fn.Signature().Recv().Type().(*types.Pointer); ptr {
			f(at, sel, fn)
		}
		return true
	})
}

// methodValueOf is the method value v holds when v is a variable of the
// package assigned exactly once, from a method value (count := st.Count),
// nil otherwise.
func (p *Package) methodValueOf(v *types.Var) *ast.SelectorExpr {
	if _, fn := v.Type().Underlying().(*types.Signature); !fn || v.IsField() || v.Pkg() != p.Types {
		return nil
	}
	var found *ast.SelectorExpr
	defs := 0
	for _, f := range p.Files {
		if f.Syntax.Pos() > v.Pos() || v.Pos() >= f.Syntax.End() {
			continue // a local variable's file; a package variable's too
		}
		p.definitions(f.Syntax, func(o types.Object, rhs ast.Expr) {
			if o != v {
				return
			}
			defs++
			if sel, ok := ast.Unparen(rhs).(*ast.SelectorExpr); ok && rhs != nil {
				if s := p.Info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
					found = sel
				}
			}
		})
	}
	if defs != 1 {
		return nil
	}
	return found
}

// harmlessPkgs are packages whose pointer methods change nothing of the
// program's data that another rank would read.
var harmlessPkgs = map[string]bool{"regexp": true, "log": true, "log/slog": true, "os": true, "time": true, "testing": true,
	"flag": true, "runtime": true, "bufio": true, "io": true, "net": true, "net/http": true, "context": true,
	"text/template": true, "html/template": true, "encoding/json": true, "fmt": true}

// readOnly are methods of the standard library with a pointer receiver
// that change nothing.
var readOnly = map[string]bool{
	"(*strings.Builder).Len": true, "(*strings.Builder).String": true, "(*strings.Builder).Cap": true,
	"(*bytes.Buffer).Len": true, "(*bytes.Buffer).String": true, "(*bytes.Buffer).Bytes": true, "(*bytes.Buffer).Cap": true,
}

// mayChangeReceiver reports whether a method with a pointer receiver may
// change the program's data through it in a way another rank needs: a
// method of this package whose body assigns through its receiver or calls
// such a method on it; a method of any other package but those whose
// changes no other rank reads (a regexp's matching state, a sync.Pool's
// cache, a logger's or a file's writes, a WaitGroup of the rank's own
// goroutines: harmless) and a few that only read (a buffer's length).
func (p *Package) mayChangeReceiver(fn *types.Func, seen map[*types.Func]bool) bool {
	fn = fn.Origin()
	if fn.Pkg() == nil {
		return false
	}
	if fn.Pkg() != p.Types {
		path, name := fn.Pkg().Path(), fn.Name()
		switch {
		case harmlessPkgs[path] && !(path == "regexp" && name == "Longest"):
			return false
		case path == "sync/atomic":
			return !strings.HasPrefix(name, "Load")
		case path == "sync":
			recv := types.TypeString(fn.Signature().Recv().Type(), nil)
			return recv == "*sync.Mutex" || recv == "*sync.RWMutex" && name != "RUnlock" && name != "RLocker" || recv == "*sync.Map" && name != "Load" && name != "Range"
		}
		return !readOnly[fn.FullName()]
	}
	if seen[fn] {
		return false
	}
	seen[fn] = true
	decl, recv, ok := p.methodBody(fn)
	if !ok {
		return decl == nil || decl.Body == nil // unnamed receiver: nothing through it
	}
	for e := range writtenExprs(decl.Body) {
		if id := rootIdent(e); id != nil && p.Info.Uses[id] == recv {
			return true
		}
	}
	// Only the calls on the receiver are followed, with the methods this
	// question has already met (seen) answered no: a recursive method
	// (t.L.Sum() in Sum) or methods calling each other ask it again, and
	// the answer is whether any method reached writes its receiver, which
	// the first visit of each finds.
	changes := false
	p.methodCalls(decl.Body, func(_ ast.Expr, sel *ast.SelectorExpr, callee *types.Func) {
		if id := rootIdent(sel.X); !changes && id != nil && p.Info.Uses[id] == recv && p.mayChangeReceiver(callee, seen) {
			changes = true
		}
	})
	return changes
}

// funcDecl is the declaration of a function or method of the package.
func (p *Package) funcDecl(fn *types.Func) *ast.FuncDecl {
	for _, f := range p.Files {
		for _, d := range f.Syntax.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && p.Info.Defs[fd.Name] == fn {
				return fd
			}
		}
	}
	return nil
}

// methodBody is the declaration of method fn of the package and its
// named receiver; ok is false for none (a method of another package, one
// without a body, an unnamed receiver: nothing written through it).
func (p *Package) methodBody(fn *types.Func) (decl *ast.FuncDecl, recv types.Object, ok bool) {
	decl = p.funcDecl(fn)
	if decl == nil || decl.Body == nil || decl.Recv == nil || len(decl.Recv.List) == 0 || len(decl.Recv.List[0].Names) == 0 {
		return decl, nil, false
	}
	return decl, p.Info.Defs[decl.Recv.List[0].Names[0]], true
}

// methodAdvice is the way out for a method call that changes storage of
// one rank.
func methodAdvice(m *types.Func) string {
	switch {
	case m.Pkg() != nil && m.Pkg().Path() == "sync/atomic":
		return "an atomic counter counts one rank's iterations: use a reduction (reduction(+: n) on a plain number) or //svm:atomic on the update, which combine the ranks"
	case m.Pkg() != nil && m.Pkg().Path() == "sync" && (m.Name() == "Lock" || m.Name() == "Unlock" || m.Name() == "RLock" || m.Name() == "RUnlock"):
		return "a sync.Mutex excludes the goroutines of one rank only: use //svm:critical NAME or //svm:lock(L) around the update, which exclude across ranks, and keep what it protects //svm:shared"
	}
	return "keep the data the iterations change in //svm:shared slices or arrays (the objects a pointer leads to are a rank's own; a slice a field holds is shared through a name of its own, data := v.Field and //svm:shared data, before the loop), or reduce the results; if " + m.Name() + " changes only such shared storage, or nothing another rank needs, //svm:ignore race silences this"
}
