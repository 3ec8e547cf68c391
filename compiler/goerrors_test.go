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
