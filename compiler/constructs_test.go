package compiler

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/progdb"
)

// TestHandlers fails, naming the kind, when a directive kind of the
// registry (directives.Table) has no check or no program information
// handler in the compiler.
func TestHandlers(t *testing.T) {
	for _, in := range directives.Table {
		h, ok := handlers[in.Kind]
		switch {
		case !ok:
			t.Errorf("%s: no handler in compiler.handlers (constructs.go): give it a check and an info function", in.Keyword)
		case h.check == nil:
			t.Errorf("%s: no check in compiler.handlers (noCheck if the kind has nothing to check)", in.Keyword)
		case h.info == nil:
			t.Errorf("%s: no program information in compiler.handlers (noInfo if the kind has no fields of its own)", in.Keyword)
		}
	}
	for k := range handlers {
		if int(k) < 0 || int(k) >= len(directives.Table) {
			t.Errorf("handler for %v, which is not a kind of directives.Table", k)
		}
	}
}

// TestPasses checks the declared passes: each has a name, a doc and a
// result type, names are unique, and each comes after the passes it
// requires.
func TestPasses(t *testing.T) {
	seen := map[*Pass]bool{}
	var names []string
	for _, ps := range Passes {
		if ps.Name == "" || ps.Doc == "" || ps.ResultType == nil || ps.run == nil {
			t.Errorf("pass %+v lacks a name, a doc, a result type or its function", ps)
		}
		if slices.Contains(names, ps.Name) {
			t.Errorf("pass name %s used twice", ps.Name)
		}
		names = append(names, ps.Name)
		for _, req := range ps.Requires {
			if !seen[req] {
				t.Errorf("pass %s requires %s, which does not run before it", ps.Name, req.Name)
			}
		}
		seen[ps] = true
	}
}

// TestResults checks that each pass's result is what it declares and that
// a pass whose requirement failed does not run, while an independent pass
// does, and that a Confined pass's errors do not stop the passes after it
// (testdata/rounds).
func TestResults(t *testing.T) {
	p := compileOK(t, "numbering")
	for _, ps := range Passes {
		r, ok := p.results[ps]
		if !ok {
			t.Fatalf("pass %s did not run", ps.Name)
		}
		if got := reflectType(r); got != ps.ResultType {
			t.Errorf("pass %s returned %v, declares %v", ps.Name, got, ps.ResultType)
		}
	}
	if prog, ok := ResultOf[*progdb.Program](p, ProgDBPass); !ok || prog != p.Prog {
		t.Errorf("ResultOf(ProgDBPass) = %p, %v; want the package's program information", prog, ok)
	}
	q, err := Compile(Config{Dir: "testdata/rounds", Pattern: "."})
	if err == nil {
		t.Fatal("testdata/rounds compiled without errors")
	}
	var msgs []string
	for _, d := range q.Diags {
		msgs = append(msgs, fmt.Sprintf("%d: %s", d.Pos.Line, d.Msg))
	}
	want := []string{
		`10: the name svm_x is reserved: svmc uses the prefix "svm_" for generated code; rename it`,
		`13: critical.*`,
		`21: barrier .*`,
	}
	if len(msgs) != len(want) {
		t.Fatalf("diagnostics:\n%s\nwant one for each of\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	for i, re := range want {
		if !regexp.MustCompile("^" + re + "$").MatchString(msgs[i]) {
			t.Errorf("diagnostic %q, want %q", msgs[i], re)
		}
	}
	if _, ok := ResultOf[[]*Construct](q, AttachPass); !ok {
		t.Error("attach did not run: parse and subprograms confine their errors")
	}
	if _, ok := ResultOf[map[*Construct]progdb.VarClasses](q, ClassifyPass); ok {
		t.Error("classify ran although structure reported an error")
	}
}

func reflectType(v any) reflect.Type { return reflect.TypeOf(v) }

// TestBadClauseKeepsFunction: a typo in one pdo's clause does not hide the
// warnings of another pdo of the same function (testdata/badclause).
func TestBadClauseKeepsFunction(t *testing.T) {
	p, err := Compile(Config{Dir: "testdata/badclause", Pattern: "."})
	if err == nil || p == nil {
		t.Fatalf("Compile = %v, %v; want the clause's error", p, err)
	}
	var got []string
	for _, d := range p.Diags {
		got = append(got, fmt.Sprintf("%d %s", d.Pos.Line, d.Msg))
	}
	for _, want := range []string{`^12 loop-carried dependence`, `^13 total is shared and assigned`, `^15 pdo: unknown clause "stratgy"; did you mean "strategy"\?$`} {
		if !slices.ContainsFunc(got, regexp.MustCompile(want).MatchString) {
			t.Errorf("no diagnostic %s among\n%s", want, strings.Join(got, "\n"))
		}
	}
}

// TestGoErrorsWithDirectiveSyntax: Go errors stop everything that needs
// types, but the directives' syntax is still checked in the same run.
func TestGoErrorsWithDirectiveSyntax(t *testing.T) {
	p, err := Compile(Config{Dir: "testdata/goerrors", Pattern: "."})
	if err == nil || p == nil {
		t.Fatalf("Compile = %v, %v; want the diagnostics", p, err)
	}
	var got []string
	for _, d := range p.Diags {
		got = append(got, fmt.Sprintf("%d:%d", d.Pos.Line, d.Pos.Column))
	}
	if want := []string{"6:14", "7:20"}; !slices.Equal(got, want) {
		t.Errorf("diagnostics at %v, want %v:\n%v", got, want, err)
	}
}
