package compiler

import (
	"os/exec"
	"regexp"
	"slices"
	"testing"
)

// TestInlinePass: the subprograms left plain are those the Go compiler
// inlines (asked with -gcflags=-m on the same package), less the ones svmc
// instruments anyway: loops (sum: it may run long; but not apply, which
// loops over calls of the function it was passed), output, go
// statements and defers, //go:noinline, recursion (even is inlined by Go
// into odd, but not both), calls of instrumented functions, directives.
// With InstrumentAll none is plain.
func TestInlinePass(t *testing.T) {
	t.Parallel()
	p := compileOK(t, "inline")
	var plain []string
	for _, s := range p.Subs {
		if s.Plain {
			plain = append(plain, s.Name)
		}
	}
	want := []string{"point.dist", "byDist.Len", "byDist.Less", "byDist.Swap", "norm", "apply"}
	if !slices.Equal(plain, want) {
		t.Errorf("plain %v, want %v", plain, want)
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", "-o", "/dev/null", "./testdata/inline").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	inlined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\S*main\.go:\d+:\d+: can inline ([\w.]+?)(\[.*)?$`).FindAllStringSubmatch(string(out), -1) {
		inlined[m[1]] = true
	}
	for _, name := range plain {
		if !inlined[name] {
			t.Errorf("%s is plain, but the Go compiler does not inline it", name)
		}
	}
	anyway := map[string]bool{"sum": true, "even": true, "show": true, "warn": true, "twice": true, "work": true}
	for name := range inlined {
		if !slices.Contains(plain, name) && !anyway[name] && subNamed(p, name) != nil {
			t.Errorf("the Go compiler inlines %s, which svmc instruments", name)
		}
	}

	all, err := Compile(Config{Dir: "testdata/inline", Pattern: ".", InstrumentAll: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all.Subs {
		if s.Plain {
			t.Errorf("%s is plain with InstrumentAll", s.Name)
		}
	}
}

func subNamed(p *Package, name string) *Sub {
	for _, s := range p.Subs {
		if s.Name == name {
			return s
		}
	}
	return nil
}
