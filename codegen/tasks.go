package codegen

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/directives"
)

// psection turns the block after a psection directive into one call of
// rtlib's PSection with a closure per section:
//
//	svm_p.PSection(S, D, []svm_rt.Section{
//		//svm:section processors(P)
//		{Dir: 3, Procs: P, Body: func(svm_p *svm_rt.Proc) {
//			<statement>
//		}},
//		...
//	})
func (g *gen) psection(c *compiler.Construct) {
	blk := c.Stmt.(*ast.BlockStmt)
	g.e.replace(g.off(blk.Lbrace), g.off(blk.Lbrace)+1,
		fmt.Sprintf("%s.PSection(%d, %d, []%s.Section{", procVar, c.Sub.Num, c.Num, rt), opening, g.line(c.Pos()))
	for _, sc := range c.Sections {
		procs := "nil"
		if sd := sc.Dir.Section; sd != nil && sd.Processors != nil {
			procs = sd.Processors.Name
			if sd.Part != nil {
				procs = fmt.Sprintf("%s.ProcsSection(%s, %d, %d%s)", procVar, procs, c.Sub.Num, sc.Num, spans(sd.Part))
			}
		}
		g.e.lines(g.off(sc.Stmt.Pos()), fmt.Sprintf("{Dir: %d, Procs: %s, Body: func(%s *%s.Proc) {", sc.Num, procs, procVar, rt), opening, g.line(sc.Pos()))
		g.e.lines(g.off(sc.Stmt.End()), "}},", closing, g.line(sc.Pos()))
	}
	g.e.replace(g.off(blk.Rbrace), g.off(blk.Rbrace)+1, "})", closing, g.line(blk.Rbrace))
}

// around brackets the statements of a construct (the next statement, or
// everything up to its end directive) with an opening and a closing line.
func (g *gen) around(c *compiler.Construct, open, close string) {
	if c.End != nil {
		g.e.lines(g.off(c.Dir.Comment.End()), open, following, g.line(c.Pos()))
		g.e.lines(g.off(c.End.Dir.Comment.Pos()), close, closing, g.line(c.End.Pos()))
		return
	}
	g.e.lines(g.off(c.Stmt.Pos()), open, opening, g.line(c.Pos()))
	g.e.lines(g.off(c.Stmt.End()), close, closing, g.line(c.Pos()))
}

// mode runs the statements of a replicated or exclusive region as a closure
// that rtlib runs on every member of the APS or on its leader.
func (g *gen) mode(c *compiler.Construct, method string) {
	g.around(c, fmt.Sprintf("%s.%s(%d, %d, func(%s *%s.Proc) {", procVar, method, c.Sub.Num, c.Num, procVar, rt), "})")
}

func (g *gen) critical(c *compiler.Construct) {
	name := ""
	if c.Dir.Name != nil {
		name = c.Dir.Name.Name
	}
	g.around(c,
		fmt.Sprintf("%s.CriticalEnter(%d, %d, %q)", procVar, c.Sub.Num, c.Num, name),
		fmt.Sprintf("%s.CriticalExit(%d, %d, %q)", procVar, c.Sub.Num, c.Num, name))
}

func (g *gen) lock(c *compiler.Construct) {
	held := fmt.Sprintf("svm_lock%d", c.Num)
	var vars []string
	for _, v := range c.Dir.Lock.Vars {
		vars = append(vars, fmt.Sprintf("%s.VarOf(&%s)", rt, expr(v)))
	}
	open := fmt.Sprintf("%s := %s.Lock(%d, %d, %s)", held, procVar, c.Sub.Num, c.Num, strings.Join(vars, ", "))
	close := fmt.Sprintf("%s.Unlock(%d, %d, %s)", procVar, c.Sub.Num, c.Num, held)
	if blockable(c) {
		// The lock's handle in a block of its own: a goto may jump over
		// the region, but not over a declaration.
		open, close = "{\n"+open, close+"\n}"
	}
	g.around(c, open, close)
}

// blockable reports whether the statement a lock applies to may go into a
// block of its own: it declares nothing what follows would use, and is no
// label a goto from outside may jump to. (Where it is, no goto of a valid
// program jumps over it.)
func blockable(c *compiler.Construct) bool {
	switch st := c.Stmt.(type) {
	case nil, *ast.DeclStmt, *ast.LabeledStmt:
		return false
	case *ast.AssignStmt:
		return st.Tok != token.DEFINE
	}
	return true
}

// atomic replaces an update statement by an atomic update of its variable.
func (g *gen) atomic(c *compiler.Construct) {
	s, d := c.Sub.Num, c.Num
	var code string
	switch st := c.Stmt.(type) {
	case *ast.IncDecStmt:
		x := g.p.Text(st.X)
		if st.Tok == token.INC {
			code = fmt.Sprintf("%s.AtomicAdd(%s, %d, %d, &%s, 1)", rt, procVar, s, d, x)
		} else {
			code = fmt.Sprintf("%s.AtomicUpdate(%s, %d, %d, &%s, func(svm_v %s) %s { return svm_v - 1 })",
				rt, procVar, s, d, x, g.typeName(g.p.Info.TypeOf(st.X)), g.typeName(g.p.Info.TypeOf(st.X)))
		}
	case *ast.AssignStmt:
		x, e := g.p.Text(st.Lhs[0]), g.p.Text(st.Rhs[0])
		if st.Tok == token.ADD_ASSIGN {
			code = fmt.Sprintf("%s.AtomicAdd(%s, %d, %d, &%s, %s)", rt, procVar, s, d, x, e)
		} else {
			// The operand is evaluated once, before the update: AtomicUpdate
			// may call its function more than once (compare and swap).
			op := strings.TrimSuffix(st.Tok.String(), "=")
			t := g.typeName(g.p.Info.TypeOf(st.Lhs[0]))
			operand := fmt.Sprintf("svm_operand%d", d)
			code = fmt.Sprintf("{ %s := %s(%s); %s.AtomicUpdate(%s, %d, %d, &%s, func(svm_v %s) %s { return svm_v %s %s }) }",
				operand, t, e, rt, procVar, s, d, x, t, t, op, operand) // a block: a goto may jump over the statement
		}
	}
	g.e.replace(g.off(c.Stmt.Pos()), g.off(c.Stmt.End()), code, opening, g.line(c.Stmt.Pos()))
}

// dynamicSchedule is the schedule of a pdo with a dynamic strategy, with the
// semi-dynamic template(T) clause recording the decision.
func dynamicSchedule(pd *directives.PDODir) string {
	st := pd.Strategy
	chunk := "1"
	if st.Chunk != nil {
		chunk = expr(st.Chunk)
	}
	var s string
	switch st.Kind {
	case directives.Dynamic:
		s = fmt.Sprintf("%s.Dynamic(%s)", rt, chunk)
	case directives.Guided:
		s = fmt.Sprintf("%s.Guided(%s)", rt, chunk)
	default:
		s = rt + ".Affinity()"
	}
	if pd.Template != nil {
		s += fmt.Sprintf(".Record(%s)", pd.Template.Name)
	}
	return s
}

// spans are the subscripts of an arrangement section as rtlib.Span values.
func spans(part []directives.Dim) string {
	var b strings.Builder
	for _, d := range part {
		switch {
		case d.Colon:
			fmt.Fprintf(&b, ", %s.Span{All: true}", rt)
		case d.Size != nil:
			fmt.Fprintf(&b, ", %s.Span{Lo: %s, Hi: %s}", rt, expr(d.Size), expr(d.Size))
		default:
			fmt.Fprintf(&b, ", %s.Span{Lo: %s, Hi: %s}", rt, expr(d.Lo), expr(d.Hi))
		}
	}
	return b.String()
}
