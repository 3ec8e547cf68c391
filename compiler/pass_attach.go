package compiler

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/svmc/svmc/directives"
)

// AttachPass finds for each directive its subprogram, its statement list
// and its place in it, and numbers the directives of each subprogram. It is
// Confined: a function with a directive it (or the parse pass) dropped
// keeps no constructs, so the later checks leave it alone.
var AttachPass = confined(newPass("attach", "attach each directive to its statement list and statement", (*Package).attach, ParsePass, SubprogramsPass))

// attach fills Sub.Constructs and returns every construct.
func (p *Package) attach() []*Construct {
	for _, f := range p.Files {
		for _, pos := range f.Dropped {
			if s := p.subAt(pos); s != nil {
				s.broken = true
			}
		}
		for _, d := range f.Dirs {
			s := p.subAt(d.Comment.Slash)
			if s == nil {
				p.misplaced(f, d)
				continue
			}
			list, idx, owner, in := p.stmtListAt(s.Decl.Body, d.Comment.Slash)
			if ls, ok := in.(*ast.LabeledStmt); ok && ls.Colon < d.Comment.Slash && d.Comment.Slash < ls.Stmt.Pos() {
				// outer:
				//	//svm:pdo loops(i)
				//	for i := ... — the label's statement is the loop the
				// directive stands above, as in the form with the
				// directive above the label.
				list, idx, owner, in = p.stmtListAt(s.Decl.Body, ls.Pos()-1)
			}
			if in != nil {
				p.errorf(d.Comment.Slash, "%s directive inside %s (line %d): a directive stands between statements, on a line of its own",
					d.Kind, stmtKind(in), p.Fset.Position(in.Pos()).Line)
				s.broken = true
				continue
			}
			if s.atInit && d.Kind == directives.PDO && s.Lit.Body == p.innermostBody(s, d.Comment.Slash) {
				// As a pdo in func init (misplaced).
				v, _, _ := strings.Cut(s.Name, ".")
				p.warnf(d.Comment.Slash, "pdo in the initialiser of %s runs all its iterations serially: the packages' variables are initialised before main starts the processors; make %s a function that main calls to run the loop in parallel", v, v)
			}
			c := &Construct{Num: len(s.Constructs) + 1, Dir: d, Sub: s, List: list, Index: idx, ListPos: owner}
			s.Constructs = append(s.Constructs, c)
		}
	}
	var all []*Construct
	for _, s := range p.Subs {
		if s.broken {
			s.Constructs = nil
		}
		all = append(all, s.Constructs...)
	}
	return all
}

// innermostBody is the body of the innermost function literal of s
// around pos, or s's own body.
func (p *Package) innermostBody(s *Sub, pos token.Pos) *ast.BlockStmt {
	body := s.Decl.Body
	ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit.Body.Lbrace < pos && pos < lit.Body.Rbrace {
			body = lit.Body
		}
		return n == nil || n.Pos() <= pos && pos < n.End()
	})
	return body
}

// initLitCapture is the variable of init function fd that the outermost
// function literal around pos uses, when that literal is not called where
// it stands (initLiterals left it in init for that variable); nil
// otherwise.
func (p *Package) initLitCapture(fd *ast.FuncDecl, pos token.Pos) *types.Var {
	lits, called := outerLits(fd.Body)
	for _, lit := range lits {
		if lit.Body.Lbrace < pos && pos < lit.Body.Rbrace && !called[lit] {
			return p.capturedLocal(fd, lit)
		}
	}
	return nil
}

// misplaced reports a directive that is in no subprogram.
func (p *Package) misplaced(f *File, d *Dir) {
	pos := d.Comment.Slash
	if fd := p.funcDeclAt(f, pos); fd != nil && fd.Name.Name == "init" {
		if v := p.initLitCapture(fd, pos); v != nil {
			// Left in init for the variable it uses (initLiterals).
			why := fmt.Sprintf("the literal uses %s, a variable of init (line %d), so svmc cannot make it a subprogram of its own; declare %s at package level, or build the literal in a function main calls",
				v.Name(), p.Fset.Position(v.Pos()).Line, v.Name())
			if d.Kind == directives.PDO {
				p.warnf(pos, "pdo in a function literal of func init runs all its iterations serially: %s", why)
			} else {
				p.errorf(pos, "%s directive in a function literal of func init: %s", d.Kind, why)
			}
			return
		}
		if d.Kind == directives.PDO {
			// A table built in init (x507): the loop runs as written,
			// as it would from a package variable's initialiser.
			p.warnf(pos, "pdo in func init runs all its iterations serially: the packages are initialised before main starts the processors; move the loop into main or a function main calls to run it in parallel")
			return
		}
		p.errorf(pos, "%s directive in func init: directives run on the processors, which start with main; move it into main or a function main calls", d.Kind)
		return
	}
	hint := ""
	switch d.Kind {
	case directives.Template:
		hint = " (a template that several functions use is a package variable of type *rtlib.Template, named by a template directive in a function)"
	case directives.Processors:
		hint = " (an arrangement that several functions use is a package variable of type *rtlib.Procs, named by a processors directive in a function)"
	}
	p.errorf(pos, "%s directive outside a function body: directives stand between the statements of a function%s", d.Kind, hint)
}

func (p *Package) subAt(pos token.Pos) *Sub {
	for _, s := range p.Subs {
		if s.Decl.Body.Lbrace < pos && pos < s.Decl.Body.Rbrace {
			return s
		}
	}
	return nil
}

func (p *Package) funcDeclAt(f *File, pos token.Pos) *ast.FuncDecl {
	for _, decl := range f.Syntax.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil && fd.Body.Lbrace < pos && pos < fd.Body.Rbrace {
			return fd
		}
	}
	return nil
}

// stmtListAt returns the innermost statement list around pos and the index
// of the first statement after pos. When pos lies inside a statement but in
// no statement list of it (in an expression), it returns that statement as
// in and nothing else.
func (p *Package) stmtListAt(body *ast.BlockStmt, pos token.Pos) (list []ast.Stmt, idx int, owner token.Pos, in ast.Stmt) {
	list, owner = body.List, body.Lbrace
	for {
		idx = len(list)
		var inside ast.Stmt
		for i, st := range list {
			if pos < st.Pos() {
				idx = i
				break
			}
			if pos < st.End() {
				inside = st
				break
			}
		}
		if inside == nil {
			return list, idx, owner, nil
		}
		inner, innerOwner, found := innerList(inside, pos)
		if !found {
			return nil, 0, 0, inside
		}
		list, owner = inner, innerOwner
	}
}

// innerList finds the smallest statement list within n whose braces (or
// case clause) enclose pos.
func innerList(n ast.Node, pos token.Pos) (list []ast.Stmt, owner token.Pos, found bool) {
	best := token.NoPos
	ast.Inspect(n, func(x ast.Node) bool {
		if x == nil || pos < x.Pos() || pos >= x.End() {
			return x == nil
		}
		switch b := x.(type) {
		case *ast.BlockStmt:
			if b.Lbrace < pos && pos < b.Rbrace && b.Lbrace > best {
				if clauses(b) {
					// A switch or select body: the list is the clause's.
					for _, st := range b.List {
						var colon token.Pos
						var body []ast.Stmt
						switch cc := st.(type) {
						case *ast.CaseClause:
							colon, body = cc.Colon, cc.Body
						case *ast.CommClause:
							colon, body = cc.Colon, cc.Body
						}
						if colon < pos {
							list, owner, found = body, colon, true
						}
					}
					best = b.Lbrace
					return true
				}
				best, list, owner, found = b.Lbrace, b.List, b.Lbrace, true
			}
		}
		return true
	})
	return list, owner, found
}

func clauses(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch b.List[0].(type) {
	case *ast.CaseClause, *ast.CommClause:
		return true
	}
	return false
}
