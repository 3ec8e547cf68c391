package compiler

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"math"
	"strings"

	"github.com/svmc/svmc/directives"
)

// exprWant says what type a directive expression must have.
type exprWant int

const (
	intType  exprWant = iota // an integer
	posInt                   // a positive integer (an extent, a block or chunk size)
	intSlice                 // []int
)

// checkExpr type-checks a directive expression in the scope at scopePos and
// returns its syntax tree (nil after an error). nprocs() stands for the
// number of processors of the run.
func (p *Package) checkExpr(c *Construct, e *directives.Expr, scopePos token.Pos, want exprWant) ast.Expr {
	// nprocs() becomes an int of the same length, so that the offsets of
	// type errors are offsets in the directive's text.
	src := replaceNprocs(e.Text, func(call string) string {
		return "int(1)" + strings.Repeat(" ", max(0, len(call)-len("int(1)")))
	})
	x, err := parser.ParseExpr(src)
	if err != nil {
		p.errorf(posOf(p, e.Pos), "%s: %v", c.Kind(), err)
		return nil
	}
	// Type-check a fresh parse positioned in a scratch file of our file
	// set: CheckExpr needs positions only to report errors, which we map
	// back to the directive.
	fx, err := parser.ParseExprFrom(p.Fset, "", src, 0)
	if err != nil {
		return nil
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if err := types.CheckExpr(p.Fset, p.Types, scopePos, fx, info); err != nil {
		msg, pos := err.Error(), e.Pos
		if te, ok := err.(types.Error); ok {
			msg = te.Msg
			if f := p.Fset.File(te.Pos); f != nil && f.Base() == p.Fset.File(fx.Pos()).Base() {
				if off := f.Offset(te.Pos); off < len(e.Text) {
					pos.Column += off
					pos.Offset += off
				}
			}
		}
		p.errorf(posOf(p, pos), "%s: %s", c.Kind(), msg)
		return nil
	}
	tv := info.Types[fx]
	t := tv.Type
	switch want {
	case intType, posInt:
		if !isInteger(t) {
			p.errorf(posOf(p, e.Pos), "%s: %s has type %s, want an integer", c.Kind(), e.Text, p.typeString(t))
			return nil
		}
		// A constant must fit the runtime's int, and be positive where a
		// size is wanted: the mistake is found here, at its position,
		// rather than by the Go compiler in generated code or at run time.
		// nprocs() type-checks as the constant 1 but is the run's number of
		// processors: an expression of it is checked at run time
		// (nprocs()/2 is 0 on one processor only).
		if tv.Value != nil && src == e.Text {
			v, exact := constant.Int64Val(constant.ToInt(tv.Value))
			if !exact || v > math.MaxInt32 && want == posInt {
				p.errorf(posOf(p, e.Pos), "%s: %s is too large", c.Kind(), e.Text)
				return nil
			}
			if want == posInt && v <= 0 {
				p.errorf(posOf(p, e.Pos), "%s: %s must be positive", c.Kind(), e.Text)
				return nil
			}
		}
	case intSlice:
		s, ok := t.Underlying().(*types.Slice)
		if !ok || !types.Identical(s.Elem(), types.Typ[types.Int]) {
			p.errorf(posOf(p, e.Pos), "%s: %s has type %s, want []int", c.Kind(), e.Text, p.typeString(t))
			return nil
		}
	}
	return x
}

// ExprCode is the Go text of a directive expression with every nprocs()
// call replaced by nprocs.
func ExprCode(e *directives.Expr, nprocs string) string {
	return replaceNprocs(e.Text, func(string) string { return nprocs })
}

// replaceNprocs replaces each nprocs() call in the expression text by
// repl(the call's text).
func replaceNprocs(text string, repl func(call string) string) string {
	x, err := parser.ParseExpr(text)
	if err != nil {
		return text
	}
	// Offsets of ParseExpr positions start at 1.
	type span struct{ from, to int }
	var spans []span
	ast.Inspect(x, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 0 {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "nprocs" {
				spans = append(spans, span{int(call.Pos()) - 1, int(call.End()) - 1})
				return false
			}
		}
		return true
	})
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.from])
		b.WriteString(repl(text[s.from:s.to]))
		last = s.to
	}
	b.WriteString(text[last:])
	return b.String()
}

// exprType type-checks a directive expression in the scope at pos.
func (p *Package) exprType(c *Construct, e *directives.Expr, pos token.Pos) (types.TypeAndValue, bool) {
	src := ExprCode(e, "int(1)")
	x, err := parser.ParseExprFrom(p.Fset, "", src, 0)
	if err != nil {
		p.errorf(posOf(p, e.Pos), "%s: %v", c.Kind(), err)
		return types.TypeAndValue{}, false
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if err := types.CheckExpr(p.Fset, p.Types, pos, x, info); err != nil {
		msg := err.Error()
		if te, ok := err.(types.Error); ok {
			msg = te.Msg
		}
		p.errorf(posOf(p, e.Pos), "%s: %s", c.Kind(), msg)
		return types.TypeAndValue{}, false
	}
	return info.Types[x], true
}
