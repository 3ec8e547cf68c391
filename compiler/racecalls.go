package compiler

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
)

// Calls in a pdo's body that write shared storage without naming it
// there: a closure of the function around the loop that assigns a
// variable it captured (bump := func() { hits++ }), and a method of the
// package called on a variable every processor shares that writes through
// its pointer receiver (c.inc(), or inc() with inc := c.inc). Every
// processor's calls write the same storage at once. Writes the callee
// makes holding a mutex, or in a critical section, are serialised.

// callWrite is what a call in a pdo's body writes of the storage every
// processor shares.
type callWrite struct {
	call    string       // the call's text: bump, st.add, rec (r.h.record)
	recv    string       // a method's receiver: st, r.h
	v       types.Object // the variable written (a closure's) or holding the receiver
	at      token.Pos    // the write
	closure bool         // the callee is a function literal (else a method)
	// elem is, for a method's write of an element of a slice or array,
	// the element's text (h.Bins[b]) and why calls of different
	// iterations may write one element (possible): "" for a whole write.
	elem, possible string
	fixed          bool // elem: every call writes the same elements
}

// recvWrite is a write a method makes through its pointer receiver.
type recvWrite struct {
	at token.Pos
	// elem is the element written, for a slice's or an array's (""
	// for a write of the receiver's fields themselves).
	elem string
	// For an element: fixed, no argument picks it (every call writes the
	// same ones); value, the parameter whose value the index is computed
	// from through more than + - * (int(x / h.Width)), so that calls may
	// pick one element; else params, the parameters the index is made of
	// (the calls' arguments pick the element).
	fixed  bool
	value  int // the parameter's position, -1 for none
	params []int
	in     *types.Func // the method whose parameters value and params are
	// more are the other elements picked by parameters (c.a[i] = v;
	// c.b[k]++): the call's arguments are checked for each.
	more []*recvWrite
}

// sharedCallWrite is what call writes of the storage every processor
// shares, nil for nothing; dist are the loop's variables, and outside
// tells the variables declared outside the loop nest.
func (p *Package) sharedCallWrite(call *ast.CallExpr, dist map[types.Object]string, outside func(types.Object) bool) *callWrite {
	fun := ast.Unparen(call.Fun)
	via := ""
	if id, isID := fun.(*ast.Ident); isID {
		o, isVar := p.Info.Uses[id].(*types.Var)
		if !isVar || !outside(o) {
			return nil
		}
		if lit := p.onlyFuncLit(o); lit != nil {
			if w, wat := p.capturedWrite(lit); w != nil {
				return &callWrite{call: id.Name, v: w, at: wat, closure: true}
			}
			return nil
		}
		if sel := p.methodValueOf(o); sel != nil {
			fun = sel // inc := c.inc: the call is c.inc()
			via = id.Name + " (" + p.Text(sel) + ")"
		}
	}
	sel, isSel := fun.(*ast.SelectorExpr)
	if !isSel {
		return nil
	}
	s := p.Info.Selections[sel]
	if s == nil || s.Kind() == types.FieldVal {
		return nil
	}
	fn, isFn := s.Obj().(*types.Func)
	if !isFn || fn.Pkg() != p.Types {
		return nil
	}
	if _, ptr := fn.Signature().Recv().Type().(*types.Pointer); !ptr {
		return nil
	}
	// The receiver is one variable for every iteration: c, c.stats, *c;
	// not xs[i] (each iteration may have its own element).
	root := sel.X
	for {
		switch x := ast.Unparen(root).(type) {
		case *ast.SelectorExpr:
			root = x.X
			continue
		case *ast.StarExpr:
			root = x.X
			continue
		}
		break
	}
	id, isID := ast.Unparen(root).(*ast.Ident)
	if !isID || !outside(p.Info.Uses[id]) {
		return nil
	}
	rw := p.receiverWrite(fn, map[*types.Func]bool{})
	if rw == nil {
		return nil
	}
	if via == "" {
		via = p.Text(sel)
	}
	w := &callWrite{call: via, recv: p.Text(sel.X), v: p.Info.Uses[id], at: rw.at, elem: rw.elem}
	switch {
	case rw.elem == "":
	case rw.fixed:
		w.possible, w.fixed = "no argument of the call picks the element (every call writes the same ones)", true
	case rw.value >= 0:
		arg := "its argument " + rw.in.Signature().Params().At(rw.value).Name()
		if rw.in != fn.Origin() {
			arg = "the argument " + rw.in.Signature().Params().At(rw.value).Name() + " of " + rw.in.Name()
		} else if rw.value < len(call.Args) {
			arg += " (here " + p.Text(call.Args[rw.value]) + ")"
		}
		w.possible = "the index is computed from the value of " + arg + ", and different values may give one index"
	default:
		// g.Set(x, y, v): the arguments pick the element; a[i] or i%4
		// there may pick one for several iterations.
		for _, e := range append([]*recvWrite{rw}, rw.more...) {
			var args []ast.Expr
			for _, k := range e.params {
				if k < len(call.Args) {
					args = append(args, call.Args[k])
				}
			}
			if why := p.manyToOne(args, dist, outside); why != "" {
				w.elem, w.at, w.possible = e.elem, e.at, "the argument that picks the element "+why
				return w
			}
		}
		return nil
	}
	return w
}

// warnCallWrite warns at the call at pos, in the body of the pdo at line,
// of what it writes (sharedCallWrite).
func (p *Package) warnCallWrite(w *callWrite, pos token.Pos, line int) {
	where := p.Fset.Position(w.at)
	_, isMap := w.v.Type().Underlying().(*types.Map)
	switch {
	case w.closure && isMap:
		p.warnf(pos, "%s, called in the body of the pdo at line %d, is a function literal that writes the map %s (line %d) of the code around the loop: every processor's calls write it at once, and Go maps must not be written concurrently (the runtime may crash); hold a sync.Mutex or a //svm:critical section around the write, or give each processor its own map and merge them after the loop", w.call, line, w.v.Name(), where.Line)
	case w.closure:
		p.warnf(pos, "%s, called in the body of the pdo at line %d, is a function literal that assigns %s (line %d), a variable of the code around the loop: every processor's calls write it at once (a race); declare reduction(op: %s) and update it in the body, hold a sync.Mutex or a //svm:critical section around the assignment, or return the value", w.call, line, w.v.Name(), where.Line, w.v.Name())
	case w.elem != "":
		race := "so the writes of different iterations may race (a possible conflict)"
		if w.fixed {
			race = "so the writes race"
		}
		p.warnf(pos, "%s, called in the body of the pdo at line %d, writes %s through its pointer receiver (%s:%d), and every processor calls it on the same %s: %s, %s; call it in a //svm:critical section or with //svm:atomic in the method, hold a sync.Mutex in the method, or give each processor its own %s and combine them after the loop", w.call, line, w.elem, filepath.Base(where.Filename), where.Line, w.recv, w.possible, race, w.recv)
	default:
		p.warnf(pos, "%s, called in the body of the pdo at line %d, writes through its pointer receiver (%s:%d), and every processor calls it on the same %s: the writes race; call it in a //svm:critical section, hold a sync.Mutex in the method, or give each iteration or processor its own %s", w.call, line, filepath.Base(where.Filename), where.Line, w.recv, w.recv)
	}
}

// onlyFuncLit is the function literal v is given, when it is given one
// and nothing else (var f func(int) int; f = func… for a recursive
// literal counts); nil otherwise.
func (p *Package) onlyFuncLit(v *types.Var) *ast.FuncLit {
	var lit *ast.FuncLit
	other := false
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && (p.Info.Defs[id] == v || p.Info.Uses[id] == v)
	}
	give := func(rhs ast.Expr) {
		if l, ok := ast.Unparen(rhs).(*ast.FuncLit); ok && lit == nil {
			lit = l
		} else {
			other = true
		}
	}
	for _, f := range p.Files {
		if f.Syntax.Pos() > v.Pos() || v.Pos() >= f.Syntax.End() {
			continue
		}
		ast.Inspect(f.Syntax, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if !is(l) {
						continue
					}
					if (x.Tok == token.ASSIGN || x.Tok == token.DEFINE) && len(x.Rhs) == len(x.Lhs) {
						give(x.Rhs[i])
					} else {
						other = true
					}
				}
			case *ast.ValueSpec:
				for i, name := range x.Names {
					if is(name) && len(x.Values) > 0 {
						if len(x.Values) == len(x.Names) {
							give(x.Values[i])
						} else {
							other = true
						}
					}
				}
			case *ast.RangeStmt:
				if x.Key != nil && is(x.Key) || x.Value != nil && is(x.Value) {
					other = true
				}
			case *ast.UnaryExpr:
				if x.Op == token.AND && is(x.X) {
					other = true // &f: it may be given anything
				}
			}
			return true
		})
	}
	if other {
		return nil
	}
	return lit
}

// capturedWrite is a variable declared outside lit that lit's body
// assigns as a whole (x = …, x++, x += …) or, a map, by element (memo[k]
// = v: a map is written as a whole), not holding a mutex or in a critical
// section, with the assignment's position.
func (p *Package) capturedWrite(lit *ast.FuncLit) (types.Object, token.Pos) {
	for e := range writtenExprs(lit.Body) {
		id, ok := e.(*ast.Ident)
		if ix, isIndex := e.(*ast.IndexExpr); isIndex {
			if _, isMap := p.Info.TypeOf(ix.X).Underlying().(*types.Map); isMap {
				id, ok = ast.Unparen(ix.X).(*ast.Ident)
			}
		}
		if !ok {
			continue
		}
		v, ok := p.Info.Uses[id].(*types.Var)
		if !ok || v.IsField() || lit.Pos() <= v.Pos() && v.Pos() < lit.End() || p.guardedAt(id.Pos()) {
			continue
		}
		if _, isAddr := addressTaken(lit.Body, id); isAddr {
			continue // &x: passed on, not written here
		}
		return v, id.Pos()
	}
	return nil, token.NoPos
}

// addressTaken reports whether id appears in body as the operand of &.
func addressTaken(body *ast.BlockStmt, id *ast.Ident) (ast.Node, bool) {
	var at ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND && ast.Unparen(u.X) == id {
			at = u
		}
		return at == nil
	})
	return at, at != nil
}

// receiverWrite is a write fn (a method of the package) makes through its
// pointer receiver, itself or through methods it calls on it, not holding
// a mutex or in a critical section; nil for none. A write of the
// receiver's fields comes first; an element of a slice or array (g.cells[i]
// = v, h.bins[b]++) is one where its index may repeat between calls
// (elementPick), and otherwise which one depends on the arguments, so
// that iterations that pass their own index write apart (a map's element
// is not: a map is written as a whole).
func (p *Package) receiverWrite(fn *types.Func, seen map[*types.Func]bool) *recvWrite {
	fn = fn.Origin()
	if seen[fn] {
		return nil
	}
	seen[fn] = true
	decl, recv, ok := p.methodBody(fn)
	if !ok {
		return nil
	}
	// In source order, so that the message names the same write every run.
	writes := slices.SortedFunc(maps.Keys(writtenExprs(decl.Body)), func(x, y ast.Expr) int { return cmp.Compare(x.Pos(), y.Pos()) })
	var elem *recvWrite
	for _, e := range writes {
		if _, whole := e.(*ast.Ident); whole {
			continue // r = other: the method's own copy of the pointer
		}
		if id := rootIdent(e); id != nil && p.Info.Uses[id] == recv && !p.guardedAt(e.Pos()) {
			if !p.indexedElement(e) {
				return &recvWrite{at: e.Pos()}
			}
			// The first element every call writes, else the first
			// picked by an argument's value, else the parameters of
			// every element (the call's arguments there).
			switch w := p.elementPick(decl, fn, e); {
			case elem == nil, w.fixed && !elem.fixed, w.value >= 0 && !elem.fixed && elem.value < 0:
				elem = w
			case !w.fixed && w.value < 0 && !elem.fixed && elem.value < 0:
				elem.more = append(elem.more, w)
			}
		}
	}
	for _, mc := range p.methodWrites(decl.Body) {
		if mc.fn.Pkg() != p.Types || p.guardedAt(mc.recv.Pos()) {
			continue
		}
		if id := rootIdent(mc.recv); id != nil && p.Info.Uses[id] == recv {
			// The callee's parameters are not fn's: only its own
			// writes and the elements no argument of fn picks count.
			if w := p.receiverWrite(mc.fn, seen); w != nil && (w.elem == "" || w.fixed || w.value >= 0) {
				return w
			}
		}
	}
	return elem
}

// elementPick says how the element that write e (of an element of a
// slice or array) in method fn, declared by decl, is picked: by the
// method's integer parameters through + - * of constants and fields
// (params), from the value of a parameter otherwise (value, its position: int(x / w),
// b := x % n), or by none (fixed). A local defined from parameters (b :=
// int(x / h.Width)) stands for what it is computed from.
func (p *Package) elementPick(decl *ast.FuncDecl, fn *types.Func, e ast.Expr) *recvWrite {
	sig := fn.Signature()
	const index, value = 1, 2
	like := map[types.Object]int{}
	param := map[types.Object]int{}
	for i := range sig.Params().Len() {
		v := sig.Params().At(i)
		param[v] = i
		like[v] = value
		if isInteger(v.Type()) {
			like[v] = index
		}
	}
	// params are the parameters an expression is computed from (through
	// the locals defined from them).
	deps := map[types.Object][]int{}
	params := func(e ast.Expr) []int {
		var ks []int
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				o := p.Info.Uses[id]
				if k, isParam := param[o]; isParam {
					ks = append(ks, k)
				}
				ks = append(ks, deps[o]...)
			}
			return true
		})
		return ks
	}
	// byIndex reports whether e, which mentions what the arguments give,
	// is made of it only through + - * of constants and fields, and of
	// integers (an index of its own for each argument).
	var byIndex func(e ast.Expr) bool
	byIndex = func(e ast.Expr) bool {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return like[p.Info.Uses[x]] != value
		case *ast.BasicLit, *ast.SelectorExpr:
			return true
		case *ast.UnaryExpr:
			return (x.Op == token.SUB || x.Op == token.ADD) && byIndex(x.X)
		case *ast.BinaryExpr:
			return (x.Op == token.ADD || x.Op == token.SUB || x.Op == token.MUL) && byIndex(x.X) && byIndex(x.Y)
		}
		// A call, a conversion, / % >> &, an element read: by value
		// when computed from an argument.
		return len(params(e)) == 0
	}
	// Locals defined from parameters, to a fixed point.
	for changed := true; changed; {
		changed = false
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			s, ok := n.(*ast.AssignStmt)
			if !ok || s.Tok != token.DEFINE || len(s.Lhs) != len(s.Rhs) {
				return true
			}
			for i, lhs := range s.Lhs {
				id, _ := lhs.(*ast.Ident)
				o := p.Info.Defs[id]
				if id == nil || o == nil || like[o] != 0 {
					continue
				}
				if ks := params(s.Rhs[i]); len(ks) > 0 {
					deps[o], like[o] = ks, value
					if isInteger(o.Type()) && byIndex(s.Rhs[i]) {
						like[o] = index
					}
					changed = true
				}
			}
			return true
		})
	}
	w := &recvWrite{at: e.Pos(), elem: p.Text(e), fixed: true, value: -1, in: fn}
	for x := e; x != nil; x = writeStep(x) {
		ix, ok := ast.Unparen(x).(*ast.IndexExpr)
		if !ok {
			continue
		}
		ks := params(ix.Index)
		if len(ks) == 0 {
			continue
		}
		w.fixed = false
		if !byIndex(ix.Index) {
			w.value, w.params = ks[0], nil
			return w
		}
		w.params = append(w.params, ks...)
	}
	return w
}

// indexedElement reports whether the written expression e is, or lies in,
// an element of a slice or an array.
func (p *Package) indexedElement(e ast.Expr) bool {
	for ; e != nil; e = writeStep(e) {
		if ix, ok := ast.Unparen(e).(*ast.IndexExpr); ok {
			switch t := p.Info.TypeOf(ix.X).Underlying().(type) {
			case *types.Slice, *types.Array:
				return true
			case *types.Pointer:
				if _, ok := t.Elem().Underlying().(*types.Array); ok {
					return true
				}
			}
		}
	}
	return false
}
