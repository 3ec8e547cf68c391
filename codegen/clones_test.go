package codegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/svmc/svmc/compiler"
)

// TestClones: the recursive functions of golden/corpus/recursive (two
// files; methods of plain and generic types, generic, variadic, with blank
// parameters or a goto) whose
// bodies svmc rewrites only to pass the processor get a plain clone, and
// the functions their clones call get one too; a recursive function that
// prints keeps only its instrumented form, as do functions no recursion
// reaches. Only the recursive ones enter their clone. A clone is the
// user's text at the user's positions: its identifiers stand on the lines
// of the original's.
func TestClones(t *testing.T) {
	dir := "../golden/corpus/recursive"
	p, err := compiler.Compile(compiler.Config{Dir: dir, Pattern: "."})
	if err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "svm")
	out, err := Generate(p, outDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var clones, enter []string
	cloneIDs := map[string][]string{} // clone name -> "ident@line" in it
	for _, f := range p.Files {
		gen, err := parser.ParseFile(fset, filepath.Join(outDir, f.Name), out.Files[f.Name], 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range gen.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := fd.Name.Name
			if user, ok := strings.CutPrefix(name, clonePrefix); ok {
				clones = append(clones, user)
				cloneIDs[user] = idents(fset, fd, func(s string) string { return strings.TrimPrefix(s, clonePrefix) })
				continue
			}
			if user, ok := strings.CutPrefix(name, compiler.Reserved); ok && enters(fd) {
				enter = append(enter, user)
			}
		}
	}
	slices.Sort(clones)
	slices.Sort(enter)
	if diff := cmp.Diff([]string{"Depth", "Sum", "Walk", "build", "count", "dive", "even", "gsum", "hanoi", "insert", "odd", "perm", "step", "sum"}, clones); diff != "" {
		t.Errorf("cloned functions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Depth", "Sum", "Walk", "build", "count", "dive", "even", "gsum", "hanoi", "insert", "odd", "perm", "sum"}, enter); diff != "" {
		t.Errorf("functions that enter their clone (-want +got):\n%s", diff)
	}
	for _, f := range p.Files {
		for _, fd := range f.Syntax.Decls {
			fd, ok := fd.(*ast.FuncDecl)
			if !ok || cloneIDs[fd.Name.Name] == nil {
				continue
			}
			want := idents(p.Fset, fd, func(s string) string { return s })
			if diff := cmp.Diff(want, cloneIDs[fd.Name.Name]); diff != "" {
				t.Errorf("the clone of %s does not stand where its original does (-original +clone):\n%s", fd.Name.Name, diff)
			}
		}
	}
}

// idents lists the identifiers of fd's body with their lines, in order.
func idents(fset *token.FileSet, fd *ast.FuncDecl, name func(string) string) []string {
	var out []string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			out = append(out, fmt.Sprintf("%s@%d", name(id.Name), fset.Position(id.Pos()).Line))
		}
		return true
	})
	return out
}

// enters reports whether fd begins with "if !svm_p.Tracked() { ... }".
func enters(fd *ast.FuncDecl) bool {
	if fd.Body == nil || len(fd.Body.List) == 0 {
		return false
	}
	is, ok := fd.Body.List[0].(*ast.IfStmt)
	if !ok {
		return false
	}
	not, ok := is.Cond.(*ast.UnaryExpr)
	if !ok || not.Op != token.NOT {
		return false
	}
	call, ok := not.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Tracked"
}
