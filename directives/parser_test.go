package directives

import (
	"slices"

	"github.com/svmc/svmc/progdb"
	"github.com/svmc/svmc/trace"

	"go/ast"
	goparser "go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// pos0 is where the test directives stand: "\t//svm:..." on line 12.
var pos0 = Pos{Filename: "f.go", Line: 12, Column: 2}

func n(s string) Name   { return Name{Name: s} }
func np(s string) *Name { x := n(s); return &x }
func ns(s ...string) []Name {
	var l []Name
	for _, x := range s {
		l = append(l, n(x))
	}
	return l
}

// e is an expected expression; its X is compared by its printed form.
func e(s string) *Expr {
	x, err := goparser.ParseExpr(s)
	if err != nil {
		panic(err)
	}
	return &Expr{Text: s, X: x}
}

func size(s string) Dim        { return Dim{Size: e(s)} }
func bounds(lo, hi string) Dim { return Dim{Lo: e(lo), Hi: e(hi)} }

var colon = Dim{Colon: true}

func pdo(x PDODir) *Directive { return &Directive{Kind: PDO, PDO: &x} }
func strat(s Strategy) PDODir { return PDODir{Loops: ns("i"), Strategy: &s} }

// cmpOpts compares directives without positions (tested separately) and
// compares Go expression trees by their printed form.
var cmpOpts = cmp.Options{
	cmpopts.IgnoreTypes(Pos{}),
	cmpopts.IgnoreFields(Directive{}, "Text"),
	cmp.Transformer("ExprString", func(x ast.Expr) string {
		if x == nil {
			return "<nil>"
		}
		return types.ExprString(x)
	}),
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string // after "//svm:"
		want *Directive
	}{
		// processors
		{"processors P(2,2)", &Directive{Kind: Processors, Processors: &ProcessorsDir{n("P"), []Dim{size("2"), size("2")}}}},
		{"processors P(0:1, 0:3)", &Directive{Kind: Processors, Processors: &ProcessorsDir{n("P"), []Dim{bounds("0", "1"), bounds("0", "3")}}}},
		{"processors P(nprocs())", &Directive{Kind: Processors, Processors: &ProcessorsDir{n("P"), []Dim{size("nprocs()")}}}},
		{"PROCESSORS Grid( f(a, b) : g[c] , n*2 )", &Directive{Kind: Processors, Processors: &ProcessorsDir{n("Grid"), []Dim{bounds("f(a, b)", "g[c]"), size("n*2")}}}},

		// template
		{"template T(10,10)", &Directive{Kind: Template, Template: &TemplateDir{Name: n("T"), Dims: []Dim{size("10"), size("10")}}}},
		{"template T1(n,n)", &Directive{Kind: Template, Template: &TemplateDir{Name: n("T1"), Dims: []Dim{size("n"), size("n")}}}},
		{"template T2(:,:)", &Directive{Kind: Template, Template: &TemplateDir{Name: n("T2"), Dims: []Dim{colon, colon}, Creatable: true}}},
		{"template T(1:n, len(map[int]int{1: 2}))", &Directive{Kind: Template, Template: &TemplateDir{Name: n("T"), Dims: []Dim{bounds("1", "n"), size("len(map[int]int{1: 2})")}}}},

		// distribute, redistribute
		{"distribute (block, cyclic(2)) onto P :: T1, T3", &Directive{Kind: Distribute, Distribute: &DistributeDir{
			Formats: []Format{{Kind: Block}, {Kind: Cyclic, Arg: e("2")}}, Onto: np("P"), Templates: ns("T1", "T3")}}},
		{"distribute (block) :: T", &Directive{Kind: Distribute, Distribute: &DistributeDir{Formats: []Format{{Kind: Block}}, Templates: ns("T")}}},
		{"distribute (Cyclic, GENERAL_BLOCK(sizes), indirect(owner[:]), *) ONTO P::T", &Directive{Kind: Distribute, Distribute: &DistributeDir{
			Formats: []Format{{Kind: Cyclic}, {Kind: GeneralBlock, Arg: e("sizes")}, {Kind: Indirect, Arg: e("owner[:]")}, {Kind: Star}},
			Onto:    np("P"), Templates: ns("T")}}},
		{"distribute T3 with T1", &Directive{Kind: Distribute, Distribute: &DistributeDir{Templates: ns("T3"), With: np("T1")}}},
		{"distribute T3, T4 WITH T1", &Directive{Kind: Distribute, Distribute: &DistributeDir{Templates: ns("T3", "T4"), With: np("T1")}}},
		{"redistribute (cyclic(k+1), block) onto P :: T", &Directive{Kind: Redistribute, Distribute: &DistributeDir{Redistribute: true,
			Formats: []Format{{Kind: Cyclic, Arg: e("k+1")}, {Kind: Block}}, Onto: np("P"), Templates: ns("T")}}},
		{"redistribute T2 with T", &Directive{Kind: Redistribute, Distribute: &DistributeDir{Redistribute: true, Templates: ns("T2"), With: np("T")}}},

		// template life cycle
		{"create T2(m,m)", &Directive{Kind: Create, Create: &CreateDir{n("T2"), []Dim{size("m"), size("m")}}}},
		{"destroy T2", &Directive{Kind: Destroy, Name: np("T2")}},
		{"undef T2", &Directive{Kind: Undef, Name: np("T2")}},

		// pdo and its clauses
		{"pdo loops(i)", pdo(PDODir{Loops: ns("i")})},
		{"pdo", pdo(PDODir{})}, // the loop that follows, named by the compiler
		{"pdo strategy(dynamic) reduction(+: s)", pdo(PDODir{Strategy: &Strategy{Kind: Dynamic}, Reductions: []Reduction{{Op: Add, Vars: ns("s")}}})},
		{"pdo label(outer) loops(i, j) processors(P) strategy(block, cyclic(2)) reduction(+: s, t) template(T)", pdo(PDODir{
			Label: np("outer"), Loops: ns("i", "j"), Processors: np("P"),
			Strategy:   &Strategy{Kind: LoopLevel, Formats: []Format{{Kind: Block}, {Kind: Cyclic, Arg: e("2")}}},
			Reductions: []Reduction{{Op: Add, Vars: ns("s", "t")}}, Template: np("T")})},
		{"PDO Template(T) Loops(I, J), Strategy(Dynamic)", pdo(PDODir{Loops: ns("I", "J"), Template: np("T"), Strategy: &Strategy{Kind: Dynamic}})},
		{"pdo loops(i,j) strategy(on_home(T(i, j+1)))", pdo(PDODir{Loops: ns("i", "j"),
			Strategy: &Strategy{Kind: OnHome, Template: np("T"), Subs: []*Expr{e("i"), e("j+1")}}})},
		{"pdo loops(i) strategy(block)", pdo(strat(Strategy{Kind: LoopLevel, Formats: []Format{{Kind: Block}}}))},
		{"pdo loops(i) strategy(cyclic)", pdo(strat(Strategy{Kind: LoopLevel, Formats: []Format{{Kind: Cyclic}}}))},
		{"pdo loops(i) strategy(cyclic(k))", pdo(strat(Strategy{Kind: LoopLevel, Formats: []Format{{Kind: Cyclic, Arg: e("k")}}}))},
		{"pdo loops(i) strategy(dynamic)", pdo(strat(Strategy{Kind: Dynamic}))},
		{"pdo loops(i) strategy(dynamic(4))", pdo(strat(Strategy{Kind: Dynamic, Chunk: e("4")}))},
		{"pdo loops(i) strategy(guided)", pdo(strat(Strategy{Kind: Guided}))},
		{"pdo loops(i) strategy(guided(k))", pdo(strat(Strategy{Kind: Guided, Chunk: e("k")}))},
		{"pdo loops(i) strategy(affinity)", pdo(strat(Strategy{Kind: Affinity}))},
		{"pdo loops(i) reduction(+: s) reduction(*: p) reduction(MIN: lo) reduction(max: hi)", pdo(PDODir{Loops: ns("i"), Reductions: []Reduction{
			{Op: Add, Vars: ns("s")}, {Op: Mul, Vars: ns("p")}, {Op: Min, Vars: ns("lo")}, {Op: Max, Vars: ns("hi")}}})},
		{"pdo loops(i) reduction(&: a; |: o; ^: x; &&: all; ||: any)", pdo(PDODir{Loops: ns("i"), Reductions: []Reduction{
			{Op: And, Vars: ns("a")}, {Op: Or, Vars: ns("o")}, {Op: Xor, Vars: ns("x")}, {Op: LogAnd, Vars: ns("all")}, {Op: LogOr, Vars: ns("any")}}})},

		// sections
		{"psection", &Directive{Kind: PSection}},
		{"section", &Directive{Kind: Section, Section: &SectionDir{}}},
		{"section processors(Q)", &Directive{Kind: Section, Section: &SectionDir{Processors: np("Q")}}},

		// synchronisation
		{"barrier", &Directive{Kind: Barrier}},
		{"barrier_checkin", &Directive{Kind: BarrierCheckin}},
		{"Barrier_CheckOut", &Directive{Kind: BarrierCheckout}},
		{"critical", &Directive{Kind: Critical}},
		{"critical upd", &Directive{Kind: Critical, Name: np("upd")}},
		{"lock(a, b[i])", &Directive{Kind: Lock, Lock: &LockDir{[]*Expr{e("a"), e("b[i]")}}}},
		{`lock(m[",)"], x[f(1, ')')])`, &Directive{Kind: Lock, Lock: &LockDir{[]*Expr{e(`m[",)"]`), e(`x[f(1, ')')]`)}}}},
		{"atomic", &Directive{Kind: Atomic}},

		// modes, tracing
		{"replicated", &Directive{Kind: Replicated}},
		{"exclusive", &Directive{Kind: Exclusive}},
		{"trace_region solve", &Directive{Kind: TraceRegion, Name: np("solve")}},
		{"end replicated", &Directive{Kind: End, End: &EndDir{What: Replicated}}},
		{"end exclusive", &Directive{Kind: End, End: &EndDir{What: Exclusive}}},
		{"end critical", &Directive{Kind: End, End: &EndDir{What: Critical}}},
		{"end critical upd", &Directive{Kind: End, End: &EndDir{What: Critical, Name: np("upd")}}},
		{"end trace_region", &Directive{Kind: End, End: &EndDir{What: TraceRegion}}},
		{"END TRACE_REGION solve", &Directive{Kind: End, End: &EndDir{What: TraceRegion, Name: np("solve")}}},

		// SVM support
		{"shared a, b", &Directive{Kind: Shared, Shared: &SharedDir{ns("a", "b")}}},
		{"coherence(write_update) :: a, b", &Directive{Kind: Coherence, Coherence: &CoherenceDir{n("write_update"), ns("a", "b")}}},
		{"prefetch a[lo:hi]", &Directive{Kind: Prefetch, Prefetch: &PrefetchDir{[]*Expr{e("a[lo:hi]")}}}},
		{`prefetch a[lo:hi], s[","], /* c */ b`, &Directive{Kind: Prefetch, Prefetch: &PrefetchDir{[]*Expr{e("a[lo:hi]"), e(`s[","]`), e("/* c */ b")}}}},

		// blanks after the prefix, remarks
		{" barrier", &Directive{Kind: Barrier}},
		{"barrier // wait for the halo", &Directive{Kind: Barrier}},
		{"lock(a) // b, c", &Directive{Kind: Lock, Lock: &LockDir{[]*Expr{e("a")}}}},
	}
	for _, tt := range tests {
		text := "//svm:" + tt.in
		got, errs := Parse(text, pos0)
		if len(errs) > 0 {
			t.Errorf("Parse(%q): unexpected errors:\n%v", text, errs)
			continue
		}
		tt.want.Text = text
		if diff := cmp.Diff(tt.want, got, cmpOpts); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", text, diff)
		}
	}
}

// TestPositions checks the positions of every part of a few directives.
func TestPositions(t *testing.T) {
	// at is the position of the i'th byte (1-based) of the text.
	at := func(i int) Pos { p := pos0; p.Column, p.Offset = pos0.Column+i-1, i-1; return p }
	//                    1         2         3         4         5         6         7
	//           1234567890123456789012345678901234567890123456789012345678901234567890123
	text := /* */ "//svm:pdo loops(i, j) strategy(on_home(T(i,j+1))) reduction(max: m)"
	got, errs := Parse(text, pos0)
	if errs != nil {
		t.Fatal(errs)
	}
	want := &Directive{Kind: PDO, Pos: pos0, Text: text, PDO: &PDODir{
		Loops: []Name{{"i", at(17)}, {"j", at(20)}},
		Strategy: &Strategy{Kind: OnHome, Pos: at(32), Template: &Name{"T", at(40)},
			Subs: []*Expr{{Text: "i", Pos: at(42)}, {Text: "j+1", Pos: at(44)}}},
		Reductions: []Reduction{{Op: Max, OpPos: at(61), Vars: []Name{{"m", at(66)}}}},
	}}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Expr{}, "X")); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	// From Parse, expression trees have positions 1 + offset in the text.
	if x := got.PDO.Strategy.Subs[1].X.(*ast.BinaryExpr); x.Pos() != 44 || x.Y.Pos() != 46 {
		t.Errorf("j+1: X at %d, Y at %d; want 44, 46", x.Pos(), x.Y.Pos())
	}

	text = "//svm:template T(:, :)"
	got, _ = Parse(text, pos0)
	wantT := &TemplateDir{Name: Name{"T", at(16)}, Dims: []Dim{{Colon: true, Pos: at(18)}, {Colon: true, Pos: at(21)}}, Creatable: true}
	if diff := cmp.Diff(wantT, got.Template); diff != "" {
		t.Errorf("template mismatch (-want +got):\n%s", diff)
	}

	text = "//svm:distribute (block, cyclic(2)) onto P :: T1"
	got, _ = Parse(text, pos0)
	wantD := &DistributeDir{Formats: []Format{{Kind: Block, Pos: at(19)}, {Kind: Cyclic, Pos: at(26), Arg: &Expr{Text: "2", Pos: at(33)}}},
		Onto: &Name{"P", at(42)}, Templates: []Name{{"T1", at(47)}}}
	if diff := cmp.Diff(wantD, got.Distribute, cmpopts.IgnoreFields(Expr{}, "X")); diff != "" {
		t.Errorf("distribute mismatch (-want +got):\n%s", diff)
	}

	text = "//svm:end critical c"
	got, _ = Parse(text, pos0)
	if diff := cmp.Diff(&EndDir{What: Critical, WhatPos: at(11), Name: &Name{"c", at(20)}}, got.End); diff != "" {
		t.Errorf("end mismatch (-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		in   string // the comment text at f.go:12:2
		want string // the errors, one per line
	}{
		// not a directive, keyword
		{"// svm:barrier", `f.go:12:2: not a directive: a directive begins with "//svm:"`},
		{"//svm:", `f.go:12:8: expected directive keyword, found end of directive`},
		{"//svm:(x)", `f.go:12:8: expected directive keyword, found "("`},
		{"//svm:foo", `f.go:12:8: unknown directive "foo"`},
		{"//svm:barier", `f.go:12:8: unknown directive "barier"; did you mean "barrier"?`},
		{"//svm:Tempalte T(2)", `f.go:12:8: unknown directive "Tempalte"; did you mean "template"?`},
		{"//svm:trace_regoin r", `f.go:12:8: unknown directive "trace_regoin"; did you mean "trace_region"?`},
		// trailing garbage
		{"//svm:barrier now", `f.go:12:16: barrier: expected end of directive, found "now"`},
		{"//svm:shared g.Data", `f.go:12:15: shared: shared names variables, not fields or elements (g.Data): take the slice into a variable (data := g.Data; for an array field data := g.Data[:], since data := g.Data would copy the array) and share that; the storage is shared whatever name reaches it, so the code may go on using g.Data (` + "`_ = data`" + ` keeps Go from calling data unused)`},
		{"//svm:shared a, b[1:], c", `f.go:12:18: shared: shared names variables, not fields or elements (b[1:]): take the slice into a variable (data := b[1:]) and share that; the storage is shared whatever name reaches it, so the code may go on using b[1:] (` + "`_ = data`" + ` keeps Go from calling data unused)`},
		{"//svm:end replicated r", `f.go:12:23: end: expected end of directive, found "r"`},
		{"//svm:critical a b", `f.go:12:19: critical: expected end of directive, found "b"`},
		{"//svm:critical name(tally)", `f.go:12:21: critical: expected end of directive: a critical section takes its name alone, with no clause (//svm:critical acc); "name" was taken as the name, found "("`},
		{"//svm:critical(acc)", `f.go:12:16: critical: expected a name or end of directive: a critical section's name follows the keyword without parentheses (//svm:critical acc, where OpenMP writes critical(acc)), found "("`},
		// names and punctuation
		{"//svm:processors (2)", `f.go:12:19: processors: expected arrangement name, found "("`},
		{"//svm:processors P", `f.go:12:20: processors: expected "(", found end of directive`},
		{"//svm:processors P(2 2)", `f.go:12:23: processors: expected end of expression, found 2`},
		{"//svm:processors P(2; 2)", `f.go:12:22: processors: expected end of expression, found ';'`},
		{"//svm:destroy", `f.go:12:15: destroy: expected template name, found end of directive`},
		{"//svm:trace_region 1", `f.go:12:21: trace_region: expected region name, found "1"`},
		{"//svm:shared a, b,", `f.go:12:20: shared: expected variable name, found end of directive`},
		{"//svm:shared", `f.go:12:14: shared: name the variables whose storage it shares, declared before the directive: data := make([]float64, n) and then //svm:shared data`},
		{"//svm:coherence(wu) a", `f.go:12:22: coherence: expected "::", found "a"`},
		// dimensions
		{"//svm:processors P()", `f.go:12:21: processors: expected dimension, found ")"`},
		{"//svm:processors P(0:)", `f.go:12:23: processors: expected upper bound, found ")"`},
		{"//svm:processors P(:, 2)", `f.go:12:21: processors: ':' (creatable dimension) is allowed only in a template`},
		{"//svm:create T(m, :)", `f.go:12:20: create: ':' (creatable dimension) is allowed only in a template`},
		{"//svm:template T(:, n)", `f.go:12:22: template: cannot mix ':' and extents: a creatable template has ':' in every dimension`},
		// Go expressions
		{"//svm:processors P(2+)", `f.go:12:23: processors: expected operand, found end of expression`},
		{"//svm:lock(a[i), b", "f.go:12:16: lock: expected ']', found end of expression\n" +
			`f.go:12:17: lock: expected end of directive, found ","`},
		{`//svm:lock("x)`, "f.go:12:13: lock: string literal not terminated\n" +
			`f.go:12:16: lock: expected "," or ")", found end of directive`},
		{"//svm:lock()", `f.go:12:13: lock: expected lock variable, found ")"`},
		{"//svm:lock(a,)", `f.go:12:15: lock: expected lock variable, found ")"`},
		{"//svm:prefetch", `f.go:12:16: prefetch: expected reference, found end of directive`},
		{"//svm:prefetch a[i:]]", `f.go:12:22: prefetch: expected end of directive, found "]"`},
		// distribute
		{"//svm:distribute", `f.go:12:18: distribute: expected "(" or template name, found end of directive`},
		{"//svm:distribute (blok) :: T", `f.go:12:20: distribute: unknown format "blok"; did you mean "block"?`},
		{"//svm:distribute (block) T", `f.go:12:27: distribute: expected "onto" or "::", found "T"`},
		{"//svm:distribute (block) onto P T", `f.go:12:34: distribute: expected "::", found "T"`},
		{"//svm:distribute (general_block) :: T", `f.go:12:33: distribute: expected "(" after general_block, found ")"`},
		{"//svm:distribute (indirect()) :: T", `f.go:12:29: distribute: expected owner map, found ")"`},
		{"//svm:distribute (block cyclic) :: T", `f.go:12:26: distribute: expected "," or ")", found "cyclic"`},
		{"//svm:distribute T3", `f.go:12:21: distribute: expected "," or "with", found end of directive`},
		{"//svm:distribute (+) :: T", `f.go:12:20: distribute: expected distribution format (block, cyclic, general_block, indirect or *), found "+"`},
		// pdo
		{"//svm:pdo loops()", `f.go:12:18: pdo: expected loop variable name in loops(...), found ")"`},
		{"//svm:pdo loops(i j)", `f.go:12:20: pdo: expected "," or ")", found "j"`},
		{"//svm:pdo loops(i) loops(j)", `f.go:12:21: pdo: duplicate loops clause`},
		{"//svm:pdo loops(i) strategie(block)", `f.go:12:21: pdo: unknown clause "strategie"; did you mean "strategy"?`},
		// OpenMP's words get svmc's way of saying them.
		{"//svm:pdo loops(i) schedule(dynamic, 4)", `f.go:12:21: pdo: unknown clause "schedule"; svmc writes OpenMP's schedule(kind, k) as strategy(kind(k)): strategy(dynamic(4)), strategy(guided(2)), strategy(cyclic(2))`},
		{"//svm:pdo dynamic(2)", `f.go:12:12: pdo: unknown clause "dynamic"; a schedule is the strategy clause's: strategy(dynamic(k)) or strategy(dynamic)`},
		{"//svm:pdo loops(i) Block", `f.go:12:21: pdo: unknown clause "Block"; a schedule is the strategy clause's: strategy(block)`},
		{"//svm:pdo loops(i) static", `f.go:12:21: pdo: unknown clause "static"; OpenMP's static schedule is strategy(block), static with a chunk k strategy(cyclic(k))`},
		{"//svm:pdo loops(i) private(t)", `f.go:12:21: pdo: unknown clause "private"; variables declared inside the loop body are private to each iteration; declare them there`},
		{"//svm:pdo loops(i) collapse(2)", `f.go:12:21: pdo: unknown clause "collapse"; loops(i, j) names every loop of the nest the pdo distributes`},
		{"//svm:pdo loops(i) on T(i) reduction(+: s)", `f.go:12:21: pdo: unknown clause "on"; HPF's ON HOME(T(i)) and DVM's ON T(i) are written strategy(on_home(T(i))): iteration i runs on the processor that owns T(i)`},
		{"//svm:distribute T(block, *) onto P", `f.go:12:20: distribute: expected "," or "with", found "("; DVM's DISTRIBUTE T(BLOCK) ONTO P is written distribute (block) onto P :: T`},
		{"//svm:align B(i) with T(i)", `f.go:12:8: unknown directive "align"; svmc has no align directive: a template distributed with another follows its distribution (//svm:distribute T2 with T1), and strategy(on_home(T(i))) runs a loop's iterations where T's elements are`},
		{"//svm:end do", `f.go:12:12: end: unknown construct "do"; a pdo is the loop that follows it and ends with that loop: delete this line`},
		{"//svm:shadow xs(1:1)", `f.go:12:8: unknown directive "shadow"; svmc needs no shadow edges (DVM's SHADOW, ACROSS): the processors share memory, so a pdo body reads its neighbours' elements as they are; with --mpi, //svm:shared variables travel between ranks by pages`},
		{"//svm:pdo loops(i) new(t)", `f.go:12:21: pdo: unknown clause "new"; DVM's NEW(v): variables declared inside the loop body are private to each iteration; declare them there`},
		{"//svm:single", `f.go:12:8: unknown directive "single"; OpenMP's single is //svm:exclusive (the leader runs the block)`},
		{"//svm:pdo loops(i) (block)", `f.go:12:21: pdo: expected clause (label, loops, processors, strategy, reduction, template), found "("`},
		{"//svm:pdo loops(i) loops", `f.go:12:21: pdo: duplicate loops clause` + "\n" +
			`f.go:12:26: pdo: expected "(" after loops, found end of directive`},
		{"//svm:pdo loops(i),", `f.go:12:21: pdo: expected clause (label, loops, processors, strategy, reduction, template), found end of directive`},
		{"//svm:pdo loops(i) strategy(blok)", `f.go:12:30: pdo: unknown strategy "blok"; did you mean "block"?`},
		{"//svm:pdo loops(i) strategy()", `f.go:12:30: pdo: expected strategy (on_home, block, cyclic, dynamic, guided, affinity), found ")"`},
		{"//svm:pdo loops(i) strategy(block, indirect(m))", `f.go:12:37: pdo: unknown format "indirect"`},
		{"//svm:pdo loops(i) strategy(block, cyclic)", `f.go:12:30: pdo: strategy has 2 loop formats for a nest of 1: one format per loop at most, outermost first`},
		{"//svm:pdo loops(i) strategy(dynamic, 4)", `f.go:12:37: pdo: expected ")", found ","`},
		{"//svm:pdo loops(i) strategy(on_home(T))", `f.go:12:39: pdo: expected "(" and template subscripts, found ")"`},
		{"//svm:pdo loops(i) reduction(-: s)", `f.go:12:31: pdo: expected reduction operator (+ * min max & | ^ && ||), found "-"`},
		{"//svm:pdo loops(i) reduction(+: s, st.total)", `f.go:12:37: pdo: st.total is a field, not a variable: a reduction variable is a variable of the function; reduce into a local one and store it after the loop (total := st.total before it, reduction(+: total), st.total = total after it)`},
		{"//svm:pdo loops(i) reduction(max: m[k])", `f.go:12:36: pdo: m[k] is an element, not a variable: a reduction variable is a variable of the function; reduce into a local one and store it after the loop (mPart := m[k] before it, reduction(max: mPart), m[k] = mPart after it)`},
		{"//svm:pdo loops(i) reduction(+ s)", `f.go:12:33: pdo: expected ":" after reduction operator, found "s"`},
		{"//svm:pdo loops(i) reduction(+: s, t max: m)", `f.go:12:39: pdo: expected ",", ";" or ")", found "max"`},
		{"//svm:pdo loops(i) label(1)", `f.go:12:27: pdo: expected label name, found "1"`},
		// one error per bad clause; the good clauses are still parsed
		{"//svm:pdo loops(i j) strat(block) reduction(+ s) processors(P) strategy(dynamic(4+))",
			`f.go:12:20: pdo: expected "," or ")", found "j"` + "\n" +
				`f.go:12:23: pdo: unknown clause "strat"` + "\n" +
				`f.go:12:48: pdo: expected ":" after reduction operator, found "s"` + "\n" +
				`f.go:12:84: pdo: expected operand, found end of expression`},
		// section
		{"//svm:section processors P", `f.go:12:27: section: expected "(" after processors, found "P"`},
		{"//svm:section P", `f.go:12:16: section: expected end of directive, found "P"`},
		// end
		{"//svm:end", `f.go:12:11: end: expected construct to end (critical, replicated, exclusive, trace_region), found end of directive`},
		{"//svm:end pdo", `f.go:12:12: end: pdo cannot be closed by end (only critical, replicated, exclusive, trace_region can); a pdo is the loop that follows it and ends with that loop: delete this line`},
		{"//svm:end critcal", `f.go:12:12: end: unknown construct "critcal"; did you mean "critical"?`},
	}
	for _, tt := range tests {
		d, errs := Parse(tt.in, pos0)
		if got := errs.Error(); got != tt.want {
			t.Errorf("Parse(%q) errors:\n%s\nwant:\n%s", tt.in, got, tt.want)
		}
		if d != nil && !d.Bad {
			t.Errorf("Parse(%q): directive not marked Bad", tt.in)
		}
	}
}

const fileSrc = `package p

/* //svm:barrier in a block comment is not a directive */

func f(a []float64, n int) {
	//svm:processors P(2, 2)
	//svm:template T(n, n+1)
	// svm:barrier with a blank is an ordinary comment
	//svm:pdo loops(i) strategy(blok)
	for i := range n {
		a[i] = 0 //svm:atomic
	}
	//svm:lock(a[n+])
	//svm:frobnicate
	//SVM:barrier
	//svm:barrier
}
`

func TestParseFile(t *testing.T) {
	fset := token.NewFileSet()
	fset.AddFile("other.go", -1, 100) // so that the file's base is not 1
	f, err := goparser.ParseFile(fset, "f.go", fileSrc, goparser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	ds, errs := ParseFile(fset, f)
	wantErrs := `f.go:9:30: pdo: unknown strategy "blok"; did you mean "block"?
f.go:13:17: lock: expected operand, found ']'
f.go:14:8: unknown directive "frobnicate"`
	if got := errs.Error(); got != wantErrs {
		t.Errorf("errors:\n%s\nwant:\n%s", got, wantErrs)
	}
	if errs.Err() == nil {
		t.Error("Err() == nil")
	}

	var kinds []string
	var lines []int
	for _, d := range ds {
		kinds = append(kinds, d.Kind.String())
		lines = append(lines, d.Pos.Line)
	}
	if diff := cmp.Diff([]string{"processors", "template", "pdo", "atomic", "lock", "barrier"}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{6, 7, 9, 11, 13, 16}, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if d := ds[3]; d.Pos.Column != 12 || d.Text != "//svm:atomic" {
		t.Errorf("atomic at %v %q", d.Pos, d.Text)
	}
	if !ds[2].Bad || !ds[4].Bad || ds[0].Bad {
		t.Errorf("Bad: pdo %v, lock %v, processors %v", ds[2].Bad, ds[4].Bad, ds[0].Bad)
	}

	// Expression trees have positions in fset, in f.go.
	hi := ds[1].Template.Dims[1].Size
	if got := fset.Position(hi.X.Pos()); got != hi.Pos {
		t.Errorf("X of %q at %v, want %v", hi.Text, got, hi.Pos)
	}
	y := hi.X.(*ast.BinaryExpr).Y
	if got, want := fset.Position(y.Pos()).String(), "f.go:7:24"; got != want {
		t.Errorf("1 of n+1 at %s, want %s", got, want)
	}
}

func TestTable(t *testing.T) {
	if len(Table) != int(numKinds) {
		t.Fatalf("Table has %d rows for %d kinds", len(Table), numKinds)
	}
	var endable, loops []string
	for i, in := range Table {
		if in.Kind != Kind(i) || Lookup(Kind(i)) != &Table[i] || in.Kind.String() != in.Keyword {
			t.Errorf("row %d: %+v", i, in)
		}
		if in.Keyword != strings.ToLower(in.Keyword) {
			t.Errorf("keyword %q not lower case", in.Keyword)
		}
		if in.EndForm {
			endable = append(endable, in.Keyword)
			if !in.OpensConstruct {
				t.Errorf("%s: EndForm without OpensConstruct", in.Keyword)
			}
		}
		if in.NeedsLoop {
			loops = append(loops, in.Keyword)
		}
	}
	if diff := cmp.Diff([]string{"critical", "replicated", "exclusive", "trace_region"}, endable); diff != "" {
		t.Errorf("EndForm (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pdo"}, loops); diff != "" {
		t.Errorf("NeedsLoop (-want +got):\n%s", diff)
	}
	if got := Kind(99).String(); got != "Kind(99)" {
		t.Errorf("Kind(99).String() = %q", got)
	}
	if got := Lookup(-1); got.Kind != -1 || got.Keyword != "" || got.Region != NoRegion {
		t.Errorf("Lookup(-1) = %+v", got)
	}
}

// TestRegistry checks that every row of the construct registry is complete:
// an argument parser, a site kind the tools know, a region type of the
// catalogue and records of the catalogue. The compiler and codegen check
// their own handlers (TestHandlers in each).
func TestRegistry(t *testing.T) {
	for _, in := range Table {
		if parsers[in.Kind] == nil {
			t.Errorf("%s: no argument parser in directives.parsers (noArgs for a directive without arguments)", in.Keyword)
		}
		if !slices.Contains(progdb.Sites, in.Site) {
			t.Errorf("%s: site kind %q is not one of progdb.Sites %v", in.Keyword, in.Site, progdb.Sites)
		}
		if in.Region != NoRegion && trace.RegionTypeName(in.Region) == "unknown" {
			t.Errorf("%s: region type %d is not in the trace catalogue", in.Keyword, in.Region)
		}
		if in.Region == trace.RegionProgram {
			t.Errorf("%s: Region is 0, the program's region type: set the type of the region the construct opens, or NoRegion", in.Keyword)
		}
		if in.ImplicitBarrier && (in.Region == NoRegion || !slices.Contains(in.Records, trace.TagWaitBarrierStop)) {
			t.Errorf("%s: an implicit barrier ends a region and writes wait-barrier records", in.Keyword)
		}
		for _, tag := range in.Records {
			if trace.Lookup(tag) == nil {
				t.Errorf("%s: record #%d is not in the trace catalogue", in.Keyword, tag)
			}
		}
		if in.Exclusive && !in.InParallelBody {
			t.Errorf("%s: a construct that excludes others is meant for parallel bodies", in.Keyword)
		}
	}
}

func TestErrorList(t *testing.T) {
	l := ErrorList{
		{Pos{Filename: "b.go", Line: 1, Column: 1}, "b"},
		{Pos{Filename: "a.go", Line: 2, Column: 5}, "a2"},
		{Pos{Filename: "a.go", Line: 2, Column: 3}, "a1"},
		{Pos{Filename: "a.go", Line: 2, Column: 3}, "a1 again"},
	}
	l.Sort()
	want := "a.go:2:3: a1\na.go:2:3: a1 again\na.go:2:5: a2\nb.go:1:1: b"
	if got := l.Error(); got != want {
		t.Errorf("sorted:\n%s\nwant:\n%s", got, want)
	}
	if (ErrorList{}).Err() != nil || ErrorList(nil).Err() != nil {
		t.Error("empty list: Err() != nil")
	}
}

func TestIsDirective(t *testing.T) {
	for text, want := range map[string]bool{
		"//svm:pdo": true, "//svm:": true, "// svm:pdo": false, "//SVM:pdo": false,
		"/* //svm:pdo */": false, "/*svm:pdo*/": false, "//svmpdo": false,
	} {
		if got := IsDirective(text); got != want {
			t.Errorf("IsDirective(%q) = %v", text, got)
		}
	}
}

func TestSuggest(t *testing.T) {
	all := keywords(func(Info) bool { return true })
	for word, want := range map[string]string{
		"barier": "barrier", "PDOO": "pdo", "pd": "pdo", "critcal": "critical",
		"barrier_chekin": "barrier_checkin", "foo": "", "x": "", "distributed": "distribute",
		"trace": "trace_region", "Region": "trace_region", "checkout": "barrier_checkout", "barrier": "",
	} {
		got := suggest(word, all)
		if want != "" {
			want = `; did you mean "` + want + `"?`
		}
		if got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}
