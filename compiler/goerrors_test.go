package compiler

import (
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
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":  "module example.com/twice\n\ngo 1.24\n",
		"a.go":    "package main\n\nfunc helper() {}\n\nfunc main() { helper() }\n",
		"main.go": "package main\n\nfunc main() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
// its dependencies is told that svmc reads them from the module cache
// (x247: an offline machine whose program builds from vendor/).
func TestImportErrorSaysWhy(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":                      "module example.com/vend\n\ngo 1.24\n\nrequire example.com/dep v1.0.0\n",
		"main.go":                     "package main\n\nimport \"example.com/dep\"\n\nfunc main() { dep.F() }\n",
		"vendor/modules.txt":          "# example.com/dep v1.0.0\n## explicit; go 1.24\nexample.com/dep\n",
		"vendor/example.com/dep/d.go": "package dep\n\nfunc F() {}\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"GOPROXY=off", "GOFLAGS=", "GOMODCACHE=" + t.TempDir(), "GOWORK=off"}
	p, err := Compile(Config{Dir: dir, Pattern: ".", BuildFlags: []string{"-mod=mod"}, Env: env})
	if err == nil || p == nil || len(p.Diags) != 1 {
		t.Fatalf("err %v, diagnostics %v", err, p)
	}
	msg := p.Diags[0].Msg
	if !strings.HasPrefix(msg, "could not import example.com/dep: ") || strings.Contains(msg, "invalid package name") ||
		!strings.Contains(msg, "not from its vendor directory: go mod download fills the cache once") {
		t.Errorf("diagnostic %s", p.Diags[0])
	}
}
