package codegen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/internal/entrygen"
)

// sub rewrites one subprogram. main runs inside rtlib.Main; every other
// function F becomes svm_F with the processor as first parameter, and F
// stays as a wrapper that finds the processor itself, so function values,
// method values and interfaces keep working.
func (g *gen) sub(s *compiler.Sub) {
	fd := s.Decl
	body := fd.Body
	if s.Main {
		open := fmt.Sprintf("%s.Main(&%s, func(%s *%s.Proc) {", rt, progVar, procVar, rt)
		if g.off(body.Lbrace)+1 == g.off(body.Rbrace) {
			// func main() {}: the opening and the closing share an offset.
			g.e.lines(g.off(body.Rbrace), open+"\n})", opening, g.line(body.Lbrace))
		} else {
			g.e.lines(g.off(body.Lbrace)+1, open, opening, g.line(body.Lbrace))
			g.e.lines(g.off(body.Rbrace), "})", closing, g.line(body.Rbrace))
		}
	} else if s.Lit != nil {
		g.literalSub(s)
	} else {
		sg := g.signature(s)
		var head string
		if g.pc.wrap[s] {
			head = g.wrapper(s, sg)
		}
		entry, shared := sg.entry()
		if !shared {
			head += g.tracedEntry(s, sg)
		}
		if head != "" {
			g.e.lines(g.off(fd.Pos()), head, opening, g.line(fd.Pos()))
		}
		g.e.raw(g.off(fd.Name.Pos()), g.off(fd.Name.End()), s.Instr)
		g.procParam(fd.Type, sg)
		if rl := fd.Recv; rl != nil && len(rl.List) > 0 {
			if f := rl.List[0]; len(f.Names) == 0 {
				g.e.raw(g.off(f.Type.Pos()), g.off(f.Type.Pos()), sg.recv+" ")
			} else if f.Names[0].Name == "_" {
				g.e.raw(g.off(f.Names[0].Pos()), g.off(f.Names[0].End()), sg.recv)
			}
		}
		// The body holds no defer, so that small functions stay cheap
		// (rtlib's Trace): a call that is traced takes the traced entry,
		// which opens the region and calls the body again: rtlib's
		// EntryN_M for the function's shape, or one of its own.
		g.traceGate(s, sg, entry, shared)
	}
	g.calls(s)
	for _, c := range s.Constructs {
		g.construct(c)
	}
}

// procParam makes the processor the first parameter of the function of
// type ft; the traced entry passes the parameters on: those without a name
// (func f(int) bool) or named _ get one.
func (g *gen) procParam(ft *ast.FuncType, sg *sig) {
	sep := ""
	if ft.Params.NumFields() > 0 {
		sep = ", "
	}
	g.e.raw(g.off(ft.Params.Opening)+1, g.off(ft.Params.Opening)+1, fmt.Sprintf("%s *%s.Proc%s", procVar, rt, sep))
	k := 0
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			g.e.raw(g.off(f.Type.Pos()), g.off(f.Type.Pos()), strings.TrimSuffix(sg.args[k], "...")+" ")
			k++
			continue
		}
		for _, n := range f.Names {
			if n.Name == "_" {
				g.e.raw(g.off(n.Pos()), g.off(n.End()), strings.TrimSuffix(sg.args[k], "..."))
			}
			k++
		}
	}
}

// traceGate opens the instrumented body with the test of whether this call
// is traced, which then takes the traced entry. The body holds no defer,
// so that small functions stay cheap (rtlib's Trace): a call that is
// traced takes the traced entry, which opens the region and calls the body
// again: rtlib's EntryN_M for the function's shape (shared), or one of its
// own.
func (g *gen) traceGate(s *compiler.Sub, sg *sig, entry string, shared bool) {
	name, body := s.Decl.Name.Name, s.Decl.Body
	var call string
	if shared {
		call = fmt.Sprintf("%s.%s(%s)", rt, entry, strings.Join(append([]string{procVar, strconv.Itoa(s.Num), sg.value(s.Instr)}, sg.args...), ", "))
	} else {
		call = sg.call(tracedPrefix+name, procVar)
	}
	if sg.results {
		call = "return " + call
	} else {
		call += "\nreturn"
	}
	g.e.lines(g.off(body.Lbrace)+1, fmt.Sprintf("if %s.Trace(%d) {\n%s\n}", procVar, s.Num, call), opening, g.line(body.Lbrace))
	g.e.edits[len(g.e.edits)-1].entry = s
}

// literalSub rewrites a package-level function literal with directives
// (compiler.Sub.Lit): its text moves to the end of the file as the
// instrumented function svm_NAME(svm_p, params), which it may, seeing only
// package-level names, and in its place stands a literal of the user's
// signature that calls it on the processor of the calling goroutine, as a
// named function's wrapper does.
func (g *gen) literalSub(s *compiler.Sub) {
	lit := s.Lit
	sg := g.signature(s)
	entry, shared := sg.entry()
	ret := ""
	if sg.results {
		ret = "return "
	}
	from, to := g.off(lit.Pos()), g.off(lit.End())
	mv := g.e.moveCopy(from, to)
	// In place: one line, and the text after it back at its position.
	g.e.move(from, to, fmt.Sprintf("%s { %s%s }%s", sg.head(""), ret, sg.callWith(s.Instr, "", sg.outerArgs(), rt+".Current()"), g.e.inlineResume(to)), mv)
	var head string
	if !shared {
		head = g.tracedEntry(s, sg)
	}
	g.e.add(len(g.e.src), len(g.e.src), "\n\n"+head+mv.token+"\n", following)
	g.e.raw(g.off(lit.Type.Func)+len("func"), g.off(lit.Type.Func)+len("func"), " "+s.Instr)
	g.procParam(lit.Type, sg)
	g.traceGate(s, sg, entry, shared)
	g.usesRT = true
}

// funcLits gives a function literal its own processor, that of the
// goroutine that runs it (svm_p := svm_rt.Current() first in its body),
// when it holds directives, access checks of the SVM layer or calls of
// instrumented subprograms: the literal may run on a goroutine the program
// starts, where the enclosing function's processor must not be used (two
// goroutines would drive one processor's constructs at once). Its calls
// then pass that processor, one lookup per call of the literal instead of
// one per call in it (a goroutine's loop calling a method 20 000 times).
// On a goroutine that is not a processor, Current is a detached Proc (or
// the goroutine's lane): its constructs run serially there, and say so
// once. It runs after guardGoroutines, so that in a go statement's literal
// the lookup comes after GoEnter and finds the lane.
func (g *gen) funcLits(s *compiler.Sub) {
	holds := map[*ast.FuncLit]bool{}
	for _, c := range s.Constructs {
		var inner *ast.FuncLit
		ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
			lit, ok := n.(*ast.FuncLit)
			if ok && lit.Body.Lbrace < c.Pos() && c.Pos() < lit.Body.Rbrace {
				inner = lit // Inspect goes outside in: the last one is the innermost
			}
			return n == nil || n.Pos() <= c.Pos() && c.Pos() < n.End()
		})
		if inner != nil {
			holds[inner] = true
		}
	}
	for lit, cs := range g.pc.of[s].lits {
		for _, c := range cs {
			g.passProc(c, callee(g.p, c.Fun))
		}
		holds[lit] = true
	}
	// A literal that prints: its output goes where its goroutine's
	// processor's goes (a goroutine of processor 0's copy on another rank
	// prints nowhere).
	skip := headers(s)
	ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
		if n == nil || inHeaders(skip, n) {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && (g.output(call, true) || g.testMethod(call) == "Parallel") {
			// (A test's t.Parallel rebinds the literal's processor:
			// testCall.)
			if lit := innermostLit(s.Decl.Body, call.Pos()); lit != nil {
				holds[lit] = true
			}
		}
		return true
	})
	for lit := range holds {
		g.e.lines(g.off(lit.Body.Lbrace)+1, fmt.Sprintf("%s := %s.Current()", procVar, rt), opening, g.line(lit.Body.Lbrace))
	}
	// A literal that holds access checks of the SVM layer and nothing
	// else: the same, as part of the checks (an unchecked copy of a
	// loop body leaves it out with them, and keeps the literal as the
	// user wrote it).
	accs := accessesOf(g)
	checked := map[*ast.FuncLit]bool{}
	for _, a := range accs {
		if a.Sub != s || a.File != g.f {
			continue
		}
		if lit := innermostLit(s.Decl.Body, a.Pos()); lit != nil && !holds[lit] {
			checked[lit] = true
		}
	}
	for lit := range checked {
		g.e.lines(g.off(lit.Body.Lbrace)+1, fmt.Sprintf("%s := %s.Current()", procVar, rt), opening, g.line(lit.Body.Lbrace))
		g.e.edits[len(g.e.edits)-1].check = true
	}
}

// innermostLit is the innermost function literal of body whose body holds
// pos, nil if none.
func innermostLit(body *ast.BlockStmt, pos token.Pos) *ast.FuncLit {
	var inner *ast.FuncLit
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		if lit, ok := n.(*ast.FuncLit); ok && lit.Body.Lbrace < pos && pos < lit.Body.Rbrace {
			inner = lit
		}
		return true
	})
	return inner
}

// tracedPrefix begins the name of a function's traced entry: svm_svm_F
// cannot be the instrumented form of a user's function, whose names may
// not begin with svm_.
const tracedPrefix = compiler.Reserved + compiler.Reserved

// sig is a subprogram's signature as the generated functions beside it
// write it: the receiver's and parameters' names, and the type
// parameters a call passes on.
type sig struct {
	recvDecl string   // "(svm_recv T) " or ""
	recv     string   // the receiver's name in the instrumented function, or ""
	tparams  string   // "[T any]" or ""
	tnames   []string // the type parameters' names
	params   []string // "name type"
	args     []string // the parameters' names in the instrumented function ("xs..." for a variadic one)
	results  bool
	nresults int
	variadic bool
	resText  string // " (int, error)" or ""
}

func (g *gen) signature(s *compiler.Sub) *sig {
	fd := s.Decl
	sg := &sig{}
	if rl := fd.Recv; rl != nil && len(rl.List) > 0 {
		f := rl.List[0]
		sg.recv = "svm_recv"
		if len(f.Names) > 0 && f.Names[0].Name != "_" {
			sg.recv = f.Names[0].Name
		}
		sg.recvDecl = fmt.Sprintf("(svm_recv %s) ", g.p.Text(f.Type))
	}
	if tp := fd.Type.TypeParams; tp != nil {
		sg.tparams = g.p.Text(tp)
		for _, f := range tp.List {
			for _, n := range f.Names {
				sg.tnames = append(sg.tnames, n.Name)
			}
		}
	}
	k := 0
	for _, f := range fd.Type.Params.List {
		names := f.Names
		if len(names) == 0 {
			names = []*ast.Ident{{Name: "_"}}
		}
		for _, n := range names {
			name := n.Name
			if name == "_" {
				name = fmt.Sprintf("svm_a%d", k)
			}
			k++
			sg.params = append(sg.params, fmt.Sprintf("svm_a%d %s", len(sg.params), g.p.Text(f.Type)))
			if _, ok := f.Type.(*ast.Ellipsis); ok {
				name += "..."
				sg.variadic = true
			}
			sg.args = append(sg.args, name)
		}
	}
	if fd.Type.Results != nil {
		sg.resText = " " + g.p.Text(fd.Type.Results)
		sg.nresults = fd.Type.Results.NumFields()
		sg.results = sg.nresults > 0
	}
	return sg
}

// entry is the name of rtlib's traced entry for the function's shape, and
// whether there is one (not for a variadic function or one with more
// parameters or results than entrygen writes entries for).
func (sg *sig) entry() (string, bool) {
	if sg.variadic || len(sg.args) > entrygen.MaxParams || sg.nresults > entrygen.MaxResults {
		return "", false
	}
	return entrygen.Name(len(sg.args), sg.nresults), true
}

// value is the instrumented function name as a value in its own body: a
// method value of the receiver, or the function with its type parameters.
func (sg *sig) value(name string) string {
	switch {
	case sg.recv != "":
		return sg.recv + "." + name
	case len(sg.tnames) > 0:
		return name + "[" + strings.Join(sg.tnames, ", ") + "]"
	}
	return name
}

// head is "func (svm_recv T) name[T any](params) results" with the
// parameters svm_a0, svm_a1...
func (sg *sig) head(name string, first ...string) string {
	return fmt.Sprintf("func %s%s%s(%s)%s", sg.recvDecl, name, sg.tparams, strings.Join(append(first, sg.params...), ", "), sg.resText)
}

// call is the call of the function name beside s from the instrumented
// function's body, with first before the arguments.
func (sg *sig) call(name string, first string) string {
	return sg.callWith(name, sg.recv, sg.args, first)
}

// callWith is the call with receiver recv and arguments first, args...
// (args alone when first is "").
func (sg *sig) callWith(name, recv string, args []string, first string) string {
	if recv != "" {
		name = recv + "." + name
	} else if len(sg.tnames) > 0 {
		name += "[" + strings.Join(sg.tnames, ", ") + "]"
	}
	if first != "" {
		args = append([]string{first}, args...)
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(args, ", "))
}

// outerArgs are the arguments as the wrapper and the traced entry name
// their parameters.
func (sg *sig) outerArgs() []string {
	out := make([]string, len(sg.args))
	for i, a := range sg.args {
		out[i] = fmt.Sprintf("svm_a%d", i)
		if strings.HasSuffix(a, "...") {
			out[i] += "..."
		}
	}
	return out
}

// outerRecv is the receiver's name in the wrapper and the traced entry.
func (sg *sig) outerRecv() string {
	if sg.recv == "" {
		return ""
	}
	return "svm_recv"
}

// tracedEntry is the function a traced call takes (see rtlib's Trace):
// it opens the subprogram's region and runs the body.
func (g *gen) tracedEntry(s *compiler.Sub, sg *sig) string {
	ret := ""
	if sg.results {
		ret = "return "
	}
	return fmt.Sprintf("%s {\n%s.Enter(%d)\ndefer %s.Exit(%d)\n%s%s\n}\n",
		sg.head(tracedPrefix+s.Decl.Name.Name, procVar+" *"+rt+".Proc"), procVar, s.Num, procVar, s.Num,
		ret, sg.callWith(s.Instr, sg.outerRecv(), sg.outerArgs(), procVar))
}

// pkgCalls is what the rewriting of a package's files needs to know of its
// calls beforehand, found in one walk of every subprogram.
type pkgCalls struct {
	// wrap: the subprograms that keep a function of their name and
	// signature (wrapper): methods (an interface may call them), exported
	// functions of a library, go test's entries, and the functions used
	// other than in a call that passes the processor (as values, in go
	// statements, in package-level code and in the functions left as
	// written). The others are only called from instrumented code, which
	// calls svm_F: a wrapper for each cost the Go compiler a tenth of its
	// time on a program of 240 small functions.
	wrap map[*compiler.Sub]bool
	// of: per instrumented subprogram, its calls that pass a processor
	// (procCalls).
	of map[*compiler.Sub]subCalls
}

type subCalls struct {
	body []*ast.CallExpr
	lits map[*ast.FuncLit][]*ast.CallExpr
}

func callsOf(p *compiler.Package) *pkgCalls {
	pc := &pkgCalls{wrap: map[*compiler.Sub]bool{}, of: map[*compiler.Sub]subCalls{}}
	passing := map[*ast.Ident]bool{}
	for _, s := range p.Subs {
		if s.Plain {
			continue
		}
		body, lits := procCalls(p, s)
		pc.of[s] = subCalls{body, lits}
		for _, c := range body {
			passing[callee(p, c.Fun)] = true
		}
		for _, cs := range lits {
			for _, c := range cs {
				passing[callee(p, c.Fun)] = true
			}
		}
	}
	for _, s := range p.Subs {
		if s.Main || s.Plain || s.Lit != nil {
			continue // a literal's wrapper is the literal (literalSub)
		}
		if s.Decl.Recv != nil || testEntry(s) != "" || p.Types.Name() != "main" && s.Decl.Name.IsExported() {
			pc.wrap[s] = true
		}
	}
	for id, obj := range p.Info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || passing[id] {
			continue
		}
		if s := p.SubOf(fn.Origin()); s != nil {
			pc.wrap[s] = true
		}
	}
	return pc
}

// wrapper is the function with the user's signature that calls the
// instrumented one on the processor of the calling goroutine.
func (g *gen) wrapper(s *compiler.Sub, sg *sig) string {
	fd := s.Decl
	var b strings.Builder
	b.WriteString(sg.head(fd.Name.Name))
	b.WriteString(" {\n")
	if sg.results {
		b.WriteString("return ")
	}
	callee := s.Instr
	recv, args := sg.outerRecv(), sg.outerArgs()
	switch testEntry(s) {
	case "test":
		// A test, benchmark, fuzz target or example runs on processor 0
		// of the run TestMain started, on the test's own goroutine, so
		// that its parallel constructs use every processor. An example's
		// "Output:" comment goes with it: go test finds it in the body
		// of the function it runs.
		fmt.Fprintf(&b, "%s.OnLeader(func(%s *%s.Proc) {\n%s\n})\n%s}\n", rt, procVar, rt, sg.callWith(callee, recv, args, procVar), outputComment(s))
		return b.String()
	case "main":
		// The package's TestMain runs as a program's main does.
		fmt.Fprintf(&b, "%s.Main(&%s, func(%s *%s.Proc) {\n%s\n})\n}\n", rt, progVar, procVar, rt, sg.callWith(callee, recv, args, procVar))
		return b.String()
	}
	fmt.Fprintf(&b, "%s\n}\n", sg.callWith(callee, recv, args, rt+".Current()"))
	return b.String()
}

// outputComment is the "Output:" (or "Unordered output:") comment of an
// example's body, as written, or "".
func outputComment(s *compiler.Sub) string { return outputOf(s.Decl, s.File.Syntax) }

// testEntry says what the go test command calls s as: "test" for a test,
// benchmark, fuzz target or example of a _test.go file, "main" for its
// TestMain, "" otherwise.
func testEntry(s *compiler.Sub) string { return entryKind(s.Decl, s.File.Name) }

// entryKind is testEntry for declaration fd of file name.
func entryKind(fd *ast.FuncDecl, name string) string {
	if !strings.HasSuffix(name, "_test.go") || fd.Recv != nil || fd.Type.TypeParams != nil {
		return ""
	}
	name = fd.Name.Name
	params := fd.Type.Params.List
	one := func(typ string) bool {
		return len(params) == 1 && len(params[0].Names) <= 1 && exprString(params[0].Type) == typ
	}
	switch {
	case name == "TestMain" && one("*testing.M"):
		return "main"
	case strings.HasPrefix(name, "Test") && one("*testing.T"),
		strings.HasPrefix(name, "Benchmark") && one("*testing.B"),
		strings.HasPrefix(name, "Fuzz") && one("*testing.F"),
		strings.HasPrefix(name, "Example") && len(params) == 0 && fd.Type.Results == nil:
		return "test"
	}
	return ""
}

// exprString is the source form of a type as written ("*testing.T").
func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// calls rewrites direct calls of the package's subprograms in s to pass the
// processor, and routes the user's output through it. Calls in go
// statements keep the wrapper (they run on another goroutine); calls in
// function literals pass the literal's own processor (funcLits), which
// output in them goes through too.
func (g *gen) calls(s *compiler.Sub) {
	for _, c := range g.pc.of[s].body {
		g.passProc(c, callee(g.p, c.Fun))
	}
	skip := headers(s)
	ast.Inspect(s.Decl.Body, func(n ast.Node) bool {
		if n == nil || inHeaders(skip, n) {
			return false
		}
		switch x := n.(type) {
		case *ast.ExprStmt:
			if call, ok := x.X.(*ast.CallExpr); ok && g.testMethod(call) == "Parallel" {
				// The test gives processor 0 back while it pauses, and
				// runs on what it gets when it resumes.
				sel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
				g.e.raw(g.off(call.Pos()), g.off(call.End()), fmt.Sprintf("%s = %s.TestParallel(%s, %s)", procVar, rt, procVar, g.p.Text(sel.X)))
				return false
			}
		case *ast.CallExpr:
			if m := g.testMethod(x); m == "Run" || m == "Fuzz" {
				// A subtest, and each call of a fuzz test's function,
				// borrows processor 0 from its test.
				sel := ast.Unparen(x.Fun).(*ast.SelectorExpr)
				arg := rt + ".Sub" + m + "(" + g.p.Text(sel.X)
				if len(x.Args) > 0 {
					arg += ", "
				}
				g.e.raw(g.off(x.Fun.Pos()), g.off(x.Lparen)+1, arg)
			}
			g.output(x, false)
		}
		return true
	})
}

// testMethod names the testing method call calls when it is one svm test
// rewrites — "Run" for (*testing.T).Run and (*testing.B).Run, "Fuzz" for
// (*testing.F).Fuzz, "Parallel" for (*testing.T).Parallel — on a receiver
// without calls; "" otherwise.
func (g *gen) testMethod(call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !plainReceiver(sel.X) {
		return ""
	}
	s := g.p.Info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return ""
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok {
		return ""
	}
	switch fn.FullName() {
	case "(*testing.T).Run", "(*testing.B).Run":
		return "Run"
	case "(*testing.F).Fuzz":
		return "Fuzz"
	case "(*testing.T).Parallel":
		return "Parallel"
	}
	return ""
}

// procCalls are the calls of instrumented subprograms in s that pass a
// processor: in its body those that pass s's (not in go statements or
// function literals, not in a pdo's loop header, which is copied as
// written), and per function literal those in its own body, which pass
// the literal's (funcLits).
func procCalls(p *compiler.Package, s *compiler.Sub) (body []*ast.CallExpr, lits map[*ast.FuncLit][]*ast.CallExpr) {
	skip := headers(s)
	var in func(n ast.Node, lit *ast.FuncLit)
	in = func(root ast.Node, lit *ast.FuncLit) {
		ast.Inspect(root, func(n ast.Node) bool {
			if n == nil || inHeaders(skip, n) {
				return false
			}
			switch x := n.(type) {
			case *ast.GoStmt:
				// The call itself keeps the wrapper; a literal in it
				// (go func() {...}()) finds its own processor.
				ast.Inspect(x.Call, func(m ast.Node) bool {
					if l, ok := m.(*ast.FuncLit); ok {
						in(l.Body, l)
						return false
					}
					return true
				})
				return false
			case *ast.FuncLit:
				if x.Body != root {
					in(x.Body, x)
					return false
				}
			case *ast.CallExpr:
				if callee(p, x.Fun) != nil {
					if lit == nil {
						body = append(body, x)
					} else {
						if lits == nil {
							lits = map[*ast.FuncLit][]*ast.CallExpr{}
						}
						lits[lit] = append(lits[lit], x)
					}
				}
			}
			return true
		})
	}
	in(s.Decl.Body, nil)
	return body, lits
}

func inHeaders(skip [][2]token.Pos, n ast.Node) bool {
	for _, h := range skip {
		if h[0] <= n.Pos() && n.End() <= h[1] {
			return true
		}
	}
	return false
}

// passProc makes call, which calls the instrumented subprogram id names,
// call svm_id with the processor first.
func (g *gen) passProc(call *ast.CallExpr, id *ast.Ident) {
	to := calleeSub(g.p, call.Fun)
	g.e.raw(g.off(id.Pos()), g.off(id.End()), to.Instr)
	g.e.edits[len(g.e.edits)-1].passes = to
	arg := procVar
	if len(call.Args) > 0 {
		arg += ", "
	}
	g.e.raw(g.off(call.Lparen)+1, g.off(call.Lparen)+1, arg)
	g.e.edits[len(g.e.edits)-1].passes = to
}

// callee returns the identifier naming an instrumented subprogram in a call,
// or nil.
func callee(p *compiler.Package, fun ast.Expr) *ast.Ident {
	id, _ := calleeOf(p, fun)
	return id
}

// calleeSub is the instrumented subprogram a call calls directly, or nil.
func calleeSub(p *compiler.Package, fun ast.Expr) *compiler.Sub {
	_, s := calleeOf(p, fun)
	return s
}

func calleeOf(p *compiler.Package, fun ast.Expr) (*ast.Ident, *compiler.Sub) {
	fun = ast.Unparen(fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	var id *ast.Ident
	var obj types.Object
	switch x := fun.(type) {
	case *ast.Ident:
		id, obj = x, p.Info.Uses[x]
	case *ast.SelectorExpr:
		sel := p.Info.Selections[x]
		if sel == nil || sel.Kind() != types.MethodVal {
			return nil, nil
		}
		id, obj = x.Sel, sel.Obj()
	default:
		return nil, nil
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return nil, nil
	}
	if sub := p.SubOf(fn.Origin()); sub != nil && !sub.Main && !sub.Plain {
		return id, sub
	}
	return nil, nil
}

// construct generates the code of one directive with the generator of its
// kind (constructs.go).
func (g *gen) construct(c *compiler.Construct) {
	if gen := generators[c.Kind()]; gen != nil {
		gen(g, c)
	}
}

// after puts code right after the directive, at its line.
func (g *gen) after(c *compiler.Construct, code string) {
	g.e.lines(g.off(c.Dir.Comment.End()), code, following, g.line(c.Pos()))
}

// declare assigns to an existing variable of the runtime's type or declares
// a new one, of type *rtlib.typ. call has one %s for the previous value. A
// new one is declared where the directive's statement list begins, not at
// the directive: a goto before the directive may jump to a label after it,
// but not over a declaration.
func (g *gen) declare(c *compiler.Construct, name, typ, call string) string {
	if c.Declares {
		g.e.lines(g.off(c.ListPos)+1, fmt.Sprintf("var %s *%s.%s", name, rt, typ), opening, g.line(c.ListPos))
		return fmt.Sprintf("%s = %s\n_ = %s", name, fmt.Sprintf(call, "nil"), name)
	}
	return fmt.Sprintf("%s = %s", name, fmt.Sprintf(call, name))
}

// region brackets the statements of a construct with region start and stop.
func (g *gen) region(c *compiler.Construct, typ int) {
	g.around(c,
		fmt.Sprintf("%s.RegionStart(%d, %d, %d)", procVar, c.Sub.Num, c.Num, typ),
		fmt.Sprintf("%s.RegionStop(%d, %d, %d)", procVar, c.Sub.Num, c.Num, typ))
}

func names(ns []directives.Name) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return strings.Join(out, ", ")
}

func expr(e *directives.Expr) string {
	return compiler.ExprCode(e, procVar+".NProcs()")
}

// extents is ", Extent{...}, ..." for the dimensions of a directive.
func (g *gen) extents(dims []directives.Dim) string {
	var b strings.Builder
	for _, dim := range dims {
		if dim.Size != nil {
			fmt.Fprintf(&b, ", %s.Extent{Lo: 0, Hi: (%s) - 1}", rt, expr(dim.Size))
		} else if dim.Lo != nil {
			fmt.Fprintf(&b, ", %s.Extent{Lo: %s, Hi: %s}", rt, expr(dim.Lo), expr(dim.Hi))
		}
	}
	return b.String()
}

func (g *gen) formats(fs []directives.Format) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = format1(f)
	}
	return fmt.Sprintf("[]%s.Format{%s}", rt, strings.Join(out, ", "))
}

func format1(f directives.Format) string {
	switch f.Kind {
	case directives.Block:
		return rt + ".Block()"
	case directives.Cyclic:
		if f.Arg == nil {
			return rt + ".Cyclic(1)"
		}
		return fmt.Sprintf("%s.Cyclic(%s)", rt, expr(f.Arg))
	case directives.GeneralBlock:
		return fmt.Sprintf("%s.GeneralBlock(%s)", rt, expr(f.Arg))
	case directives.Indirect:
		return fmt.Sprintf("%s.Indirect(%s)", rt, expr(f.Arg))
	}
	return rt + ".Star()"
}
