package codegen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/progdb"
)

// TestTablesAgreeWithInfo checks the tables the runtime names sites by
// (svm_tables.go: Subs with their directives, Calls) against the program
// information, position by position, for a program whose libraries hold
// a pdo, a replicated region and a message call: each package is loaded
// with a file set of its own, and the library's positions read in main's
// set named lines of main.go.
func TestTablesAgreeWithInfo(t *testing.T) {
	prog, err := compiler.CompileProgram(compiler.Config{Dir: "testdata/library", Pattern: "."})
	if err != nil {
		t.Fatal(err)
	}
	if len(prog.Libs) == 0 {
		t.Fatal("the library was not compiled")
	}
	info, err := progdb.Marshal(prog.Main.Prog)
	if err != nil {
		t.Fatal(err)
	}
	src, err := genTables(prog, info, "test", true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), TablesFile, src, 0)
	if err != nil {
		t.Fatalf("the tables do not parse: %v", err)
	}
	tab := map[string]*ast.CompositeLit{} // Subs, Calls
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Subs" || k.Name == "Calls") {
				tab[k.Name] = kv.Value.(*ast.CompositeLit)
			}
		}
		return true
	})
	want := prog.Main.Prog
	subs, calls := tab["Subs"], tab["Calls"]
	if subs == nil || len(subs.Elts) != len(want.Subprograms)+1 {
		t.Fatalf("Subs has %d entries, want %d (entry 0 empty)", len(elts(subs)), len(want.Subprograms)+1)
	}
	checked := 0
	for k, s := range want.Subprograms {
		e := subs.Elts[k+1].(*ast.CompositeLit)
		if got := field(t, e, "Line"); got != s.Pos.Line || fieldStr(t, e, "File") != s.Pos.File {
			t.Errorf("sub %d %s: table %s:%d, info %s:%d", s.Num, s.Name, fieldStr(t, e, "File"), got, s.Pos.File, s.Pos.Line)
		}
		dirs := elts(fieldLit(t, e, "Dirs"))
		if len(dirs) != len(s.Directives)+1 {
			t.Fatalf("sub %s: %d directives in the table, %d in the info", s.Name, len(dirs)-1, len(s.Directives))
		}
		for i, d := range s.Directives {
			de := dirs[i+1].(*ast.CompositeLit)
			if l, c := field(t, de, "Line"), field(t, de, "Col"); l != d.Pos.Line || c != d.Pos.Col {
				t.Errorf("sub %s directive %d (%s): table line %d col %d, info %s", s.Name, d.Num, d.Kind, l, c, d.Pos)
			}
			checked++
		}
	}
	if len(elts(calls)) != len(want.Calls)+1 {
		t.Fatalf("Calls has %d entries, want %d", len(elts(calls)), len(want.Calls)+1)
	}
	for k, c := range want.Calls {
		e := calls.Elts[k+1].(*ast.CompositeLit)
		if l, col := field(t, e, "Line"), field(t, e, "Col"); l != c.Pos.Line || col != c.Pos.Col || fieldStr(t, e, "File") != c.Pos.File {
			t.Errorf("call %d (%s): table %s:%d:%d, info %s", c.Num, c.Func, fieldStr(t, e, "File"), l, col, c.Pos)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("checked %d sites; the library's pdo, region and call are missing", checked)
	}
	// Package wire has no directive but calls the runtime: it is compiled
	// too, and its call numbered.
	if len(want.Calls) != 1 || want.Calls[0].Pos.File != "wire/wire.go" {
		t.Errorf("calls %v, want wire.Pass's Sendrecv", want.Calls)
	}
}

func elts(c *ast.CompositeLit) []ast.Expr {
	if c == nil {
		return nil
	}
	return c.Elts
}

// fieldLit is the value of key in a keyed composite literal.
func fieldLit(t *testing.T, c *ast.CompositeLit, key string) *ast.CompositeLit {
	for _, e := range c.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == key {
			if v, ok := kv.Value.(*ast.CompositeLit); ok {
				return v
			}
		}
	}
	return nil
}

func fieldBasic(t *testing.T, c *ast.CompositeLit, key string) string {
	t.Helper()
	for _, e := range c.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == key {
			return kv.Value.(*ast.BasicLit).Value
		}
	}
	t.Fatalf("no %s in a table entry", key)
	return ""
}

func field(t *testing.T, c *ast.CompositeLit, key string) int {
	t.Helper()
	n, err := strconv.Atoi(fieldBasic(t, c, key))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func fieldStr(t *testing.T, c *ast.CompositeLit, key string) string {
	t.Helper()
	s, err := strconv.Unquote(fieldBasic(t, c, key))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
