package compiler

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// RowCheck is an access check hoisted out of its innermost loop, in a
// program built for the ranks of an MPI job: there every check of a lazy
// page costs a call, and a stencil's inner loop makes four or five per
// element. An access X[e1]…[ek][j+c] whose row X[e1]…[ek] does not change
// in the loop `for j := Lo; j < Hi; j++` (or <=) touches the elements
// Lo+c … Hi−1+c of that row, so one check of those pages before the loop
// stands for all of it (pages only become invalid at a pdo's end, never
// inside one). Codegen puts `svm_rt.RowCheck(svm_p, N, row[:], lo, hi,
// write)` before the loop in the checked copy and leaves the access plain.
//
// In a pdo the innermost loop of the nest is the runtime's: Nest is the
// construct, and codegen walks its iterations a run at a time (the
// iterations that differ only in the innermost index, Iter.NextRun), the
// row checked once per run; Loop, Lo, Hi are nil then.
type RowCheck struct {
	Nest   *Construct
	Loop   *ast.ForStmt
	Row    ast.Expr // X[e1]…[ek]: a slice or array
	Lo, Hi ast.Expr // the loop's bounds
	Incl   bool     // the condition is j <= Hi
	Off    int64    // c
}

// hoistRows gives the accesses of accs that qualify their RowCheck.
func (p *Package) hoistRows(accs []*Access) {
	byExpr := map[*ast.IndexExpr]*Access{}
	for _, a := range accs {
		if a.Expr != nil {
			byExpr[a.Expr] = a
		}
	}
	for _, s := range p.Subs {
		if s.Decl.Body == nil {
			continue
		}
		escaped := p.escapedObjs(s.Decl.Body)
		labelled := map[ast.Stmt]bool{}
		for _, c := range s.Constructs {
			if c.PDO != nil && len(c.PDO.Loops) > 0 {
				p.hoistNest(c, byExpr, escaped)
				for _, l := range c.PDO.Loops {
					labelled[l.Stmt] = true // svmc replaces its header: not a loop of hoistLoop's
				}
			}
		}
		ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
			if l, ok := n.(*ast.LabeledStmt); ok {
				labelled[l.Stmt] = true
			}
			return true
		})
		ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
			loop, ok := n.(*ast.ForStmt)
			if !ok || labelled[loop] {
				return true
			}
			p.hoistLoop(loop, byExpr, escaped)
			return true
		})
	}
}

// escapedObjs are the variables of fn whose address is taken or that a
// function literal in it uses: a call in a loop may change them.
func (p *Package) escapedObjs(fn *ast.BlockStmt) map[types.Object]bool {
	esc := map[types.Object]bool{}
	ast.Inspect(fn, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && p.Info.Uses[id] != nil {
					esc[p.Info.Uses[id]] = true
				}
			}
		case *ast.FuncLit:
			ast.Inspect(x.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && p.Info.Uses[id] != nil {
					esc[p.Info.Uses[id]] = true
				}
				return true
			})
		}
		return true
	})
	return esc
}

// hoistLoop hoists the qualifying accesses of an innermost counting loop.
func (p *Package) hoistLoop(loop *ast.ForStmt, byExpr map[*ast.IndexExpr]*Access, escaped map[types.Object]bool) {
	j, lo, hi, incl := p.countingLoop(loop)
	if j == nil {
		return
	}
	variant, calls, ok := p.loopVariant(loop.Body, escaped)
	if !ok {
		return // innermost loops only, nothing that outlives an iteration
	}
	variant[j] = true
	if !p.invariant(lo, variant, calls, false) || !p.invariant(hi, variant, calls, false) {
		return
	}
	p.hoistBody(loop.Body, j, variant, calls, byExpr, func(ix *ast.IndexExpr, off int64) *RowCheck {
		return &RowCheck{Loop: loop, Row: ix.X, Lo: lo, Hi: hi, Incl: incl, Off: off}
	})
}

// hoistNest hoists the qualifying accesses of a pdo's body out of the run
// of its innermost loop.
func (p *Package) hoistNest(c *Construct, byExpr map[*ast.IndexExpr]*Access, escaped map[types.Object]bool) {
	body, j := c.PDO.Body, types.Object(c.PDO.Loops[len(c.PDO.Loops)-1].Obj)
	variant, calls, ok := p.loopVariant(body, escaped)
	if !ok {
		return
	}
	variant[j] = true
	for _, l := range c.PDO.Loops {
		if l.Value != nil {
			variant[l.Value] = true // read from storage per iteration
		}
	}
	p.hoistBody(body, j, variant, calls, byExpr, func(ix *ast.IndexExpr, off int64) *RowCheck {
		return &RowCheck{Nest: c, Row: ix.X, Off: off}
	})
}

// loopVariant is what a loop's body may change from one iteration to the
// next (see hoistLoop), and whether it calls anything; not ok where the
// body holds an inner loop or something that outlives an iteration.
func (p *Package) loopVariant(body *ast.BlockStmt, escaped map[types.Object]bool) (variant map[types.Object]bool, calls, ok bool) {
	inner := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt, *ast.LabeledStmt:
			inner = true
		}
		return !inner
	})
	if inner {
		return nil, false, false
	}
	variant = p.variantObjs(body)
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if tv, ok := p.Info.Types[c.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
				return true
			}
			calls = true
		}
		return !calls
	})
	if calls {
		for o := range escaped {
			variant[o] = true
		}
	}
	return variant, calls, true
}

// hoistBody gives each access of body of the form X[e…][j+c] whose row is
// invariant the row check mk makes.
func (p *Package) hoistBody(body *ast.BlockStmt, j types.Object, variant map[types.Object]bool, calls bool, byExpr map[*ast.IndexExpr]*Access, mk func(*ast.IndexExpr, int64) *RowCheck) {
	ast.Inspect(body, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		a := byExpr[ix]
		if a == nil {
			return true
		}
		off, ok := p.loopIndex(ix.Index, j)
		if !ok || !p.invariant(ix.X, variant, calls, true) || !p.indexesSliceOrArray(ix.X) {
			return false
		}
		a.Row = mk(ix, off)
		return false
	})
}

// countingLoop matches `for j := lo; j < hi; j++` (or j <= hi, j += 1)
// whose body does not assign j.
func (p *Package) countingLoop(loop *ast.ForStmt) (j types.Object, lo, hi ast.Expr, incl bool) {
	init, ok := loop.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return nil, nil, nil, false
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok || p.Info.Defs[id] == nil {
		return nil, nil, nil, false
	}
	obj := p.Info.Defs[id]
	if b, ok := obj.Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return nil, nil, nil, false
	}
	cond, ok := loop.Cond.(*ast.BinaryExpr)
	if !ok || (cond.Op != token.LSS && cond.Op != token.LEQ) || !p.isObj(cond.X, obj) {
		return nil, nil, nil, false
	}
	switch post := loop.Post.(type) {
	case *ast.IncDecStmt:
		if post.Tok != token.INC || !p.isObj(post.X, obj) {
			return nil, nil, nil, false
		}
	case *ast.AssignStmt:
		if post.Tok != token.ADD_ASSIGN || len(post.Lhs) != 1 || !p.isObj(post.Lhs[0], obj) || !p.isConst(post.Rhs[0], 1) {
			return nil, nil, nil, false
		}
	default:
		return nil, nil, nil, false
	}
	return obj, init.Rhs[0], cond.Y, cond.Op == token.LEQ
}

func (p *Package) isObj(e ast.Expr, obj types.Object) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && p.Info.Uses[id] == obj
}

func (p *Package) isConst(e ast.Expr, v int64) bool {
	tv, ok := p.Info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	x, exact := constant.Int64Val(constant.ToInt(tv.Value))
	return exact && x == v
}

// loopIndex matches j, j+c, j-c, c+j (c an integer constant).
func (p *Package) loopIndex(e ast.Expr, j types.Object) (int64, bool) {
	e = ast.Unparen(e)
	if p.isObj(e, j) {
		return 0, true
	}
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.ADD && b.Op != token.SUB {
		return 0, false
	}
	c := func(x ast.Expr) (int64, bool) {
		tv, ok := p.Info.Types[x]
		if !ok || tv.Value == nil {
			return 0, false
		}
		return constant.Int64Val(constant.ToInt(tv.Value))
	}
	if p.isObj(b.X, j) {
		if v, ok := c(b.Y); ok {
			if b.Op == token.SUB {
				v = -v
			}
			return v, true
		}
	}
	if b.Op == token.ADD && p.isObj(b.Y, j) {
		return c(b.X)
	}
	return 0, false
}

// variantObjs are the variables the body defines, assigns, increments or
// takes the address of (writtenExprs' expressions, by their root
// variable: a write of an element leaves the rows as they are).
func (p *Package) variantObjs(body *ast.BlockStmt) map[types.Object]bool {
	v := map[types.Object]bool{}
	for e := range writtenExprs(body) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.Ident:
				if o := p.Info.Uses[x]; o != nil {
					v[o] = true
				}
			case *ast.IndexExpr:
				if p.indexesSliceOrArray(x) {
					e = x.X // a row: the variable holding it changes
					continue
				}
			case *ast.SelectorExpr:
				e = x.X
				continue
			case *ast.StarExpr:
				e = x.X
				continue
			}
			break
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && p.Info.Defs[id] != nil {
			v[p.Info.Defs[id]] = true // defined in the body: one per iteration
		}
		return true
	})
	return v
}

// invariant reports whether e has the same value in every iteration of a
// loop whose body changes the variables of variant: variables it does not
// change (package variables only where the body calls nothing), constants,
// arithmetic on them and, with rows, index expressions into slices and
// arrays it does not change (a row of a [][]T) whose indices are such
// arithmetic (no access of shared storage: the hoisted text is unchecked).
func (p *Package) invariant(e ast.Expr, variant map[types.Object]bool, calls, rows bool) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		switch o := p.Info.Uses[x].(type) {
		case *types.Const:
			return true
		case *types.Var:
			global := o.Parent() != nil && o.Parent() == p.Types.Scope()
			return !variant[o] && !(global && calls)
		}
		return false
	case *ast.BinaryExpr:
		return p.invariant(x.X, variant, calls, false) && p.invariant(x.Y, variant, calls, false)
	case *ast.UnaryExpr:
		return (x.Op == token.SUB || x.Op == token.ADD) && p.invariant(x.X, variant, calls, false)
	case *ast.IndexExpr:
		return rows && p.indexesSliceOrArray(x.X) && p.invariant(x.X, variant, calls, true) && p.invariant(x.Index, variant, calls, false)
	}
	return false
}

// indexesSliceOrArray reports whether e is a slice or an array (so that
// e[:] is its elements).
func (p *Package) indexesSliceOrArray(e ast.Expr) bool {
	switch p.Info.TypeOf(e).Underlying().(type) {
	case *types.Slice, *types.Array:
		return true
	}
	return false
}
