package compiler

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// regionType maps the directives that open implicit or user trace regions
// to their region type.
var regionType = map[directives.Kind]int{
	directives.PDO:         trace.RegionPDO,
	directives.PSection:    trace.RegionPSection,
	directives.Section:     trace.RegionSection,
	directives.Replicated:  trace.RegionReplicated,
	directives.Exclusive:   trace.RegionExclusive,
	directives.TraceRegion: trace.RegionUser,
}

// numberRegions numbers the trace regions of each subprogram in textual
// order (region 0 is the subprogram) and links each to its parent.
func (p *Package) numberRegions() {
	for _, s := range p.Subs {
		typ := trace.RegionSubroutine
		if s.Main {
			typ = trace.RegionProgram
		}
		s.Regions = []*Region{{Num: 0, Type: typ, Start: s.Decl.Pos(), End: s.Decl.End()}}
		for _, c := range s.Constructs {
			typ, ok := regionType[c.Kind()]
			if !ok {
				continue
			}
			r := &Region{Num: len(s.Regions), Type: typ, Construct: c, Start: c.Pos()}
			switch {
			case c.End != nil:
				r.End = c.End.Pos()
			case c.Stmt != nil:
				r.End = c.Stmt.End()
			default:
				r.End = c.Pos()
			}
			switch c.Kind() {
			case directives.PDO:
				if c.Dir.PDO.Label != nil {
					r.Label = c.Dir.PDO.Label.Name
				}
			default:
				r.Label = nameOf(c)
			}
			for i := len(s.Regions) - 1; i >= 0; i-- {
				if q := s.Regions[i]; q.Start <= r.Start && r.End <= q.End {
					r.Parent = q
					break
				}
			}
			c.Region = r
			s.Regions = append(s.Regions, r)
		}
	}
}

// classify sorts the variables each pdo body uses into private (declared in
// the nest, loop variables), reduction and shared (everything else), and
// warns when a shared scalar is assigned: every processor would write it.
func (p *Package) classify() {
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
			line := p.Fset.Position(c.Pos()).Line
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
				for _, e := range lhs {
					if id, ok := e.(*ast.Ident); ok && sharedObj[p.Info.Uses[id]] && !synchronised(s, id.Pos()) {
						p.warnf(id.Pos(), "%s is shared and assigned in the body of the pdo at line %d: every processor writes it (declare reduction(op: %s) or declare it inside the loop)", id.Name, line, id.Name)
					}
				}
				return true
			})
		}
	}
}

// synchronised reports whether pos lies in the statements of a critical,
// lock or atomic construct, where a write to a shared variable is meant.
func synchronised(s *Sub, pos token.Pos) bool {
	for _, c := range s.Constructs {
		switch c.Kind() {
		case directives.Critical, directives.Lock, directives.Atomic:
			for _, st := range c.bodyStmts() {
				if st.Pos() <= pos && pos < st.End() {
					return true
				}
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

// buildProgDB records the numbering in a program information file.
func (p *Package) buildProgDB() {
	prog := &progdb.Program{Version: progdb.Version, Tool: "svmc", Package: p.ImportPath, Name: p.Types.Name()}
	for _, f := range p.Files {
		prog.Files = append(prog.Files, f.Name)
	}
	for _, s := range p.Subs {
		ps := &progdb.Subprogram{Num: s.Num, Name: s.Name, Pos: p.ppos(s.Decl.Pos()), Main: s.Main,
			Directives: []*progdb.Directive{}, Regions: []*progdb.Region{}}
		for _, c := range s.Constructs {
			ps.Directives = append(ps.Directives, p.pdir(c))
		}
		for _, r := range s.Regions {
			pr := &progdb.Region{Num: r.Num, Type: trace.RegionTypeName(r.Type), Code: r.Type, Label: r.Label,
				Parent: -1, Pos: p.ppos(r.Start), End: p.ppos(r.End)}
			if r.Parent != nil {
				pr.Parent = r.Parent.Num
			}
			if r.Construct != nil {
				pr.Directive = r.Construct.Num
			}
			ps.Regions = append(ps.Regions, pr)
		}
		for _, v := range s.Shared {
			t := v.Obj.Type()
			elem := t
			for {
				switch u := elem.Underlying().(type) {
				case *types.Array:
					elem = u.Elem()
					continue
				case *types.Slice:
					elem = u.Elem()
					continue
				}
				break
			}
			ps.Shared = append(ps.Shared, &progdb.Var{Num: v.Num, Name: v.Name, Type: types.TypeString(t, types.RelativeTo(p.Types)),
				ElemSize: sizes.Sizeof(elem), Pos: p.ppos(v.Obj.Pos())})
		}
		prog.Subprograms = append(prog.Subprograms, ps)
	}
	p.Prog = prog
}

var sizes = types.SizesFor("gc", "amd64")

func (p *Package) ppos(pos token.Pos) progdb.Pos {
	q := p.Fset.Position(pos)
	return progdb.Pos{File: filepath.Base(q.Filename), Line: q.Line, Col: q.Column}
}

func (p *Package) pdir(c *Construct) *progdb.Directive {
	d := c.Dir
	pd := &progdb.Directive{Num: c.Num, Kind: d.Kind.String(), Text: d.Text, Pos: p.ppos(c.Pos())}
	switch d.Kind {
	case directives.PDO:
		if d.PDO.Label != nil {
			pd.Label = d.PDO.Label.Name
		}
		if d.PDO.Strategy != nil && d.PDO.Strategy.Template != nil {
			pd.Template = d.PDO.Strategy.Template.Name
		}
		if d.PDO.Processors != nil {
			pd.Procs = d.PDO.Processors.Name
		}
		if c.PDO != nil {
			v := c.PDO.Vars
			pd.Vars = &v
		}
	case directives.TraceRegion, directives.Critical:
		pd.Label = nameOf(c)
	case directives.Template:
		pd.Template = d.Template.Name.Name
	case directives.Processors:
		pd.Procs = d.Processors.Name.Name
	case directives.Create:
		pd.Template = d.Create.Name.Name
	case directives.Destroy, directives.Undef:
		pd.Template = d.Name.Name
	case directives.Distribute, directives.Redistribute:
		if len(d.Distribute.Templates) > 0 {
			pd.Template = d.Distribute.Templates[0].Name
		}
		if d.Distribute.Onto != nil {
			pd.Procs = d.Distribute.Onto.Name
		}
	}
	return pd
}
