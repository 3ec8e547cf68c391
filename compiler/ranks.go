package compiler

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svmc/svmc/directives"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// rankPrivate warns, for a program built to run as the ranks of an MPI
// job (Config.Ranks: svmc run|build --mpi), where a pdo body writes a
// variable declared outside the loop nest that is neither shared nor a
// reduction variable: each rank runs only its processor's iterations and
// keeps the variable to itself, so after the loop every rank holds its
// own part of it (issue 16). Writes in critical sections and under locks
// count too: those order the processors of every rank, but only shared
// storage travels between ranks.
func (p *Package) rankPrivate(c *Construct) {
	if c.Sub == nil {
		return
	}
	info := c.PDO
	nest := info.Loops[0].Stmt
	line := p.Fset.Position(c.Pos()).Line
	keep := map[types.Object]bool{}
	for _, r := range info.Reds {
		keep[r.Obj] = true
	}
	p.rankChannels(info.Body, nest, line)
	p.outsideWrites(c, info.Body, nest, keep, func(e ast.Expr, o types.Object, mc *methodCall) bool {
		if mc != nil {
			p.warnf(e.Pos(), "%s is private to each rank under --mpi: the pdo at line %d calls %s in each processor's iterations, on that processor's rank only, and the method may change what it is called on (a pointer receiver), so after the loop every rank holds its own changes; %s", o.Name(), line, mc.text, p.elementMethodAdvice(mc, o))
			return true
		}
		fix := "declare it //svm:shared " + o.Name() + " (the elements each rank writes travel at the loop's end)"
		if o.Parent() == o.Pkg().Scope() {
			// The directive stands in a function's body, not beside
			// the package-level declaration.
			fix = "declare it //svm:shared " + o.Name() + " in main (or the function that makes it) before the loop: a package-level variable is shared from a function's body (the elements each rank writes travel at the loop's end)"
		}
		// Owner computes: elements read again only by the iterations
		// that wrote them (a k-means' assignments, x480) need not travel.
		fix += "; if nothing but the same iterations of a later pdo over the same space reads them, each rank holds what it needs and //svm:ignore race silences this"
		if _, whole := ast.Unparen(e).(*ast.Ident); whole {
			fix = "combine it with a reduction, reduction(+: " + o.Name() + ") for a count or sum (a shared scalar that every rank writes keeps one rank's value)"
			if b, ok := o.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsBoolean != 0 {
				fix = "combine it with a reduction: reduction(||: " + o.Name() + ") when any iteration may set it, reduction(&&: " + o.Name() + ") when every one must"
			} else if !ok || b.Info()&types.IsNumeric == 0 {
				// seen = append(seen, i): no operator combines it.
				what := "a " + kindOf(o.Type()) + " the iterations assign"
				if kindOf(o.Type()) == "slice" {
					what = "a slice the iterations replace (" + o.Name() + " = …, an append or another slice)"
				}
				fix = what + " cannot be combined between ranks: have each iteration write its result into a //svm:shared slice made before the loop, indexed by the iteration, and collect from it after the loop"
			}
		}
		if x := p.elementsOf(e); x != nil {
			if _, named := ast.Unparen(x).(*ast.Ident); !named {
				// next.cells[i]: o itself cannot be declared shared.
				fix = "the elements written belong to " + p.Text(x) + ": share the slice or array it holds where it is made (data := make(…) and then //svm:shared data; shared storage travels between ranks whatever name reaches it; if it is shared already, //svm:ignore race silences this)"
				if _, arr := p.Info.TypeOf(x).Underlying().(*types.Array); arr {
					// An array field is made with its struct: share its storage through a slice.
					fix = "the elements written belong to the array " + p.Text(x) + ", made with what holds it: share its storage through a slice, data := " + p.Text(x) + "[:] and //svm:shared data after it is made (shared storage travels between ranks whatever name reaches it; if it is shared already, //svm:ignore race silences this)"
				}
			}
		}
		if p.writesMap(e) {
			fix = mapAdvice
		}
		if t := p.Info.TypeOf(e); t != nil && p.elementsOf(e) != nil && p.holdsPointers(t) {
			fix = p.pointerAdvice(t)
		}
		if v, ok := o.(*types.Var); ok && p.isParam(c.Sub, v) {
			if shared, other := p.paramStorage(c.Sub, v); len(shared) > 0 {
				fix = "it is a parameter, given shared storage at " + shared[0] + " but not at " + other[0] + ": declare the variable passed there //svm:shared where it is made"
			}
		}
		if f := p.writtenField(e); f != nil {
			if shared, other := p.fieldStorage(f, c.Pos()); len(shared) > 0 && len(other) > 0 {
				fix = "its field " + f.Name() + " is given shared storage at " + shared[0] + " but not at " + other[0] + ": declare the slice assigned there //svm:shared where it is made"
				if other[0] == "other packages" {
					fix = "its field " + f.Name() + " is given shared storage at " + shared[0] + ", and other packages may give it other storage (the field is exported); if they do not, //svm:ignore race silences this"
				}
			}
		}
		p.warnf(e.Pos(), "%s is private to each rank under --mpi: the pdo at line %d writes it in each processor's iterations on that processor's rank only, so after the loop every rank holds its own part of it; %s", o.Name(), line, fix)
		return true
	})
}

// pointerElem is the element of the storage a variable of type t holds
// (through slices, arrays and a pointer to an array) when that element
// holds pointers, which cannot travel between ranks as bytes; nil
// otherwise.
func pointerElem(t types.Type) types.Type {
	if pt, ok := t.Underlying().(*types.Pointer); ok {
		if _, arr := pt.Elem().Underlying().(*types.Array); arr {
			t = pt.Elem()
		}
	}
	t = innermostElem(t)
	if hasPointers(t) {
		return t
	}
	return nil
}

// hasPointers reports whether values of type t hold pointers (as rtlib's
// hasPointers does at run time).
func hasPointers(t types.Type) bool {
	if tp, ok := t.(*types.TypeParam); ok {
		return mayHoldPointers(tp)
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0 || u.Kind() == types.UnsafePointer
	case *types.Array:
		return u.Len() > 0 && hasPointers(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if hasPointers(u.Field(i).Type()) {
				return true
			}
		}
		return false
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		return true
	}
	return false
}

// mayHoldPointers reports whether some type of a type parameter's type
// set holds pointers: a constraint with methods or without a union of
// types (any, comparable, Stringer) allows any type; T Number's ~int |
// ~float64 none.
func mayHoldPointers(tp *types.TypeParam) bool {
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok || iface.NumMethods() > 0 || iface.NumEmbeddeds() == 0 {
		return true
	}
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				if hasPointers(e.Term(j).Type()) {
					return true
				}
			}
		default:
			if hasPointers(e) {
				return true
			}
		}
	}
	return false
}

// elementMethodAdvice is the way out for a call of method mc that may
// change its receiver, o's storage. Called on an element of a slice or
// array o names (tallies[i].Add(v)), the element is written as an
// assignment would write it: sharing o makes the changes travel, unless
// its elements hold pointers, which no sharing carries. Otherwise (and for
// sync and sync/atomic's methods) methodAdvice.
func (p *Package) elementMethodAdvice(mc *methodCall, o types.Object) string {
	generic := methodAdvice(mc.fn)
	if pkg := mc.fn.Pkg(); pkg != nil && (pkg.Path() == "sync" || pkg.Path() == "sync/atomic") {
		return generic
	}
	x := p.elementsOf(mc.recv)
	if x == nil {
		return generic
	}
	if t := p.Info.TypeOf(mc.recv); t != nil && p.holdsPointers(t) {
		return p.pointerAdvice(t)
	}
	if id, named := ast.Unparen(x).(*ast.Ident); named && p.Info.Uses[id] == o {
		return "declare it //svm:shared " + o.Name() + ": " + mc.fn.Name() + " is called on an element, which it changes as an assignment would, and the elements each rank changes travel at the loop's end"
	}
	return generic
}

// pointerAdvice is the way out for storage whose elements (of type elem)
// hold pointers.
func (p *Package) pointerAdvice(elem types.Type) string {
	what := "(" + types.TypeString(elem, types.RelativeTo(p.Types)) + ")"
	if tp, ok := elem.(*types.TypeParam); ok {
		if with, _ := p.typeArgsWithPointers(tp); len(with) > 0 {
			what = "where " + tp.Obj().Name() + " is " + strings.Join(with, ", ")
		}
	}
	return fmt.Sprintf("its elements hold pointers %s, and shared storage travels between ranks as bytes, which pointers cannot (declared //svm:shared or not, what a rank writes there stays on it): have the iterations write values without pointers (numbers, or indexes into data every rank has) into a //svm:shared slice and build the rest from them after the loop",
		what)
}

// holdsPointers is hasPointers, except for a type parameter of a generic
// function of the package whose calls in the package are all known: the
// type arguments they give it decide (Map[T, U any] called with U int
// only holds no pointers; rtlib decides so per instantiation at run
// time).
func (p *Package) holdsPointers(t types.Type) bool {
	if tp, ok := t.(*types.TypeParam); ok {
		if with, found := p.typeArgsWithPointers(tp); found {
			return len(with) > 0
		}
	}
	return hasPointers(t)
}

// typeArgsWithPointers lists the type arguments holding pointers that the
// package's instantiations of the generic function declaring tp give it
// ("string (the call of Map at main.go:41)"); found is false where tp is not a
// function's or the package makes no instantiation of it (a library's
// callers are elsewhere).
func (p *Package) typeArgsWithPointers(tp *types.TypeParam) (with []string, found bool) {
	seen := map[string]bool{}
	for id, inst := range p.Info.Instances {
		fn, ok := p.Info.Uses[id].(*types.Func)
		if !ok || fn.Origin().Signature().TypeParams().Len() <= tp.Index() || fn.Origin().Signature().TypeParams().At(tp.Index()) != tp {
			continue
		}
		found = true
		arg := inst.TypeArgs.At(tp.Index())
		if !hasPointers(arg) {
			continue
		}
		pos := p.Fset.Position(id.Pos())
		w := fmt.Sprintf("%s (the call of %s at %s:%d)", types.TypeString(arg, types.RelativeTo(p.Types)), fn.Name(), filepath.Base(pos.Filename), pos.Line)
		if !seen[w] {
			seen[w] = true
			with = append(with, w)
		}
	}
	slices.Sort(with)
	return with, found
}

// rankChannels warns, built for ranks, at the first send of a pdo body on
// each channel made outside the loop: a channel is one rank's, so what the
// iterations of other ranks send never reaches the receivers of this one
// (a collector goroutine runs on every rank apart and sums its own rank's
// part).
func (p *Package) rankChannels(body *ast.BlockStmt, scope ast.Node, line int) {
	warned := map[types.Object]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		s, ok := n.(*ast.SendStmt)
		if !ok {
			return true
		}
		id := rootIdent(s.Chan)
		if id == nil {
			return true
		}
		v, ok := p.Info.Uses[id].(*types.Var)
		if !ok || warned[v] || scope.Pos() <= v.Pos() && v.Pos() < scope.End() {
			return true
		}
		warned[v] = true
		p.warnf(s.Pos(), "%s is a channel of one rank under --mpi: the pdo at line %d sends into it in each processor's iterations on that processor's rank, and what other ranks send never reaches this rank's receivers; collect the results in a //svm:shared slice indexed by the iteration, or with a reduction", p.Text(s.Chan), line)
		return true
	})
}

// regionBody is the block a region construct (replicated, exclusive)
// applies to: its statement, or the statements up to its end directive.
func regionBody(c *Construct) *ast.BlockStmt {
	switch {
	case c.Stmt != nil:
		body, _ := c.Stmt.(*ast.BlockStmt)
		return body
	case len(c.Body) > 0:
		return &ast.BlockStmt{Lbrace: c.Body[0].Pos(), List: c.Body, Rbrace: c.Body[len(c.Body)-1].End()}
	}
	return nil
}

// rankNested warns, built for ranks, of the constructs in replicated
// region c (body) that need every processor on every rank, which the
// runtime refuses when the region spreads over ranks: a region runs only
// each rank's own processors (rankmsg.go).
func (p *Package) rankNested(c *Construct, body *ast.BlockStmt) {
	line := p.Fset.Position(c.Pos()).Line
	for _, n := range c.Sub.Constructs {
		if n == c || n.Pos() < body.Lbrace || n.Pos() >= body.Rbrace {
			continue
		}
		what := ""
		switch n.Kind() {
		case directives.PDO:
			what = "a pdo"
		case directives.PSection:
			what = "a psection"
		case directives.Exclusive:
			what = "an exclusive region"
		case directives.BarrierCheckin:
			what = "a barrier check-in"
		default:
			continue
		}
		p.warnf(n.Pos(), "%s inside the replicated region at line %d cannot run under --mpi with more than one rank (the run stops there): the region runs only each rank's own processors, and this construct needs every processor on every rank; put it outside the region", what, line)
	}
}

// mapAdvice is the way out for a map an iteration writes: //svm:shared
// takes slices and arrays only.
const mapAdvice = "a map cannot be //svm:shared (the SVM layer keeps slices and arrays in pages): have the iterations write into a //svm:shared slice made before the loop (indexed by the key or by the iteration) and fill the map from it after the loop"

// writesMap reports whether the write e stores into a map (m[k] = v, m[k]++).
func (p *Package) writesMap(e ast.Expr) bool {
	if ix, ok := ast.Unparen(e).(*ast.IndexExpr); ok {
		_, isMap := p.Info.TypeOf(ix.X).Underlying().(*types.Map)
		return isMap
	}
	return false
}

// kindOf names the kind of type t for a message: slice, map, string,
// struct or value.
func kindOf(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return "slice"
	case *types.Map:
		return "map"
	case *types.Struct:
		return "struct"
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return "string"
		}
	}
	return "value"
}

// elementsOf is the slice or array a write stores an element of: x of
// x[i], x[i][j] and x[i].f, rows[i].vals of rows[i].vals[j]; nil where e
// indexes nothing.
func (p *Package) elementsOf(e ast.Expr) ast.Expr {
	for e != nil {
		if x, ok := ast.Unparen(e).(*ast.IndexExpr); ok {
			for {
				ix, ok := ast.Unparen(x.X).(*ast.IndexExpr)
				if !ok {
					return x.X
				}
				x = ix
			}
		}
		e = writeStep(e)
	}
	return nil
}

// writeStep is the expression a step of a written expression reaches
// into: x of x[i], x.f, *x, x[lo:hi] (and a generic instantiation's
// operand); nil at the chain's root. elementsOf, rootIdent and
// writtenField walk a write with it.
func writeStep(e ast.Expr) ast.Expr {
	switch x := ast.Unparen(e).(type) {
	case *ast.IndexExpr:
		return x.X
	case *ast.IndexListExpr:
		return x.X
	case *ast.SelectorExpr:
		return x.X
	case *ast.StarExpr:
		return x.X
	case *ast.SliceExpr:
		return x.X
	}
	return nil
}

// paramStorage says what the calls of s give its parameter v: shared
// lists the calls (line L, or file.go:L) that pass shared storage (a
// shared variable or a parameter given such storage, a row or a slicing of
// one: storageRoot),
// other those that pass anything else, or where s is used otherwise (as
// a value; an exported function of a library package, from outside).
func (p *Package) paramStorage(s *Sub, v *types.Var) (shared, other []string) {
	if s.Obj == nil || s.Decl.Recv != nil {
		return nil, []string{"a method"}
	}
	sig := s.Obj.Type().(*types.Signature)
	k := -1
	for i := range sig.Params().Len() {
		if sig.Params().At(i) == v {
			k = i
		}
	}
	if k < 0 || sig.Variadic() && k == sig.Params().Len()-1 {
		return nil, []string{"not a parameter"}
	}
	if s.Obj.Exported() && p.Types.Name() != "main" {
		other = append(other, "calls from other packages")
	}
	// What the package shares, its parameters given shared storage
	// among it (a chain of calls), as the accesses' numbering sees it.
	declared := p.sharedStorage()
	calls := map[*ast.Ident]bool{}
	p.inspectBodies(func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || typeutil.StaticCallee(p.Info, call) != s.Obj || k >= len(call.Args) {
			return true
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
			calls[id] = true
		}
		at := p.placeFrom(call.Args[k].Pos(), s.Decl.Pos())
		if p.storageRoot(call.Args[k], declared) != nil {
			shared = append(shared, at)
		} else {
			other = append(other, at)
		}
		return true
	})
	var values []token.Pos // uses as a value, in the source's order
	for id, o := range p.Info.Uses {
		if o == s.Obj && !calls[id] {
			values = append(values, id.Pos())
		}
	}
	slices.Sort(values)
	for _, pos := range values {
		other = append(other, p.placeFrom(pos, s.Decl.Pos()))
	}
	return shared, other
}

// writtenField is the struct field whose storage a write stores into
// (out of w.out[i] and w.out[i].x), when that field holds storage (a
// slice, a pointer to an array); nil otherwise.
func (p *Package) writtenField(e ast.Expr) *types.Var {
	for indexed := false; e != nil; e = writeStep(e) {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr, *ast.SliceExpr:
			indexed = true
		case *ast.SelectorExpr:
			sel := p.Info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal {
				return nil
			}
			if f := sel.Obj().(*types.Var); indexed && holdsStorage(f.Type()) {
				return f.Origin() // a generic type's field: one for every instantiation
			}
			indexed = false
		default:
			return nil // the root, *x, a call's result: no field's storage
		}
	}
	return nil
}

// writesSharedFieldsOnly reports whether method fn of the package changes
// its receiver only in elements of fields that every place gives shared
// storage (fieldStorage; m.data[i*m.c+j] = v with data shared where New
// makes it), itself and through the methods it calls on its receiver:
// those writes travel between ranks whatever name reaches them. from
// names places for fieldStorage.
func (p *Package) writesSharedFieldsOnly(fn *types.Func, from token.Pos, seen map[*types.Func]bool) bool {
	fn = fn.Origin()
	if fn.Pkg() != p.Types || seen[fn] {
		return fn.Pkg() == p.Types
	}
	seen[fn] = true
	decl, recv, ok := p.methodBody(fn)
	if !ok {
		return false
	}
	wrote := false
	for e := range writtenExprs(decl.Body) {
		if id := rootIdent(e); id == nil || p.Info.Uses[id] != recv {
			continue
		}
		f := p.writtenField(e)
		if f == nil {
			return false
		}
		if shared, other := p.fieldStorage(f, from); len(shared) == 0 || len(other) > 0 {
			return false
		}
		wrote = true
	}
	p.methodCalls(decl.Body, func(_ ast.Expr, sel *ast.SelectorExpr, callee *types.Func) {
		if id := rootIdent(sel.X); ok && id != nil && p.Info.Uses[id] == recv && p.mayChangeReceiver(callee, map[*types.Func]bool{}) {
			ok = p.writesSharedFieldsOnly(callee, from, seen)
			wrote = wrote || ok
		}
	})
	return ok && wrote
}

// origin is a field's generic origin (itself for any other object).
func origin(o types.Object) types.Object {
	if v, ok := o.(*types.Var); ok {
		return v.Origin()
	}
	return o
}

// fieldStorage sorts the places where the package gives field f a value
// (keyed or positional composite literals, assignments) by whether the
// value is shared storage (sharedStorage), named for a message at from.
// A field other packages can set (exported, outside package main) is
// sorted where the program's other packages set it (fieldsSetOutside),
// or counts as given private storage by "other packages" when they are
// unknown.
func (p *Package) fieldStorage(f *types.Var, from token.Pos) (shared, other []string) {
	return p.fieldStorageOf(f, from, map[*types.Var]bool{})
}

// fieldStorageOf is fieldStorage; a value that is another field of the
// package (g.cur, g.next = g.next, g.cur: a stencil's swap) is shared
// storage when that field's every place is, the fields under question
// (visiting) taken as shared, so that fields given only each other's
// storage and shared storage count as shared.
func (p *Package) fieldStorageOf(f *types.Var, from token.Pos, visiting map[*types.Var]bool) (shared, other []string) {
	visiting[f] = true
	defer delete(visiting, f)
	declared := p.sharedStorage()
	if f.Exported() && p.Types.Name() != "main" {
		if p.cfg.Outside == nil {
			other = append(other, "other packages")
		} else {
			s, o := p.fieldsSetOutside(p.ownerOf(f), f.Name())
			shared, other = append(shared, s...), append(other, o...)
		}
	}
	give := func(value ast.Expr) {
		at := p.placeFrom(value.Pos(), from)
		if declared != nil && p.storageRoot(value, declared) != nil || p.sharedField(value, from, visiting) {
			shared = append(shared, at)
		} else {
			other = append(other, at)
		}
	}
	for _, file := range p.Files {
		ast.Inspect(file.Syntax, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CompositeLit:
				st, ok := p.Info.TypeOf(x).Underlying().(*types.Struct)
				if !ok {
					return true
				}
				for i, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok && origin(p.Info.Uses[id]) == f {
							give(kv.Value)
						}
					} else if i < st.NumFields() && st.Field(i).Origin() == f {
						give(el)
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range x.Lhs {
					sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr)
					if !ok || p.Info.Selections[sel] == nil || origin(p.Info.Selections[sel].Obj()) != f {
						continue
					}
					if len(x.Rhs) == len(x.Lhs) {
						give(x.Rhs[i])
					} else {
						other = append(other, p.placeFrom(x.Pos(), from))
					}
				}
			case *ast.UnaryExpr:
				// &w.out: written through a pointer, wherever.
				if sel, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && x.Op == token.AND && p.Info.Selections[sel] != nil && origin(p.Info.Selections[sel].Obj()) == f {
					other = append(other, p.placeFrom(x.Pos(), from))
				}
			}
			return true
		})
	}
	return shared, other
}

// sharedField reports whether value is a field of the package (g.next)
// whose every place gives it shared storage (fieldStorageOf), a field
// under question counting as shared.
func (p *Package) sharedField(value ast.Expr, from token.Pos, visiting map[*types.Var]bool) bool {
	sel, ok := ast.Unparen(value).(*ast.SelectorExpr)
	if !ok || !holdsStorage(p.Info.TypeOf(value)) {
		return false
	}
	f := p.fieldOf(sel)
	if f == nil || f.Pkg() != p.Types {
		return false
	}
	if visiting[f] {
		return true
	}
	shared, other := p.fieldStorageOf(f, from, visiting)
	return len(shared) > 0 && len(other) == 0
}

// ownerOf is the name of the package-level struct type that declares
// field f; "" when none does (a field of an anonymous struct).
func (p *Package) ownerOf(f *types.Var) string {
	scope := p.Types.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				if st.Field(i) == f.Origin() {
					return name
				}
			}
		}
	}
	return ""
}

// placeFrom names pos for a message at from: "line L" in from's file,
// "file.go:L" in another file of the package.
func (p *Package) placeFrom(pos, from token.Pos) string {
	at, here := p.Fset.Position(pos), p.Fset.Position(from)
	if at.Filename == here.Filename {
		return fmt.Sprintf("line %d", at.Line)
	}
	return fmt.Sprintf("%s:%d", filepath.Base(at.Filename), at.Line)
}

// outsideWrites calls warn with the writes in body of variables declared
// outside scope (through an alias such as row := grid[i], its root) that
// are neither shared in c's function nor in keep nor parameters every call
// of the function gives shared storage, until warn returns true
// for a variable (once per variable, at its first write warn takes).
//
// The receiver of a call of a method that may change it (methodWrites) is
// written too: warn gets the method, nil for an assignment.
func (p *Package) outsideWrites(c *Construct, body *ast.BlockStmt, scope ast.Node, keep map[types.Object]bool, warn func(e ast.Expr, o types.Object, mc *methodCall) bool) {
	travels := func(o types.Object) bool {
		// Storage whose elements hold pointers never travels between
		// ranks (rtlib's hasPointers): shared or not, it is a rank's own.
		e := pointerElem(o.Type())
		return e == nil || !p.holdsPointers(e)
	}
	for _, v := range c.Sub.Shared {
		keep[v.Obj] = keep[v.Obj] || travels(v.Obj)
	}
	for o := range p.sharedStorage() {
		// A package-level variable shared in another function's body
		// (main's, x511) is shared storage wherever it is written.
		if v, ok := o.(*types.Var); ok && !v.IsField() && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
			keep[o] = keep[o] || travels(o)
		}
	}
	var als map[types.Object]alias
	if c.Sub.Decl != nil {
		als = p.aliases(c.Sub.Decl.Body)
	}
	outside := func(o types.Object) bool {
		v, ok := o.(*types.Var)
		return ok && !v.IsField() && !(scope.Pos() <= v.Pos() && v.Pos() < scope.End())
	}
	warned := map[types.Object]bool{}
	writes := writtenExprs(body)
	calls := p.methodWrites(body)
	for at, mc := range calls {
		if p.writesSharedFieldsOnly(mc.fn, scope.Pos(), map[*types.Func]bool{}) {
			delete(calls, at) // m.Set(i, j, v) into m.data, shared where it is made
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok || !writes[e] && calls[e] == nil {
			return true
		}
		id := rootIdent(e)
		if mc := calls[e]; mc != nil {
			id = rootIdent(mc.recv) // count(x) with count := st.Count writes st
		}
		if id == nil {
			return true
		}
		o := p.Info.Uses[id]
		if al, ok := als[o]; ok && outside(al.root) {
			o = al.root // row := grid[i] writes grid's storage
		}
		if o != nil && outside(o) && !keep[o] && !warned[o] {
			if v, ok := o.(*types.Var); ok && p.isParam(c.Sub, v) {
				// Given shared storage by every call: it travels
				// between ranks whatever name reaches it.
				shared, other := p.paramStorage(c.Sub, v)
				keep[o] = len(shared) > 0 && len(other) == 0
			}
			if f := p.writtenField(e); f != nil && !keep[o] {
				// w.out[i] where every value w.out is given is shared
				// storage: it travels too (this write only; w may
				// hold other fields).
				if shared, other := p.fieldStorage(f, c.Pos()); len(shared) > 0 && len(other) == 0 {
					return true
				}
				// A field a shared variable was taken from (data :=
				// s.Pos; //svm:shared data): its accesses are that
				// variable's (fieldAliases).
				if p.sharedStorage()[f] != nil {
					return true
				}
			}
			if !keep[o] {
				warned[o] = warn(e, o, calls[e])
			}
		}
		return true
	})
}

// rootIdent is the variable an assigned expression writes into: a of
// a[i].f, *a, a[1:].
func rootIdent(e ast.Expr) *ast.Ident {
	for e != nil {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			return id
		}
		e = writeStep(e)
	}
	return nil
}

// rankReplicated warns, built for ranks, where a replicated region writes
// a variable declared outside it that is not shared, except under a test
// that the processor is processor 0: under --mpi a region runs each
// processor on its own rank (processor 0 on every rank), so what another
// processor writes there is on its rank only, and the code after the
// region on rank 0 never sees it. Writes by processor 0 reach every rank.
func (p *Package) rankReplicated(c *Construct) {
	if c.Sub == nil || c.Dir.File == nil {
		return
	}
	body := regionBody(c)
	if body == nil {
		return
	}
	p.rankNested(c, body)
	ids := p.processorIDVars(c)
	line := p.Fset.Position(c.Pos()).Line
	p.outsideWrites(c, body, body, map[types.Object]bool{}, func(e ast.Expr, o types.Object, mc *methodCall) bool {
		path, _ := astutil.PathEnclosingInterval(c.Dir.File.Syntax, e.Pos(), e.Pos())
		if p.onProcessorZero(path, ids) {
			return false
		}
		way := ", or declare it //svm:shared " + o.Name()
		if p.writesMap(e) {
			way = ", or " + mapAdvice
		}
		if t := p.Info.TypeOf(e); t != nil && p.elementsOf(e) != nil && p.holdsPointers(t) {
			way = "; " + p.pointerAdvice(t)
		}
		if _, whole := ast.Unparen(e).(*ast.Ident); whole && mc == nil {
			way = "" // the variable itself is replaced (x = append(x, …)): no storage to share
		}
		if mc != nil {
			way = "; " + methodAdvice(mc.fn)
		}
		p.warnf(e.Pos(), "%s is private to each rank under --mpi: the replicated region at line %d runs each processor on its own rank, so what processors other than 0 write into it stays on their rank and the code after the region does not see it; write it on processor 0 (if rtlib.ProcessorID() == 0 { … }: processor 0 runs on every rank) or gather it there%s", o.Name(), line, way)
		return true
	})
}

// processorIDVars are the variables of c's function assigned
// rtlib.ProcessorID() (me := rtlib.ProcessorID()).
func (p *Package) processorIDVars(c *Construct) map[types.Object]bool {
	ids := map[types.Object]bool{}
	if c.Sub.Decl == nil {
		return ids
	}
	isID := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		return ok && len(call.Args) == 0 && p.callsProcessorID(call.Fun)
	}
	ast.Inspect(c.Sub.Decl.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, rhs := range as.Rhs {
				if id, ok := as.Lhs[i].(*ast.Ident); ok && isID(rhs) {
					if o := p.Info.ObjectOf(id); o != nil {
						ids[o] = true
					}
				}
			}
		}
		return true
	})
	return ids
}

// onProcessorZero reports whether path (innermost first) runs only on
// processor 0: inside the then-branch of an if whose condition is a
// processor number (rtlib.ProcessorID() or a variable of ids) == 0, or
// the else-branch of one whose condition is the number != 0.
func (p *Package) onProcessorZero(path []ast.Node, ids map[types.Object]bool) bool {
	isID := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if id, ok := e.(*ast.Ident); ok {
			return ids[p.Info.ObjectOf(id)]
		}
		call, ok := e.(*ast.CallExpr)
		return ok && p.callsProcessorID(call.Fun)
	}
	isZero := func(e ast.Expr) bool {
		l, ok := ast.Unparen(e).(*ast.BasicLit)
		return ok && l.Value == "0"
	}
	for i, n := range path {
		switch x := n.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.IfStmt:
			b, ok := ast.Unparen(x.Cond).(*ast.BinaryExpr)
			if i == 0 || !ok || !(isID(b.X) && isZero(b.Y) || isZero(b.X) && isID(b.Y)) {
				continue
			}
			// me == 0 { here }, or me != 0 { … } else { here }.
			if b.Op == token.EQL && path[i-1] == x.Body || b.Op == token.NEQ && x.Else != nil && path[i-1] == x.Else {
				return true
			}
		}
	}
	return false
}
