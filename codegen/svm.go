package codegen

import (
	"fmt"
	"go/ast"
	"go/token"

	"github.com/svmc/svmc/compiler"
)

// accesses puts the SVM layer's check on each access of a shared variable
// (compiler's AccessesPass): a read a[i] becomes
// (*svm_rt.R(svm_p, 7, &a[i])), a write (*svm_rt.W(svm_p, 8, &a[i])), with
// the access's number. The check returns its argument, so the expression
// stays addressable and its type and evaluation order are the user's.
// Accesses inside code svmc replaces (a pdo's loop header, an atomic
// statement) keep no check.
func (g *gen) accesses() {
	accs := accessesOf(g)
	for _, a := range accs {
		if a.File != g.f {
			continue
		}
		if a.Range != nil {
			g.rangeCheck(a)
			continue
		}
		start, end := g.off(a.Expr.Pos()), g.off(a.Expr.End())
		if g.e.replaced(start, end) {
			continue
		}
		if a.Row != nil && (a.Row.Nest != nil && g.runNests[a.Row.Nest] || a.Row.Nest == nil && g.rowCheck(a)) {
			continue
		}
		check := "R"
		if a.Write {
			check = "W"
		}
		g.e.check(start, fmt.Sprintf("(*%s.%s(%s, %d, &", rt, check, procVar, a.Num), exprOpen)
		g.e.check(end, "))", exprClose)
		g.usesRT = true
	}
}

// rowCheck puts the check of access a before its loop, for the elements
// the loop's index runs over (compiler.RowCheck), and reports whether it
// did (not where generated code replaces the loop's header: a pdo's).
func (g *gen) rowCheck(a *compiler.Access) bool {
	rc := a.Row
	if rc.Loop == nil {
		return false
	}
	at, end := g.off(rc.Loop.Pos()), g.off(rc.Loop.End())
	if g.e.replaced(at, end) || g.e.replaced(at, g.off(rc.Loop.Body.Lbrace)) {
		return false
	}
	text := func(e ast.Expr) string { return string(g.e.src[g.off(e.Pos()):g.off(e.End())]) }
	hi := "(" + text(rc.Hi) + ")"
	if rc.Incl {
		hi += "+1"
	}
	off := ""
	if rc.Off != 0 {
		off = fmt.Sprintf("+(%d)", rc.Off)
	}
	// Only where the loop runs (its row may not exist otherwise); on lines
	// of its own, the loop's position given back after it; next to the
	// loop (exprOpen), inside the checked copy of a loop around it.
	cmp := "<"
	if rc.Incl {
		cmp = "<="
	}
	g.e.check(at, fmt.Sprintf("if (%s) %s (%s) {\n%s.RowCheck(%s, %d, (%s)[:], (%s)%s, %s%s, %v)\n}\n%s",
		text(rc.Lo), cmp, text(rc.Hi), rt, procVar, a.Num, text(rc.Row), text(rc.Lo), off, hi, off, a.Write, g.e.resume(at, true)), exprOpen)
	g.usesRT = true
	return true
}

// rangeCheck puts the check of a range over shared storage by value
// before the range statement: every element it will read, at once (pages
// only become invalid at a pdo's end, never inside one; the compiler
// chose operands that can be evaluated twice).
func (g *gen) rangeCheck(a *compiler.Access) {
	r := a.Range
	at := g.off(r.Pos())
	if g.e.replaced(at, g.off(r.Body.Lbrace)) {
		return
	}
	x := string(g.e.src[g.off(r.X.Pos()):g.off(r.X.End())])
	g.e.check(at, fmt.Sprintf("if len(%s) > 0 {\n%s.RowCheck(%s, %d, (%s)[:], 0, len(%s), false)\n}\n%s",
		x, rt, procVar, a.Num, x, x, g.e.resume(at, true)), exprOpen)
	g.usesRT = true
}

// splitChecked reports whether a pdo body gets an unchecked copy: it holds
// accesses of shared variables, and no labels (a copy would declare them
// twice).
func (g *gen) splitChecked(body *ast.BlockStmt) bool {
	accs := accessesOf(g)
	has := false
	for _, a := range accs {
		if a.File == g.f && a.Pos() >= body.Lbrace && a.End() <= body.Rbrace {
			has = true
			break
		}
	}
	if !has {
		return false
	}
	labels := false
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.LabeledStmt); ok {
			labels = true
		}
		return !labels
	})
	return !labels
}

// serialLoops gives the loops of s outside parallel constructs that hold
// access checks an unchecked copy, as pdo bodies have:
//
//	if !svm_p.Checking() { <the loop as written> } else { <the loop with checks> }
//
// It takes the outermost loops with checks that hold no directive (a loop
// around pdos is descended into instead: its pdos split themselves), no
// label, and are not the statement a directive applies to.
func (g *gen) serialLoops(s *compiler.Sub) {
	accs := accessesOf(g)
	var mine []*compiler.Access
	for _, a := range accs {
		if a.Sub == s && a.File == g.f {
			mine = append(mine, a)
		}
	}
	if len(mine) == 0 || s.Decl.Body == nil {
		return
	}
	// Directive positions and the statements constructs take.
	var dirs []token.Pos
	taken := map[ast.Stmt]bool{}
	for _, c := range s.Constructs {
		dirs = append(dirs, c.Pos())
		if c.Stmt != nil {
			taken[c.Stmt] = true
		}
		if c.PDO != nil && len(c.PDO.Loops) > 0 {
			taken[c.PDO.Loops[0].Stmt] = true
		}
	}
	within := func(n ast.Node, p token.Pos) bool { return p >= n.Pos() && p < n.End() }
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
		default:
			return true
		}
		loop := n.(ast.Stmt)
		if taken[loop] {
			return false // a pdo nest (its body splits itself) or a construct's statement
		}
		checks := false
		for _, a := range mine {
			if within(loop, a.Pos()) {
				checks = true
				break
			}
		}
		if !checks {
			return false
		}
		for _, d := range dirs {
			if within(loop, d) {
				return true // descend: the constructs inside are handled apart
			}
		}
		labels := false
		ast.Inspect(loop, func(m ast.Node) bool {
			if _, ok := m.(*ast.LabeledStmt); ok {
				labels = true
			}
			return !labels
		})
		if labels {
			return false
		}
		start, end := g.off(loop.Pos()), g.off(loop.End())
		if g.e.replaced(start, end) {
			return false
		}
		c := g.e.uncheckedCopy()
		c.from, c.to = start, end
		g.e.wrap(start, fmt.Sprintf("if !%s.Checking() {\n%s\n} else {\n%s", procVar, c.token, g.e.resume(start, true)), opening, c)
		g.e.wrap(end, "\n}\n"+g.e.resume(end, true), closing, c)
		return false
	}
	ast.Inspect(s.Decl.Body, visit)
}
