package codegen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svmc/svmc/compiler"
)

var inputs = []string{
	"../examples/example31", "../examples/jacobi",
	"../golden/testdata/distributions", "../golden/testdata/regions",
	"../golden/testdata/subprograms", "../golden/testdata/loops",
}

// TestPositionsKept checks the //line bookkeeping from the user's side:
// every identifier of every function body keeps its line in the generated
// code (calls of subprograms are renamed svm_F on the same line; reduction
// variables inside a pdo body are renamed and not counted), so compile
// errors, panics and traces point at user code.
func TestPositionsKept(t *testing.T) {
	for _, dir := range inputs {
		p, err := compiler.Compile(compiler.Config{Dir: dir, Pattern: "."})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		outDir := filepath.Join(dir, "svm")
		out, err := Generate(p, outDir)
		if err != nil {
			t.Fatal(err)
		}
		reds := map[string]bool{}
		for _, s := range p.Subs {
			for _, c := range s.Constructs {
				if c.PDO != nil {
					for _, r := range c.PDO.Reds {
						reds[r.Name] = true
					}
				}
			}
		}
		for _, f := range p.Files {
			type key struct {
				name string
				line int
			}
			want := map[key]int{}
			for _, decl := range f.Syntax.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				var hdrs [][2]token.Pos
				if s := p.SubOf(p.Info.Defs[fd.Name].(*types.Func)); s != nil {
					hdrs = headers(s) // loop headers become the iteration space
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					for _, h := range hdrs {
						if n != nil && h[0] <= n.Pos() && n.Pos() < h[1] {
							return true
						}
					}
					if id, ok := n.(*ast.Ident); ok && !reds[id.Name] {
						want[key{id.Name, p.Fset.Position(id.Pos()).Line}]++
					}
					return true
				})
			}
			fset := token.NewFileSet()
			gen, err := parser.ParseFile(fset, filepath.Join(outDir, f.Name), out.Files[f.Name], 0)
			if err != nil {
				t.Fatalf("%s: generated code does not parse: %v", f.Name, err)
			}
			got := map[key]int{}
			ast.Inspect(gen, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					pos := fset.Position(id.Pos())
					if filepath.Base(pos.Filename) == f.Name {
						got[key{strings.TrimPrefix(id.Name, compiler.Reserved), pos.Line}]++
						for user, gen := range printers {
							if id.Name == gen { // fmt.Println became fmt.Fprintln(svm_p.Stdout(), ...)
								got[key{user, pos.Line}]++
							}
						}
					}
				}
				return true
			})
			if len(want) == 0 {
				t.Fatalf("%s: nothing to check", f.Name)
			}
			for k, n := range want {
				if got[k] < n {
					t.Errorf("%s/%s: %s appears %d times on line %d of the user's file, but %d times on that line in the generated code",
						dir, f.Name, k.name, n, k.line, got[k])
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	dir := "../examples/example31"
	var first map[string][]byte
	for range 2 {
		p, err := compiler.Compile(compiler.Config{Dir: dir, Pattern: "."})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Generate(p, filepath.Join(dir, "svm"))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = out.Files
			continue
		}
		for name, data := range out.Files {
			if string(first[name]) != string(data) {
				t.Errorf("%s differs between two runs", name)
			}
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
