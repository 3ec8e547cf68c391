package compiler

import (
	"reflect"
	"slices"
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
// does: a directive syntax error (parse) and a reserved name (subprograms)
// are reported in one run.
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
		msgs = append(msgs, d.Msg)
	}
	if len(msgs) != 2 {
		t.Errorf("diagnostics %q, want a syntax error and a reserved name", msgs)
	}
	if _, ok := ResultOf[[]*Construct](q, AttachPass); ok {
		t.Error("attach ran although parse reported an error")
	}
	if _, ok := ResultOf[[]*Sub](q, SubprogramsPass); !ok {
		t.Error("subprograms did not run although it requires nothing that failed")
	}
}

func reflectType(v any) reflect.Type { return reflect.TypeOf(v) }
