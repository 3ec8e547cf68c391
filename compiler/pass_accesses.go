package compiler

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// AccessesPass numbers the program's accesses of shared variables (issue
// 15): every element access a[i], a[i][j] whose root is a variable named
// in a shared directive, in the functions of the package, in file and
// source order from 1. Codegen puts the SVM layer's access check on each
// (a read or a write of the element's page), and fault records name the
// access by its number ("instruction address"), which the program
// information file turns into a position.
//
// Accesses through a parameter are numbered too when a call of a function
// of the package passes it a shared variable's storage (a, a[i] of a
// [][]T, a[lo:hi], &arr), transitively: the pdo body's helper that updates
// a[i] through its own parameter touches the same pages. The check keys on
// the address, so a call of the helper with other storage costs one test
// and records nothing.
//
// Accesses in function literals are numbered too: codegen gives such a
// literal the processor of the goroutine that runs it (a literal may run
// on a goroutine the program starts, which must not use the enclosing
// function's processor; on one that is no processor the checks do
// nothing). So are accesses through the struct field a shared variable
// was taken from (fieldAliases), except in accessors the Go compiler
// inlines (dropAccessorChecks).
var AccessesPass = newPass("accesses", "number the accesses of shared variables", (*Package).numberAccesses, StructurePass, CallsPass)

// Access is one numbered access of a shared variable.
type Access struct {
	Num  int
	Var  *SharedVar
	Sub  *Sub
	File *File
	Expr *ast.IndexExpr // the outermost index expression of the chain; nil for a range
	// Range is a range statement that reads the elements of shared
	// storage by value (for _, x := range a): its check stands before it,
	// for all of them (codegen's rangeCheck).
	Range *ast.RangeStmt
	Write bool
	// Row, in a program built for ranks, is the check that stands for
	// this one before its innermost loop (rowcheck.go); nil: checked here.
	Row *RowCheck
}

// Pos and End are where the access is written: its index expression, or
// the range statement's operand.
func (a *Access) Pos() token.Pos {
	if a.Range != nil {
		return a.Range.X.Pos()
	}
	return a.Expr.Pos()
}

func (a *Access) End() token.Pos {
	if a.Range != nil {
		return a.Range.X.End()
	}
	return a.Expr.End()
}

// sharedStorage maps the shared variables, and the parameters and range
// values that stand for one (reachParams, rangeAliases), to the variable;
// nil where the package has none. It is computed once (the races pass,
// the accesses' numbering and the checked variables all ask, the ranks'
// warnings once per write they look at); callers only read it.
func (p *Package) sharedStorage() map[types.Object]*SharedVar {
	if !p.sharedDone {
		p.sharedMemo, p.sharedDone = p.computeSharedStorage(), true
	}
	return p.sharedMemo
}

func (p *Package) computeSharedStorage() map[types.Object]*SharedVar {
	shared := map[types.Object]*SharedVar{}
	for _, s := range p.Subs {
		for _, v := range s.Shared {
			shared[v.Obj] = v
		}
	}
	if len(shared) == 0 {
		return nil
	}
	// Parameters given shared storage, the rows a range reads and the
	// struct fields a shared variable was taken from stand for their
	// variable; each may lead to more of the others.
	for p.reachParams(shared) || p.rangeAliases(shared) || p.fieldAliases(shared) {
	}
	return shared
}

func (p *Package) numberAccesses() []*Access {
	shared := p.sharedStorage()
	if shared == nil {
		return nil
	}
	ranges := p.checkableRanges(shared)
	var out []*Access
	for _, s := range p.Subs {
		if s.Decl.Body == nil {
			continue
		}
		writes := p.elementWrites(s.Decl.Body)
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.RangeStmt:
				if v := ranges[x]; v != nil {
					out = append(out, &Access{Num: p.cfg.AccessBase + len(out) + 1, Var: v, Sub: s, File: s.File, Range: x})
				}
			case *ast.IndexExpr:
				v := p.sharedRoot(x, shared)
				if v == nil {
					return true
				}
				out = append(out, &Access{Num: p.cfg.AccessBase + len(out) + 1, Var: v, Sub: s, File: s.File, Expr: x, Write: writes[x]})
				// The indices of the chain may access shared variables too.
				for e := ast.Expr(x); ; {
					ix, ok := ast.Unparen(e).(*ast.IndexExpr)
					if !ok {
						break
					}
					ast.Inspect(ix.Index, visit)
					e = ix.X
				}
				return false
			}
			return true
		}
		ast.Inspect(s.Decl.Body, visit)
	}
	out = p.dropAccessorChecks(out)
	if p.cfg.Ranks {
		p.hoistRows(out)
	}
	return out
}

// fieldRooted reports whether the index chain x starts at a struct field
// (s.Pos[i]), not at a variable.
func (p *Package) fieldRooted(x *ast.IndexExpr) bool {
	var e ast.Expr = x
	for {
		ix, ok := ast.Unparen(e).(*ast.IndexExpr)
		if !ok {
			break
		}
		e = ix.X
	}
	_, ok := ast.Unparen(e).(*ast.SelectorExpr)
	return ok
}

// dropAccessorChecks leaves out the accesses through a field a shared
// variable was taken from (fieldAliases) in a function they alone would
// instrument: an accessor such as At(i, j) { return m.Data[i*m.C+j] },
// which InlinePass leaves plain, so that the Go compiler inlines it (its
// check would make every call of every value of the type a call of an
// instrumented function: a matrix product through At ran 4× slower). The
// others are numbered again in order.
func (p *Package) dropAccessorChecks(accs []*Access) []*Access {
	if p.cfg.InstrumentAll {
		return accs
	}
	busy := map[*Sub]bool{}
	calls, _ := ResultOf[[]*MsgCall](p, CallsPass)
	for _, c := range calls {
		busy[c.Sub] = true
	}
	for _, a := range accs {
		if a.Expr == nil || !p.fieldRooted(a.Expr) {
			busy[a.Sub] = true
		}
	}
	e := p.plainEstimate(busy)
	kept := accs[:0]
	for _, a := range accs {
		if busy[a.Sub] || e.of(a.Sub) > inlineBudget {
			a.Num = p.cfg.AccessBase + len(kept) + 1
			kept = append(kept, a)
		}
	}
	return kept
}

// reachParams adds to shared the parameters of the package's functions
// that receive a shared variable's storage at some call (outside function
// literals); each stands for the variable passed first. It reports
// whether it added any (sharedStorage repeats it until none).
func (p *Package) reachParams(shared map[types.Object]*SharedVar) bool {
	withBody := map[*types.Func]bool{}
	for _, s := range p.Subs {
		if s.Obj != nil && s.Decl.Body != nil {
			withBody[s.Obj] = true
		}
	}
	changed := false
	p.inspectBodies(func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			fn := typeutil.StaticCallee(p.Info, x)
			if fn == nil || !withBody[fn.Origin()] {
				return true
			}
			sig := fn.Origin().Type().(*types.Signature)
			params := sig.Params()
			for i, arg := range x.Args {
				if i >= params.Len() || i == params.Len()-1 && sig.Variadic() {
					break // a variadic parameter collects copies
				}
				par := params.At(i)
				if shared[par] != nil || !holdsStorage(par.Type()) {
					continue
				}
				if v := p.storageRoot(arg, shared); v != nil {
					shared[par] = v
					changed = true
				}
			}
		}
		return true
	})
	return changed
}

// fieldAliases adds to shared the struct fields whose storage a shared
// variable was taken from (data := s.Pos, data := s.Arr[:]; shared
// names variables, not fields): an access through the field, s.Pos[i] or
// t.Pos[i] of any value of the type, in any function of the package, is
// checked as one of the variable's, keyed on the address like a
// parameter's (storage of another value costs one test and records
// nothing). It reports whether it added any.
func (p *Package) fieldAliases(shared map[types.Object]*SharedVar) bool {
	changed := false
	for _, s := range p.Subs {
		if s.Decl.Body == nil {
			continue
		}
		p.definitions(s.Decl.Body, func(o types.Object, rhs ast.Expr) {
			v := shared[o]
			if rhs == nil || v == nil || v.Obj != o {
				return // only the variable the directive names
			}
			if f := p.storageField(rhs); f != nil && shared[f] == nil {
				shared[f] = v
				changed = true
			}
		})
	}
	return changed
}

// storageField is the struct field (its generic origin) whose storage e
// refers to: a field that holds storage (s.Pos), or a slicing of one or
// of an array field (s.Pos[lo:hi], s.Arr[:]); nil otherwise.
func (p *Package) storageField(e ast.Expr) types.Object {
	sliced := false
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SliceExpr:
			e, sliced = x.X, true
		case *ast.SelectorExpr:
			f := p.fieldOf(x)
			if f == nil {
				return nil
			}
			if _, isArray := f.Type().Underlying().(*types.Array); holdsStorage(f.Type()) || sliced && isArray {
				return f
			}
			return nil
		default:
			return nil
		}
	}
}

// fieldOf is the field (its generic origin) a selector expression selects,
// nil if it selects no field.
func (p *Package) fieldOf(x *ast.SelectorExpr) *types.Var {
	sel := p.Info.Selections[x]
	if sel == nil || sel.Kind() != types.FieldVal {
		return nil
	}
	return sel.Obj().(*types.Var).Origin()
}

// inspectBodies walks the body of every function of the package.
func (p *Package) inspectBodies(visit func(ast.Node) bool) {
	for _, s := range p.Subs {
		if s.Decl.Body != nil {
			ast.Inspect(s.Decl.Body, visit)
		}
	}
}

// holdsStorage reports whether a value of type t refers to storage rather
// than copying it: a slice or a pointer to an array.
func holdsStorage(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return true
	case *types.Pointer:
		_, ok := u.Elem().Underlying().(*types.Array)
		return ok
	}
	return false
}

// storageRoot returns the shared variable whose storage the argument e
// refers to: the variable itself, an element that is a slice (a row of a
// [][]T), a slicing of it, or its address; nil otherwise.
func (p *Package) storageRoot(e ast.Expr, shared map[types.Object]*SharedVar) *SharedVar {
	if !holdsStorage(p.Info.TypeOf(e)) {
		return nil
	}
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return shared[p.Info.Uses[x]]
		case *ast.SelectorExpr:
			if f := p.fieldOf(x); f != nil {
				return shared[f]
			}
			return nil
		case *ast.SliceExpr:
			e = x.X
		case *ast.IndexExpr:
			switch p.Info.TypeOf(x.X).Underlying().(type) {
			case *types.Slice, *types.Array:
				e = x.X
			default:
				return nil
			}
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// sharedRoot returns the shared variable at the root of an index chain
// (a[i][j] → a), nil if there is none or the chain indexes something that
// is not a slice or array (a map, a string, a generic function).
func (p *Package) sharedRoot(x *ast.IndexExpr, shared map[types.Object]*SharedVar) *SharedVar {
	var e ast.Expr = x
	for {
		ix, ok := ast.Unparen(e).(*ast.IndexExpr)
		if !ok {
			break
		}
		switch p.Info.TypeOf(ix.X).Underlying().(type) {
		case *types.Slice, *types.Array:
		case *types.Pointer: // a pointer to an array
		default:
			return nil
		}
		e = ix.X
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return shared[p.Info.Uses[x]]
	case *ast.SelectorExpr: // a field a shared variable was taken from
		if f := p.fieldOf(x); f != nil {
			return shared[f]
		}
	}
	return nil
}

// elementWrites is writtenExprs with the elements a write goes into
// through their fields: pos[i].X = v and pos[i].arr[k]++ write pos[i]
// (a field of a value, or an element of an array value, is the element's
// storage), where a[i].p.X = v through a pointer field only reads a[i].
func (p *Package) elementWrites(body *ast.BlockStmt) map[ast.Expr]bool {
	w := writtenExprs(body)
	for e := range w {
		for {
			var inner ast.Expr
			switch x := ast.Unparen(e).(type) {
			case *ast.SelectorExpr:
				if sel := p.Info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal && !sel.Indirect() {
					inner = x.X
				}
			case *ast.IndexExpr:
				if t := p.Info.TypeOf(x.X); t != nil {
					if _, ok := t.Underlying().(*types.Array); ok {
						inner = x.X
					}
				}
			}
			if inner == nil {
				break
			}
			e = ast.Unparen(inner)
			w[e] = true
		}
	}
	return w
}

// writtenExprs are the expressions of body that are written: assigned,
// incremented, range keys and values, and operands of & (their address
// may be written through).
func writtenExprs(body *ast.BlockStmt) map[ast.Expr]bool {
	w := map[ast.Expr]bool{}
	assigned(body, func(e ast.Expr) { w[ast.Unparen(e)] = true })
	ast.Inspect(body, func(n ast.Node) bool {
		if x, ok := n.(*ast.UnaryExpr); ok && x.Op == token.AND {
			w[ast.Unparen(x.X)] = true
		}
		return true
	})
	return w
}

// assigned calls f with each expression body assigns to: the left of = and
// op=, the operand of ++ and --, the key and value of a range with =.
func assigned(body ast.Node, f func(ast.Expr)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, l := range x.Lhs {
					f(l)
				}
			}
		case *ast.IncDecStmt:
			f(x.X)
		case *ast.RangeStmt:
			if x.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if e != nil {
						f(e)
					}
				}
			}
		}
		return true
	})
}
