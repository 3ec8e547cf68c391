package compiler

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"github.com/svmc/svmc/directives"
)

// SubprogramsPass numbers the functions and methods with bodies: files in
// name order, then source order. init functions are not subprograms: they
// run before the processors start. It also rejects identifiers with the
// prefix svmc reserves; a function so named is left out (the pass is
// Confined).
var SubprogramsPass = confined(newPass("subprograms", "number the functions and methods: files sorted, then source order", (*Package).numberSubprograms))

// numberSubprograms fills Package.Subs and returns it.
func (p *Package) numberSubprograms() []*Sub {
	p.funcs = map[*types.Func]*Sub{}
	for _, f := range p.Files {
		for _, decl := range f.Syntax.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok {
				p.literalSubs(f, gd)
				continue
			}
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if strings.HasPrefix(fd.Name.Name, Reserved) && !p.cfg.ExitsOnly {
				p.errorf(fd.Name.Pos(), "the name %s is reserved: svmc uses the prefix %q for generated code; rename it", fd.Name.Name, Reserved)
				continue
			}
			if fd.Recv == nil && fd.Name.Name == "init" {
				p.initLiterals(f, fd)
				continue
			}
			if p.cfg.ExitsOnly {
				continue // compiled for its exits alone: no subprogram of its own
			}
			obj, _ := p.Info.Defs[fd.Name].(*types.Func)
			s := &Sub{Num: p.cfg.SubBase + len(p.Subs) + 1, Name: funcName(fd), Decl: fd, Obj: obj, File: f,
				Main: fd.Recv == nil && fd.Name.Name == "main"}
			p.Subs = append(p.Subs, s)
			if obj != nil {
				p.funcs[obj] = s
			}
		}
	}
	for _, s := range p.Subs {
		s.Instr = Reserved + s.Decl.Name.Name
		if s.Decl.Recv == nil && GeneratedLocal.MatchString(s.Decl.Name.Name) {
			s.Instr = Reserved + p.freeIdent(s.Decl.Name.Name+"_fn")
		}
	}
	// Reserved names elsewhere would collide with generated identifiers;
	// in a package compiled for its exits alone, only the runtime's import
	// name is generated (a package svmc did not compile before may use the
	// prefix otherwise).
	for id, obj := range p.Info.Defs {
		if obj == nil || !strings.HasPrefix(id.Name, Reserved) {
			continue
		}
		if _, isFunc := obj.(*types.Func); p.cfg.ExitsOnly && id.Name == RuntimeImport || !p.cfg.ExitsOnly && !isFunc {
			p.errorf(id.Pos(), "the name %s is reserved: svmc uses the prefix %q for generated code; rename it", id.Name, Reserved)
		}
	}
	return p.Subs
}

// GeneratedLocal matches the X of the svm_X that codegen names its own
// variables, parameters and imports with (codegen's TestGeneratedLocals
// keeps it complete): a function of such a name must not be svm_X.
var GeneratedLocal = regexp.MustCompile(`^(p|rt|program|it|first|n|step|i|k|l|v|lo|hi|idx|id|recv|a[0-9]+|lock[0-9]+|operand[0-9]+|red[0-9]*(_[0-9]+)?|range[0-9]*(_[0-9]+)?|copy[0-9]+|x_.*)$`)

// literalSubs numbers the function literals of gd's variable
// initialisers that hold directives (x551: a table of handlers, each a
// literal with a pdo). Such a literal is a subprogram named after its
// variable, "scale" for var scale = func(...) {...}, or "ops.func2" for
// the second literal in the initialiser of ops (the Go toolchain's own
// numbering of closures differs). A literal at package level sees only
// package-level names, so codegen may move its body into a function of
// its own.
func (p *Package) literalSubs(f *File, gd *ast.GenDecl) {
	if gd.Tok != token.VAR {
		return
	}
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, v := range vs.Values {
			name := "_"
			if i < len(vs.Names) {
				name = vs.Names[i].Name
			} else if len(vs.Names) > 0 {
				name = vs.Names[0].Name // var a, b = pair(func() {...})
			}
			lits, called := outerLits(v)
			for k, lit := range lits {
				if !p.holdsDirective(f, lit) {
					continue
				}
				shown, ident := name, name
				if lit != v || name == "_" {
					shown = fmt.Sprintf("%s.func%d", name, k+1)
					ident = p.freeIdent(fmt.Sprintf("%s_func%d", strings.Trim(name, "_"), k+1))
				}
				p.addLiteral(f, lit, shown, ident, called[lit])
			}
		}
	}
}

// initLiterals numbers the function literals of an init function that
// hold directives, are not called where they stand and use no variable of
// init (x558: func init() { register("sum", func(xs []int) int {...}) }):
// they run when the program calls them, from main on, so they are
// subprograms as a package-level variable's literals are, named
// init.func1, init.func2... over the package's init functions. The others
// stay part of init (AttachPass warns of their pdo loops).
func (p *Package) initLiterals(f *File, fd *ast.FuncDecl) {
	lits, called := outerLits(fd.Body)
	for _, lit := range lits {
		if !p.holdsDirective(f, lit) || called[lit] || p.capturedLocal(fd, lit) != nil {
			continue
		}
		p.initLits++
		p.addLiteral(f, lit, fmt.Sprintf("init.func%d", p.initLits), p.freeIdent(fmt.Sprintf("init_func%d", p.initLits)), false)
	}
}

func (p *Package) addLiteral(f *File, lit *ast.FuncLit, shown, ident string, atInit bool) {
	fd := &ast.FuncDecl{Name: &ast.Ident{NamePos: lit.Pos(), Name: ident}, Type: lit.Type, Body: lit.Body}
	p.Subs = append(p.Subs, &Sub{Num: p.cfg.SubBase + len(p.Subs) + 1, Name: shown, Decl: fd, Lit: lit, File: f, atInit: atInit})
}

// outerLits are the function literals in n that no other literal of n
// encloses, in source order, and those of them called where they stand
// (also by go and defer).
func outerLits(n ast.Node) (lits []*ast.FuncLit, called map[*ast.FuncLit]bool) {
	called = map[*ast.FuncLit]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
				called[lit] = true
			}
		}
		if lit, ok := n.(*ast.FuncLit); ok {
			lits = append(lits, lit)
			return false // a literal inside is part of this one
		}
		return true
	})
	return lits, called
}

// capturedLocal is a variable of fd that lit uses (declared in fd outside
// lit), or nil.
func (p *Package) capturedLocal(fd *ast.FuncDecl, lit *ast.FuncLit) *types.Var {
	var found *types.Var
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || found != nil {
			return found == nil
		}
		if v, ok := p.Info.Uses[id].(*types.Var); ok && !v.IsField() && fd.Pos() <= v.Pos() && v.Pos() < fd.End() && (v.Pos() < lit.Pos() || v.Pos() >= lit.End()) {
			found = v
		}
		return true
	})
	return found
}

// holdsDirective reports whether a //svm: comment stands in lit's body.
func (p *Package) holdsDirective(f *File, lit *ast.FuncLit) bool {
	for _, cg := range f.Syntax.Comments {
		if cg.End() < lit.Body.Lbrace || cg.Pos() > lit.Body.Rbrace {
			continue
		}
		for _, c := range cg.List {
			if directives.IsDirective(c.Text) {
				return true
			}
		}
	}
	return false
}

// freeIdent is name, or name with a number added, such that no
// identifier of the package's scope and no subprogram's name has it.
func (p *Package) freeIdent(name string) string {
	taken := func(n string) bool {
		if p.Types.Scope().Lookup(n) != nil {
			return true
		}
		for _, s := range p.Subs {
			if s.Decl.Name.Name == n {
				return true
			}
		}
		return false
	}
	cand := name
	for i := 2; taken(cand); i++ {
		cand = fmt.Sprintf("%s_%d", name, i)
	}
	return cand
}

// funcName is "F" or "T.M".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		}
		break
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
