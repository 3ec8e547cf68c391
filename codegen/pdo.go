package codegen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/directives"
)

// pdo replaces a loop nest by a call of rtlib's PDO. The loop headers become
// the iteration space, the body becomes a function each processor runs
// over its own iterations, and reduction variables get private copies that
// the runtime combines in processor order:
//
//	svm_p.PDO(S, D, schedule, []svm_rt.Range{{Lo, Hi, Step}, ...}, func(svm_p *svm_rt.Proc, svm_it *svm_rt.Iter) {
//		svm_red := svm_rt.Identity(sum, svm_rt.OpAdd)
//		for svm_it.NextRun() {
//			svm_first, svm_n, svm_step := svm_it.Run()
//			for svm_i, svm_k := svm_first, svm_n; svm_k > 0; svm_i, svm_k = svm_i+svm_step, svm_k-1 {
//				i := int(svm_i)
//				... user body, sum renamed svm_red ...
//			}
//		}
//		svm_rt.ReduceInto(svm_it, &sum, svm_red, svm_rt.OpAdd)
//	})
func (g *gen) pdo(c *compiler.Construct) {
	info := c.PDO
	var outer ast.Node = info.Loops[0].Stmt
	if l := info.Loops[0].Labeled; l != nil {
		outer = l // its label goes too: it names the loop of svm_it.Next
	}
	s, d := c.Sub.Num, c.Num
	var pre, b strings.Builder
	var ranges []string
	for k, l := range info.Loops {
		hi := l.Hi
		if l.Range != "" {
			rv := fmt.Sprintf("svm_range%d_%d", d, k)
			fmt.Fprintf(&pre, "%s := %s\n", rv, l.Range)
			hi = "len(" + rv + ") - 1"
		}
		ranges = append(ranges, fmt.Sprintf("{Lo: %s, Hi: %s, Step: %s}", l.Lo, hi, l.Step))
	}
	redVar := func(k int) string { return fmt.Sprintf("svm_red%d_%d", d, k) }
	// The ranged expressions' variables are declared in a block of their
	// own: a goto may jump over the loop, but not over a declaration.
	if pre.Len() > 0 {
		b.WriteString("{\n")
	}
	fmt.Fprintf(&b, "%s%s.PDO(%d, %d, %s, []%s.Range{%s}, func(%s *%s.Proc, %s *%s.Iter) {\n",
		pre.String(), procVar, s, d, g.schedule(c), rt, strings.Join(ranges, ", "), procVar, rt, iterVar, rt)
	for k, r := range info.Reds {
		switch r.Obj.Type().Underlying().(type) {
		case *types.Slice:
			fmt.Fprintf(&b, "%s := %s.IdentitySlice(%s, %s.%s)\n", redVar(k), rt, r.Name, rt, opName[r.Op])
		case *types.Array:
			fmt.Fprintf(&b, "%s := %s\n%s.FillIdentity(%s[:], %s.%s)\n", redVar(k), r.Name, rt, redVar(k), rt, opName[r.Op])
		default:
			fmt.Fprintf(&b, "%s := %s\n", redVar(k), identity(r))
		}
	}
	// The iterations are walked a run at a time (those that differ only
	// in the innermost index: a loop of the user's form, 30% faster than
	// one call a iteration on a stencil). Only the innermost loop may
	// carry a label (pass_pdo), which goes on the loop of a run: continue
	// to it ends one iteration.
	var head strings.Builder
	head.WriteString(g.runHead(c, nil))
	const closeHead = "}\n}\n"
	// A body with access checks of shared variables runs as written when
	// the SVM layer is off: the loop is generated twice, and the test is
	// made once per task instead of once per access. Built for ranks, the
	// checked copy checks the rows of hoisted accesses once per run.
	var unchecked *copySpec
	if info.Label == "" && g.splitChecked(info.Body) { // one copy: one label
		unchecked = g.e.uncheckedCopy()
		fmt.Fprintf(&b, "if !%s.Checking() {\n%s%s\n%s} else {\n", procVar, head.String(), unchecked.token, closeHead)
		head.Reset()
		head.WriteString(g.runHead(c, g.hoisted(c)))
	}
	b.WriteString(head.String())
	// The user's body keeps its braces: a block inside the loop that
	// declares the loop variables, where Go puts it, so that the body may
	// declare them again (i := i * 2).
	_, unchecked0 := g.e.replace(g.off(outer.Pos()), g.off(info.Body.Lbrace), strings.TrimSuffix(b.String(), "\n"), opening, g.line(c.Pos()))

	var end strings.Builder
	end.WriteString(closeHead)
	if unchecked != nil {
		end.WriteString("}\n")
	}
	// Real numbers hand their partial result to the runtime as bits, so a
	// loop with reductions allocates nothing; strings, booleans and complex
	// numbers as a value with the operator as a function, which the
	// runtime can also send between ranks (the accumulator itself must
	// not escape, so that it stays in a register in the loop).
	for k, r := range info.Reds {
		if compiler.ElemOf(r.Obj.Type()) != nil {
			fmt.Fprintf(&end, "%s.ReduceSlice(%s, %s[:], %s[:], %s.%s)\n", rt, iterVar, r.Name, redVar(k), rt, valueOp[r.Op])
			continue
		}
		if realNumber(r.Obj.Type()) {
			fmt.Fprintf(&end, "%s.ReduceInto(%s, &%s, %s, %s.%s)\n", rt, iterVar, r.Name, redVar(k), rt, opName[r.Op])
			continue
		}
		fmt.Fprintf(&end, "%s.ReduceValue(%s, &%s, %s, %s.%s)\n", rt, iterVar, r.Name, redVar(k), rt, valueOp[r.Op])
	}
	end.WriteString("})")
	if pre.Len() > 0 {
		end.WriteString("\n}")
	}
	closeAt, _ := g.e.replace(g.off(info.Body.Rbrace)+1, g.off(outer.End()), end.String(), closing, g.line(outer.End()))
	if unchecked != nil {
		unchecked.from, unchecked.to = unchecked0, closeAt
	}

	// Uses of reduction variables in the body refer to the private copies.
	for k, r := range info.Reds {
		ast.Inspect(info.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && g.p.Info.Uses[id] == r.Obj {
				g.e.raw(g.off(id.Pos()), g.off(id.End()), redVar(k))
			}
			return true
		})
	}
}

// hoisted are the accesses of pdo c's body whose rows its checked copy
// checks once per run (compiler.RowCheck, built for ranks).
func (g *gen) hoisted(c *compiler.Construct) []*compiler.Access {
	var out []*compiler.Access
	for _, a := range accessesOf(g) {
		if a.Row != nil && a.Row.Nest == c {
			out = append(out, a)
		}
	}
	if len(out) > 0 {
		if g.runNests == nil {
			g.runNests = map[*compiler.Construct]bool{}
		}
		g.runNests[c] = true
	}
	return out
}

// runHead is the head of a pdo's loop that walks its iterations a run at
// a time, checking the rows of the hoisted accesses once per run:
//
//	for svm_it.NextRun() {
//		svm_first, svm_n, svm_step := svm_it.Run()
//		i := int(svm_it.Index(0))
//		if svm_n > 0 { svm_rt.RowCheck(svm_p, N, (a[i-1])[:], lo+c, hi+1+c, false) }
//		for svm_i, svm_k := svm_first, svm_n; svm_k > 0; svm_i, svm_k = svm_i+svm_step, svm_k-1 {
//			j := int(svm_i)
//			... user body ...
func (g *gen) runHead(c *compiler.Construct, hoisted []*compiler.Access) string {
	info := c.PDO
	last := len(info.Loops) - 1
	text := func(e ast.Expr) string { return string(g.e.src[g.off(e.Pos()):g.off(e.End())]) }
	var b strings.Builder
	fmt.Fprintf(&b, "for %s.NextRun() {\nsvm_first, svm_n, svm_step := %s.Run()\n", iterVar, iterVar)
	for k, l := range info.Loops[:last] {
		fmt.Fprintf(&b, "%s := %s(%s.Index(%d))\n", l.Name, g.typeName(l.Obj.Type()), iterVar, k)
		if !used(g.p.Info, info.Body, l.Obj) {
			fmt.Fprintf(&b, "_ = %s\n", l.Name)
		}
		g.rangeValue(&b, c, k, l)
	}
	if len(hoisted) > 0 {
		b.WriteString("if svm_n > 0 {\nsvm_lo, svm_hi := min(svm_first, svm_first+(svm_n-1)*svm_step), max(svm_first, svm_first+(svm_n-1)*svm_step)\n")
		for _, a := range hoisted {
			fmt.Fprintf(&b, "%s.RowCheck(%s, %d, (%s)[:], svm_lo+(%d), svm_hi+1+(%d), %v)\n", rt, procVar, a.Num, text(a.Row.Row), a.Row.Off, a.Row.Off, a.Write)
		}
		b.WriteString("}\n")
	}
	if ls := info.Loops[last].Labeled; ls != nil {
		// continue Label from the body ends one iteration. The label keeps
		// its line (an error about it points there).
		fmt.Fprintf(&b, "%s%s:\n", g.e.at(g.line(ls.Pos())), ls.Label.Name)
	}
	// The index steps and the count runs down: first+k*step kept one
	// more value live in the body, which spilled the inner loop's counter
	// of a matrix product to the stack (x502: 1.2-1.4x the plain loop).
	b.WriteString("for svm_i, svm_k := svm_first, svm_n; svm_k > 0; svm_i, svm_k = svm_i+svm_step, svm_k-1 {\n")
	l := info.Loops[last]
	fmt.Fprintf(&b, "%s := %s(svm_i)\n", l.Name, g.typeName(l.Obj.Type()))
	if !used(g.p.Info, info.Body, l.Obj) {
		fmt.Fprintf(&b, "_ = %s\n", l.Name)
	}
	g.rangeValue(&b, c, last, l)
	return b.String()
}

// rangeValue declares the value variable of loop k when it ranges over a
// slice or array.
func (g *gen) rangeValue(b *strings.Builder, c *compiler.Construct, k int, l *compiler.Loop) {
	if l.Value == nil {
		return
	}
	if l.Each != "" {
		fmt.Fprintf(b, "%s := (%s)[%s]\n", l.Value.Name(), l.Each, l.Name)
	} else {
		fmt.Fprintf(b, "%s := svm_range%d_%d[%s]\n", l.Value.Name(), c.Num, k, l.Name)
	}
	if !used(g.p.Info, c.PDO.Body, l.Value) {
		fmt.Fprintf(b, "_ = %s\n", l.Value.Name())
	}
}

// accessesOf are the package's numbered accesses of shared storage.
func accessesOf(g *gen) []*compiler.Access {
	accs, _ := compiler.ResultOf[[]*compiler.Access](g.p, compiler.AccessesPass)
	return accs
}

// loopVars declares the loop variables of a nest from index expressions
// (a format with one %d for the loop number), typed as the user declared
// them; unused ones are blanked so the code compiles.
func (g *gen) loopVars(info *compiler.PDO, index string, body ast.Node) string {
	var b strings.Builder
	for k, l := range info.Loops {
		fmt.Fprintf(&b, "%s := %s(%s)\n", l.Name, g.typeName(l.Obj.Type()), fmt.Sprintf(index, k))
		if body == nil || !used(g.p.Info, body, l.Obj) {
			fmt.Fprintf(&b, "_ = %s\n", l.Name)
		}
	}
	return b.String()
}

func used(info *types.Info, n ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok && info.Uses[id] == obj {
			found = true
		}
		return !found
	})
	return found
}

// typeName writes a type as the user's file names it.
func (g *gen) typeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == g.p.Types {
			return ""
		}
		return p.Name()
	})
}

// realNumber reports whether t is an integer or floating-point type, or
// a type parameter every type of whose type set is one (T with
// ~int | ~float64): its reduction then hands the runtime a value
// (ReduceInto), which the runtime can also combine between ranks; a
// closure (Reduce) it cannot.
func realNumber(t types.Type) bool {
	if tp, ok := t.(*types.TypeParam); ok {
		return allReal(tp.Constraint())
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsFloat) != 0
}

// allReal reports whether every type of the type set of constraint c is
// an integer or floating-point type. An interface's type set is the
// intersection of its elements', so one all-real element is enough.
func allReal(c types.Type) bool {
	switch u := c.Underlying().(type) {
	case *types.Interface:
		for i := range u.NumEmbeddeds() {
			if allReal(u.EmbeddedType(i)) {
				return true
			}
		}
		return false
	case *types.Union:
		for i := range u.Len() {
			t := u.Term(i).Type()
			if _, ok := t.Underlying().(*types.Interface); ok && !allReal(t) || !ok && !realNumber(t) {
				return false // (a term may be a constraint itself: Int | Float)
			}
		}
		return u.Len() > 0
	case *types.Basic:
		return u.Info()&(types.IsInteger|types.IsFloat) != 0
	}
	return false
}

func identity(r *compiler.Red) string {
	switch r.Op {
	case directives.LogAnd, directives.LogOr:
		// The idempotent operators start from the variable itself: x &&
		// (x && a && b) = x && a && b, and its type is the variable's (a
		// named bool type: an untyped true would make a bool). The
		// leader writes x only after every member's share ended.
		return r.Name
	case directives.Min, directives.Max:
		if !realNumber(r.Obj.Type()) {
			return r.Name // a string has no greatest value to start a min from
		}
	}
	return fmt.Sprintf("%s.Identity(%s, %s.%s)", rt, r.Name, rt, opName[r.Op])
}

var opName = map[directives.ReduceOp]string{
	directives.Add: "OpAdd", directives.Mul: "OpMul", directives.Min: "OpMin", directives.Max: "OpMax",
	directives.And: "OpAnd", directives.Or: "OpOr", directives.Xor: "OpXor",
}

// valueOp is rtlib's operator function of a reduction handed over with
// ReduceValue (the bit operators take integers only, always ReduceInto).
var valueOp = map[directives.ReduceOp]string{
	directives.Add: "SumOf", directives.Mul: "ProductOf", directives.Min: "MinOf", directives.Max: "MaxOf",
	directives.LogAnd: "AndOf", directives.LogOr: "OrOf",
	// (of the elements of a slice or array: ReduceSlice)
	directives.And: "AndBitsOf", directives.Or: "OrBitsOf", directives.Xor: "XorBitsOf",
}

// schedule is the rtlib schedule of a pdo.
func (g *gen) schedule(c *compiler.Construct) string {
	pd := c.Dir.PDO
	st := pd.Strategy
	if st == nil {
		return rt + ".DefaultSchedule()"
	}
	switch st.Kind {
	case directives.OnHome:
		subs := []string{st.Template.Name}
		for _, sub := range c.PDO.Subs {
			switch sub.Kind {
			case compiler.SubLoopVar:
				subs = append(subs, fmt.Sprintf("%s.LoopVar(%d, %d)", rt, sub.Loop, sub.Offset))
			case compiler.SubConst:
				subs = append(subs, fmt.Sprintf("%s.ConstIndex(int(%s))", rt, expr(sub.Expr)))
			default:
				subs = append(subs, fmt.Sprintf("%s.IndexFunc(func(svm_idx []int) int {\n%sreturn int(%s)\n})", rt,
					g.loopVars(c.PDO, "svm_idx[%d]", sub.Expr.X), expr(sub.Expr)))
			}
		}
		return fmt.Sprintf("%s.OnHome(%s)", rt, strings.Join(subs, ", "))
	case directives.LoopLevel:
		onto := "nil"
		if pd.Processors != nil {
			onto = pd.Processors.Name
		}
		args := []string{onto}
		for _, f := range st.Formats {
			args = append(args, format1(f))
		}
		return fmt.Sprintf("%s.LoopLevel(%s)", rt, strings.Join(args, ", "))
	case directives.Dynamic, directives.Guided, directives.Affinity:
		return dynamicSchedule(pd)
	}
	return rt + ".DefaultSchedule()"
}

// headers returns the source ranges that constructs replace wholesale (the
// loop headers of a pdo, an atomic update); edits of other passes must stay
// out of them.
func headers(s *compiler.Sub) [][2]token.Pos {
	var out [][2]token.Pos
	for _, c := range s.Constructs {
		switch {
		case c.PDO != nil:
			out = append(out, [2]token.Pos{c.PDO.Loops[0].Stmt.Pos(), c.PDO.Body.Lbrace + 1})
		case c.Kind() == directives.Atomic && c.Stmt != nil:
			out = append(out, [2]token.Pos{c.Stmt.Pos(), c.Stmt.End()})
		}
	}
	return out
}
