package compiler

import (
	"go/ast"
	"go/token"
	"strings"

	"github.com/svmc/svmc/directives"
)

// StructurePass checks every construct: it pairs end directives, finds the
// statements constructs apply to, and runs each kind's check (constructs.go):
// pdo loop nests, template and processor names, directive expressions,
// jumps out of parallel bodies. Then it checks what only the whole
// subprogram shows: sections outside a psection, directives that cannot
// stand in a pdo body.
var StructurePass = newPass("structure", "check constructs: end pairs, loop nests, names, jumps out of parallel bodies", (*Package).checkStructure, AttachPass)

// checkStructure returns the constructs whose checks reported no error.
func (p *Package) checkStructure() []*Construct {
	var ok []*Construct
	for _, s := range p.Subs {
		p.pairEnds(s)
		for _, c := range s.Constructs {
			before := len(p.Diags)
			p.checkConstruct(c)
			if len(p.Diags.Errors()) == len(p.Diags[:before].Errors()) {
				ok = append(ok, c)
			}
		}
		p.checkSections(s)
		p.checkPlacement(s)
		p.checkLabels(s)
		p.checkLifeCycle(s)
		p.checkGoroutines(s)
	}
	return ok
}

// detachedDoes is what a construct that needs its processors' team does
// on a goroutine that is not a processor (as the runtime says it).
var detachedDoes = map[directives.Kind]string{
	directives.PDO:             "runs all its iterations on that goroutine",
	directives.PSection:        "runs its sections one after the other on that goroutine",
	directives.Barrier:         "returns at once",
	directives.BarrierCheckin:  "returns at once",
	directives.BarrierCheckout: "returns at once",
}

// checkGoroutines warns about a construct that needs a team in the function
// literal of a go statement (or in a literal inside it): the goroutine is
// not one of the program's processors. (Where a goroutine calls a function holding one, only the
// runtime can see it, and says so.)
func (p *Package) checkGoroutines(s *Sub) {
	var lits []*ast.FuncLit                // function literals of the body
	started := map[*ast.FuncLit]ast.Node{} // the go statement or call (wg.Go) that starts it
	ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.GoStmt:
			if lit, ok := n.Call.Fun.(*ast.FuncLit); ok {
				started[lit] = n
			}
		case *ast.CallExpr:
			if f, _ := GoStarted(p.Info, n); f != nil {
				if lit, ok := ast.Unparen(f).(*ast.FuncLit); ok {
					started[lit] = n
				}
			}
		}
		return true
	})
	if len(started) == 0 {
		return
	}
	for _, c := range s.Constructs {
		does, ok := detachedDoes[c.Kind()]
		if !ok {
			continue
		}
		// Code in a literal a started goroutine holds runs on that
		// goroutine too (lits are in source order: the last is innermost).
		var g ast.Node
		for _, lit := range lits {
			if lit.Body.Lbrace < c.Pos() && c.Pos() < lit.Body.Rbrace && started[lit] != nil {
				g = started[lit]
			}
		}
		if g != nil {
			p.warnf(c.Pos(), "%s in the goroutine started at line %d %s: a goroutine the program starts is not one of its processors; reach the %s from the processors' code to run it in parallel",
				c.Kind(), p.Fset.Position(g.Pos()).Line, does, c.Kind())
		}
	}
}

// pairEnds matches //svm:end directives with the end-form constructs they
// close, list by list, innermost first. An end-form construct that no end
// closes applies to the one statement after it (next-statement form); one
// that stands inside a construct closed by an end must have its statement
// before that end, and may not be closed by an end after it.
func (p *Package) pairEnds(s *Sub) {
	open := map[token.Pos][]*Construct{} // per statement list
	cut := map[*Construct]*Construct{}   // opener → the end that closed an enclosing construct
	line := func(c *Construct) int { return p.Fset.Position(c.Pos()).Line }
	for _, c := range s.Constructs {
		info := directives.Lookup(c.Kind())
		switch {
		case c.Kind() == directives.End:
			end := c.Dir.End
			matches := func(o *Construct) bool {
				return o.ListPos == c.ListPos && o.Kind() == end.What && (end.Name == nil || nameOf(o) == end.Name.Name)
			}
			what := end.What.String()
			if end.Name != nil {
				what += " " + end.Name.Name
			}
			stack := open[c.ListPos]
			i := len(stack) - 1
			for i >= 0 && !matches(stack[i]) {
				i--
			}
			if i < 0 {
				var crossed *Construct
				for _, o := range s.Constructs {
					if o.Pos() < c.Pos() && cut[o] != nil && matches(o) {
						crossed = o
					}
				}
				if crossed != nil {
					outer := cut[crossed].Opener
					p.errorf(c.Pos(), "end %s closes the %s at line %d, which began inside the %s at line %d and so must end before its end at line %d: constructs nest",
						what, crossed.Kind(), line(crossed), outer.Kind(), line(outer), line(cut[crossed]))
				} else {
					p.errorf(c.Pos(), "end %s has no %s to close earlier in the same block: a construct opens and ends in one statement list", what, what)
				}
				continue
			}
			o := stack[i]
			o.End, c.Opener = c, o
			o.Body = c.List[o.Index:c.Index]
			for _, inner := range stack[i+1:] {
				cut[inner] = c
				if inner.Index >= c.Index {
					p.errorf(inner.Pos(), "%s has no statement of its own before line %d, where the enclosing %s ends: close it with its own end before that line, or put a statement between them",
						strings.TrimSpace(inner.Kind().String()+" "+nameOf(inner)), line(c), o.Kind())
				}
			}
			open[c.ListPos] = stack[:i]
		case info.EndForm:
			open[c.ListPos] = append(open[c.ListPos], c)
		}
	}
}

// checkConstruct finds the statement a construct applies to and runs the
// check of its kind.
func (p *Package) checkConstruct(c *Construct) {
	d := c.Dir
	info := directives.Lookup(d.Kind)
	if info.OpensConstruct && c.End == nil {
		if c.Index >= len(c.List) {
			if info.NeedsLoop {
				p.errorf(c.Pos(), "%s must be followed by a for statement", d.Kind)
			} else if info.EndForm {
				p.errorf(c.Pos(), "%s must be followed by the statement it applies to, or closed later in the same block by //svm:end %s", d.Kind, d.Kind)
			} else {
				p.errorf(c.Pos(), "%s must be followed by the statement it applies to", d.Kind)
			}
			return
		}
		c.Stmt = c.List[c.Index]
	}
	h, ok := handlers[d.Kind]
	if !ok || h.check == nil {
		p.errorf(c.Pos(), "svmc internal error: the compiler has no check for %s directives", d.Kind)
		return
	}
	h.check(p, c)
}

// checkPlacement rejects directives inside a pdo body that cannot run there.
func (p *Package) checkPlacement(s *Sub) {
	for _, c := range s.Constructs {
		if c.Kind() != directives.PDO || c.PDO == nil {
			continue
		}
		outer := c.PDO.Loops[0].Stmt
		for _, o := range s.Constructs {
			if o == c || o.Pos() < outer.Pos() || o.Pos() >= outer.End() {
				continue
			}
			switch {
			case directives.Lookup(o.Kind()).InParallelBody:
			case o.Kind() == directives.PDO:
				p.errorf(o.Pos(), "pdo inside the body of the pdo at line %d: a parallel loop nest is one pdo with loops(...)", p.Fset.Position(c.Pos()).Line)
			default:
				p.errorf(o.Pos(), "%s inside the body of the pdo at line %d: it would run once per iteration on one processor; move it before or after the pdo", o.Kind(), p.Fset.Position(c.Pos()).Line)
			}
		}
	}
}

// checkJumps rejects statements that leave a parallel body or a user region
// other than by its end: return (unless allowed), defer, and break,
// continue or goto to a label outside.
func (p *Package) checkJumps(c *Construct, body []ast.Stmt, what string, returnOK bool) {
	labels := map[string]bool{}
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			if l, ok := n.(*ast.LabeledStmt); ok {
				labels[l.Label.Name] = true
			}
			_, lit := n.(*ast.FuncLit)
			return !lit
		})
	}
	line := p.Fset.Position(c.Pos()).Line
	hint := "a pdo runs all its iterations; continue ends one"
	// A search that stops at its find, or a loop that returns its first
	// error: the parallel form records them and decides after the loop.
	search := "; a search keeps what it finds in a reduction variable, reduction(min: k) for the first index, and uses it after the loop"
	leave := "; return after its end"
	if what == "pdo" {
		leave = "; record what it would return (an error or result per iteration in a slice indexed by the iteration, or the first index with reduction(min: k)) and return after the loop"
	} else {
		hint, search = "a region is left only through its end", ""
	}
	var walk func(n ast.Node, loops, breakable int)
	walk = func(n ast.Node, loops, breakable int) {
		ast.Inspect(n, func(x ast.Node) bool {
			switch s := x.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				if !returnOK {
					p.errorf(s.Pos(), "return inside the body of the %s at line %d: a parallel body cannot leave its construct%s", what, line, leave)
				}
			case *ast.DeferStmt:
				p.errorf(s.Pos(), "defer inside the body of the %s at line %d: it would run when the processor's part ends, not when the function returns; put the code that needs it in a function literal, func() { ...; defer ... }(), to run it at that function's end", what, line)
			case *ast.ForStmt, *ast.RangeStmt:
				if x != n {
					walk(x, loops+1, breakable+1)
					return false
				}
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if x != n {
					walk(x, loops, breakable+1)
					return false
				}
			case *ast.BranchStmt:
				if s.Label != nil {
					// continue to the pdo's own (innermost) loop ends one
					// iteration, as in the loop as written.
					own := what == "pdo" && c.PDO != nil && s.Label.Name == c.PDO.Label
					switch {
					case own && s.Tok == token.BREAK:
						p.errorf(s.Pos(), "break %s inside the body of the pdo at line %d leaves it: a pdo runs all its iterations; continue %s ends one%s", s.Label.Name, line, s.Label.Name, search)
					case own && s.Tok == token.CONTINUE:
					case !labels[s.Label.Name]:
						p.errorf(s.Pos(), "%s %s inside the body of the %s at line %d jumps out of it: %s", s.Tok, s.Label.Name, what, line, hint)
					}
					return true
				}
				switch {
				case s.Tok == token.BREAK && breakable == 0:
					p.errorf(s.Pos(), "break inside the body of the %s at line %d leaves it: %s%s", what, line, hint, search)
				case s.Tok == token.CONTINUE && loops == 0 && what != "pdo":
					p.errorf(s.Pos(), "continue inside the body of the %s at line %d leaves it: %s", what, line, hint)
				}
			}
			return true
		})
	}
	for _, st := range body {
		switch st.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			walk(st, 1, 1)
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			walk(st, 0, 1)
		default:
			walk(st, 0, 0)
		}
	}
}
