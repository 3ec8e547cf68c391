package compiler

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// testVariant picks, of the packages go/packages gives with Tests, the
// package compiled with its own _test.go files ("p [p.test]"), or the
// package itself when it has none; xtests are the files of its external
// test package (p_test), if any.
func testVariant(pkgs []*packages.Package) (pick []*packages.Package, xtests []string) {
	var plain, withTests *packages.Package
	for _, p := range pkgs {
		switch {
		case strings.HasSuffix(p.ID, ".test]") && !strings.HasSuffix(p.PkgPath, "_test"):
			withTests = p
		case strings.HasSuffix(p.ID, ".test]") && strings.HasSuffix(p.PkgPath, "_test"):
			xtests = p.GoFiles
		case p.ID == p.PkgPath && !strings.HasSuffix(p.ID, ".test"): // not the generated test main
			plain = p
		}
	}
	if withTests != nil {
		return []*packages.Package{withTests}, xtests
	}
	if plain != nil {
		return []*packages.Package{plain}, xtests
	}
	return pkgs, xtests
}

func load(cfg Config) (*Package, error) {
	pattern := cfg.Pattern
	if pattern == "" {
		pattern = "."
	}
	fset := token.NewFileSet()
	lc := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule | packages.NeedImports,
		Dir:        cfg.Dir,
		BuildFlags: cfg.BuildFlags,
		Env:        envWith(cfg.Env),
		Fset:       fset,
		Tests:      cfg.Tests,
	}
	var pkgs []*packages.Package
	if !cfg.Tests {
		if lp, ok := loadFromImports(lc, pattern); ok {
			pkgs = []*packages.Package{lp}
		}
	}
	if pkgs == nil {
		var err error
		if pkgs, err = packages.Load(lc, pattern); err != nil {
			return nil, fmt.Errorf("loading %s: %v", shownPattern(cfg), err)
		}
	}
	var xtests []string
	if cfg.Tests {
		pkgs, xtests = testVariant(pkgs)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%s names %d packages; svmc compiles one package main at a time", shownPattern(cfg), len(pkgs))
	}
	lp := pkgs[0]
	if usesCgo(lp) && len(lp.Errors) == 0 {
		// go/packages type-checks the files cgo generated, whose text is
		// not the user's: svmc rewrites the user's files, so it checks
		// those, with C's names left unchecked, as cmd/vet does.
		if err := typecheckCgo(fset, lp); err != nil {
			return nil, err
		}
	}
	p := &Package{Fset: fset, ImportPath: lp.PkgPath, Module: lp.Module, Types: lp.Types, Info: lp.TypesInfo, XTests: xtests}
	// Errors of the Go code itself come first: svmc instruments only
	// programs that compile as plain Go.
	var diags Diagnostics
	p.typeErrorsOnly = lp.Types != nil && lp.TypesInfo != nil
	for _, e := range goErrors(lp.Errors) {
		if e.Kind != packages.TypeError {
			p.typeErrorsOnly = false
		}
		e.Msg = runtimeHint(lp, importError(lp, e.Msg))
		d := goError(e)
		if k := len(diags) - 1; k >= 0 && strings.HasPrefix(d.Msg, "\t") {
			// A continuation ("\tother declaration of main") stays
			// under its error, as go build prints it: sorted by its own
			// position it landed among another file's errors.
			diags[k].Msg += "\n\t" + d.Pos.String() + ": " + strings.TrimPrefix(d.Msg, "\t")
			continue
		}
		diags = append(diags, d)
	}
	if len(diags) > 0 {
		if len(lp.GoFiles) == 0 && len(lp.CompiledGoFiles) == 0 {
			return nil, errors.New(diags.Error())
		}
		p.Diags = diags
		// The files are kept, so that Compile can still report the
		// directives' syntax errors in the same run.
		if err := p.addFiles(lp.Syntax); err != nil {
			return nil, err
		}
		return p, diags
	}
	if lp.Name != "main" && !cfg.Library && !cfg.Tests { // a library's tests are a program
		return nil, fmt.Errorf("%s is package %s; svmc compiles programs (package main): a program that imports it compiles it with its own code, and svmc vet %s checks its directives", shownPattern(cfg), lp.Name, shownPattern(cfg))
	}
	if len(lp.Syntax) == 0 {
		return nil, fmt.Errorf("%s: no Go files", shownPattern(cfg))
	}
	if err := p.addFiles(lp.Syntax); err != nil {
		return nil, err
	}
	return p, nil
}

// addFiles fills Files, sorted by name, and Dir.
func (p *Package) addFiles(syntax []*ast.File) error {
	for _, syn := range syntax {
		tok := p.Fset.File(syn.Pos())
		if tok == nil {
			continue
		}
		src, err := os.ReadFile(tok.Name())
		if err != nil {
			return err
		}
		p.Files = append(p.Files, &File{Name: filepath.Base(tok.Name()), Path: tok.Name(), Syntax: syn, Src: src, Tok: tok})
	}
	sort.Slice(p.Files, func(i, j int) bool { return p.Files[i].Name < p.Files[j].Name })
	if len(p.Files) > 0 {
		p.Dir = filepath.Dir(p.Files[0].Path)
	}
	return nil
}

// goErrors drops the go list errors when the package has parse or type
// errors: dependencies come from export data (go list -export, much faster
// than type-checking them from source), and compiling the package for it
// repeats its compile errors as one list error.
func goErrors(errs []packages.Error) []packages.Error {
	var own []packages.Error
	seen := map[packages.Error]bool{} // go/packages may report a parse error twice
	for _, e := range errs {
		if e.Kind != packages.ListError && !seen[e] {
			own = append(own, e)
			seen[e] = true
		}
	}
	if len(own) > 0 {
		return withoutFollowOns(own)
	}
	return errs
}

// withoutFollowOns drops, when the package has syntax errors, its type
// errors and the syntax errors after the first on a line, as go build
// reports it: go/parser goes on after an error with guesses (x495's "x := "
// before a "}": "expected operand", then twice "expected ';', found
// 'EOF'"), and types checked from a broken file say little ("declared and
// not used: x", or a name its lost declaration held, in another file).
func withoutFollowOns(errs []packages.Error) []packages.Error {
	line := func(e packages.Error) string {
		parts := strings.SplitN(e.Pos, ":", 3)
		if len(parts) < 2 {
			return e.Pos
		}
		return parts[0] + ":" + parts[1]
	}
	if !slices.ContainsFunc(errs, func(e packages.Error) bool { return e.Kind == packages.ParseError }) {
		return errs
	}
	var out []packages.Error
	lines := map[string]bool{}
	for _, e := range errs {
		switch {
		case e.Kind == packages.TypeError:
		case e.Kind == packages.ParseError && lines[line(e)]:
		default:
			if e.Kind == packages.ParseError {
				lines[line(e)] = true
			}
			out = append(out, e)
		}
	}
	return out
}

// importError replaces the type checker's "could not import X (invalid
// package name: \"\")" by what the go command said of X ("module lookup
// disabled by GOPROXY=off", a missing go.sum entry): the checker only saw
// that X did not load. A module that vendors its dependencies is told
// that svmc reads them from the module cache (x247: an offline machine
// whose program builds from vendor/ with go build).
func importError(lp *packages.Package, msg string) string {
	rest, ok := strings.CutPrefix(msg, "could not import ")
	if !ok {
		return msg
	}
	path, _, _ := strings.Cut(rest, " ")
	ip := lp.Imports[path]
	if ip == nil || len(ip.Errors) == 0 {
		return msg
	}
	if strings.Contains(ip.Errors[0].Msg, "(from $GOPATH)") && lp.Module == nil {
		// A program in no module, built in GOPATH mode (svmc run
		// main.go in a scratch directory): the GOPATH is svmc's.
		return fmt.Sprintf("could not import %s: a program in no Go module imports the standard library and GOPATH's packages only; run 'go mod init' in its directory, then go get %s", path, path)
	}
	msg = "could not import " + path + ": " + ip.Errors[0].Msg
	if lp.Module != nil && lp.Module.Dir != "" {
		if _, err := os.Stat(filepath.Join(lp.Module.Dir, "vendor", "modules.txt")); err == nil {
			msg += " (the module has a vendor directory, which this build does not read: GOFLAGS asks for another -mod, or the module's go version is older than 1.14; go mod download fills the module cache once, with access to a module proxy)"
		}
	}
	return msg
}

// goError turns a go/packages error into a diagnostic with its position.
func goError(e packages.Error) Diagnostic {
	pos := token.Position{}
	if e.Pos != "" && e.Pos != "-" {
		// "file:line:col" or "file:line"
		parts := strings.Split(e.Pos, ":")
		pos.Filename = parts[0]
		if len(parts) > 1 {
			fmt.Sscan(parts[1], &pos.Line)
		}
		if len(parts) > 2 {
			fmt.Sscan(parts[2], &pos.Column)
		}
	}
	return Diagnostic{Pos: displayPos(pos), Msg: e.Msg}
}

// displayPos shortens an absolute file name to one relative to the working
// directory when the file lies below it.
func displayPos(pos token.Position) token.Position {
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(pos.Filename) {
		if rel, err := filepath.Rel(wd, pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
			pos.Filename = rel
		}
	}
	return pos
}

// usesCgo reports whether the package's compiled files are not its Go
// files (cgo rewrote them).
func usesCgo(lp *packages.Package) bool {
	return len(lp.CompiledGoFiles) > 0 && !slices.Equal(lp.CompiledGoFiles, lp.GoFiles)
}

// typecheckCgo replaces lp's syntax and types by those of its own Go files,
// type-checked with import "C" faked (go/types' FakeImportC): calls into C
// are not checked, everything else is. Imports come from the export data
// go/packages loaded.
func typecheckCgo(fset *token.FileSet, lp *packages.Package) error {
	var files []*ast.File
	for _, name := range lp.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	info := newTypesInfo()
	conf := types.Config{
		FakeImportC: true,
		GoVersion:   lp.TypesInfo.FileVersions[lp.Syntax[0]],
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if ip := lp.Imports[path]; ip != nil && ip.Types != nil {
				return ip.Types, nil
			}
			return nil, fmt.Errorf("%s is not imported by %s", path, lp.PkgPath)
		}),
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				lp.Errors = append(lp.Errors, packages.Error{Pos: fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
			}
		},
	}
	pkg, _ := conf.Check(lp.PkgPath, fset, files, info)
	lp.Syntax, lp.TypesInfo, lp.Types = files, info, pkg
	return nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// envWith is the process's environment with env added (nil: the process's).
func envWith(env []string) []string {
	if len(env) == 0 {
		return nil
	}
	return append(os.Environ(), env...)
}

// shownPattern is the package pattern of cfg as the user named it: "." in
// the package's directory is that directory, relative to the current one
// where it lies below it (./mp).
func shownPattern(cfg Config) string {
	if cfg.Pattern != "" && cfg.Pattern != "." || cfg.Dir == "" {
		return pattern(cfg)
	}
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return cfg.Dir
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
			if rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
	}
	return abs
}
