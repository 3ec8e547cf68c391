package compiler

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/progdb"
)

// PDO is the analysed loop nest of a pdo directive.
type PDO struct {
	Loops []*Loop        // outermost first
	Body  *ast.BlockStmt // body of the innermost loop
	// Label is the innermost loop's label ("" for none): continue Label
	// ends one iteration of the nest, as a plain continue in its body.
	Label string
	Reds  []*Red
	Vars  progdb.VarClasses
	// Subs classifies each on_home subscript (nil without on_home).
	Subs []Subscript
}

// Loop is one loop of a pdo nest in normalised form: the loop variable runs
// from Lo to Hi inclusive in steps of Step (Go expressions, source text).
type Loop struct {
	Name  string
	Obj   *types.Var
	Stmt  ast.Stmt // *ast.ForStmt or *ast.RangeStmt
	Body  *ast.BlockStmt
	Lo    string
	Hi    string
	Step  string
	Range string     // range over a slice or array: the ranged expression
	Value *types.Var // its value variable, or nil
	// Each is the ranged expression of an inner loop over an array that
	// the outer loop variables pick (for c := range grid[r] with grid a
	// [4][5]int): its length is the type's, Hi a constant, and the value
	// variable is read from it in the iteration (Range, evaluated before
	// the loops, cannot name r).
	Each string
	// Labeled is the labelled statement around Stmt, nil if none (only
	// the innermost loop of a nest may carry one).
	Labeled *ast.LabeledStmt
}

// Red is one reduction variable.
type Red struct {
	Op   directives.ReduceOp
	Name string
	Obj  *types.Var
}

// SubscriptKind says how an on_home subscript depends on the loop variables.
type SubscriptKind int

const (
	SubLoopVar SubscriptKind = iota // loop variable + constant offset
	SubConst                        // no loop variable
	SubExpr                         // any other expression of the loop variables
)

// Subscript is one on_home template subscript.
type Subscript struct {
	Kind   SubscriptKind
	Loop   int   // SubLoopVar: index of the loop
	Offset int64 // SubLoopVar: constant offset
	Expr   *directives.Expr
}

func (p *Package) checkPDO(c *Construct) {
	d := c.Dir.PDO
	st := c.Stmt
	info := &PDO{}
	if len(d.Loops) == 0 {
		// Without loops(...) the pdo is the loop that follows, as it is
		// written: its variable, or none (for _, v := range s, for range n).
		d.Loops = []directives.Name{{Name: implicitLoopVar(st), Pos: c.Dir.Pos}}
	}
	// Unwrap the nest.
	for k, name := range d.Loops {
		if st == nil {
			p.errorf(c.Pos(), "pdo loops(%s): loop %s is missing: the body of loop %s must hold only the for statement of %s (a perfect nest)",
				loopNames(d.Loops), name.Name, d.Loops[k-1].Name, name.Name)
			return
		}
		outer := ""
		if k > 0 {
			outer = d.Loops[k-1].Name
		}
		l := p.loop(c, st, name, outer, k == len(d.Loops)-1)
		if l == nil {
			return
		}
		if l.Labeled != nil {
			info.Label = l.Labeled.Label.Name
		}
		info.Loops = append(info.Loops, l)
		if k+1 < len(d.Loops) {
			st = onlyStmt(l.Body)
		}
	}
	seen := map[string]bool{}
	for _, n := range d.Loops {
		if seen[n.Name] {
			p.errorf(posOf(p, n.Pos), "pdo loops(%s): %s is named twice", loopNames(d.Loops), n.Name)
		}
		seen[n.Name] = true
	}
	// The iteration space must be rectangular: inner bounds may not use
	// outer loop variables.
	for k, l := range info.Loops {
		for _, outer := range info.Loops[:k] {
			if !usesObj(p.Info, boundsOf(l.Stmt), outer.Obj) {
				continue
			}
			if p.arrayRow(l) { // it now ranges over its array type's length
				continue
			}
			why := ""
			if l.Range != "" {
				why = ": a slice's rows may differ in length (an array's may not: an inner loop may range over the row of an array the outer loops pick)"
			}
			p.errorf(l.Stmt.Pos(), "pdo loops(%s): the bounds of loop %s use %s; the iteration space of a pdo must be rectangular (make the inner loop a serial loop of the body)%s",
				loopNames(d.Loops), l.Name, outer.Name, why)
		}
	}
	info.Body = info.Loops[len(info.Loops)-1].Body
	c.PDO = info
	// Loop variables are the runtime's to set.
	for _, l := range info.Loops {
		ast.Inspect(info.Body, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch s := n.(type) {
			case *ast.AssignStmt:
				lhs = s.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{s.X}
			}
			for _, e := range lhs {
				if id, ok := e.(*ast.Ident); ok && p.Info.Uses[id] == l.Obj {
					p.errorf(id.Pos(), "pdo loop variable %s is assigned in the loop body; the runtime sets it (assign a copy instead)", l.Name)
				}
			}
			return true
		})
	}
	p.checkJumps(c, info.Body.List, "pdo", false)
	p.checkBoundWrites(c, info)
	p.checkReductions(c, info)
	p.checkStrategy(c, info)
	if d.Template != nil && (d.Strategy == nil || d.Strategy.Kind == directives.OnHome || d.Strategy.Kind == directives.LoopLevel) {
		p.errorf(posOf(p, d.Template.Pos), "pdo template(%s) records a dynamic scheduling decision as %s's distribution; with this strategy there is none: use dynamic, guided or affinity", d.Template.Name, d.Template.Name)
	}
	if d.Processors != nil {
		p.resolveProcs(c, *d.Processors)
	}
}

func loopNames(ns []directives.Name) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ","
		}
		s += n.Name
	}
	return s
}

// onlyStmt returns the single statement of a block, or nil.
func onlyStmt(b *ast.BlockStmt) ast.Stmt {
	if len(b.List) == 1 {
		return b.List[0]
	}
	return nil
}

// arrayRow makes l, an inner loop whose ranged expression names outer
// loop variables, a loop over the constant length of its array type
// (Each), and reports whether it could: a slice's rows may differ.
func (p *Package) arrayRow(l *Loop) bool {
	s, ok := l.Stmt.(*ast.RangeStmt)
	if !ok || l.Range == "" {
		return false
	}
	a, ok := p.Info.TypeOf(s.X).Underlying().(*types.Array)
	if !ok {
		return false
	}
	l.Hi, l.Each, l.Range = strconv.FormatInt(a.Len()-1, 10), l.Range, ""
	return true
}

// boundsOf returns the expressions that fix a loop's iteration space.
func boundsOf(st ast.Stmt) []ast.Node {
	switch s := st.(type) {
	case *ast.ForStmt:
		return []ast.Node{s.Init, s.Cond, s.Post}
	case *ast.RangeStmt:
		return []ast.Node{s.X}
	}
	return nil
}

// usesObj reports whether nodes use obj outside constant expressions
// (len(m[i]) of an array m is its type's length, whatever i is).
func usesObj(info *types.Info, nodes []ast.Node, obj types.Object) bool {
	found := false
	for _, n := range nodes {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(x ast.Node) bool {
			if e, ok := x.(ast.Expr); ok && info.Types[e].Value != nil {
				return false
			}
			if id, ok := x.(*ast.Ident); ok && info.Uses[id] == obj {
				found = true
			}
			return !found
		})
	}
	return found
}

// boundText is a loop bound's text, or its value when it is a constant
// expression that names a variable of the pdo's nest: the bounds are
// evaluated before the loops, where len(m[i]) - 1 of an array m could not
// name i.
func (p *Package) boundText(c *Construct, e ast.Expr) string {
	if v := p.Info.Types[e].Value; v != nil && v.Kind() == constant.Int {
		inner := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if o, ok := p.Info.Uses[id].(*types.Var); ok && c.Stmt.Pos() <= o.Pos() && o.Pos() < c.Stmt.End() {
					inner = true
				}
			}
			return !inner
		})
		if inner {
			return v.ExactString()
		}
	}
	return p.Text(e)
}

// implicitLoopVar is the variable of the loop a pdo without loops(...)
// applies to: "_" where it has none, "" where st is no loop.
func implicitLoopVar(st ast.Stmt) string {
	if ls, ok := st.(*ast.LabeledStmt); ok {
		st = ls.Stmt
	}
	switch s := st.(type) {
	case *ast.ForStmt:
		if init, ok := s.Init.(*ast.AssignStmt); ok && len(init.Lhs) == 1 {
			if id, ok := init.Lhs[0].(*ast.Ident); ok {
				return id.Name
			}
		}
		return "i"
	case *ast.RangeStmt:
		if id, ok := s.Key.(*ast.Ident); ok && s.Tok == token.DEFINE {
			return id.Name
		}
		if s.Key == nil || s.Tok == token.DEFINE {
			return "_"
		}
		return "i"
	}
	return ""
}

// hiddenIndex is the name of the index generated for a pdo over a range
// loop that declares none: the body cannot see it.
const hiddenIndex = "svm_i"

// loop analyses one loop of the nest; outer is the loop variable of the
// enclosing loop of the nest ("" for the outermost), innermost whether it
// is the last. The innermost loop may carry a label, the target of a
// continue from a loop inside its body (continue outer): that continue
// ends one iteration, as in the serial loop. An outer loop's label would
// end several iterations of the nest at once.
func (p *Package) loop(c *Construct, st ast.Stmt, name directives.Name, outer string, innermost bool) *Loop {
	line := p.Fset.Position(c.Pos()).Line
	ls, labeled := st.(*ast.LabeledStmt)
	if labeled {
		if !innermost {
			p.errorf(ls.Pos(), "pdo loops(%s) (line %d): the loop over %s may not carry a label: continue %s would end several iterations of the nest at once; make %s a serial loop of the body, or label the innermost loop",
				loopNames(c.Dir.PDO.Loops), line, name.Name, ls.Label.Name, name.Name)
			return nil
		}
		st = ls.Stmt
	}
	var l *Loop
	switch s := st.(type) {
	case *ast.ForStmt:
		l = p.forLoop(c, s, name)
	case *ast.RangeStmt:
		l = p.rangeLoop(c, s, name)
	default:
		p.notALoop(c, st, name, outer, line)
		return nil
	}
	if l != nil && labeled {
		l.Labeled = ls
	}
	return l
}

// notALoop reports that statement st, where the pdo at line expects the
// loop over name (inside the loop over outer, if any), is none.
func (p *Package) notALoop(c *Construct, st ast.Stmt, name directives.Name, outer string, line int) {
	if outer != "" {
		p.errorf(st.Pos(), "pdo loops(%s) (line %d): the body of loop %s must be only the for loop over %s (a perfect nest), found %s",
			loopNames(c.Dir.PDO.Loops), line, outer, name.Name, stmtKind(st))
		return
	}
	if name.Name == "" {
		p.errorf(st.Pos(), "pdo (line %d) must be followed by a for loop, found %s", line, stmtKind(st))
		return
	}
	p.errorf(st.Pos(), "pdo (line %d) must be followed by a for loop over %s, found %s", line, name.Name, stmtKind(st))
}

// stmtKind names the kind of a statement for messages.
func stmtKind(st ast.Stmt) string {
	switch s := st.(type) {
	case *ast.IfStmt:
		return "an if statement"
	case *ast.BlockStmt:
		return "a block"
	case *ast.ExprStmt:
		if _, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			return "a call"
		}
		return "an expression statement"
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			return "a short variable declaration"
		}
		return "an assignment"
	case *ast.SwitchStmt, *ast.TypeSwitchStmt:
		return "a switch statement"
	case *ast.SelectStmt:
		return "a select statement"
	case *ast.ForStmt, *ast.RangeStmt:
		return "a for statement"
	case *ast.DeclStmt:
		return "a declaration"
	case *ast.IncDecStmt:
		return "an increment or decrement"
	case *ast.ReturnStmt:
		return "a return statement"
	case *ast.BranchStmt:
		return "a " + s.Tok.String() + " statement"
	case *ast.GoStmt:
		return "a go statement"
	case *ast.DeferStmt:
		return "a defer statement"
	case *ast.SendStmt:
		return "a send statement"
	case *ast.LabeledStmt:
		return "a labeled statement"
	case *ast.EmptyStmt:
		return "an empty statement"
	}
	return "a statement"
}

const canonical = "for %[1]s := lo; %[1]s < hi; %[1]s++ (also <=, >, >=, %[1]s += c, %[1]s -= c) or for %[1]s := range n (n an integer, a slice or an array)"

func (p *Package) forLoop(c *Construct, s *ast.ForStmt, name directives.Name) *Loop {
	bad := func(why string) *Loop {
		p.errorf(s.Pos(), "pdo loop %s is not in canonical form (%s): want "+canonical, name.Name, why, name.Name)
		return nil
	}
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE {
		return bad("its init statement must declare the loop variable: " + name.Name + " := lo")
	}
	if len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return bad("its init statement must declare the loop variable alone")
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return bad("its init statement must declare the loop variable: " + name.Name + " := lo")
	}
	if id.Name != name.Name {
		p.errorf(s.Pos(), "pdo loops(...) names %s here, but this loop's variable is %s", name.Name, id.Name)
		return nil
	}
	obj, _ := p.Info.Defs[id].(*types.Var)
	if obj == nil || !isInteger(obj.Type()) {
		p.errorf(id.Pos(), "pdo loop variable %s must have an integer type", id.Name)
		return nil
	}
	// The runtime counts in int: bounds of a loop variable of another
	// integer type are converted before any arithmetic (a uint8 bound of
	// 0 minus 1 would wrap).
	asInt := func(text string) string { return text }
	if !types.Identical(obj.Type(), types.Typ[types.Int]) {
		asInt = func(text string) string { return "int(" + text + ")" }
	}
	l := &Loop{Name: id.Name, Obj: obj, Stmt: s, Body: s.Body, Lo: asInt(p.boundText(c, init.Rhs[0]))}
	cond, ok := s.Cond.(*ast.BinaryExpr)
	if !ok || !isIdentOf(p.Info, cond.X, obj) {
		return bad("its condition must compare the loop variable with the bound")
	}
	bound := asInt("(" + p.boundText(c, cond.Y) + ")")
	var up bool
	switch cond.Op {
	case token.LSS:
		l.Hi, up = bound+" - 1", true
	case token.LEQ:
		l.Hi, up = bound, true
	case token.GTR:
		l.Hi = bound + " + 1"
	case token.GEQ:
		l.Hi = bound
	default:
		return bad("its condition must use <, <=, > or >=")
	}
	var stepExpr ast.Expr
	switch post := s.Post.(type) {
	case *ast.IncDecStmt:
		if !isIdentOf(p.Info, post.X, obj) {
			return bad("its post statement must step the loop variable")
		}
		l.Step = "1"
		if post.Tok == token.DEC {
			l.Step = "-1"
		}
	case *ast.AssignStmt:
		if len(post.Lhs) != 1 || !isIdentOf(p.Info, post.Lhs[0], obj) || (post.Tok != token.ADD_ASSIGN && post.Tok != token.SUB_ASSIGN) {
			return bad("its post statement must be " + name.Name + "++, " + name.Name + "--, " + name.Name + " += c or " + name.Name + " -= c")
		}
		stepExpr = post.Rhs[0]
		l.Step = asInt("(" + p.boundText(c, stepExpr) + ")")
		if post.Tok == token.SUB_ASSIGN {
			l.Step = "-" + l.Step
		}
	default:
		return bad("it needs a post statement")
	}
	// A constant step must go the way the condition looks.
	sign := 0
	switch l.Step {
	case "1":
		sign = 1
	case "-1":
		sign = -1
	default:
		if tv, ok := p.Info.Types[stepExpr]; ok && tv.Value != nil {
			sign = constant.Sign(tv.Value)
			if post := s.Post.(*ast.AssignStmt); post.Tok == token.SUB_ASSIGN {
				sign = -sign
			}
			if sign == 0 {
				p.errorf(stepExpr.Pos(), "pdo loop %s has step 0: it would never end", name.Name)
				return nil
			}
		}
	}
	if (sign < 0 && up) || (sign > 0 && !up) {
		p.errorf(s.Cond.Pos(), "pdo loop %s never ends or never runs: its step goes %s but its condition is %s", name.Name,
			map[bool]string{true: "down", false: "up"}[sign < 0], p.Text(s.Cond))
		return nil
	}
	return l
}

func (p *Package) rangeLoop(c *Construct, s *ast.RangeStmt, name directives.Name) *Loop {
	var obj *types.Var
	if name.Name == "_" && (s.Key == nil || s.Tok == token.DEFINE) {
		// The pdo without loops(...) over for _, v := range s or for
		// range n: the iterations are numbered by an index of svmc's.
		obj = types.NewVar(s.Pos(), p.Types, hiddenIndex, types.Typ[types.Int])
	} else {
		id, ok := s.Key.(*ast.Ident)
		if !ok || s.Tok != token.DEFINE || id.Name == "_" {
			p.errorf(s.Pos(), "pdo loop %s must declare its variable: for %s := range ... (or leave out loops(...): a pdo without it is the loop that follows, with or without an index)", name.Name, name.Name)
			return nil
		}
		if id.Name != name.Name {
			p.errorf(s.Pos(), "pdo loops(...) names %s here, but this loop's variable is %s", name.Name, id.Name)
			return nil
		}
		obj, _ = p.Info.Defs[id].(*types.Var)
		if obj == nil {
			return nil
		}
	}
	l := &Loop{Name: obj.Name(), Obj: obj, Stmt: s, Body: s.Body, Lo: "0", Step: "1"}
	x := p.Text(s.X)
	t := p.Info.TypeOf(s.X)
	if t == nil {
		return nil
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			p.errorf(s.X.Pos(), "pdo loop %s ranges over %s; a pdo ranges over an integer, a slice or an array (a string's runes are not an index space: range over []rune(%s) or []byte(%s))", name.Name, p.typeString(t), x, x)
			return nil
		}
		if u.Info()&types.IsInteger == 0 {
			p.errorf(s.X.Pos(), "pdo loop %s ranges over %s; a pdo ranges over an integer, a slice or an array", name.Name, p.typeString(t))
			return nil
		}
		if types.Identical(t, types.Typ[types.Int]) || types.Identical(t, types.Typ[types.UntypedInt]) {
			l.Hi = "(" + x + ") - 1"
		} else {
			l.Hi = "int(" + x + ") - 1"
		}
	case *types.Slice, *types.Array:
		l.Range = x
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			p.errorf(s.X.Pos(), "pdo loop %s ranges over %s; a pdo ranges over an integer, a slice or an array", name.Name, p.typeString(t))
			return nil
		}
		l.Range = x
	case *types.Map:
		p.errorf(s.X.Pos(), "pdo loop %s ranges over %s; a pdo ranges over an integer, a slice or an array (a map's order is not an index space: range over its keys as a slice, keys := slices.Sorted(maps.Keys(%s)))", name.Name, p.typeString(t), x)
		return nil
	case *types.Chan:
		p.errorf(s.X.Pos(), "pdo loop %s ranges over %s; a pdo ranges over an integer, a slice or an array (a channel's values arrive one by one: receive them into a slice first, or let goroutines of the program take them)", name.Name, p.typeString(t))
		return nil
	case *types.Signature:
		p.errorf(s.X.Pos(), "pdo loop %s ranges over %s; a pdo ranges over an integer, a slice or an array (%s)", name.Name, p.typeString(t), iterHint(s.X, u, x))
		return nil
	default:
		p.errorf(s.X.Pos(), "pdo loop %s ranges over %s; a pdo ranges over an integer, a slice or an array", name.Name, p.typeString(t))
		return nil
	}
	if s.Value != nil {
		if v, ok := s.Value.(*ast.Ident); ok && v.Name != "_" {
			l.Value, _ = p.Info.Defs[v].(*types.Var)
		}
	}
	return l
}

func isIdentOf(info *types.Info, e ast.Expr, obj types.Object) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && info.Uses[id] == obj
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func (p *Package) checkReductions(c *Construct, info *PDO) {
	seen := map[string]bool{}
	for _, r := range c.Dir.PDO.Reductions {
		for _, v := range r.Vars {
			pos := posOf(p, v.Pos)
			if seen[v.Name] {
				p.errorf(pos, "reduction variable %s is named twice; reduce it with one operator", v.Name)
				continue
			}
			seen[v.Name] = true
			if slices.ContainsFunc(info.Loops, func(l *Loop) bool { return l.Name == v.Name }) {
				p.errorf(pos, "reduction(%s: %s): %s is a loop variable of the pdo; reduce into a variable declared before it", r.Op, v.Name, v.Name)
				continue
			}
			obj, ok := p.lookup(c.Pos(), v.Name).(*types.Var)
			if !ok {
				p.errorf(pos, "reduction(%s: %s): %s is not a variable declared before the pdo", r.Op, v.Name, v.Name)
				continue
			}
			if st, ok := obj.Type().Underlying().(*types.Struct); ok {
				p.errorf(pos, "reduction(%s: %s): %s has type %s, a struct, which does not reduce as a whole; %s", r.Op, v.Name, v.Name, p.typeString(obj.Type()), structAdvice(v.Name, st))
				continue
			}
			if why := reductionType(r.Op, obj.Type()); why != "" {
				p.errorf(pos, "reduction(%s: %s): %s has type %s; %s", r.Op, v.Name, v.Name, p.typeString(obj.Type()), why)
				continue
			}
			info.Reds = append(info.Reds, &Red{Op: r.Op, Name: v.Name, Obj: obj})
		}
	}
}

// reductionType says why a variable of type t cannot be reduced with op, or
// returns "". A type parameter qualifies when every type of its
// constraint's type set does.
func reductionType(op directives.ReduceOp, t types.Type) string {
	if tp, ok := t.(*types.TypeParam); ok {
		terms, ok := typeSet(tp.Constraint())
		if !ok || len(terms) == 0 {
			return fmt.Sprintf("the constraint of %s admits types without %s; constrain it to numbers (~int | ~float64 | ...)", tp.Obj().Name(), op)
		}
		for _, term := range terms {
			if why := reductionType(op, term); why != "" {
				return fmt.Sprintf("%s admits %s: %s", tp.Obj().Name(), term, why)
			}
		}
		return ""
	}
	if elem := ElemOf(t); elem != nil {
		// Element by element, as OpenMP reduces an array section; a type
		// parameter's type set must hold such elements only.
		kinds := []types.Type{elem}
		if tp, ok := elem.(*types.TypeParam); ok {
			terms, ok := typeSet(tp.Constraint())
			if !ok || len(terms) == 0 {
				return fmt.Sprintf("a slice or array reduces element by element, and the constraint of its elements %s admits types that are not numbers; constrain it to integers and floating-point numbers (~int | ~float64 | ...)", tp.Obj().Name())
			}
			kinds = terms
		}
		for _, k := range kinds {
			b, ok := k.Underlying().(*types.Basic)
			if !ok || b.Info()&(types.IsInteger|types.IsFloat) == 0 || b.Kind() == types.UnsafePointer {
				return fmt.Sprintf("a slice or array reduces element by element, and its elements must be integers or floating-point numbers, not %s", k)
			}
			switch op {
			case directives.LogAnd, directives.LogOr:
				return op.String() + " needs a bool"
			case directives.And, directives.Or, directives.Xor:
				if b.Info()&types.IsInteger == 0 {
					return op.String() + " needs integer elements"
				}
			}
		}
		return ""
	}
	b, ok := t.Underlying().(*types.Basic)
	var info types.BasicInfo
	if ok {
		info = b.Info()
	}
	switch op {
	case directives.LogAnd, directives.LogOr:
		if info&types.IsBoolean == 0 {
			return op.String() + " needs a bool"
		}
	case directives.And, directives.Or, directives.Xor:
		if info&types.IsInteger == 0 {
			return op.String() + " needs an integer"
		}
	case directives.Min, directives.Max:
		if info&types.IsOrdered == 0 {
			return op.String() + " needs an ordered type: an integer, a floating-point number or a string"
		}
	default:
		if info&types.IsBoolean != 0 {
			return op.String() + " needs a number (a bool reduces with && or ||)"
		}
		if info&types.IsString != 0 && op == directives.Add {
			// Concatenation has an order, which a reduction does not keep.
			return "+ needs a number: a string's + concatenates in the order of the iterations, which a reduction's partial results do not keep; write each iteration's part into a slice indexed by the iteration and join it after the loop (strings.Join)"
		}
		if info&types.IsNumeric == 0 {
			return op.String() + " needs a number"
		}
	}
	return ""
}

// structAdvice says how to reduce struct variable name: each field that
// reduces in a variable of its own (nameField).
func structAdvice(name string, st *types.Struct) string {
	var names []string
	for i := range st.NumFields() {
		f := st.Field(i)
		if b, ok := f.Type().Underlying().(*types.Basic); ok && b.Info()&(types.IsNumeric|types.IsBoolean|types.IsString) != 0 && f.Name() != "_" {
			names = append(names, name+strings.ToUpper(f.Name()[:1])+f.Name()[1:])
		}
	}
	if len(names) == 0 {
		return "update it in a //svm:critical section instead"
	}
	return fmt.Sprintf("reduce its fields in variables of their own declared before the loop (%s, each in the reduction clause of its operator) and set the struct from them after the loop, or update it in a //svm:critical section",
		strings.Join(names, ", "))
}

// ElemOf is the element type of a slice or array type, nil for other
// types.
func ElemOf(t types.Type) types.Type {
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return u.Elem()
	case *types.Array:
		return u.Elem()
	}
	return nil
}

// typeSet lists the types of a constraint's type set (the terms of its
// unions, through embedded interfaces); ok is false when the set is not
// given by terms (a constraint such as any or a method set).
func typeSet(constraint types.Type) (terms []types.Type, ok bool) {
	iface, isIface := constraint.Underlying().(*types.Interface)
	if !isIface {
		return []types.Type{constraint}, true
	}
	if iface.NumEmbeddeds() == 0 {
		return nil, false
	}
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				terms = append(terms, e.Term(j).Type())
			}
		default:
			sub, ok := typeSet(e)
			if !ok {
				return nil, false
			}
			terms = append(terms, sub...)
		}
	}
	return terms, true
}

func (p *Package) checkStrategy(c *Construct, info *PDO) {
	d := c.Dir.PDO
	st := d.Strategy
	if st == nil {
		return
	}
	stPos := posOf(p, st.Pos)
	switch st.Kind {
	case directives.OnHome:
		if d.Processors != nil {
			p.errorf(stPos, "strategy(on_home(...)) takes the processors from the template's distribution; drop processors(%s)", d.Processors.Name)
		}
		rank := p.resolveTemplate(c, *st.Template)
		if rank > 0 && rank != len(st.Subs) {
			p.errorf(stPos, "on_home(%s(...)): %s has %s, but %s given", st.Template.Name, st.Template.Name, plural(rank, "dimension"), plural(len(st.Subs), "subscript"))
		}
		if tc := p.templateDecl(c, st.Template.Name); tc != nil && tc.Declares && !distributes(c.Sub, st.Template.Name) {
			// Only the directives can reach a template they declare, and
			// none of this function distributes it: the run would stop
			// at the loop ("the template is not distributed").
			p.errorf(stPos, "on_home(%s(...)): template %s (line %d) is never distributed: no distribute, redistribute or pdo template(%s) of this function names it; distribute it before the loop (//svm:distribute (block) :: %s)",
				st.Template.Name, st.Template.Name, p.Fset.Position(tc.Pos()).Line, st.Template.Name, st.Template.Name)
		}
		bodyPos := info.Body.Lbrace + 1
		for _, e := range st.Subs {
			x := p.checkExpr(c, e, bodyPos, intType)
			info.Subs = append(info.Subs, p.classifySubscript(info, e, x))
		}
	case directives.LoopLevel:
		if len(st.Formats) > len(info.Loops) {
			p.errorf(stPos, "strategy has %s for %s", plural(len(st.Formats), "format"), plural(len(info.Loops), "loop"))
		}
		for _, f := range st.Formats {
			if f.Kind != directives.Block && f.Kind != directives.Cyclic {
				p.errorf(posOf(p, f.Pos), "loop-level scheduling takes block, cyclic or cyclic(k); %s distributes templates", f.Kind)
			}
			p.checkFormat(c, f)
		}
		want := 1
		if d.Processors != nil {
			want = p.procsRank(c, d.Processors.Name)
		}
		if want > 0 && len(st.Formats) != want {
			if d.Processors == nil {
				p.errorf(stPos, "strategy with %s needs processors(P) naming an arrangement with %s (without processors(...) a strategy distributes one loop over the active processors)",
					plural(len(st.Formats), "loop format"), plural(len(st.Formats), "dimension"))
			} else {
				p.errorf(stPos, "strategy has %s, but %s has %s: loop-level scheduling maps one loop onto each dimension of the arrangement",
					plural(len(st.Formats), "loop format"), d.Processors.Name, plural(want, "dimension"))
			}
		}
	default:
		p.checkDynamic(c, info)
	}
}

// classifySubscript decides how the runtime computes a subscript: a loop
// variable plus a constant, a constant, or a general expression.
func (p *Package) classifySubscript(info *PDO, e *directives.Expr, x ast.Expr) Subscript {
	uses := func(n ast.Expr) int {
		found := -1
		ast.Inspect(n, func(y ast.Node) bool {
			if id, ok := y.(*ast.Ident); ok {
				for k, l := range info.Loops {
					if id.Name == l.Name {
						found = k
					}
				}
			}
			return true
		})
		return found
	}
	if x == nil {
		return Subscript{Kind: SubExpr, Expr: e}
	}
	if uses(x) < 0 {
		return Subscript{Kind: SubConst, Expr: e}
	}
	x = ast.Unparen(x)
	if id, ok := x.(*ast.Ident); ok {
		return Subscript{Kind: SubLoopVar, Loop: uses(id), Expr: e}
	}
	if b, ok := x.(*ast.BinaryExpr); ok && (b.Op == token.ADD || b.Op == token.SUB) {
		if id, ok := ast.Unparen(b.X).(*ast.Ident); ok && uses(id) >= 0 && uses(b.Y) < 0 {
			if v, ok := constInt(b.Y); ok {
				if b.Op == token.SUB {
					v = -v
				}
				return Subscript{Kind: SubLoopVar, Loop: uses(id), Offset: v, Expr: e}
			}
		}
		if id, ok := ast.Unparen(b.Y).(*ast.Ident); ok && b.Op == token.ADD && uses(id) >= 0 && uses(b.X) < 0 {
			if v, ok := constInt(b.X); ok {
				return Subscript{Kind: SubLoopVar, Loop: uses(id), Offset: v, Expr: e}
			}
		}
	}
	return Subscript{Kind: SubExpr, Expr: e}
}

func constInt(e ast.Expr) (int64, bool) {
	lit, ok := ast.Unparen(e).(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, false
	}
	v := constant.MakeFromLiteral(lit.Value, lit.Kind, 0)
	return constant.Int64Val(v)
}

// infoPDO writes a pdo's loops, schedule, reductions and variable classes.
func infoPDO(c *Construct, d *progdb.Directive) {
	pd := c.Dir.PDO
	d.Label = c.Dir.Label()
	if pd.Strategy != nil && pd.Strategy.Template != nil {
		d.Template = pd.Strategy.Template.Name
	}
	if pd.Processors != nil {
		d.Procs = pd.Processors.Name
	}
	for _, l := range pd.Loops {
		d.Loops = append(d.Loops, l.Name)
	}
	d.Schedule = schedule(pd)
	for _, r := range pd.Reductions {
		red := progdb.Reduction{Op: r.Op.String()}
		for _, v := range r.Vars {
			red.Vars = append(red.Vars, v.Name)
		}
		d.Reductions = append(d.Reductions, red)
	}
	if c.PDO != nil {
		v := c.PDO.Vars
		d.Vars = &v
	}
}

// schedule describes a pdo's scheduling for the program information file.
func schedule(pd *directives.PDODir) *progdb.Schedule {
	s := &progdb.Schedule{Strategy: progdb.StrategyDefault}
	if pd.Template != nil {
		s.Record = pd.Template.Name
	}
	st := pd.Strategy
	if st == nil {
		return s
	}
	switch st.Kind {
	case directives.OnHome:
		s.Strategy = progdb.StrategyOnHome
		subs := make([]string, len(st.Subs))
		for i, e := range st.Subs {
			subs[i] = e.Text
		}
		s.Home = st.Template.Name + "(" + strings.Join(subs, ", ") + ")"
	case directives.LoopLevel:
		s.Strategy = progdb.StrategyLoopLevel
		for _, f := range st.Formats {
			s.Formats = append(s.Formats, f.String())
		}
		if pd.Processors != nil {
			s.Procs = pd.Processors.Name
		}
	case directives.Dynamic:
		s.Strategy = progdb.StrategyDynamic
	case directives.Guided:
		s.Strategy = progdb.StrategyGuided
	case directives.Affinity:
		s.Strategy = progdb.StrategyAffinity
	}
	if st.Chunk != nil {
		s.Chunk = st.Chunk.Text
	}
	return s
}

// iterHint says how to make an iterator's values an index space: collect
// them (slices.Collect takes a sequence of one value; a sequence of pairs
// goes into slices of its own), or range over the slice slices.All or
// slices.Backward walks.
func iterHint(x ast.Expr, sig *types.Signature, text string) string {
	if call, ok := ast.Unparen(x).(*ast.CallExpr); ok && len(call.Args) == 1 {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "slices" && (sel.Sel.Name == "All" || sel.Sel.Name == "Backward") {
				return "slices." + sel.Sel.Name + " walks a slice: range over the slice itself, for i, v := range " + types.ExprString(call.Args[0])
			}
		}
	}
	if sig.Params().Len() == 1 {
		if yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature); ok && yield.Params().Len() == 2 {
			return "an iterator yields its pairs one by one: collect them first, for k, v := range " + text + " { ks = append(ks, k); vs = append(vs, v) }, and range over ks"
		}
	}
	return "an iterator yields its values one by one: collect them first, xs := slices.Collect(" + text + "), and range over xs"
}

// distributes reports whether a directive of sub distributes template name:
// a distribute or redistribute naming it, or a pdo recording its schedule
// as the template's distribution (template(T)).
func distributes(sub *Sub, name string) bool {
	for _, o := range sub.Constructs {
		switch {
		case o.Dir.Distribute != nil:
			for _, t := range o.Dir.Distribute.Templates {
				if t.Name == name {
					return true
				}
			}
		case o.Dir.PDO != nil && o.Dir.PDO.Template != nil && o.Dir.PDO.Template.Name == name:
			return true
		}
	}
	return false
}
