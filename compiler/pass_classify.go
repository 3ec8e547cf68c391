package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/progdb"
)

// ClassifyPass sorts the variables each pdo body uses into private (declared
// in the nest, loop variables), reduction and shared (everything else), and
// warns when a shared scalar is assigned: every processor would write it.
var ClassifyPass = newPass("classify", "classify the variables of parallel bodies as shared, private, reduction", (*Package).classify, StructurePass)

// classify fills PDO.Vars and returns the classes of every pdo.
func (p *Package) classify() map[*Construct]progdb.VarClasses {
	out := map[*Construct]progdb.VarClasses{}
	for _, s := range p.Subs {
		for _, c := range s.Constructs {
			if c.PDO == nil {
				continue
			}
			info := c.PDO
			nest := info.Loops[0].Stmt
			red := map[types.Object]*Red{}
			for _, r := range info.Reds {
				red[r.Obj] = r
			}
			shared, private, reds := map[string]bool{}, map[string]bool{}, map[string]bool{}
			sharedObj := map[types.Object]bool{}
			ast.Inspect(info.Body, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				v, ok := p.Info.Uses[id].(*types.Var)
				if !ok || v.IsField() {
					return true
				}
				switch {
				case red[v] != nil:
					reds[red[v].Op.String()+":"+v.Name()] = true
				case nest.Pos() <= v.Pos() && v.Pos() < nest.End():
					private[v.Name()] = true
				default:
					shared[v.Name()] = true
					sharedObj[v] = true
				}
				return true
			})
			for _, l := range info.Loops {
				private[l.Name] = true
			}
			info.Vars = progdb.VarClasses{Shared: keys(shared), Private: keys(private), Reduction: keys(reds)}
			out[c] = info.Vars
			line := p.Fset.Position(c.Pos()).Line
			one := p.pinsOf(c, loopVars(info), writtenExprs(info.Body), func(o types.Object) bool { return sharedObj[o] })
			// once: id is assigned in one iteration at most (if i == 0 {
			// header = row }); used nowhere else in the body, it is no
			// race, else other is that use.
			once := func(id *ast.Ident) (in ast.Node, other *ast.Ident) {
				if in = one.oneIteration(id); in == nil {
					return nil, nil
				}
				ast.Inspect(info.Body, func(n ast.Node) bool {
					if u, ok := n.(*ast.Ident); ok && other == nil && p.Info.Uses[u] == p.Info.Uses[id] && (u.Pos() < in.Pos() || in.End() < u.End()) {
						other = u
					}
					return other == nil
				})
				return in, other
			}
			ast.Inspect(info.Body, func(n ast.Node) bool {
				var lhs []ast.Expr
				switch st := n.(type) {
				case *ast.AssignStmt:
					if st.Tok == token.DEFINE {
						return true
					}
					lhs = st.Lhs
				case *ast.IncDecStmt:
					lhs = []ast.Expr{st.X}
				case *ast.FuncLit:
					return true
				}
				for i, e := range lhs {
					if id, ok := e.(*ast.Ident); ok && sharedObj[p.Info.Uses[id]] && !synchronised(s, id.Pos()) && !p.mutexHeld(id.Pos()) {
						if in, other := once(id); in != nil {
							if other != nil {
								p.warnf(id.Pos(), "%s is shared and assigned in the body of the pdo at line %d by one iteration (the condition at line %d) and used at line %d by the others, which may run before or after it on other processors: the accesses race (set it before the loop, or keep it to that iteration)",
									id.Name, line, p.Fset.Position(in.Pos()).Line, p.Fset.Position(other.Pos()).Line)
							}
							continue
						}
						if st, ok := n.(*ast.AssignStmt); ok && len(st.Rhs) == len(st.Lhs) && p.isAppend(st.Rhs[i]) {
							p.warnf(id.Pos(), "%s is shared and assigned in the body of the pdo at line %d: every processor appends to it, and appends race on its length and backing array (make it before the loop and write %s[i], or append to per-processor slices and join them after the loop)", id.Name, line, id.Name)
							continue
						}
						if st, ok := n.(*ast.AssignStmt); ok && st.Tok == token.ASSIGN && len(st.Rhs) == len(st.Lhs) && !p.mentions(st.Rhs[i], p.Info.Uses[id]) {
							// best = i: a value, not an accumulation: no reduction
							// combines it.
							p.warnf(id.Pos(), "%s is shared and assigned in the body of the pdo at line %d: every processor writes it and the last write wins, whichever processor makes it (if it records a best element, compare and assign in a //svm:critical section, or keep each processor's best and choose after the loop; if it is scratch for one iteration, declare it inside the loop)", id.Name, line)
							continue
						}
						p.warnf(id.Pos(), "%s is shared and assigned in the body of the pdo at line %d: every processor writes it (declare reduction(op: %s) or declare it inside the loop)", id.Name, line, id.Name)
					}
				}
				return true
			})
		}
	}
	return out
}

// mentions reports whether expression e uses the object o.
func (p *Package) mentions(e ast.Expr, o types.Object) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && p.Info.Uses[id] == o {
			found = true
		}
		return !found
	})
	return found
}

// synchronised reports whether pos lies in the statements of a construct
// that runs them under mutual exclusion (critical, lock, atomic), where a
// write to a shared variable is meant.
func synchronised(s *Sub, pos token.Pos) bool {
	for _, c := range s.Constructs {
		if !directives.Lookup(c.Kind()).Exclusive {
			continue
		}
		for _, st := range c.bodyStmts() {
			if st.Pos() <= pos && pos < st.End() {
				return true
			}
		}
	}
	return false
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// isAppend reports whether e is a call of the builtin append.
func (p *Package) isAppend(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := p.Info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "append"
}
