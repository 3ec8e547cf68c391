package compiler

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// The package in SSA form (golang.org/x/tools/go/ssa), built once, on
// demand, from the syntax and types the compiler already has: the static
// checks follow calls through it (its call graph: static callees, methods
// of concrete types, closures, generic instances, however deep). Imported
// packages are created from their types alone, without bodies.

// ssaPackage returns the package's SSA form, nil if it cannot be built.
func (p *Package) ssaPackage() *ssa.Package {
	if p.ssaDone {
		return p.ssaPkg
	}
	p.ssaDone = true
	defer func() {
		if recover() != nil {
			p.ssaPkg = nil // a construct the builder does not take: the checks fall back to the syntax
		}
	}()
	prog := ssa.NewProgram(p.Fset, ssa.InstantiateGenerics)
	created := map[*types.Package]bool{}
	var create func(pkgs []*types.Package)
	create = func(pkgs []*types.Package) {
		for _, q := range pkgs {
			if !created[q] {
				created[q] = true
				prog.CreatePackage(q, nil, nil, true)
				create(q.Imports())
			}
		}
	}
	create(p.Types.Imports())
	files := make([]*ast.File, len(p.Files))
	for i, f := range p.Files {
		files[i] = f.Syntax
	}
	sp := prog.CreatePackage(p.Types, files, p.Info, false)
	sp.Build()
	p.ssaPkg = sp
	return sp
}

// globalWriteSSA names a package-level variable of the package that fn
// writes, itself or through what it calls (static calls, followed to any
// depth), with the chain of calls that reaches the write (fn first); ok is
// false when the package has no SSA form. skipGuarded leaves out the
// writes in critical sections, under locks and atomic (guardedAt).
func (p *Package) globalWriteSSA(fn *types.Func, skipGuarded bool) (global string, chain []string, elem, ok bool) {
	sp := p.ssaPackage()
	if sp == nil {
		return "", nil, false, false
	}
	start := sp.Prog.FuncValue(fn.Origin())
	if start == nil {
		return "", nil, false, false
	}
	type item struct {
		f     *ssa.Function
		chain []string
	}
	seen := map[*ssa.Function]bool{}
	queue := []item{{start, []string{fn.Name()}}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if seen[it.f] {
			continue
		}
		seen[it.f] = true
		for _, g := range append([]*ssa.Function{it.f}, it.f.AnonFuncs...) {
			for _, b := range g.Blocks {
				for _, ins := range b.Instrs {
					if skipGuarded && p.guardedAt(ins.Pos()) {
						continue // in a critical section, under a lock or atomic: serialised
					}
					var addr ssa.Value
					switch x := ins.(type) {
					case *ssa.Store:
						addr = x.Addr
					case *ssa.MapUpdate:
						addr = x.Map
					case ssa.CallInstruction:
						if c := x.Common().StaticCallee(); c != nil && inPackage(c, sp) && len(c.Blocks) > 0 {
							queue = append(queue, item{c, append(slices.Clone(it.chain), ssaFuncName(c))})
						}
					}
					if gl, el := globalRoot(addr); gl != nil && gl.Pkg == sp {
						return gl.Name(), it.chain, el, true
					}
				}
			}
		}
	}
	return "", nil, false, true
}

// globalRoot is the package-level variable an address (or a map) is
// derived from: the variable, a field or element of it, or an element of
// the slice or map it holds; nil if none. elem says the address is an
// element's (calls that index differently write different ones).
func globalRoot(v ssa.Value) (g *ssa.Global, elem bool) {
	for v != nil {
		switch x := v.(type) {
		case *ssa.Global:
			return x, elem
		case *ssa.FieldAddr:
			v = x.X
		case *ssa.IndexAddr:
			v, elem = x.X, true
		case *ssa.UnOp: // a load of the slice, map or pointer the variable holds
			v = x.X
		case *ssa.Slice:
			v = x.X
		default:
			return nil, false
		}
	}
	return nil, false
}

// inPackage reports whether f (or the generic function it instantiates)
// belongs to package sp.
func inPackage(f *ssa.Function, sp *ssa.Package) bool {
	if f.Pkg == sp {
		return true
	}
	o := f.Origin()
	return o != nil && o.Pkg == sp
}

// ssaFuncName is f's name as the source writes it ("helper", "T.M", a
// closure as its enclosing function's name).
func ssaFuncName(f *ssa.Function) string {
	if o := f.Origin(); o != nil {
		f = o
	}
	for f.Parent() != nil {
		f = f.Parent()
	}
	if recv := f.Signature.Recv(); recv != nil {
		t := recv.Type()
		if pt, ok := t.(*types.Pointer); ok {
			t = pt.Elem()
		}
		if nt, ok := t.(*types.Named); ok {
			return nt.Obj().Name() + "." + f.Name()
		}
	}
	return f.Name()
}
