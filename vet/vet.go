// Package vet delivers svmc's diagnostics where Go programmers look for
// them (issue 17): Analyzer is a golang.org/x/tools/go/analysis analyzer
// that runs the compiler's passes on a package — the errors of its
// //svm: directives, the structural checks and the checks of parallel
// bodies (write conflicts, loop-carried dependences, shared maps,
// rank-dependent barriers) — so that go vet (with cmd/svmc-vet or svmc as
// its vet tool), gopls and CI report them at their positions.
package vet

import (
	"golang.org/x/tools/go/analysis"

	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/directives"
)

// Analyzer reports svmc's diagnostics of a package with //svm: directives.
var Analyzer = &analysis.Analyzer{
	Name: "svmc",
	Doc: `report svmc's diagnostics of //svm: directives and parallel bodies

The errors of the directives and the structure of their constructs, and
warnings about parallel bodies: elements or fields every processor writes
(write conflicts), loop-carried dependences between iterations, writes to
shared maps, barriers and collectives in a branch on the processor number.
Packages without //svm: comments are skipped.`,
	URL: "https://github.com/svmc/svmc#static-checks",
	Run: run,
}

// mpi is the analyzer's flag -svmc.mpi (svmc vet --mpi): also the checks
// of a build whose processors are the ranks of an MPI job (svmc run
// --mpi), which warn where a pdo writes what stays on each rank.
var mpi bool

func init() {
	Analyzer.Flags.BoolVar(&mpi, "mpi", false, "also check as svmc run --mpi builds: variables a pdo writes that stay on each rank")
}

func run(pass *analysis.Pass) (any, error) {
	if !hasDirectives(pass) {
		return nil, nil
	}
	p, _ := compiler.CompileFiles(pass.Fset, pass.Files, pass.Pkg, pass.TypesInfo, compiler.Config{Library: true, Ranks: mpi})
	if p == nil {
		return nil, nil
	}
	for _, d := range p.Diags {
		if !d.At.IsValid() || d.Suppressed != "" {
			continue // Go's own errors (the go command reports them), or suppressed by //svm:ignore
		}
		cat := "svmc"
		if d.Warning {
			cat = "svmc-warning"
		}
		pass.Report(analysis.Diagnostic{Pos: d.At, Category: cat, Message: d.Msg})
	}
	return nil, nil
}

// hasDirectives reports whether a file of the package has a //svm:
// comment (the compiler's work is skipped for the others).
func hasDirectives(pass *analysis.Pass) bool {
	for _, f := range pass.Files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if directives.IsDirective(c.Text) {
					return true
				}
			}
		}
	}
	return false
}
