package compiler

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/svmc/svmc/directives"
	"golang.org/x/tools/go/types/typeutil"
)

// fullyChecked reports the shared variables every access of which is an
// access check (accs): the runtime may then keep their pages lazily between
// the ranks of an MPI job (a home-based protocol: a page another rank
// wrote is fetched from its home when a check finds it stale), since no
// read or write of their storage can pass unseen. A variable is not fully
// checked when its storage escapes where no check follows it: ranged over
// with a value where no check can stand before the loop (a labelled range,
// a pdo's header), assigned to another variable, passed to a function outside
// the package (copy, sort.Float64s), a row or an element's address taken
// into a value (row := a[i], &a[i]), or updated by an atomic directive
// (whose statement svmc replaces). Critical sections and locks do not
// matter: their bodies' accesses are checked, a lock's variable is only its
// key, and a page fetched from its home takes again what the global locks'
// grants brought this rank (rankpages.go).
func (p *Package) fullyChecked(accs []*Access) map[*SharedVar]bool {
	shared := p.sharedStorage()
	if shared == nil {
		return nil
	}
	checked := map[ast.Expr]bool{}
	ranges := map[*ast.RangeStmt]bool{}
	for _, a := range accs {
		if a.Range != nil {
			ranges[a.Range] = true
		} else {
			checked[a.Expr] = true
		}
	}
	bad := map[*SharedVar]bool{}
	for _, s := range p.Subs {
		for _, c := range s.Constructs {
			if c.Kind() != directives.Atomic || c.Stmt == nil {
				continue
			}
			// svmc replaces the statement with an update through the
			// element's address: no check stands there.
			ast.Inspect(c.Stmt, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && shared[p.Info.Uses[id]] != nil {
					bad[shared[p.Info.Uses[id]]] = true
				}
				return true
			})
		}
	}
	for _, s := range p.Subs {
		if s.Decl.Body == nil {
			continue
		}
		var stack []ast.Node
		ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if id, ok := n.(*ast.Ident); ok {
				if v := shared[p.Info.Uses[id]]; v != nil && !bad[v] && !p.checkedUse(id, stack, checked, ranges, shared) {
					bad[v] = true
				}
			}
			stack = append(stack, n)
			return true
		})
	}
	out := map[*SharedVar]bool{}
	for _, v := range shared {
		if !bad[v] && p.freshStorage(v) {
			out[v] = true
		}
	}
	return out
}

// freshStorage reports whether shared variable v holds storage nothing
// else refers to: a local variable (not a parameter: the caller's variable
// would reach the same storage unchecked) given only new storage — make,
// new, a composite literal, the result of a function of the package that
// returns such a local of its own — or another shared variable's.
func (p *Package) freshStorage(v *SharedVar) bool {
	s := v.Construct.Sub
	if s == nil || s.Decl.Body == nil || v.Obj.Parent() == p.Types.Scope() {
		return false
	}
	if s.Decl.Recv != nil {
		for _, f := range s.Decl.Recv.List {
			for _, id := range f.Names {
				if p.Info.Defs[id] == v.Obj {
					return false
				}
			}
		}
	}
	for _, f := range s.Decl.Type.Params.List {
		for _, id := range f.Names {
			if p.Info.Defs[id] == v.Obj {
				return false
			}
		}
	}
	return p.assignedFresh(s.Decl.Body, v.Obj, true)
}

// assignedFresh reports whether every value body gives obj is new storage
// (with calls: also a package function's fresh local, and another shared
// variable's storage).
func (p *Package) assignedFresh(body *ast.BlockStmt, obj types.Object, calls bool) bool {
	fresh := true
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && (p.Info.Defs[id] == obj || p.Info.Uses[id] == obj)
	}
	// A row of it (obj[i] of a [][]T) must be given new storage too.
	row := func(e ast.Expr) bool {
		for ix, ok := ast.Unparen(e).(*ast.IndexExpr); ok; ix, ok = ast.Unparen(ix.X).(*ast.IndexExpr) {
			if is(ix.X) {
				return holdsStorage(p.Info.TypeOf(e))
			}
		}
		return false
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				switch {
				case is(l):
					if len(x.Rhs) != len(x.Lhs) || !p.newStorage(x.Rhs[i], calls) {
						fresh = false
					}
				case row(l):
					if len(x.Rhs) != len(x.Lhs) || !p.newStorage(x.Rhs[i], false) {
						fresh = false
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range x.Names {
				if p.Info.Defs[id] == obj && i < len(x.Values) && (len(x.Values) != len(x.Names) || !p.newStorage(x.Values[i], calls)) {
					fresh = false
				}
			}
		case *ast.RangeStmt:
			if is(x.Key) || x.Value != nil && is(x.Value) {
				fresh = false
			}
		}
		return fresh
	})
	return fresh
}

// newStorage reports whether e makes new storage (see freshStorage).
func (p *Package) newStorage(e ast.Expr, calls bool) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		_, ok := ast.Unparen(x.X).(*ast.CompositeLit)
		return x.Op == token.AND && ok
	case *ast.Ident:
		if !calls {
			return false
		}
		v, ok := p.Info.Uses[x].(*types.Var)
		if !ok {
			return false
		}
		for _, s := range p.Subs {
			for _, sv := range s.Shared {
				if sv.Obj == v {
					return true // another shared variable's storage (a, b = b, a)
				}
			}
		}
		return false
	case *ast.CallExpr:
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			if b, ok := p.Info.Uses[id].(*types.Builtin); ok {
				return b.Name() == "make" || b.Name() == "new"
			}
		}
		if !calls {
			return false
		}
		fn := typeutil.StaticCallee(p.Info, x)
		if fn == nil {
			return false
		}
		for _, s := range p.Subs {
			if s.Obj == fn.Origin() && s.Decl.Body != nil {
				return p.returnsFresh(s)
			}
		}
	}
	return false
}

// returnsFresh reports whether every result s returns is a local variable
// of s given only new storage (grid(n): g := make([][]T, n); g[i] =
// make(...); return g).
func (p *Package) returnsFresh(s *Sub) bool {
	fresh := true
	ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(x.Results) == 0 {
				fresh = false
			}
			for _, r := range x.Results {
				id, ok := ast.Unparen(r).(*ast.Ident)
				v, isVar := p.Info.Uses[id].(*types.Var)
				if !ok || !isVar || v.Parent() == p.Types.Scope() || !p.assignedFresh(s.Decl.Body, v, false) || p.isParam(s, v) {
					fresh = false
				}
			}
		}
		return fresh
	})
	return fresh
}

// isParam reports whether v is a parameter or result of s.
func (p *Package) isParam(s *Sub, v *types.Var) bool {
	var t types.Type
	if s.Lit != nil {
		t = p.Info.TypeOf(s.Lit)
	} else if d := p.Info.Defs[s.Decl.Name]; d != nil {
		t = d.Type()
	}
	sig, ok := t.(*types.Signature)
	if !ok {
		return true
	}
	for i := range sig.Params().Len() {
		if sig.Params().At(i) == v {
			return true
		}
	}
	for i := range sig.Results().Len() {
		if sig.Results().At(i) == v {
			return true
		}
	}
	return false
}

// checkedUse reports whether the use id of a shared variable (or of a
// parameter that stands for one) reaches its storage only through access
// checks; stack holds id's ancestors, innermost last.
func (p *Package) checkedUse(id *ast.Ident, stack []ast.Node, checked map[ast.Expr]bool, ranges map[*ast.RangeStmt]bool, shared map[types.Object]*SharedVar) bool {
	var child ast.Node = id
	i := len(stack) - 1
	parent := func() ast.Node {
		if i < 0 {
			return nil
		}
		return stack[i]
	}
	// Climb the index chain: a[i][j] is checked when its outermost index
	// expression is an access check that yields an element (not a row).
	for i >= 0 {
		switch x := stack[i].(type) {
		case *ast.IndexExpr:
			if x.X != child {
				break
			}
			child, i = x, i-1
			continue
		case *ast.SliceExpr:
			if x.X != child {
				break
			}
			child, i = x, i-1
			continue
		case *ast.ParenExpr:
			child, i = x, i-1
			continue
		}
		break
	}
	if ix, ok := child.(*ast.IndexExpr); ok && checked[ix] {
		if holdsStorage(p.Info.TypeOf(ix)) {
			// A row as a value: checked only as an argument a function
			// of the package receives as a shared parameter (below).
		} else if u, ok := parent().(*ast.UnaryExpr); ok && u.Op == token.AND {
			return false // its address leaves the check
		} else {
			_, isArray := p.Info.TypeOf(ix).Underlying().(*types.Array)
			return !isArray
		}
	}
	switch x := parent().(type) {
	case *ast.CallExpr:
		if fn, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			if b, ok := p.Info.Uses[fn].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
				return true
			}
		}
		callee := typeutil.StaticCallee(p.Info, x)
		if callee == nil {
			return false
		}
		params := callee.Origin().Type().(*types.Signature).Params()
		for k, arg := range x.Args {
			if arg == child && k < params.Len() && shared[params.At(k)] != nil {
				return true
			}
		}
		return false
	case *ast.RangeStmt:
		// Keys only read no element; values are checked before the loop.
		return x.X == child && (x.Value == nil || ranges[x])
	case *ast.AssignStmt:
		// a, b = b, a: storage moves between shared variables.
		for k, r := range x.Rhs {
			if r == child && len(x.Lhs) == len(x.Rhs) {
				if lid, ok := ast.Unparen(x.Lhs[k]).(*ast.Ident); ok {
					return shared[p.Info.Uses[lid]] != nil || shared[p.Info.Defs[lid]] != nil
				}
			}
		}
		for _, l := range x.Lhs {
			if l == child {
				return true // the variable is given other storage
			}
		}
	}
	return false
}
