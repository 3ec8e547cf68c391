package codegen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/svmc/svmc/compiler"
)

// xtestFiles rewrites the package's external test files (package p_test)
// for svmc test: svmc does not compile them (a directive there is an
// error), but each of their tests, benchmarks, fuzz targets and examples
// runs on processor 0 of the run the package's TestMain started, as the
// package's own tests do, so that the parallel constructs it reaches use
// every processor. The function is renamed svm_x_<name> in place (its
// lines stay where they are) and a function of the original name, after
// the file's text, calls it through rtlib.OnLeader; an example's Output
// comment moves into that function, where go test looks for it.
func xtestFiles(p *compiler.Package) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, path := range p.XTests {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		src := fset.File(f.Pos())
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//svm:") {
					pos := fset.Position(c.Pos())
					return nil, fmt.Errorf("%s:%d:%d: directives in an external test package (%s) are not compiled: move the code into the package or its own _test.go files",
						filepath.Base(pos.Filename), pos.Line, pos.Column, f.Name.Name)
				}
			}
		}
		type edit struct {
			off  int
			text string
		}
		var edits []edit
		var wrappers strings.Builder
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || entryKind(fd, "x_test.go") != "test" {
				continue
			}
			name := fd.Name.Name
			edits = append(edits, edit{src.Offset(fd.Name.Pos()), "svm_x_"})
			var params, args []string
			for i, fl := range fd.Type.Params.List {
				arg := fmt.Sprintf("svm_a%d", i)
				params = append(params, arg+" "+string(text[src.Offset(fl.Type.Pos()):src.Offset(fl.Type.End())]))
				args = append(args, arg)
			}
			fmt.Fprintf(&wrappers, "\nfunc %s(%s) {\n\tsvm_rt.OnLeader(func(*svm_rt.Proc) { svm_x_%s(%s) })\n%s}\n",
				name, strings.Join(params, ", "), name, strings.Join(args, ", "), outputOf(fd, f))
		}
		if len(edits) == 0 {
			continue // nothing to run on processor 0: the file stays as written
		}
		// The runtime's import goes on the package clause's line, so that
		// no line of the user's text moves.
		edits = append(edits, edit{src.Offset(f.Name.End()), fmt.Sprintf("; import svm_rt %q", compiler.RuntimePath)})
		sort.Slice(edits, func(i, j int) bool { return edits[i].off > edits[j].off })
		b := bytes.Clone(text)
		for _, e := range edits {
			b = append(b[:e.off], append([]byte(e.text), b[e.off:]...)...)
		}
		b = append(b, wrappers.String()...)
		out[filepath.Base(path)] = b
	}
	return out, nil
}

// outputOf is the Output comment of an example's body, or "".
func outputOf(fd *ast.FuncDecl, f *ast.File) string {
	for _, cg := range f.Comments {
		if cg.Pos() < fd.Body.Lbrace || cg.End() > fd.Body.Rbrace {
			continue
		}
		text := strings.TrimSpace(cg.Text())
		if strings.HasPrefix(text, "Output:") || strings.HasPrefix(strings.ToLower(text), "unordered output:") {
			var b strings.Builder
			for _, c := range cg.List {
				b.WriteString(c.Text + "\n")
			}
			return b.String()
		}
	}
	return ""
}

// XTestMain reports whether the external test package declares TestMain:
// then it starts the tests, and the package gets none of svmc's.
func XTestMain(p *compiler.Package) bool {
	for _, path := range p.XTests {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && entryKind(fd, "x_test.go") == "main" {
				return true
			}
		}
	}
	return false
}
