package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A pdo body often names an index through a local: row := y * w;
// img[row+x] = …, or k := i; out[k] = …. The dependence tests reason
// about the index expression, so a local stands for what it was given:
// img[y*w+x], out[i]. localDefs finds the locals that can be replaced so,
// substLocals replaces them.

// localDefs are the variables body declares with := or var and a value,
// assigned nowhere else in body, with that value, when every variable the
// value reads is one body does not write, or a loop variable of a for
// statement of body (the value is then of the same iteration of that
// loop, the only place the local is in scope).
func (p *Package) localDefs(body *ast.BlockStmt) map[types.Object]ast.Expr {
	writes := writtenExprs(body)
	written := map[types.Object]bool{}     // assigned as a whole
	writtenRoot := map[types.Object]bool{} // or an element, field or what it points to
	for e := range writes {
		if id, ok := e.(*ast.Ident); ok {
			written[p.Info.Uses[id]] = true
		}
		if id := rootIdent(e); id != nil {
			writtenRoot[p.Info.Uses[id]] = true
		}
	}
	loopVars := map[types.Object]bool{}
	defs := map[types.Object]ast.Expr{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ForStmt:
			if init, ok := s.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
				for _, lhs := range init.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && p.Info.Defs[id] != nil {
						loopVars[p.Info.Defs[id]] = true
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if id, ok := e.(*ast.Ident); ok && s.Tok == token.DEFINE && p.Info.Defs[id] != nil {
					loopVars[p.Info.Defs[id]] = true
				}
			}
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE && len(s.Lhs) == len(s.Rhs) {
				for i, lhs := range s.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && p.Info.Defs[id] != nil {
						defs[p.Info.Defs[id]] = s.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			if len(s.Names) == len(s.Values) {
				for i, id := range s.Names {
					if o := p.Info.Defs[id]; o != nil {
						defs[o] = s.Values[i]
					}
				}
			}
		}
		return true
	})
	for o, e := range defs {
		if written[o] || !p.stableValue(e, written, writtenRoot, loopVars) {
			delete(defs, o)
		}
	}
	return defs
}

// stableValue reports whether e is made of operators, constants,
// conversions, variables that keep their value (see localDefs) and
// elements of storage the body does not write (perm[i]); no calls.
func (p *Package) stableValue(e ast.Expr, written, writtenRoot, loopVars map[types.Object]bool) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if v, isVar := p.Info.Uses[x].(*types.Var); isVar && written[v] && !loopVars[v] {
				ok = false
			}
		case *ast.CallExpr:
			if tv, has := p.Info.Types[x.Fun]; (!has || !tv.IsType()) && p.pureFunc(x) == nil {
				ok = false // a conversion, int(x), is a value; so is key(i)
			}
		case *ast.IndexExpr:
			if id := rootIdent(x.X); id == nil || writtenRoot[p.Info.Uses[id]] {
				ok = false // an element the body may change in between
			}
		case *ast.UnaryExpr:
			ok = x.Op != token.AND && x.Op != token.ARROW // -x, ^x; not &x, <-ch
		case *ast.FuncLit, *ast.StarExpr, *ast.SliceExpr, *ast.TypeAssertExpr:
			ok = false
		}
		return ok
	})
	return ok
}

// substLocals returns e with each local of defs replaced by its value,
// through chains of them (a few deep), and each call of a function of one
// return statement (pureFunc) by that statement's expression of its
// arguments; e itself when there are none. The expressions it makes, at
// every depth, are marked synthetic: Text prints them, having no source
// text of their own.
func (p *Package) substLocals(e ast.Expr, defs map[types.Object]ast.Expr, depth int) ast.Expr {
	return p.subst(e, defs, depth)
}

// made marks an expression subst built: it has no source text of its own
// (Text prints it), though its positions are the parts' it was made of.
func (p *Package) made(e ast.Expr) ast.Expr {
	if p.synthetic == nil {
		p.synthetic = map[ast.Node]bool{}
	}
	p.synthetic[e] = true
	return e
}

func (p *Package) subst(e ast.Expr, defs map[types.Object]ast.Expr, depth int) ast.Expr {
	if depth > 4 {
		return e
	}
	switch x := e.(type) {
	case *ast.Ident:
		if d, ok := defs[p.Info.Uses[x]]; ok && len(defs) > 0 {
			d = p.subst(d, defs, depth+1)
			if _, bin := d.(*ast.BinaryExpr); bin {
				// (printed with its parentheses: row+x is (y*w)+x)
				d = p.made(&ast.ParenExpr{Lparen: x.Pos(), X: d, Rparen: x.End()})
			}
			return d
		}
	case *ast.ParenExpr:
		if in := p.subst(x.X, defs, depth); in != x.X {
			return p.made(&ast.ParenExpr{Lparen: x.Lparen, X: in, Rparen: x.Rparen})
		}
	case *ast.BinaryExpr:
		l, r := p.subst(x.X, defs, depth), p.subst(x.Y, defs, depth)
		if l != x.X || r != x.Y {
			return p.made(&ast.BinaryExpr{X: l, OpPos: x.OpPos, Op: x.Op, Y: r})
		}
	case *ast.UnaryExpr:
		if in := p.subst(x.X, defs, depth); in != x.X {
			return p.made(&ast.UnaryExpr{OpPos: x.OpPos, Op: x.Op, X: in})
		}
	case *ast.CallExpr:
		if f := p.pureFunc(x); f != nil {
			// key(i), func key(i int) int { return i % 4 }: i%4.
			args := map[types.Object]ast.Expr{}
			for k, prm := range f.params {
				args[prm] = p.subst(x.Args[k], defs, depth)
			}
			return p.made(&ast.ParenExpr{Lparen: x.Pos(), X: p.subst(f.result, args, depth+1), Rparen: x.End()})
		}
		if len(x.Args) == 1 { // a conversion
			if in := p.subst(x.Args[0], defs, depth); in != x.Args[0] {
				return p.made(&ast.CallExpr{Fun: x.Fun, Lparen: x.Lparen, Args: []ast.Expr{in}, Rparen: x.Rparen})
			}
		}
	}
	return e
}

// pureFn is a function of the package whose body is one return of an
// expression of its parameters: operators, constants and conversions.
type pureFn struct {
	params []types.Object
	result ast.Expr
}

// pureFunc is the function call calls when it is such a function (not a
// method, not generic, not variadic), nil otherwise: the dependence tests
// see through it as through a local (counts[key(i)] with key returning
// i%4 maps several iterations to one element).
func (p *Package) pureFunc(call *ast.CallExpr) *pureFn {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	fn, ok := p.Info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != p.Types {
		return nil
	}
	if p.pureFuncs == nil {
		p.pureFuncs = map[*types.Func]*pureFn{}
		for _, f := range p.Files {
			for _, d := range f.Syntax.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
					if o, ok := p.Info.Defs[fd.Name].(*types.Func); ok {
						p.pureFuncs[o] = p.pureBody(o, fd)
					}
				}
			}
		}
	}
	f := p.pureFuncs[fn]
	if f == nil || len(f.params) != len(call.Args) {
		return nil
	}
	return f
}

// pureBody is fd as a pureFn, nil when it is none.
func (p *Package) pureBody(fn *types.Func, fd *ast.FuncDecl) *pureFn {
	sig := fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 || sig.Variadic() || sig.Results().Len() != 1 || len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	params := map[types.Object]bool{}
	var order []types.Object
	for i := range sig.Params().Len() {
		params[sig.Params().At(i)] = true
		order = append(order, sig.Params().At(i))
	}
	pure := true
	ast.Inspect(ret.Results[0], func(n ast.Node) bool {
		switch x := n.(type) {
		case nil: // the end of a node's children
		case *ast.Ident:
			switch o := p.Info.Uses[x].(type) {
			case *types.Var:
				pure = pure && params[o]
			case *types.Const, *types.TypeName, nil:
			default:
				pure = false
			}
		case *ast.CallExpr:
			if tv, has := p.Info.Types[x.Fun]; !has || !tv.IsType() {
				pure = false // only conversions
			}
		case *ast.BinaryExpr, *ast.UnaryExpr, *ast.ParenExpr, *ast.BasicLit:
		default:
			pure = false
		}
		return pure
	})
	if !pure {
		return nil
	}
	return &pureFn{params: order, result: ret.Results[0]}
}
