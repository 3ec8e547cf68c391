package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoErrorContinuation: a Go error with a second position ("main
// redeclared in this block" and, indented, "other declaration of main")
// prints as go build prints it, the second line under the first, whatever
// the files' order (it was sorted on its own, into the other file's place,
// as a diagnostic whose message began with a tab).
func TestGoErrorContinuation(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":  "module example.com/twice\n\ngo 1.24\n",
		"a.go":    "package main\n\nfunc helper() {}\n\nfunc main() { helper() }\n",
		"main.go": "package main\n\nfunc main() {}\n",
	})
	p, err := Compile(Config{Dir: dir, Pattern: "."})
	if err == nil {
		t.Fatal("compiled a package with two mains")
	}
	if len(p.Diags) != 1 {
		t.Fatalf("diagnostics %v, want one", p.Diags)
	}
	d := p.Diags[0]
	first, second, ok := strings.Cut(d.Msg, "\n\t")
	if !ok || !strings.Contains(first, "main redeclared in this block") || !strings.HasSuffix(second, "a.go:5:6: other declaration of main") || d.Pos.Line != 3 {
		t.Errorf("diagnostic %s", d)
	}
}

// TestImportErrorSaysWhy: an import the go command could not load is
// reported with the go command's reason, not the type checker's "could
// not import X (invalid package name: \"\")", and a module that vendors
// its dependencies, built from the module cache (-mod=mod here; svmc run
// reads vendor/ where the go command would, TestVendoredOffline), is told
// why its vendor directory was not read.
func TestImportErrorSaysWhy(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":                      "module example.com/vend\n\ngo 1.24\n\nrequire example.com/dep v1.0.0\n",
		"main.go":                     "package main\n\nimport \"example.com/dep\"\n\nfunc main() { dep.F() }\n",
		"vendor/modules.txt":          "# example.com/dep v1.0.0\n## explicit; go 1.24\nexample.com/dep\n",
		"vendor/example.com/dep/d.go": "package dep\n\nfunc F() {}\n",
	})
	env := []string{"GOPROXY=off", "GOFLAGS=", "GOMODCACHE=" + t.TempDir(), "GOWORK=off"}
	p, err := Compile(Config{Dir: dir, Pattern: ".", BuildFlags: []string{"-mod=mod"}, Env: env})
	if err == nil || p == nil || len(p.Diags) != 1 {
		t.Fatalf("err %v, diagnostics %v", err, p)
	}
	msg := p.Diags[0].Msg
	if !strings.HasPrefix(msg, "could not import example.com/dep: ") || strings.Contains(msg, "invalid package name") ||
		!strings.Contains(msg, "the module has a vendor directory, which this build does not read") {
		t.Errorf("diagnostic %s", p.Diags[0])
	}
}

// TestTypeErrorsKeepOtherFilesChecks: a package whose Go errors are type
// errors gets, in the same run, the directive syntax errors of every file
// and the construct errors of the functions without Go errors (a return
// out of a pdo in b.go, a loops clause naming the wrong variable in c.go's
// c2); a construct error in the function with the type error is left for
// the next run, as its types may be broken, and so are those of a file
// whose type error is in a package-level declaration (d.go). Before, the
// type errors hid b.go's error until they were fixed, and c2's (x563).
func TestTypeErrorsKeepOtherFilesChecks(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":  "module example.com/rounds\n\ngo 1.24\n",
		"a.go":    "package main\n\nfunc a(xs []int) {\n\t//svm:pdo loops(i) strategy(cylic)\n\tfor i := range xs {\n\t\txs[i] = i\n\t}\n}\n",
		"b.go":    "package main\n\nfunc b(xs []int) {\n\t//svm:pdo loops(i)\n\tfor i := range xs {\n\t\tif xs[i] < 0 {\n\t\t\treturn\n\t\t}\n\t}\n}\n",
		"c.go":    "package main\n\nfunc c(xs []int) int {\n\tvar s string = 3\n\t//svm:pdo loops(i)\n\tfor i := range xs {\n\t\tbreak\n\t}\n\treturn len(s)\n}\n\nfunc c2(xs []int) {\n\t//svm:pdo loops(j)\n\tfor i := range xs {\n\t\txs[i] = 0\n\t}\n}\n",
		"d.go":    "package main\n\nvar limit int = \"ten\"\n\nfunc d(xs []int) {\n\t//svm:pdo loops(j)\n\tfor i := range xs {\n\t\txs[i] = limit\n\t}\n}\n",
		"main.go": "package main\n\nfunc main() {\n\txs := make([]int, 4)\n\ta(xs)\n\tb(xs)\n\t_ = c(xs)\n\tc2(xs)\n\td(xs)\n}\n",
	})
	p, err := Compile(Config{Dir: dir, Pattern: "."})
	if err == nil || p == nil {
		t.Fatalf("compiled: %v", err)
	}
	var got []string
	for _, d := range p.Diags {
		got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(d.Pos.Filename), d.Pos.Line, strings.Fields(d.Msg)[0]))
	}
	if want := "a.go:4 pdo:, b.go:7 return, c.go:4 cannot, c.go:6 declared, c.go:14 pdo, d.go:3 cannot"; strings.Join(got, ", ") != want {
		t.Errorf("diagnostics %q, want %s", got, want)
	}
}

// TestRuntimeHint: a name the runtime's API does not have, under the name
// the program imports it as, gets the API's names it resembles: a
// misspelling's "did you mean", and the names sharing a word with it
// (rt.NProcs: NumProcessors among those with "proc"). Before, the type
// checker's "undefined: rt.NProcs" was all.
func TestRuntimeHint(t *testing.T) {
	p, err := Compile(Config{Dir: "testdata/apihint", Pattern: "."})
	if err == nil || p == nil || len(p.Diags) != 2 {
		t.Fatalf("%v: %v", err, p.Diags)
	}
	if m := p.Diags[0].Msg; !strings.HasPrefix(m, "undefined: rt.NProcs") || !strings.Contains(m, "rt's names with proc: ") || !strings.Contains(m, "NumProcessors") {
		t.Errorf("NProcs: %s", m)
	}
	if m := p.Diags[1].Msg; m != `undefined: rt.Barier; did you mean "Barrier"?` {
		t.Errorf("Barier: %s", m)
	}
}

// TestSyntaxErrorAlone: a package with a syntax error is reported by the
// first error on its line, as go build reports it, without go/parser's
// follow-on guesses on that line or type errors (x495 printed four lines
// for "x := " before a "}"); go build reports another file's type error
// once the syntax is right, and so does svmc.
func TestSyntaxErrorAlone(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.24\n",
		"main.go": "package main\n\nfunc main() {\n\tx := \n}\n",
		"b.go":    "package main\n\nfunc other() int { return \"no\" }\n",
	})
	p, err := Compile(Config{Dir: dir, Pattern: "."})
	if err == nil || p == nil {
		t.Fatal("compiled a package with a syntax error")
	}
	var got []string
	for _, d := range p.Diags {
		got = append(got, fmt.Sprintf("%s:%d", filepath.Base(d.Pos.Filename), d.Pos.Line))
	}
	if len(got) != 1 || got[0] != "main.go:5" {
		t.Errorf("diagnostics at %v, want one at main.go:5: %v", got, p.Diags)
	}
}

// writeTree writes files (by slash-separated name) into a new temporary
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
