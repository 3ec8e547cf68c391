package compiler

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/svmc/svmc/progdb"
)

// analysis is testdata/analysis, compiled once for the tests of this file.
var analysis = sync.OnceValues(func() (*Package, error) {
	return Compile(Config{Dir: "testdata/analysis", Pattern: "."})
})

// pdoLabeled returns the analysed pdo with label(name) in testdata/analysis.
func pdoLabeled(t *testing.T, name string) (*Package, *Construct) {
	t.Helper()
	p, err := analysis()
	if err != nil {
		t.Fatalf("compile testdata/analysis:\n%v", err)
	}
	if len(p.Diags) > 0 {
		t.Fatalf("compile testdata/analysis: unexpected diagnostics:\n%v", p.Diags)
	}
	for _, s := range p.Subs {
		for _, c := range s.Constructs {
			if c.PDO != nil && c.Dir.PDO.Label != nil && c.Dir.PDO.Label.Name == name {
				return p, c
			}
		}
	}
	t.Fatalf("no pdo label(%s) in testdata/analysis", name)
	return nil, nil
}

// TestClassify checks the variable classes of a pdo body: variables
// declared in the nest (loop variables, locals, a closure and its
// parameter) are private, reduction variables are listed as op:name, and
// every other variable the body uses is shared. Fields, functions, types and
// builtins are not variables of the body; n is used only by the loop
// headers, which the runtime evaluates.
func TestClassify(t *testing.T) {
	t.Parallel()
	p, c := pdoLabeled(t, "classes")
	want := progdb.VarClasses{
		Shared:    []string{"a", "b", "m", "p", "scale"},
		Private:   []string{"f", "i", "j", "k", "t", "u"},
		Reduction: []string{"+:sum", "max:mx"},
	}
	if diff := cmp.Diff(want, c.PDO.Vars); diff != "" {
		t.Errorf("classes of pdo label(classes) (-want +got):\n%s", diff)
	}
	// The program information file records the same classes.
	var got *progdb.VarClasses
	for _, s := range p.Prog.Subprograms {
		for _, d := range s.Directives {
			if d.Label == "classes" {
				got = d.Vars
			}
		}
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("progdb classes of pdo label(classes) (-want +got):\n%s", diff)
	}
	var reds []string
	for _, r := range c.PDO.Reds {
		reds = append(reds, r.Op.String()+":"+r.Name)
		if r.Obj == nil || r.Obj.Name() != r.Name {
			t.Errorf("reduction %s: object %v", r.Name, r.Obj)
		}
	}
	if diff := cmp.Diff([]string{"+:sum", "max:mx"}, reds); diff != "" {
		t.Errorf("reductions in clause order (-want +got):\n%s", diff)
	}
}

// loopForm is the normalised form of a pdo loop, as text.
type loopForm struct {
	Name, Lo, Hi, Step, Range, Value string
}

// TestLoopNormalisation checks that each accepted loop form becomes a loop
// from Lo to Hi inclusive in steps of Step, and that a range over a slice or
// array keeps the ranged expression and its value variable instead of a Hi.
func TestLoopNormalisation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		label string
		want  []loopForm
	}{
		{"lt", []loopForm{{Name: "i", Lo: "0", Hi: "(n) - 1", Step: "1"}}},
		{"le", []loopForm{{Name: "i", Lo: "1", Hi: "(n)", Step: "(2)"}}},
		{"gt", []loopForm{{Name: "i", Lo: "n", Hi: "(0) + 1", Step: "-1"}}},
		{"ge", []loopForm{{Name: "i", Lo: "n - 1", Hi: "(lo)", Step: "-(k)"}}},
		{"rangeint", []loopForm{{Name: "i", Lo: "0", Hi: "(n) - 1", Step: "1"}}},
		{"rangeslice", []loopForm{{Name: "i", Lo: "0", Step: "1", Range: "a", Value: "x"}}},
		{"rangearray", []loopForm{{Name: "i", Lo: "0", Step: "1", Range: "arr"}}},
		{"nest", []loopForm{
			{Name: "i", Lo: "n", Hi: "(1)", Step: "-1"},
			{Name: "j", Lo: "0", Hi: "(10) - 1", Step: "1"},
		}},
	}
	for _, tt := range tests {
		_, c := pdoLabeled(t, tt.label)
		var got []loopForm
		for _, l := range c.PDO.Loops {
			f := loopForm{Name: l.Name, Lo: l.Lo, Hi: l.Hi, Step: l.Step, Range: l.Range}
			if l.Value != nil {
				f.Value = l.Value.Name()
			}
			if l.Obj == nil || l.Obj.Name() != l.Name {
				t.Errorf("label(%s): loop %s has object %v", tt.label, l.Name, l.Obj)
			}
			got = append(got, f)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("label(%s) loops (-want +got):\n%s", tt.label, diff)
		}
		if last := c.PDO.Loops[len(c.PDO.Loops)-1]; c.PDO.Body != last.Body {
			t.Errorf("label(%s): Body is not the innermost loop's body", tt.label)
		}
	}
}

// subscript is an on_home subscript's classification, with its text.
type subscript struct {
	Kind   SubscriptKind
	Loop   int
	Offset int64
	Text   string
}

// TestOnHomeSubscripts checks how on_home subscripts are classified: a loop
// variable plus or minus an integer literal (either order for +) is
// SubLoopVar with that offset, an expression without loop variables is
// SubConst, and anything else is SubExpr, which the runtime evaluates per
// iteration. A named constant offset (i+c) is SubExpr: only literals count.
func TestOnHomeSubscripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		label string
		want  []subscript
	}{
		{"plain", []subscript{{SubLoopVar, 0, 0, "i"}, {SubLoopVar, 1, 0, "j"}}},
		{"offsets", []subscript{{SubLoopVar, 0, 1, "i+1"}, {SubLoopVar, 1, 1, "1+j"}}},
		{"swapped", []subscript{{SubLoopVar, 1, -2, "j-2"}, {SubConst, 0, 0, "3"}}},
		{"general", []subscript{{SubExpr, 0, 0, "i*2"}, {SubConst, 0, 0, "n-1"}}},
		{"mixed", []subscript{{SubLoopVar, 0, 0, "(i)"}, {SubExpr, 0, 0, "i+j"}}},
		{"named", []subscript{{SubExpr, 0, 0, "i+c"}, {SubConst, 0, 0, "0"}}},
	}
	for _, tt := range tests {
		_, c := pdoLabeled(t, tt.label)
		var got []subscript
		for _, s := range c.PDO.Subs {
			got = append(got, subscript{s.Kind, s.Loop, s.Offset, s.Expr.Text})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("label(%s) on_home subscripts (-want +got):\n%s", tt.label, diff)
		}
	}
}
