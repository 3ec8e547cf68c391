package compiler

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/internal/suggest"
)

// noEffect lists directives of the SVM run-time support that svmc accepts
// and numbers but cannot act on: Go has no shared virtual memory layer whose
// coherence or prefetching they would steer. Each use gets a warning, so it
// is never a silent no-op.
var noEffect = map[directives.Kind]bool{
	directives.Coherence: true, directives.Prefetch: true,
}

// checkStructure pairs end directives, finds the statements constructs apply
// to, analyses pdo loop nests, resolves template and processor names and
// type-checks directive expressions.
func (p *Package) checkStructure() {
	for _, s := range p.Subs {
		p.pairEnds(s)
		for _, c := range s.Constructs {
			p.checkConstruct(c)
		}
		p.checkSections(s)
		p.checkPlacement(s)
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

// nameOf is the name a construct carries (trace_region r, critical c).
func nameOf(c *Construct) string {
	if c.Dir.Name != nil {
		return c.Dir.Name.Name
	}
	return ""
}

func (p *Package) checkConstruct(c *Construct) {
	d := c.Dir
	info := directives.Lookup(d.Kind)
	if noEffect[d.Kind] {
		p.warnf(c.Pos(), "%s has no effect: Go has no shared virtual memory layer to steer; the directive is recorded in the program information file only", d.Kind)
		return
	}
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
	switch d.Kind {
	case directives.Processors:
		c.Declares = p.declares(c, d.Processors.Name, "Procs", directives.Processors)
		for _, dim := range d.Processors.Dims {
			p.checkDim(c, dim)
		}
	case directives.Template:
		c.Declares = p.declares(c, d.Template.Name, "Template", directives.Template)
		for _, dim := range d.Template.Dims {
			p.checkDim(c, dim)
		}
	case directives.Distribute, directives.Redistribute:
		dd := d.Distribute
		if dd.Onto != nil {
			p.resolveProcs(c, *dd.Onto)
		}
		if dd.With != nil {
			p.resolveTemplate(c, *dd.With)
		}
		countsOK := true
		for _, t := range dd.Templates {
			if rank := p.resolveTemplate(c, t); rank > 0 && dd.With == nil && len(dd.Formats) != rank {
				p.errorf(c.Pos(), "%s: template %s has %s, but %s given: give one format per dimension (* for one that is not distributed)",
					d.Kind, t.Name, plural(rank, "dimension"), plural(len(dd.Formats), "format"))
				countsOK = false
			}
		}
		for _, f := range dd.Formats {
			p.checkFormat(c, f)
		}
		if dd.Onto != nil {
			if prank := p.procsRank(c, dd.Onto.Name); prank > 0 {
				n := 0
				for _, f := range dd.Formats {
					if f.Kind != directives.Star {
						n++
					}
				}
				if dd.With == nil && countsOK && n != prank {
					p.errorf(c.Pos(), "%s: %s distributed (not *) onto %s, which has %s: distribute as many dimensions as the arrangement has",
						d.Kind, plural(n, "dimension"), dd.Onto.Name, plural(prank, "dimension"))
				}
			}
		}
	case directives.Create:
		if rank := p.resolveTemplate(c, d.Create.Name); rank > 0 && rank != len(d.Create.Dims) {
			p.errorf(c.Pos(), "create %s: the template has %s, but %s given", d.Create.Name.Name, plural(rank, "dimension"), plural(len(d.Create.Dims), "extent"))
		}
		if tc := p.templateDecl(c, d.Create.Name.Name); tc != nil && !tc.Dir.Template.Creatable {
			colons := strings.Repeat(":, ", len(tc.Dir.Template.Dims))
			p.errorf(c.Pos(), "create %s: %s is not a creatable template (its shape is fixed at line %d); declare it as template %s(%s) to give its shape at create",
				d.Create.Name.Name, d.Create.Name.Name, p.Fset.Position(tc.Pos()).Line, d.Create.Name.Name, colons[:len(colons)-2])
		}
		for _, dim := range d.Create.Dims {
			p.checkDim(c, dim)
		}
	case directives.Destroy, directives.Undef:
		p.resolveTemplate(c, *d.Name)
	case directives.PDO:
		p.checkPDO(c)
	case directives.TraceRegion:
		p.checkJumps(c, c.bodyStmts(), "trace_region", true)
	case directives.PSection:
		p.checkPSection(c)
	case directives.Replicated, directives.Exclusive:
		p.checkClosureRegion(c)
	case directives.Critical:
		p.checkJumps(c, c.bodyStmts(), "critical section", false)
	case directives.Lock:
		p.checkLock(c)
	case directives.Atomic:
		p.checkAtomic(c)
	case directives.Shared:
		for _, v := range d.Shared.Vars {
			obj, ok := p.lookup(c.Pos(), v.Name).(*types.Var)
			if !ok {
				p.errorf(posOf(p, v.Pos), "shared: %s is not a variable in scope", v.Name)
				continue
			}
			c.Sub.Shared = append(c.Sub.Shared, &SharedVar{Num: len(c.Sub.Shared) + 1, Name: v.Name, Obj: obj, Construct: c})
		}
	}
}

// bodyStmts are the statements a construct covers.
func (c *Construct) bodyStmts() []ast.Stmt {
	if c.End != nil {
		return c.Body
	}
	if c.Stmt != nil {
		return []ast.Stmt{c.Stmt}
	}
	return nil
}

// declares resolves the name a processors or template directive declares:
// an existing variable of the runtime's type is assigned, otherwise the
// directive declares a new variable.
func (p *Package) declares(c *Construct, n directives.Name, typeName string, kind directives.Kind) bool {
	for _, o := range c.Sub.Constructs {
		if o == c {
			break
		}
		if o.Kind() == kind && declName(o) == n.Name {
			p.errorf(posOf(p, n.Pos), "%s %s is declared twice (first at line %d); give the second another name", kind, n.Name, p.Fset.Position(o.Pos()).Line)
			return false
		}
	}
	obj := p.lookup(c.Pos(), n.Name)
	if obj == nil {
		return true
	}
	v, ok := obj.(*types.Var)
	if !ok || !isRuntimeType(v.Type(), typeName) {
		p.errorf(posOf(p, n.Pos), "%s %s: %s is already declared as %s; a %s variable has type *rtlib.%s (rename one of them)", kind, n.Name, n.Name, p.describe(obj), kind, typeName)
		return false
	}
	return false
}

func declName(c *Construct) string {
	switch c.Kind() {
	case directives.Processors:
		return c.Dir.Processors.Name.Name
	case directives.Template:
		return c.Dir.Template.Name.Name
	}
	return ""
}

func (p *Package) describe(obj types.Object) string {
	switch obj.(type) {
	case *types.Var:
		return "a variable of type " + p.typeString(obj.Type())
	case *types.Func:
		return "a function"
	case *types.TypeName:
		return "a type"
	case *types.Const:
		return "a constant"
	case *types.PkgName:
		return "a package"
	}
	return "something else"
}

// typeString writes t as the package's own code names it.
func (p *Package) typeString(t types.Type) string {
	return types.TypeString(t, types.RelativeTo(p.Types))
}

// isRuntimeType reports whether t is *rtlib.<name>.
func isRuntimeType(t types.Type, name string) bool {
	ptr, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	named, ok := ptr.Elem().(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == RuntimePath && named.Obj().Name() == name
}

// lookup finds the object a name denotes at pos.
func (p *Package) lookup(pos token.Pos, name string) types.Object {
	scope := p.Types.Scope().Innermost(pos)
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent(name, pos)
	return obj
}

// templateDecl returns the template directive of the subprogram that
// declares name before c, or nil.
func (p *Package) templateDecl(c *Construct, name string) *Construct {
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			break
		}
		if o.Kind() == directives.Template && o.Dir.Template.Name.Name == name {
			return o
		}
	}
	return nil
}

// resolveTemplate checks that name is a template and returns its rank when
// it is known statically (0 otherwise).
func (p *Package) resolveTemplate(c *Construct, n directives.Name) int {
	if tc := p.templateDecl(c, n.Name); tc != nil {
		return len(tc.Dir.Template.Dims)
	}
	if v, ok := p.lookup(c.Pos(), n.Name).(*types.Var); ok && isRuntimeType(v.Type(), "Template") {
		return 0
	}
	p.errorf(posOf(p, n.Pos), "unknown template %s%s", n.Name, p.suggest(c, n.Name, directives.Template, "*rtlib.Template"))
	return 0
}

func (p *Package) resolveProcs(c *Construct, n directives.Name) {
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			break
		}
		if o.Kind() == directives.Processors && o.Dir.Processors.Name.Name == n.Name {
			return
		}
	}
	if v, ok := p.lookup(c.Pos(), n.Name).(*types.Var); ok && isRuntimeType(v.Type(), "Procs") {
		return
	}
	p.errorf(posOf(p, n.Pos), "unknown processor arrangement %s%s", n.Name, p.suggest(c, n.Name, directives.Processors, "*rtlib.Procs"))
}

// procsRank is the rank of a processors directive of the subprogram, or 0.
func (p *Package) procsRank(c *Construct, name string) int {
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			break
		}
		if o.Kind() == directives.Processors && o.Dir.Processors.Name.Name == name {
			return len(o.Dir.Processors.Dims)
		}
	}
	return 0
}

// suggest says what to do about an unknown template or arrangement name: the
// closest name declared in the subprogram before c, or how to declare one.
func (p *Package) suggest(c *Construct, name string, kind directives.Kind, typ string) string {
	var earlier []string
	for _, o := range c.Sub.Constructs {
		if o.Pos() >= c.Pos() {
			if o.Kind() == kind && declName(o) == name {
				return fmt.Sprintf(": its %s directive is at line %d, after this one; declare it before its use", kind, p.Fset.Position(o.Pos()).Line)
			}
			continue
		}
		if o.Kind() == kind {
			earlier = append(earlier, declName(o))
		}
	}
	if best := suggest.Closest(name, earlier, false); best != "" {
		return fmt.Sprintf("; did you mean %s?", best)
	}
	return fmt.Sprintf(": no %s directive declares it earlier in this function, and no variable %s of type %s is in scope", kind, name, typ)
}

// plural is "1 dimension", "2 dimensions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (p *Package) checkDim(c *Construct, d directives.Dim) {
	for _, e := range []*directives.Expr{d.Size, d.Lo, d.Hi} {
		if e != nil {
			p.checkExpr(c, e, c.Pos(), intType)
		}
	}
}

func (p *Package) checkFormat(c *Construct, f directives.Format) {
	if f.Arg == nil {
		return
	}
	switch f.Kind {
	case directives.Cyclic:
		p.checkExpr(c, f.Arg, c.Pos(), intType)
	case directives.GeneralBlock, directives.Indirect:
		p.checkExpr(c, f.Arg, c.Pos(), intSlice)
	}
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
			switch o.Kind() {
			case directives.TraceRegion, directives.End, directives.Shared,
				directives.Critical, directives.Lock, directives.Atomic:
			case directives.PDO:
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
	if what != "pdo" {
		hint = "a region is left only through its end"
	}
	var walk func(n ast.Node, loops, breakable int)
	walk = func(n ast.Node, loops, breakable int) {
		ast.Inspect(n, func(x ast.Node) bool {
			switch s := x.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				if !returnOK {
					p.errorf(s.Pos(), "return inside the body of the %s at line %d: a parallel body cannot leave its construct; return after the loop", what, line)
				}
			case *ast.DeferStmt:
				p.errorf(s.Pos(), "defer inside the body of the %s at line %d: it would run when the processor's part ends, not when the function returns", what, line)
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
					if !labels[s.Label.Name] {
						p.errorf(s.Pos(), "%s %s inside the body of the %s at line %d jumps out of it: %s", s.Tok, s.Label.Name, what, line, hint)
					}
					return true
				}
				switch {
				case s.Tok == token.BREAK && breakable == 0:
					p.errorf(s.Pos(), "break inside the body of the %s at line %d leaves it: %s", what, line, hint)
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

// posOf converts a directive position to a token.Pos of the file set.
func posOf(p *Package, pos token.Position) token.Pos {
	for _, f := range p.Files {
		if f.Path == pos.Filename || f.Tok.Name() == pos.Filename {
			if pos.Line < 1 || pos.Line > f.Tok.LineCount() {
				return token.NoPos
			}
			lp := f.Tok.LineStart(pos.Line)
			off := f.Tok.Offset(lp) + pos.Column - 1
			if off > f.Tok.Size() {
				off = f.Tok.Size()
			}
			return f.Tok.Pos(off)
		}
	}
	return token.NoPos
}
