package compiler

import (
	"go/ast"
	"go/types"
	"strings"
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
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if strings.HasPrefix(fd.Name.Name, Reserved) {
				p.errorf(fd.Name.Pos(), "the name %s is reserved: svmc uses the prefix %q for generated code; rename it", fd.Name.Name, Reserved)
				continue
			}
			if fd.Recv == nil && fd.Name.Name == "init" {
				continue
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
	// Reserved names elsewhere would collide with generated identifiers.
	for id, obj := range p.Info.Defs {
		if obj != nil && strings.HasPrefix(id.Name, Reserved) {
			if _, isFunc := obj.(*types.Func); !isFunc {
				p.errorf(id.Pos(), "the name %s is reserved: svmc uses the prefix %q for generated code; rename it", id.Name, Reserved)
			}
		}
	}
	return p.Subs
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
