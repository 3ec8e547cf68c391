package compiler

import (
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"
)

// ProgDBPass records the numbering and what the tools need to know about each
// directive in the program information file (package progdb).
var ProgDBPass = newPass("progdb", "build the program information file", (*Package).buildProgDB, RegionsPass, ClassifyPass, CallsPass, MutexesPass, AccessesPass, InlinePass)

// buildProgDB sets and returns Package.Prog.
func (p *Package) buildProgDB() *progdb.Program {
	prog := &progdb.Program{Version: progdb.Version, Tool: "svmc", Package: p.ImportPath, Name: p.Types.Name()}
	if dir, ok := strings.CutPrefix(p.ImportPath, "_/"); ok {
		// go's name for a directory in no module and outside GOPATH
		// (svmc runs such a program in GOPATH mode): the report says
		// "program /tmp/x624", not "program _/tmp/x624".
		prog.Package = "/" + dir
	}
	for _, f := range p.Files {
		prog.Files = append(prog.Files, p.cfg.FilePrefix+f.Name)
	}
	var checked map[*SharedVar]bool // made at the first shared variable
	for _, s := range p.Subs {
		ps := &progdb.Subprogram{Num: s.Num, Name: s.Name, Pos: p.ppos(s.Decl.Pos()), Main: s.Main, Plain: s.Plain,
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
			if checked == nil {
				accs, _ := ResultOf[[]*Access](p, AccessesPass)
				checked = p.fullyChecked(accs)
				if checked == nil {
					checked = map[*SharedVar]bool{}
				}
			}
			elem := innermostElem(t)
			ps.Shared = append(ps.Shared, &progdb.Var{Num: v.Num, Name: v.Name, Type: types.TypeString(t, types.RelativeTo(p.Types)),
				ElemSize: sizeOf(elem), Pos: p.ppos(v.Obj.Pos()), Checked: checked[v]})
			prog.Segments = append(prog.Segments, &progdb.Segment{VarSub: s.Num, Var: v.Num, Name: v.Name, Storage: storageKind(t),
				Rows: storageKind(t) == "slice of slices", ElemSize: sizeOf(elem), Directive: v.Construct.Num, Pos: p.ppos(v.Construct.Pos())})
		}
		prog.Subprograms = append(prog.Subprograms, ps)
	}
	calls, _ := ResultOf[[]*MsgCall](p, CallsPass)
	for _, c := range calls {
		pc := &progdb.Call{Num: c.Num, Func: c.Func, Pos: p.ppos(c.Call.Pos())}
		if c.Sub != nil {
			pc.Sub = c.Sub.Num
		}
		prog.Calls = append(prog.Calls, pc)
	}
	for _, m := range mutexesOf(p) {
		prog.MutexSites = append(prog.MutexSites, &progdb.Call{Num: m.Num, Func: m.Func, Sub: m.Sub.Num, Pos: p.ppos(m.Stmt.Pos())})
	}
	accs, _ := ResultOf[[]*Access](p, AccessesPass)
	for _, a := range accs {
		prog.Accesses = append(prog.Accesses, &progdb.Access{Num: a.Num, Sub: a.Sub.Num, Var: a.Var.Num, VarSub: a.Var.Construct.Sub.Num,
			Name: a.Var.Name, Write: a.Write, Pos: p.ppos(a.Pos())})
	}
	p.Prog = prog
	return prog
}

var sizes = types.SizesFor("gc", "amd64")

// innermostElem is the element type of t through its slices and arrays
// ([][4]float64: float64), t itself when it is neither.
func innermostElem(t types.Type) types.Type {
	for {
		switch u := t.Underlying().(type) {
		case *types.Array:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		default:
			return t
		}
	}
}

// sizeOf is the size of t in bytes, 0 (unknown) when its layout depends on
// a type parameter: a generic function's shared []T has a size per
// instantiation (go/types asserts on it).
func sizeOf(t types.Type) int64 {
	if onTypeParam(t) {
		return 0
	}
	return sizes.Sizeof(t)
}

// onTypeParam reports whether t's layout depends on a type parameter.
func onTypeParam(t types.Type) bool {
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Array:
		return onTypeParam(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if onTypeParam(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// storageKind names how a shared variable of type t holds its storage.
func storageKind(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Array:
		return "array"
	case *types.Pointer:
		return "pointer to array"
	case *types.Slice:
		if _, ok := u.Elem().Underlying().(*types.Slice); ok {
			return "slice of slices"
		}
	}
	return "slice"
}

func (p *Package) ppos(pos token.Pos) progdb.Pos {
	q := p.Fset.Position(pos)
	return progdb.Pos{File: p.cfg.FilePrefix + filepath.Base(q.Filename), Line: q.Line, Col: q.Column}
}

// pdir is the program information of a construct: the fields every kind
// has from the registry (directives.Table), the kind's own from its handler.
func (p *Package) pdir(c *Construct) *progdb.Directive {
	info := directives.Lookup(c.Kind())
	pd := &progdb.Directive{Num: c.Num, Kind: c.Kind().String(), Site: info.Site, Text: c.Dir.Text, Pos: p.ppos(c.Pos()),
		ImplicitBarrier: info.ImplicitBarrier}
	if c.End != nil {
		end := p.ppos(c.End.Pos())
		pd.End = &end
	}
	if h, ok := handlers[c.Kind()]; ok && h.info != nil {
		h.info(c, pd)
	}
	return pd
}
