package codegen

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// initGuards runs the file's package initialisation through the runtime
// (rtlib/initpanic.go), so that a panic there ends the run as a panic of
// processor 0 does, with a trace, instead of before any processor exists:
// the initialiser of a package-level variable that may panic becomes
//
//	var limit = rtlib.InitVar(func() int { return mustAtoi(os.Getenv("LIMIT")) })
//
// and every init function opens with a return once an initialiser has
// panicked and a deferred catch of its own panic. An initialiser whose
// type the file cannot name (an unexported type of another package, or one
// of a package the file does not import) is left as written. Test builds
// are left alone: the testing package runs them, not Main.
func (g *gen) initGuards() {
	if g.p.Tests() {
		return
	}
	for _, d := range g.f.Syntax.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				g.guardSpec(s.(*ast.ValueSpec))
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
				g.e.lines(g.off(d.Body.Lbrace)+1, "if "+rt+".InitFailed() { return }; defer "+rt+".InitCatch()", following, g.line(d.Body.Lbrace))
				g.usesRT = true
			}
		}
	}
}

// guardSpec wraps the initialisers of s that may panic in rtlib.InitVar
// (InitVar2 for var a, b = f()).
func (g *gen) guardSpec(s *ast.ValueSpec) {
	if len(s.Values) != 1 || !mayPanic(g.p.Info, s.Values[0]) {
		return // var a, b = f(), g(): left as written
	}
	switch v := s.Values[0]; len(s.Names) {
	case 1:
		t, ok := "", true
		if s.Type != nil {
			t = string(g.f.Src[g.off(s.Type.Pos()):g.off(s.Type.End())])
		} else {
			t, ok = g.typeText(g.p.Info.TypeOf(v))
		}
		if ok {
			g.wrapInit(v, "InitVar", t)
		}
	case 2:
		var ts []string
		for _, n := range s.Names {
			obj := g.p.Info.Defs[n]
			if obj == nil {
				return
			}
			t, ok := g.typeText(obj.Type())
			if !ok {
				return
			}
			ts = append(ts, t)
		}
		g.wrapInit(s.Values[0], "InitVar2", "("+strings.Join(ts, ", ")+")")
	}
}

// wrapInit puts v, the last of its spec, into rtlib.fn(func() result {
// return (v) }), the generated text on lines of its own with //line
// directives before v and after it: gofmt breaks a function literal of
// more than one line (or a long one) into lines, which would move v and
// the user's lines after it.
func (g *gen) wrapInit(v ast.Expr, fn, result string) {
	start, end := g.off(v.Pos()), g.off(v.End())
	g.e.add(start, start, rt+"."+fn+"(func() "+result+" { return (\n"+g.e.resume(start, true), exprOpen)
	if g.e.blankAfter(end) && g.e.nextLine(end) < len(g.e.src) {
		// The rest of the line goes with the generated text: gofmt
		// would fold it and a blank line after it into one.
		next := g.e.nextLine(end)
		g.e.add(end, next, ")\n})\n"+g.e.resume(next, false), exprClose)
	} else {
		g.e.add(end, end, ")\n})\n"+g.e.resume(end, true), exprClose)
	}
	g.usesRT = true
}

// mayPanic reports whether evaluating x may panic: it calls a function
// (not a conversion, nor a builtin that cannot panic), indexes, slices,
// asserts a type, dereferences a pointer or divides. The bodies of
// function literals are not evaluated by x.
func mayPanic(info *types.Info, x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if tv, ok := info.Types[n.Fun]; ok && tv.IsType() {
				return true // a conversion
			}
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok {
					switch b.Name() {
					case "len", "cap", "new", "min", "max", "real", "imag", "complex":
						return true
					}
				}
			}
			found = true
		case *ast.IndexExpr, *ast.SliceExpr, *ast.StarExpr:
			if tv, ok := info.Types[n.(ast.Expr)]; ok && tv.IsType() {
				return true // a pointer or instantiated type
			}
			found = true
		case *ast.TypeAssertExpr:
			found = true
		case *ast.BinaryExpr:
			if (n.Op == token.QUO || n.Op == token.REM) && info.Types[n].Value == nil {
				found = true
			}
		}
		return !found
	})
	return found
}

// typeText is t written in the file, by the names it imports packages
// under; ok is false when the file cannot write it: a package it does not
// import (or imports blank or dot), an unexported name of another package.
func (g *gen) typeText(t types.Type) (string, bool) {
	if t == nil {
		return "", false
	}
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return "", false
	}
	names := map[*types.Package]string{}
	for _, spec := range g.f.Syntax.Imports {
		var pn *types.PkgName
		if spec.Name != nil {
			pn, _ = g.p.Info.Defs[spec.Name].(*types.PkgName)
		} else {
			pn, _ = g.p.Info.Implicits[spec].(*types.PkgName)
		}
		if pn != nil && pn.Name() != "_" && pn.Name() != "." {
			names[pn.Imported()] = pn.Name()
		}
	}
	ok := writable(t, g.p.Types, names, map[types.Type]bool{})
	if !ok {
		return "", false
	}
	return types.TypeString(t, func(p *types.Package) string {
		if p == g.p.Types {
			return ""
		}
		return names[p]
	}), true
}

// writable reports whether every name t is made of can be written in a
// file of package pkg that imports the packages of names.
func writable(t types.Type, pkg *types.Package, names map[*types.Package]string, seen map[types.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	// named: a defined type or alias, with its type arguments.
	named := func(obj *types.TypeName, args *types.TypeList) bool {
		if p := obj.Pkg(); p != nil && p != pkg && (!obj.Exported() || names[p] == "") {
			return false
		}
		for a := range args.Types() {
			if !writable(a, pkg, names, seen) {
				return false
			}
		}
		return true
	}
	switch t := t.(type) {
	case *types.Basic:
		return t.Info()&types.IsUntyped == 0
	case *types.Alias:
		return named(t.Obj(), t.TypeArgs())
	case *types.Named:
		return named(t.Obj(), t.TypeArgs())
	case *types.Pointer:
		return writable(t.Elem(), pkg, names, seen)
	case *types.Slice:
		return writable(t.Elem(), pkg, names, seen)
	case *types.Array:
		return writable(t.Elem(), pkg, names, seen)
	case *types.Chan:
		return writable(t.Elem(), pkg, names, seen)
	case *types.Map:
		return writable(t.Key(), pkg, names, seen) && writable(t.Elem(), pkg, names, seen)
	case *types.Signature:
		return t.TypeParams() == nil && writable(t.Params(), pkg, names, seen) && writable(t.Results(), pkg, names, seen)
	case *types.Tuple:
		for v := range t.Variables() {
			if !writable(v.Type(), pkg, names, seen) {
				return false
			}
		}
		return true
	case *types.Struct:
		for f := range t.Fields() {
			if !f.Exported() && f.Pkg() != pkg || !writable(f.Type(), pkg, names, seen) {
				return false
			}
		}
		return true
	case *types.Interface:
		for m := range t.Methods() {
			if !m.Exported() && m.Pkg() != pkg || !writable(m.Type(), pkg, names, seen) {
				return false
			}
		}
		for e := range t.EmbeddedTypes() {
			if !writable(e, pkg, names, seen) {
				return false
			}
		}
		return true
	}
	return false
}
