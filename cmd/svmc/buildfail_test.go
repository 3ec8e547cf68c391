package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svmc/svmc/compiler"
)

// TestExplainBuildFailure: a Go compile error in the instrumented program
// is reported as svmc's bug at the directive whose code it is in, with Go's
// words and position after; output without a compile error (the module
// cannot be reached) is passed on as the environment's failure. Either way
// the work directory is kept.
func TestExplainBuildFailure(t *testing.T) {
	p, err := compiler.Compile(compiler.Config{Pattern: "../../examples/triangle"})
	if err != nil {
		t.Fatal(err)
	}
	goOut := "# github.com/svmc/svmc/examples/triangle\n" +
		"./main.go:23:12: cannot use int64(0) (constant 0 of type int64) as int value in struct literal\n" +
		"main.go:5: undefined: svm_x\n"
	err = explainBuildFailure([]byte(goOut), p, "/tmp/w")
	msg := err.Error()
	for _, want := range []string{
		"main.go:20:2: in the code svmc generated for //svm:pdo label(static) loops(i) strategy(block) (Go reports main.go:23:12): cannot use int64(0)",
		"main.go:5: in code svmc generated: undefined: svm_x",
		"svmc internal error: the instrumented program does not compile",
		"this is a bug in svmc, not in your program",
		"kept in /tmp/w",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	var bf buildFailure
	if !errors.As(err, &bf) {
		t.Errorf("%T is not a buildFailure: the work directory would be removed", err)
	}

	// Within a function only its directives are blamed: a goto at line 41
	// over the replicated region of line 42 is the region's code (before,
	// no directive stood above it); a function without directives
	// (jacobi's grid) has none, not main's pdo above it.
	for _, c := range []struct{ pkg, goOut, want string }{
		{"../../examples/master", "main.go:41:3: goto done jumps over declaration of svm_range1_0 at main.go:44\n",
			"main.go:42:2: in the code svmc generated for //svm:replicated (Go reports main.go:41:3): goto done"},
		{"../../examples/jacobi", "main.go:55:2: undefined: svm_y\n", "main.go:55:2: in code svmc generated: undefined: svm_y"},
	} {
		q, err := compiler.Compile(compiler.Config{Pattern: c.pkg})
		if err != nil {
			t.Fatal(err)
		}
		if msg := explainBuildFailure([]byte(c.goOut), q, "/tmp/w").Error(); !strings.Contains(msg, c.want) {
			t.Errorf("%s: missing %q in:\n%s", c.pkg, c.want, msg)
		}
	}

	env := "go: example.com/dep@v1.2.0: missing go.sum entry; to add it:\n\tgo mod download example.com/dep\n"
	err = explainBuildFailure([]byte(env), p, "/tmp/w")
	if msg := err.Error(); strings.Contains(msg, "internal error") || !strings.Contains(msg, "missing go.sum entry") || !strings.Contains(msg, "building the instrumented program failed") {
		t.Errorf("environment failure reported as:\n%s", msg)
	}
}

// TestPruneRuntimes: the runtime directory in use is marked used now, and
// the ones of other svmc versions (and temporary ones) unused for 30 days
// are removed; recent ones and other files stay.
func TestPruneRuntimes(t *testing.T) {
	base := t.TempDir()
	now := time.Now()
	old := now.Add(-40 * 24 * time.Hour)
	for name, at := range map[string]time.Time{
		"runtime-keep": old, "runtime-old": old, "tmp-runtime-dead": old,
		"runtime-recent": now.Add(-2 * 24 * time.Hour), "trace_engine": old,
	} {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(dir, "rtlib"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "rtlib", "x.go"), []byte("package rtlib\n"), 0o644)
		if err := os.Chtimes(dir, at, at); err != nil {
			t.Fatal(err)
		}
	}
	pruneRuntimes(base, filepath.Join(base, "runtime-keep"), now)
	for name, want := range map[string]bool{"runtime-keep": true, "runtime-old": false, "tmp-runtime-dead": false, "runtime-recent": true, "trace_engine": true} {
		_, err := os.Stat(filepath.Join(base, name))
		if (err == nil) != want {
			t.Errorf("%s kept: %v, want %v", name, err == nil, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(base, "runtime-keep")); err != nil || now.Sub(fi.ModTime()) > time.Minute {
		t.Errorf("the runtime in use was not marked used now: %v", err)
	}
}
