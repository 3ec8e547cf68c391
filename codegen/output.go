package codegen

import (
	"go/ast"
	"go/types"

	"github.com/svmc/svmc/compiler"
)

// printers are the fmt functions that write to standard output, with the
// function that writes the same to a given writer.
var printers = map[string]string{"Print": "Fprint", "Printf": "Fprintf", "Println": "Fprintln"}

// output routes the user's standard output and error through the
// processor, so the runtime can print replicated code once, give each
// processor a file, or merge them (seed 000 §8): fmt.Print* become
// fmt.Fprint*(svm_p.Stdout(), ...), and os.Stdout / os.Stderr passed where
// an interface (an io.Writer) is wanted become svm_p.Stdout() / Stderr(),
// and so does the receiver of os.Stdout.Write (WriteString through
// svm_rt.WriteString). Other uses of the *os.File itself (os.Stdout.Sync())
// stay as they are. The log package's default logger is routed by the
// runtime (rtlib.Run). With dry set it only says whether it would rewrite
// the call (a function literal that prints finds its processor first).
func (g *gen) output(call *ast.CallExpr, dry bool) bool {
	// fmt.Println(x), or Println(x) after import . "fmt" (under --mpi
	// every rank printed that one: the routed output is rank 0's).
	name, _ := call.Fun.(*ast.Ident)
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	if isSel {
		name = sel.Sel
	}
	if fn, ok := g.p.Info.Uses[name].(*types.Func); name != nil && ok && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && printers[fn.Name()] != "" {
		if dry {
			return true
		}
		if len(call.Args) == 1 {
			if _, ok := g.p.Info.TypeOf(call.Args[0]).(*types.Tuple); ok {
				// fmt.Println(f()) with f of several results: the
				// processor's method of fmt's signature takes them.
				g.e.raw(g.off(call.Fun.Pos()), g.off(call.Fun.End()), procVar+"."+fn.Name())
				if isSel {
					g.drop(g.p.Info.Uses[sel.X.(*ast.Ident)].(*types.PkgName), sel)
				}
				return true
			}
		}
		g.e.raw(g.off(name.Pos()), g.off(name.End()), printers[fn.Name()])
		arg := procVar + ".Stdout()"
		if len(call.Args) > 0 {
			arg += ", "
		}
		g.e.raw(g.off(call.Lparen)+1, g.off(call.Lparen)+1, arg)
		return true
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		// os.Stdout.Write(b) and os.Stdout.WriteString(s) write past fmt.
		if method := compiler.StdStream(g.p.Info, sel.X); method != "" && (sel.Sel.Name == "Write" || sel.Sel.Name == "WriteString") {
			if dry {
				return true
			}
			stream := procVar + "." + method + "()"
			if sel.Sel.Name == "Write" {
				g.e.raw(g.off(sel.X.Pos()), g.off(sel.X.End()), stream)
			} else {
				g.e.raw(g.off(sel.Pos()), g.off(sel.End()), rt+".WriteString")
				g.e.raw(g.off(call.Lparen)+1, g.off(call.Lparen)+1, stream+", ")
			}
			inner := ast.Unparen(sel.X).(*ast.SelectorExpr)
			if pkg, ok := g.p.Info.Uses[inner.X.(*ast.Ident)].(*types.PkgName); ok {
				g.drop(pkg, inner)
			}
			return true
		}
	}
	sig, ok := g.p.Info.TypeOf(call.Fun).(*types.Signature)
	if !ok {
		return false
	}
	routed := false
	for i, a := range call.Args {
		method := compiler.StdStream(g.p.Info, a)
		if method == "" {
			continue
		}
		var pt types.Type
		switch {
		case sig.Variadic() && i >= sig.Params().Len()-1:
			pt = sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem()
		case i < sig.Params().Len():
			pt = sig.Params().At(i).Type()
		}
		if pt != nil && types.IsInterface(pt) {
			if routed = true; dry {
				return true
			}
			g.e.raw(g.off(a.Pos()), g.off(a.End()), procVar+"."+method+"()")
			sel := ast.Unparen(a).(*ast.SelectorExpr)
			if pkg, ok := g.p.Info.Uses[sel.X.(*ast.Ident)].(*types.PkgName); ok {
				g.drop(pkg, sel)
			}
		}
	}
	return routed
}
