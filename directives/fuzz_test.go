package directives

import (
	"go/ast"
	"reflect"
	"strings"
	"testing"
)

// payload names the Directive field each kind fills, "" for none.
var payload = [numKinds]string{
	Processors: "Processors", Template: "Template", Distribute: "Distribute", Redistribute: "Distribute",
	Create: "Create", Destroy: "Name", Undef: "Name", PDO: "PDO", Section: "Section", Lock: "Lock",
	TraceRegion: "Name", End: "End", Shared: "Shared", Coherence: "Coherence", Prefetch: "Prefetch",
}

var fuzzSeeds = []string{
	"//svm:processors P(0:1, 0:3)",
	"//svm:template T2(:,:)",
	"//svm:template T(len(map[int]int{1: 2}), n)",
	"//svm:distribute (block, cyclic(2), general_block(s), indirect(o), *) onto P :: T1, T3",
	"//svm:redistribute T3, T4 with T1",
	"//svm:create T2(m,m)",
	"//svm:pdo label(l) loops(i,j) processors(P) strategy(on_home(T(i,j+1))) reduction(+: s; max: m) reduction(&&: ok) template(T)",
	"//svm:pdo loops(i, j), strategy(block, cyclic(k))",
	"//svm:pdo loops(i) strategy(guided(4))",
	"//svm:section processors(P)",
	"//svm:critical c // remark",
	`//svm:lock(a, b[i], m["),"], r[')'])`,
	"//svm:end trace_region r",
	"//svm:coherence(wu) :: a, b",
	"//svm:prefetch a[lo:hi], /* c */ b",
	"//svm:prefetch func() { for {} }",
	"//svm:pdo loops(i j) strat(block) reduction(+ s)",
	"//svm:lock(`raw",
}

// FuzzParse checks that any text yields a directive or errors, never a
// panic, and that every position reported lies in the text and points at
// what it names.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		check(t, text)
		if !IsDirective(text) {
			check(t, prefix+text)
		}
	})
}

func check(t *testing.T, text string) {
	d, errs := Parse(text, pos0)
	if d == nil && len(errs) == 0 {
		t.Fatalf("Parse(%q): no directive and no error", text)
	}
	inText := func(p Pos) int {
		off := p.Column - pos0.Column
		if p.Filename != pos0.Filename || p.Line != pos0.Line || off != p.Offset || off < 0 || off > len(text) {
			t.Fatalf("Parse(%q): position %v outside the text", text, p)
		}
		return off
	}
	for _, e := range errs {
		inText(e.Pos)
		if e.Msg == "" || !strings.HasPrefix(e.Error(), "f.go:12:") {
			t.Fatalf("Parse(%q): bad error %q", text, e.Error())
		}
	}
	if d == nil {
		return
	}
	if d.Bad != (len(errs) > 0) || d.Text != text {
		t.Fatalf("Parse(%q): Bad = %v with %d errors, Text %q", text, d.Bad, len(errs), d.Text)
	}
	// The kind's payload is set (unless an error cut it short), no other is.
	v := reflect.ValueOf(d).Elem()
	for _, f := range payload {
		switch isNil := f == "" || v.FieldByName(f).IsNil(); {
		case f == payload[d.Kind] && isNil && len(errs) == 0 && f != "":
			t.Fatalf("Parse(%q): %v without %s", text, d.Kind, f)
		case f != payload[d.Kind] && !isNil && !(d.Kind == Critical && f == "Name"):
			t.Fatalf("Parse(%q): %v with %s", text, d.Kind, f)
		}
	}
	walk(reflect.ValueOf(d), func(n *Name, x *Expr) {
		if n != nil {
			if d.Bad && *n == (Name{}) {
				return // not reached by the parse
			}
			if off := inText(n.Pos); !strings.HasPrefix(text[off:], n.Name) || n.Name == "" {
				t.Fatalf("Parse(%q): name %q at %v", text, n.Name, n.Pos)
			}
			return
		}
		off := inText(x.Pos)
		if !strings.HasPrefix(text[off:], x.Text) || x.Text == "" {
			t.Fatalf("Parse(%q): expression %q at %v", text, x.Text, x.Pos)
		}
		if x.X != nil && (int(x.X.Pos())-1 < off || int(x.X.End())-1 > off+len(x.Text)) {
			t.Fatalf("Parse(%q): tree of %q spans %d..%d", text, x.Text, x.X.Pos(), x.X.End())
		}
	})
}

var astExprType = reflect.TypeFor[ast.Expr]()

// walk calls fn for every Name and Expr reachable from v.
func walk(v reflect.Value, fn func(*Name, *Expr)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		switch p := v.Interface().(type) {
		case *Name:
			fn(p, nil)
			return
		case *Expr:
			fn(nil, p)
			return
		}
		walk(v.Elem(), fn)
	case reflect.Struct:
		if v.CanAddr() {
			if n, ok := v.Addr().Interface().(*Name); ok {
				fn(n, nil)
				return
			}
		}
		for i := range v.NumField() {
			if v.Type().Field(i).Type != astExprType {
				walk(v.Field(i), fn)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), fn)
		}
	}
}

func TestWalkSeeds(t *testing.T) {
	// All seeds but the last two are valid; walk must see all their parts.
	var names, exprs int
	for i, s := range fuzzSeeds {
		check(t, s)
		d, errs := Parse(s, pos0)
		if valid := i < len(fuzzSeeds)-2; valid != (errs == nil) {
			t.Errorf("seed %q: errors %v", s, errs)
		}
		walk(reflect.ValueOf(d), func(n *Name, x *Expr) {
			if n != nil {
				names++
			} else {
				exprs++
			}
		})
	}
	if names != 29 || exprs != 23 {
		t.Errorf("walk saw %d names, %d expressions", names, exprs)
	}
}
