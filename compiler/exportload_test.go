package compiler

import (
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
)

// TestLoadFromImports: svmc's loader (the package parsed and checked here
// against its imports' export data, so that go list does not compile it
// first) gives what go/packages gives: the same errors at the same
// positions, the same objects and the same types of expressions, for
// programs of several files and packages, generic code, an embedded file,
// and packages with parse and type errors. Where it does not apply (an
// import that does not exist, cgo) it says so and go/packages does it.
func TestLoadFromImports(t *testing.T) {
	lib := map[string]string{
		"go.mod":         "module example.com/shop\n\ngo 1.22\n",
		"stock/stock.go": "package stock\n\nimport \"sort\"\n\ntype Item struct {\n\tName  string\n\tCount int\n}\n\ntype byName []Item\n\nfunc (b byName) Len() int           { return len(b) }\nfunc (b byName) Less(i, j int) bool { return b[i].Name < b[j].Name }\nfunc (b byName) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }\n\nfunc Sorted(items []Item) []Item { sort.Sort(byName(items)); return items }\n\nfunc Sum[T ~int | ~float64](xs []T) (s T) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n",
		"main.go":        "package main\n\nimport (\n\t_ \"embed\"\n\t\"fmt\"\n\t\"strings\"\n\t\"unsafe\"\n\n\t\"example.com/shop/stock\"\n)\n\n//go:embed note.txt\nvar note string\n\nfunc main() {\n\titems := stock.Sorted([]stock.Item{{\"pear\", 2}, {\"apple\", 3}})\n\tcounts := []int{}\n\tfor _, it := range items {\n\t\tcounts = append(counts, it.Count)\n\t}\n\tfmt.Println(strings.TrimSpace(note), stock.Sum(counts), unsafe.Sizeof(items[0]), report(items))\n}\n",
		"report.go":      "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/shop/stock\"\n)\n\nfunc report(items []stock.Item) fmt.Stringer { return list(items) }\n\ntype list []stock.Item\n\nfunc (l list) String() string { return fmt.Sprint(len(l), \" items\") }\n",
		"note.txt":       "stock\n",
	}
	broken := map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.24\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = \"three\"\n\tfmt.Println(n, undefinedName)\n}\n",
		"more.go": "package main\n\nfunc more() {\n\tx := \n}\n",
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		ok    bool
	}{
		{"module of two packages", lib, true},
		{"type and parse errors", broken, true},
		{"missing import", map[string]string{
			"go.mod":  "module example.com/missing\n\ngo 1.24\n",
			"main.go": "package main\n\nimport \"example.com/missing/nothere\"\n\nfunc main() { nothere.F() }\n",
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, src := range tc.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			mode := packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes |
				packages.NeedTypesInfo | packages.NeedModule | packages.NeedImports
			ours, ok := loadFromImports(&packages.Config{Mode: mode, Dir: dir, Fset: token.NewFileSet()}, ".")
			if ok != tc.ok {
				t.Fatalf("loadFromImports applies: %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			theirs, err := packages.Load(&packages.Config{Mode: mode, Dir: dir, Fset: token.NewFileSet()}, ".")
			if err != nil || len(theirs) != 1 {
				t.Fatalf("go/packages: %v %v", theirs, err)
			}
			if diff := cmp.Diff(errorsOf(theirs[0]), errorsOf(ours)); diff != "" {
				t.Errorf("errors differ (-go/packages +svmc):\n%s", diff)
			}
			if diff := cmp.Diff(summary(theirs[0]), summary(ours)); diff != "" {
				t.Errorf("types differ (-go/packages +svmc):\n%s", diff)
			}
			if len(ours.Syntax) != len(theirs[0].Syntax) || ours.Module == nil || ours.Module.Path != theirs[0].Module.Path {
				t.Errorf("files %d, module %v; go/packages: %d, %v", len(ours.Syntax), ours.Module, len(theirs[0].Syntax), theirs[0].Module)
			}
		})
	}
}

// errorsOf lists a package's parse and type errors (go/packages adds the
// go command's report of compiling the package, which svmc's loader
// does not run).
func errorsOf(p *packages.Package) []string {
	var errs []string
	for _, e := range p.Errors {
		if e.Kind != packages.ListError {
			errs = append(errs, e.Pos+": "+e.Msg)
		}
	}
	return errs
}

// summary is what the passes read of a checked package: every defined and
// used object with its type, and the type of every expression, by
// position.
func summary(p *packages.Package) []string {
	var s []string
	qual := types.RelativeTo(p.Types)
	for id, obj := range p.TypesInfo.Defs {
		if obj != nil {
			s = append(s, "def "+p.Fset.Position(id.Pos()).String()+" "+types.ObjectString(obj, qual))
		}
	}
	for id, obj := range p.TypesInfo.Uses {
		s = append(s, "use "+p.Fset.Position(id.Pos()).String()+" "+types.ObjectString(obj, qual))
	}
	for e, tv := range p.TypesInfo.Types {
		v := ""
		if tv.Value != nil {
			v = " = " + tv.Value.ExactString()
		}
		s = append(s, "type "+p.Fset.Position(e.Pos()).String()+"-"+p.Fset.Position(e.End()).String()+" "+types.TypeString(tv.Type, qual)+v)
	}
	slices.Sort(s)
	return s
}
