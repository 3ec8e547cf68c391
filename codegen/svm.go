package codegen

import (
	"fmt"

	"github.com/svmc/svmc/compiler"
)

// accesses puts the SVM layer's check on each access of a shared variable
// (compiler's AccessesPass): a read a[i] becomes
// (*svm_rt.R(svm_p, 7, &a[i])), a write (*svm_rt.W(svm_p, 8, &a[i])), with
// the access's number. The check returns its argument, so the expression
// stays addressable and its type and evaluation order are the user's.
// Accesses inside code svmc replaces (a pdo's loop header, an atomic
// statement) keep no check.
func (g *gen) accesses() {
	accs, _ := compiler.ResultOf[[]*compiler.Access](g.p, compiler.AccessesPass)
	for _, a := range accs {
		if a.File != g.f {
			continue
		}
		start, end := g.off(a.Expr.Pos()), g.off(a.Expr.End())
		if g.e.replaced(start, end) {
			continue
		}
		check := "R"
		if a.Write {
			check = "W"
		}
		g.e.add(start, start, fmt.Sprintf("(*%s.%s(%s, %d, &", rt, check, procVar, a.Num), exprOpen)
		g.e.add(end, end, "))", exprClose)
		g.usesRT = true
	}
}
