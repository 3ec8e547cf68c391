package codegen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svmc/svmc/compiler"
)

var inputs = []string{
	"../examples/example31", "../examples/jacobi",
	"../golden/testdata/distributions", "../golden/testdata/regions",
	"../golden/testdata/subprograms", "../golden/testdata/loops",
	"../golden/corpus/goroutines", // go statements, rewritten onto more lines
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
		for _, out := range bothForms(t, p, outDir) {
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
							for user, gen := range exitFuncs {
								dot := strings.LastIndex(user, ".")
								pkg, name := user[:dot], user[dot+1:]
								if id.Name == gen && !strings.HasPrefix(user, "(") { // flag.Parse became svm_rt.FlagParse
									got[key{pkg[strings.LastIndex(pkg, "/")+1:], pos.Line}]++
									got[key{name, pos.Line}]++
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
}

// bothForms generates p as svmc compile -o writes it (formatted) and as
// svmc run builds it (GenerateForBuild).
func bothForms(t *testing.T, p *compiler.Package, outDir string) []*Output {
	out, err := Generate(p, outDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := GenerateForBuild(&compiler.Program{Main: p}, outDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Files[p.Files[0].Name]) == string(outs[0].Files[p.Files[0].Name]) {
		t.Fatalf("%s: the build's form is formatted too", p.Files[0].Name)
	}
	return []*Output{out, outs[0]}
}

func TestDeterministic(t *testing.T) {
	dir := "../examples/example31"
	var first map[string][]byte
	for range 2 {
		p, err := compiler.Compile(compiler.Config{Dir: dir, Pattern: "."})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Generate(p, filepath.Join(dir, "svm"), []string{"svmc", "compile", "-o", "svm", "."})
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

// TestHeader: every generated file starts with the line Go tools recognise
// as generated code, naming the svmc command that wrote it as stringer's
// header does.
func TestHeader(t *testing.T) {
	p, err := compiler.Compile(compiler.Config{Dir: "../examples/example31", Pattern: "."})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(p, "svm", []string{"svmc", "compile", "-o", "my svm", "."})
	if err != nil {
		t.Fatal(err)
	}
	generated := regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)
	for name, want := range map[string]string{
		"main.go":  `// Code generated by "svmc compile -o \"my svm\" ." from main.go; DO NOT EDIT.`,
		TablesFile: `// Code generated by "svmc compile -o \"my svm\" ."; DO NOT EDIT.`,
	} {
		first, _, _ := strings.Cut(string(out.Files[name]), "\n")
		if first != want || !generated.MatchString(first) {
			t.Errorf("%s starts with %s, want %s", name, first, want)
		}
	}
}

// TestMapOrder: a build for ranks ranges over maps with ordered keys, and
// calls maps.Keys on them, through rtlib's ordered iterators, outside pdo
// bodies (whose iterations run on one rank each); a map with struct keys
// keeps Go's order; a build for one process is left as written.
// generatedMain is the generated main.go of the package in dir, built
// for ranks (svmc run|build --mpi) or for one process.
func generatedMain(t *testing.T, dir string, ranks bool) string {
	t.Helper()
	p, err := compiler.Compile(compiler.Config{Dir: dir, Pattern: ".", Ranks: ranks})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(p, "svm", []string{"svmc", "compile", "."})
	if err != nil {
		t.Fatal(err)
	}
	return string(out.Files["main.go"])
}

// TestRankClock: a build for ranks reads the clock through rtlib outside
// pdo bodies (processor 0's copies take rank 0's reading), the file's
// import of time, here only used so, kept used; a function value of
// time.Now and a pdo body are left alone; a build for one process is
// unchanged.
func TestRankClock(t *testing.T) {
	for _, ranks := range []bool{true, false} {
		src := generatedMain(t, "testdata/rankclock", ranks)
		want := []string{
			"start := svm_rt.Now(tm.Now)",
			"for svm_rt.Since(tm.Since, start).Nanoseconds() < 1e8 && svm_rt.Until(tm.Until, deadline) > 0 {",
			"out[i] = tm.Now().UnixNano()",
			"clock := tm.Now\n",
			"svm_rt.Since((tm.Since), start) > 0, svm_rt.Now((tm.Now)).After(start))",
		}
		if !ranks {
			want = []string{"start := tm.Now()", "for tm.Since(start).Nanoseconds() < 1e8 && tm.Until(deadline) > 0 {", "clock := tm.Now\n"}
		}
		for _, w := range want {
			if !strings.Contains(src, w) {
				t.Errorf("ranks %v: no %q in\n%s", ranks, w, src)
			}
		}
	}
}

func TestMapOrder(t *testing.T) {
	for _, ranks := range []bool{true, false} {
		src := generatedMain(t, "testdata/maporder", ranks)
		want := []string{
			"for k, v := range svm_rt.OrderedMap(m) {",
			"for k := range pairs {",
			"slices.Collect(svm_rt.OrderedKeys(maps.Keys, m))",
			"for _, v := range m {",
		}
		if !ranks {
			want = []string{"for k, v := range m {", "for k := range pairs {", "slices.Collect(maps.Keys(m))", "for _, v := range m {"}
		}
		for _, w := range want {
			if !strings.Contains(src, w) {
				t.Errorf("ranks %v: no %q in\n%s", ranks, w, src)
			}
		}
	}
}

// TestInitGuards: the initialisers of package-level variables that may
// panic run through rtlib.InitVar (InitVar2 for two variables of one
// call), typed as the file writes the type (or as the declaration does),
// and init functions open with
// the check and the catch; initialisers that cannot panic (constants'
// arithmetic, conversions and products, a function literal, composite
// literals of variables, a builtin that cannot panic) and one whose type the file cannot name
// (hash.Hash: the file does not import hash) are left as written.
func TestInitGuards(t *testing.T) {
	src := generatedMain(t, "testdata/initvars", false)
	for _, w := range []string{
		"var word = svm_rt.InitVar(func() *regexp.Regexp {",
		"var n, err = svm_rt.InitVar2(func() (int, error) {",
		"var half = svm_rt.InitVar(func() int {",
		"var named fmt.Stringer = svm_rt.InitVar(func() fmt.Stringer {",
		"var scaled = float64(n) * 1.5",
		"var h = sha256.New()",
		"var k = 5",
		"var f = func() int { return n + k }",
		"var table = map[string]int{\"a\": len(\"ab\")}",
		"var pair = [2]int{n, k}",
		"if svm_rt.InitFailed() {",
		"defer svm_rt.InitCatch()",
	} {
		if !strings.Contains(src, w) {
			t.Errorf("no %q in\n%s", w, src)
		}
	}
}
