package codegen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svmc/svmc/compiler"
)

// TestGeneratedLocals keeps compiler.GeneratedLocal complete: every
// variable, parameter and import name that generated code declares as
// svm_X must match it, or a user's function X, instrumented as svm_X,
// would collide with it (func p and the processor svm_p).
func TestGeneratedLocals(t *testing.T) {
	dirs := append([]string{
		"../golden/testdata/sync", "../golden/testdata/svm", "../golden/testdata/messages",
		"../golden/testdata/dynamic", "../golden/corpus/tables", "../golden/corpus/mutexes",
		"../golden/corpus/sections", "../golden/corpus/generic",
	}, inputs...)
	seen := map[string]bool{}
	for _, dir := range dirs {
		p, err := compiler.Compile(compiler.Config{Dir: dir, Pattern: "."})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out, err := Generate(p, filepath.Join(t.TempDir(), "svm"), nil)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for name, src := range out.Files {
			if !strings.HasSuffix(name, ".go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			declared := func(id *ast.Ident) {
				if id == nil || !strings.HasPrefix(id.Name, compiler.Reserved) || strings.HasPrefix(id.Name, compiler.Reserved+compiler.Reserved) {
					return
				}
				seen[id.Name] = true
				if x := strings.TrimPrefix(id.Name, compiler.Reserved); !compiler.GeneratedLocal.MatchString(x) {
					t.Errorf("%s: generated code declares %s, which compiler.GeneratedLocal does not match: a function named %s would collide with it", dir, id.Name, x)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ImportSpec:
					declared(n.Name)
				case *ast.AssignStmt:
					if n.Tok == token.DEFINE {
						for _, l := range n.Lhs {
							id, _ := l.(*ast.Ident)
							declared(id)
						}
					}
				case *ast.RangeStmt:
					if n.Tok == token.DEFINE {
						id, _ := n.Key.(*ast.Ident)
						declared(id)
						id, _ = n.Value.(*ast.Ident)
						declared(id)
					}
				case *ast.ValueSpec:
					for _, id := range n.Names {
						declared(id)
					}
				case *ast.Field:
					for _, id := range n.Names {
						declared(id)
					}
				}
				return true
			})
		}
	}
	// The test sees what it checks: the processor, a loop's index, a
	// reduction's partial result, a wrapper's parameters.
	for _, must := range []string{"svm_p", "svm_rt", "svm_it", "svm_first", "svm_a0", "svm_program"} {
		if !seen[must] {
			t.Errorf("no generated code declared %s: the inputs no longer exercise it", must)
		}
	}
}
