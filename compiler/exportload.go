package compiler

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"strings"
	"sync"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// loadFromImports loads the package of pattern as go/packages does with
// NeedSyntax and NeedTypes, without compiling it first. go/packages asks
// go list -export for the export data of the imports, and go list then
// compiles the listed package too, whose export data nobody reads: one
// whole compile of the user's package before svmc's own (0.16 s of svmc's
// 0.35 s on a program of 240 pdos). Here the package is listed without
// export data, its imports with it, and its files are parsed and checked
// here. ok is false where this does not apply (tests, cgo, a package the
// go command reports errors for, an import without export data): load
// then lets go/packages do all of it, with the messages it gives.
//
// The package is listed without its compiled files (go list -compiled),
// which cost the go command 0.07 s of its 0.12 s even for a package
// without cgo: a Go package's compiled files are its Go files, and a
// file that imports "C" (or a SWIG file) sends it to go/packages.
func loadFromImports(lc *packages.Config, pattern string) (lp *packages.Package, ok bool) {
	list := *lc
	list.Mode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedModule
	pkgs, err := packages.Load(&list, pattern)
	if err != nil || len(pkgs) != 1 {
		return nil, false
	}
	lp = pkgs[0]
	if len(lp.Errors) > 0 || len(lp.GoFiles) == 0 || swig(lp) {
		return nil, false
	}
	lp.CompiledGoFiles = lp.GoFiles
	var ids []string
	for _, ip := range lp.Imports {
		if ip.ID != "unsafe" && ip.ID != "C" {
			ids = append(ids, ip.ID)
		}
	}
	export := map[string]*packages.Package{} // by ID
	if len(ids) > 0 {
		deps := *lc
		deps.Mode = packages.NeedName | packages.NeedExportFile
		dps, err := packages.Load(&deps, ids...)
		if err != nil {
			return nil, false
		}
		for _, d := range dps {
			if len(d.Errors) > 0 || d.ExportFile == "" {
				return nil, false
			}
			export[d.ID] = d
		}
	}
	fset := lc.Fset
	lp.Syntax = make([]*ast.File, len(lp.CompiledGoFiles))
	errs := make([]error, len(lp.CompiledGoFiles))
	var wg sync.WaitGroup
	for i, name := range lp.CompiledGoFiles {
		wg.Go(func() {
			lp.Syntax[i], errs[i] = parser.ParseFile(fset, name, nil, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if importsC(lp.Syntax[i]) {
			return nil, false
		}
		addError(lp, fset, err)
	}
	lp.TypesInfo = newTypesInfo()
	read := map[string]*types.Package{} // by package path, shared by the imports
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			ip := lp.Imports[path]
			if ip == nil || export[ip.ID] == nil {
				return nil, &os.PathError{Op: "import", Path: path, Err: os.ErrNotExist}
			}
			d := export[ip.ID]
			if p := read[d.PkgPath]; p != nil && p.Complete() {
				return p, nil
			}
			f, err := os.Open(d.ExportFile)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			r, err := gcexportdata.NewReader(f)
			if err != nil {
				return nil, err
			}
			return gcexportdata.Read(r, fset, read, d.PkgPath)
		}),
		Error: func(err error) { addError(lp, fset, err) },
		Sizes: types.SizesFor("gc", goarch(lc.Env)),
	}
	if lp.Module != nil && lp.Module.GoVersion != "" {
		conf.GoVersion = "go" + lp.Module.GoVersion
	}
	var files []*ast.File
	for _, f := range lp.Syntax {
		if f != nil {
			files = append(files, f)
		}
	}
	lp.Types = types.NewPackage(lp.PkgPath, lp.Name)
	_ = types.NewChecker(&conf, fset, lp.Types, lp.TypesInfo).Files(files)
	lp.Syntax = files
	lp.Fset = fset
	return lp, true
}

// swig reports whether lp has SWIG files, which the go command turns into
// Go files of its own.
func swig(lp *packages.Package) bool {
	for _, f := range lp.OtherFiles {
		if strings.HasSuffix(f, ".swig") || strings.HasSuffix(f, ".swigcxx") {
			return true
		}
	}
	return false
}

// importsC reports whether f uses cgo.
func importsC(f *ast.File) bool {
	if f == nil {
		return false
	}
	for _, is := range f.Imports {
		if is.Path.Value == `"C"` {
			return true
		}
	}
	return false
}

// addError records a parse or type error as go/packages does.
func addError(lp *packages.Package, fset *token.FileSet, err error) {
	switch err := err.(type) {
	case nil:
	case scanner.ErrorList:
		for _, e := range err {
			lp.Errors = append(lp.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
		}
	case types.Error:
		lp.Errors = append(lp.Errors, packages.Error{Pos: fset.Position(err.Pos).String(), Msg: err.Msg, Kind: packages.TypeError})
	default:
		lp.Errors = append(lp.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
	}
}

// goarch is the target architecture of a build with env: the sizes of
// types depend on it (unsafe.Sizeof is a constant).
func goarch(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "GOARCH="); ok && v != "" {
			return v
		}
	}
	return build.Default.GOARCH // $GOARCH, else the toolchain's
}

// newTypesInfo is a types.Info that records everything the passes read,
// as go/packages' NeedTypesInfo does.
func newTypesInfo() *types.Info {
	return &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Instances:    map[*ast.Ident]types.Instance{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		Scopes:       map[ast.Node]*types.Scope{},
		FileVersions: map[*ast.File]string{},
	}
}
