package compiler

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// checkBoundWrites reports a variable that a for loop of a pdo nest reads
// in its condition's bound or its step and that the body assigns. Go tests
// the condition before every iteration, so the serial loop follows the
// change (it stops early, or runs on); the pdo divides the iterations its
// bounds gave when it started, and no assignment in the body changes them.
// The results would differ from the program's without svmc, so this is an
// error. (A range loop's expression is evaluated once in Go as well.)
func (p *Package) checkBoundWrites(c *Construct, info *PDO) {
	line := p.Fset.Position(c.Pos()).Line
	for _, l := range info.Loops {
		fs, ok := l.Stmt.(*ast.ForStmt)
		if !ok {
			continue
		}
		// What the condition's bound and the step read, in that order:
		// an assignment is reported against the first it changes.
		type read struct{ path, part, when string }
		var bound []read
		add := func(e ast.Expr, part, when string) {
			ast.Inspect(e, func(n ast.Node) bool {
				x, ok := n.(ast.Expr)
				if !ok || p.Info.Types[x].Value != nil {
					return ok
				}
				if k, ok := p.varPath(x); ok {
					bound = append(bound, read{k, part, when})
				}
				return true
			})
		}
		if cond, ok := fs.Cond.(*ast.BinaryExpr); ok {
			add(cond.Y, "the condition "+types.ExprString(cond), "tests the condition before every iteration")
		}
		if post, ok := fs.Post.(*ast.AssignStmt); ok && len(post.Rhs) == 1 {
			add(post.Rhs[0], fmt.Sprintf("the step %s %s %s", l.Name, post.Tok, types.ExprString(post.Rhs[0])), "steps the loop variable after every iteration")
		}
		if len(bound) == 0 {
			continue
		}
		report := func(lhs ast.Expr) {
			k, ok := p.varPath(lhs)
			if !ok {
				return
			}
			for _, b := range bound {
				if b.path == k || strings.HasPrefix(b.path, k+".") {
					p.errorf(lhs.Pos(), "%s is assigned in the body of the pdo at line %d and read by %s of loop %s: Go %s, so without svmc the loop follows the change, but the pdo runs the iterations its bounds gave at its start; compute the bound before the loop",
						types.ExprString(lhs), line, b.part, l.Name, b.when)
					return
				}
			}
		}
		assigned(info.Body, report)
	}
}

// varPath names the variable, or the field of a variable, that e denotes
// (x, x.f.g, (*x).f, pkg.V), the same for every mention of it; ok is false
// for any other expression (an element a[i], a call's result).
func (p *Package) varPath(e ast.Expr) (path string, ok bool) {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := p.Info.Uses[e].(*types.Var); ok {
			return fmt.Sprintf("%p", v), true
		}
	case *ast.StarExpr:
		if k, ok := p.varPath(e.X); ok {
			return k, true // a field through the pointer is the same field
		}
	case *ast.SelectorExpr:
		if sel := p.Info.Selections[e]; sel != nil {
			if sel.Kind() != types.FieldVal {
				return "", false
			}
			if k, ok := p.varPath(e.X); ok {
				return k + "." + e.Sel.Name, true
			}
			return "", false
		}
		if v, ok := p.Info.Uses[e.Sel].(*types.Var); ok { // pkg.V
			return fmt.Sprintf("%p", v), true
		}
	}
	return "", false
}
