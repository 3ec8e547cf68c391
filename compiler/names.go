package compiler

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// nameOf is the name a construct carries (trace_region r, critical c).
func nameOf(c *Construct) string {
	if c.Dir.Name != nil {
		return c.Dir.Name.Name
	}
	return ""
}

// bodyStmts are the statements a construct covers.
func (c *Construct) bodyStmts() []ast.Stmt {
	if c.End != nil {
		return c.Body
	}
	if c.Stmt != nil {
		return []ast.Stmt{c.Stmt}
	}
	return nil
}

func (p *Package) describe(obj types.Object) string {
	switch obj.(type) {
	case *types.Var:
		return "a variable of type " + p.typeString(obj.Type())
	case *types.Func:
		return "a function"
	case *types.TypeName:
		return "a type"
	case *types.Const:
		return "a constant"
	case *types.PkgName:
		return "a package"
	}
	return "something else"
}

// typeString writes t as the package's own code names it.
func (p *Package) typeString(t types.Type) string {
	return types.TypeString(t, types.RelativeTo(p.Types))
}

// isRuntimeType reports whether t is *rtlib.<name>.
func isRuntimeType(t types.Type, name string) bool {
	ptr, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	named, ok := ptr.Elem().(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == RuntimePath && named.Obj().Name() == name
}

// lookup finds the object a name denotes at pos.
func (p *Package) lookup(pos token.Pos, name string) types.Object {
	scope := p.Types.Scope().Innermost(pos)
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent(name, pos)
	return obj
}

// notInScope says why name is no variable at pos for a directive (what,
// e.g. "shared"): a variable of that name declared later in the same
// block, or in a block around it, is named with its line.
func (p *Package) notInScope(pos token.Pos, what, name string) string {
	for scope := p.Types.Scope().Innermost(pos); scope != nil && scope != p.Types.Scope(); scope = scope.Parent() {
		if obj, ok := scope.Lookup(name).(*types.Var); ok && obj.Pos() > pos {
			return fmt.Sprintf("%s: %s is declared at line %d, after the directive: a directive names variables declared before it; move //svm:%s %s below that line", what, name, p.Fset.Position(obj.Pos()).Line, what, name)
		}
	}
	return fmt.Sprintf("%s: %s is not a variable in scope", what, name)
}

// plural is "1 dimension", "2 dimensions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// posOf converts a directive position to a token.Pos of the file set.
func posOf(p *Package, pos token.Position) token.Pos {
	for _, f := range p.Files {
		if f.Path == pos.Filename || f.Tok.Name() == pos.Filename {
			if pos.Line < 1 || pos.Line > f.Tok.LineCount() {
				return token.NoPos
			}
			lp := f.Tok.LineStart(pos.Line)
			off := f.Tok.Offset(lp) + pos.Column - 1
			if off > f.Tok.Size() {
				off = f.Tok.Size()
			}
			return f.Tok.Pos(off)
		}
	}
	return token.NoPos
}
