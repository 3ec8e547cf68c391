// Package compiler turns a Go package with //svm: directives into the checked,
// numbered program model that codegen rewrites and progdb records: it loads
// the package with types, attaches directives to statements, resolves names,
// checks the structure of constructs, numbers subprograms, directives,
// regions and shared variables, and classifies the variables of parallel
// bodies. Each step is a small pass over the Package value (see Compile).
package compiler

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/svmc/svmc/directives"
	"github.com/svmc/svmc/progdb"
)

// RuntimePath is the import path of the runtime the generated code calls.
const RuntimePath = "github.com/svmc/svmc/rtlib"

// Reserved is the identifier prefix svmc uses in generated code.
const Reserved = "svm_"

// RuntimeImport is the name generated code imports the runtime by.
const RuntimeImport = Reserved + "rt"

// Diagnostic is an error or warning tied to a source position.
type Diagnostic struct {
	Pos     token.Position
	Msg     string
	Warning bool
	At      token.Pos // Pos in the file set (token.NoPos for errors of the Go code itself)
	// Suppressed is the reason of the //svm:ignore that suppresses this
	// warning ("" if none): it is listed, not counted.
	Suppressed string
}

func (d Diagnostic) String() string {
	if d.Suppressed != "" {
		return fmt.Sprintf("%s: suppressed (%s): %s", d.Pos, d.Suppressed, d.Msg)
	}
	if d.Warning {
		return fmt.Sprintf("%s: warning: %s", d.Pos, d.Msg)
	}
	return fmt.Sprintf("%s: %s", d.Pos, d.Msg)
}

// Diagnostics is a list of diagnostics; as an error it prints one per line.
type Diagnostics []Diagnostic

func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Errors returns the diagnostics that are not warnings.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if !d.Warning {
			out = append(out, d)
		}
	}
	return out
}

// Package is a loaded and compiled package.
type Package struct {
	Fset       *token.FileSet
	Types      *types.Package
	Info       *types.Info
	Dir        string
	ImportPath string
	Module     *packages.Module
	Files      []*File // sorted by name
	Subs       []*Sub  // Subs[i].Num == SubBase+i+1
	Prog       *progdb.Program
	Diags      Diagnostics // all diagnostics, sorted by position
	// XTests are the files of the package's external tests (package
	// p_test), when it is compiled with its tests: svmc does not compile
	// them, but their tests run on processor 0 as the package's own do.
	XTests []string

	funcs   map[*types.Func]*Sub
	results map[*Pass]any
	// initLits counts the init functions' literals numbered as
	// subprograms (initLiterals).
	initLits int
	cfg      Config
	// sharedMemo is sharedStorage's result once sharedDone (the shared
	// directives are attached by then: the passes that ask run after).
	sharedMemo map[types.Object]*SharedVar
	sharedDone bool
	// ssaPkg is the package in SSA form, built on demand (ssa.go).
	ssaPkg  *ssa.Package
	ssaDone bool
	// allGuards are the critical sections, locks and atomic updates of
	// every subprogram (guardedAt), listed on demand.
	allGuards  []guard
	guardsDone bool
	// aliasesOf are the aliases of each function body with pdos, found
	// once (aliases.go).
	aliasesOf map[*ast.BlockStmt]map[types.Object]alias
	// mutexSpans are the statements run holding a sync mutex (mutexes.go),
	// found on demand.
	mutexSpans  []span
	mutexesDone bool
	wrappers    map[string]wrapper // the lock wrappers among the methods (lockWrapper)
	// typeErrorsOnly: the package's Go errors, if any, are all type
	// errors (its syntax is whole, its types partly known).
	typeErrorsOnly bool
	// outside are Config.Outside parsed, on demand (outside.go).
	outside     []outsideFile
	outsideFset *token.FileSet
	// synthetic are the expressions substLocals made, with no source
	// text of their own.
	synthetic map[ast.Node]bool
	// pureFuncs are the package's functions of one return statement of
	// their parameters (pureFunc), found on demand.
	pureFuncs map[*types.Func]*pureFn
	// fieldVars stand for the storage field paths reach (fieldPathStorage).
	fieldVars map[fieldKey]types.Object
}

// File is one Go file of the package.
type File struct {
	Name   string // base name
	Rel    string // as the program information names it: Name, or a library's path from the main package
	Path   string // absolute path
	Syntax *ast.File
	Src    []byte
	Tok    *token.File
	Dirs   []*Dir // the file's directives in source order
	// Dropped are the positions of directives the parse pass dropped for
	// their errors: the functions holding them are not checked further.
	Dropped []token.Pos
}

// Dir is a parsed directive with its comment.
type Dir struct {
	*directives.Directive
	Comment *ast.Comment
	File    *File
}

// Sub is a subprogram: a function or method declared in the package, or
// a package-level variable's function literal that holds directives.
type Sub struct {
	Num  int
	Name string
	Decl *ast.FuncDecl
	// Lit: the subprogram is a function literal of a package-level
	// variable's initialiser (var handlers = map[string]func(){...}) that
	// holds directives; Decl is made for it (its Type and Body, a Name
	// that no identifier of the package has), Obj is nil.
	Lit *ast.FuncLit
	// Instr is the instrumented function's name: svm_F, or for a function
	// whose svm_F is a name generated code gives its own variables (func p
	// and svm_p, the processor) svm_F_fn (svm_F_fn_2 where the package
	// has an F_fn).
	Instr      string
	Obj        *types.Func
	File       *File
	Main       bool
	Constructs []*Construct // one per directive, in textual order (Num = index+1)
	Regions    []*Region    // Regions[0] is the subprogram itself
	Shared     []*SharedVar
	// Plain: left as written, not instrumented (InlinePass).
	Plain bool
	// broken: a directive of the function was dropped for its errors, so
	// its constructs are not checked (their pairing and nesting would
	// report what the dropped directive caused, not what is wrong).
	broken bool
	// atInit: Lit is called where it stands, while the package's
	// variables are initialised (var squares = func() []int {...}()).
	atInit bool
}

// Construct is a directive attached to its place in a statement list.
type Construct struct {
	Num   int
	Dir   *Dir
	Sub   *Sub
	List  []ast.Stmt // the statement list the directive stands in
	Index int        // index in List of the first statement after the directive
	// ListPos identifies the list: the position of its opening brace or
	// case colon.
	ListPos token.Pos
	// Stmt is the statement a construct applies to (next-statement form).
	Stmt ast.Stmt
	// End is the matching //svm:end of an end-form construct; Body are the
	// statements between them.
	End    *Construct
	Body   []ast.Stmt
	Opener *Construct // for an end directive: the construct it closes
	Region *Region
	PDO    *PDO
	// Sections are the section constructs of a psection, in order; Owner is
	// a section's psection.
	Sections []*Construct
	Owner    *Construct
	// Declares is true when a processors/template directive declares a new
	// Go variable (no variable of that name is in scope).
	Declares bool
	// RefTypes are the types of a prefetch directive's references, and
	// Vars the variables a coherence directive names (nil where one is
	// not a variable).
	RefTypes []types.Type
	Vars     []*types.Var
}

// Kind is the directive kind.
func (c *Construct) Kind() directives.Kind { return c.Dir.Kind }

// Pos is the position of the directive.
func (c *Construct) Pos() token.Pos { return c.Dir.Comment.Slash }

// Region is a trace region of a subprogram.
type Region struct {
	Num       int
	Type      int // trace.Region* code
	Label     string
	Parent    *Region
	Construct *Construct // nil for the subprogram region
	Start     token.Pos
	End       token.Pos
}

// SharedVar is a variable named in a shared directive.
type SharedVar struct {
	Num       int
	Name      string
	Obj       *types.Var
	Construct *Construct
}

// Config says what to compile.
type Config struct {
	Dir     string // directory the pattern is relative to ("" = current)
	Pattern string // package pattern; must name exactly one package
	// BuildFlags are passed to the go command that loads the package, e.g.
	// a -modfile that makes the runtime importable in a module that does
	// not require svmc.
	BuildFlags []string
	// Env is added to the environment of that go command (GOWORK for a
	// workspace that reaches the runtime).
	Env []string
	// Tests compiles the package with its _test.go files (svmc test): the
	// test functions are subprograms like the others.
	Tests bool
	// Library allows a package other than main: one the program imports
	// (CompileProgram), or a library compiled alone.
	Library bool
	// SubBase, CallBase and AccessBase are added to the numbers of the
	// package's subprograms, message call sites and shared accesses, and FilePrefix is put before
	// its file names in the program information, so that the packages
	// of one program number and name theirs apart (CompileProgram).
	SubBase, CallBase, AccessBase, MutexBase int
	FilePrefix                               string
	// InstrumentAll instruments the subprograms the Go compiler would
	// inline too (InlinePass leaves them as written otherwise).
	InstrumentAll bool
	// ExitsOnly: a library of the user's module without directives that
	// ends the process, parses flags or registers signals (exitWork):
	// compiled so that those calls go through the runtime, its functions
	// left as written and not numbered (SubprogramsPass).
	ExitsOnly bool
	// Ranks: the program is built to run as the ranks of an MPI job
	// (svmc run|build --mpi); RacesPass warns where a pdo writes a
	// variable each rank keeps to itself.
	Ranks bool
	// Outside are the Go files of the program's other packages of the
	// main module (CompileProgram sets them for a library), which may set
	// the library's exported fields; nil when they are unknown (a library
	// compiled alone). MainDir is the main package's directory, from which
	// messages name them.
	Outside []string
	MainDir string
	// Copies maps the directory of a copy of a module (ForeignModules) to
	// the module cache's directory it was copied from, by which messages
	// and the program information name its files: the copy is the build's
	// and goes with it.
	Copies map[string]string
}

// Compile loads and compiles one package: it runs Passes in order. Errors a
// user can cause come back as Diagnostics; other errors (no such package)
// as plain errors.
func Compile(cfg Config) (*Package, error) {
	p, err := load(cfg)
	return compileLoaded(cfg, p, err)
}

// compileLoaded is Compile after the loading (load's results).
func compileLoaded(cfg Config, p *Package, err error) (*Package, error) {
	if p != nil {
		p.cfg = cfg
		for _, f := range p.Files {
			f.Rel = cfg.FilePrefix + f.Name
		}
	}
	if err != nil {
		// p holds the diagnostics of Go code that does not compile. The
		// directives' syntax is checked too, and where the Go errors are
		// type errors the constructs of the files that have none, so
		// that fixing the Go errors does not reveal a second round.
		if p != nil && len(p.Files) > 0 {
			if !p.typeErrorsOnly || !p.checkCleanFiles() {
				p.parseDirectives()
			}
			p.sortDiags()
			return p, p.Diags
		}
		return p, err
	}
	return p.runPasses()
}

// CompileFiles runs the passes on a package that is already parsed and
// type-checked (a go/analysis pass: go vet, gopls). The files must be on
// disk, as the directives are read from their text. Any package may be
// given; the diagnostics are p.Diags (the error, if any, lists the errors
// among them).
func CompileFiles(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info, cfg Config) (*Package, error) {
	p := &Package{Fset: fset, ImportPath: pkg.Path(), Types: pkg, Info: info, cfg: cfg}
	if err := p.addFiles(files); err != nil {
		return nil, err
	}
	for _, f := range p.Files {
		f.Rel = cfg.FilePrefix + f.Name
	}
	return p.runPasses()
}

// checkCleanFiles runs the passes that check the directives and the
// constructs (parse to structure) on a package with Go type errors (in
// p.Diags), and keeps their errors outside the functions with Go errors,
// and every directive syntax error: a function with a type error may have
// broken types the checks would misread. A type error outside any
// function (a declaration others use) rules out its whole file. It reports
// false, with p.Diags as before, if a check could not cope with the
// partial types.
func (p *Package) checkCleanFiles() (ok bool) {
	goDiags := p.Diags
	broken := p.brokenSpans(goDiags)
	defer func() {
		if recover() != nil {
			p.Diags, ok = goDiags, false
		}
	}()
	p.Diags = nil
	p.results = map[*Pass]any{}
	var syntax Diagnostics
	for _, pass := range []*Pass{ParsePass, SubprogramsPass, AttachPass, StructurePass} {
		p.results[pass] = pass.run(p)
		if pass == ParsePass {
			syntax, p.Diags = p.Diags, nil
		}
	}
	kept := append(goDiags, syntax...)
	for _, d := range p.Diags.Errors() {
		if !broken(d.Pos) {
			kept = append(kept, d)
		}
	}
	p.Diags = kept
	return true
}

// brokenSpans reports whether a position lies in a function with one of
// the Go errors goDiags (from the func keyword to the closing brace, in
// lines), or in a file with one outside its functions.
func (p *Package) brokenSpans(goDiags Diagnostics) func(token.Position) bool {
	type span struct{ from, to int }
	funcs := map[string][]span{} // by file name (base: go/packages and the file set may differ in form)
	for _, f := range p.Files {
		for _, d := range f.Syntax.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs[f.Name] = append(funcs[f.Name], span{p.Fset.Position(fd.Pos()).Line, p.Fset.Position(fd.End()).Line})
			}
		}
	}
	wholeFile := map[string]bool{}
	spans := map[string][]span{}
	for _, d := range goDiags {
		name := filepath.Base(d.Pos.Filename)
		in := false
		for _, sp := range funcs[name] {
			if sp.from <= d.Pos.Line && d.Pos.Line <= sp.to {
				spans[name] = append(spans[name], sp)
				in = true
			}
		}
		if !in {
			wholeFile[name] = true
		}
	}
	return func(pos token.Position) bool {
		name := filepath.Base(pos.Filename)
		if wholeFile[name] {
			return true
		}
		for _, sp := range spans[name] {
			if sp.from <= pos.Line && pos.Line <= sp.to {
				return true
			}
		}
		return false
	}
}

// runPasses runs Passes in order.
func (p *Package) runPasses() (*Package, error) {
	p.results = map[*Pass]any{}
	failed := map[*Pass]bool{}
	for _, pass := range Passes {
		// A pass runs when every pass it requires ran without errors: its
		// results may be incomplete otherwise. Independent passes still
		// run, so that their errors are reported in the same run.
		skip := false
		for _, req := range pass.Requires {
			if _, ran := p.results[req]; !ran || failed[req] {
				skip = true
			}
		}
		if skip {
			failed[pass] = true
			continue
		}
		before := len(p.Diags.Errors())
		p.results[pass] = pass.run(p)
		failed[pass] = len(p.Diags.Errors()) > before && !pass.Confined
	}
	p.sortDiags()
	if errs := p.Diags.Errors(); len(errs) > 0 {
		return p, p.Diags
	}
	return p, nil
}

// A Pass is one step of the compiler, in the shape of go/analysis's
// Analyzer: a name, a doc, the passes whose results it needs and a typed
// result (ResultOf). Each pass lives in a file of its own, pass_<name>.go.
// A pass that reports errors stops the passes that require it, unless it
// is Confined.
type Pass struct {
	Name     string
	Doc      string
	Requires []*Pass
	// ResultType is the type of the pass's result.
	ResultType reflect.Type
	// Confined: the pass drops what its errors concern (and marks the
	// functions they are in), so the passes that require it still run on
	// the rest and report their errors in the same run.
	Confined bool
	run      func(*Package) any
}

func (ps *Pass) String() string { return ps.Name }

// newPass declares a pass whose result has type T.
func newPass[T any](name, doc string, run func(*Package) T, requires ...*Pass) *Pass {
	return &Pass{Name: name, Doc: doc, Requires: requires, ResultType: reflect.TypeFor[T](),
		run: func(p *Package) any { return run(p) }}
}

// ResultOf returns the result of pass in p, and false when the pass did
// not run (a pass it requires reported errors).
func ResultOf[T any](p *Package, pass *Pass) (T, bool) {
	r, ok := p.results[pass].(T)
	return r, ok
}

// Passes are the compiler's passes in an order that respects Requires.
var Passes = []*Pass{ParsePass, SubprogramsPass, AttachPass, StructurePass, RegionsPass, ClassifyPass, CallsPass, RacesPass, MutexesPass, AccessesPass, InlinePass, ProgDBPass}

func (p *Package) errorf(pos token.Pos, format string, args ...any) {
	p.Diags = append(p.Diags, Diagnostic{Pos: p.position(pos), Msg: fmt.Sprintf(format, args...), At: pos})
}

func (p *Package) warnf(pos token.Pos, format string, args ...any) {
	p.Diags = append(p.Diags, Diagnostic{Pos: p.position(pos), Msg: fmt.Sprintf(format, args...), Warning: true, At: pos})
}

// position is a token position with a file name relative to the current
// directory when that is shorter, as compilers print them.
func (p *Package) position(pos token.Pos) token.Position {
	at := p.Fset.Position(pos)
	at.Filename = originalFile(p.cfg.Copies, at.Filename)
	return displayPos(at)
}

// originalFile is the file of the module cache that name, in a copy of
// copies, was copied from; name itself when it is in none.
func originalFile(copies map[string]string, name string) string {
	for cp, orig := range copies {
		if rel, err := filepath.Rel(cp, name); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.Join(orig, rel)
		}
	}
	return name
}

func (p *Package) sortDiags() {
	sort.SliceStable(p.Diags, func(i, j int) bool {
		a, b := p.Diags[i].Pos, p.Diags[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Text is the source text of a node, or its printed form for an
// expression the checks made (substLocals).
func (p *Package) Text(n ast.Node) string {
	if e, ok := n.(ast.Expr); ok && len(p.synthetic) > 0 {
		made := false
		ast.Inspect(e, func(m ast.Node) bool {
			made = made || p.synthetic[m]
			return !made
		})
		if made {
			return types.ExprString(e)
		}
	}
	f := p.FileOf(n.Pos())
	return string(f.Src[f.Tok.Offset(n.Pos()):f.Tok.Offset(n.End())])
}

// FileOf returns the file holding pos.
func (p *Package) FileOf(pos token.Pos) *File {
	for _, f := range p.Files {
		if f.Tok.Base() <= int(pos) && int(pos) <= f.Tok.Base()+f.Tok.Size() {
			return f
		}
	}
	return nil
}

// SubOf returns the subprogram of a function object declared in the package.
func (p *Package) SubOf(fn *types.Func) *Sub { return p.funcs[fn] }

// ForRanks reports whether the package is built to run as the ranks of an
// MPI job (Config.Ranks).
func (p *Package) ForRanks() bool { return p.cfg.Ranks }

// Tests reports whether the package is compiled with its tests (svmc test).
func (p *Package) Tests() bool { return p.cfg.Tests }
