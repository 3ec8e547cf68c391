package compiler

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Program is a package main and the packages of its module it imports
// (directly or not) that hold directives: svmc instruments them together,
// numbering the subprograms and message call sites of the program once
// (the main package first, then the libraries by import path) in one
// program information file.
type Program struct {
	Main *Package
	Libs []*Package
	// NoTimers: no package of the program makes a timer (timers.go), so
	// that a goroutine blocked on a channel can only be woken by another
	// goroutine. False when unknown.
	NoTimers bool
}

// Packages lists the main package and the libraries.
func (pr *Program) Packages() []*Package { return append([]*Package{pr.Main}, pr.Libs...) }

// CompileProgram compiles the package main of cfg and the libraries of its
// module that it imports and that hold //svm: directives. A library's
// files are named in the program information by their path from the main
// package's directory ("../lib/lib.go"). The error is the diagnostics of
// every package.
func CompileProgram(cfg Config) (*Program, error) {
	// The go list of main's imports runs beside main's own loading and
	// checking, and the libraries' loading (about 0.2 s of a go command
	// each) starts as soon as it ends, two at a time, beside main's passes
	// and each other; only their passes, which number what they hold, run
	// in order.
	type loaded struct {
		p   *Package
		err error
	}
	type listed struct {
		dirs     []libDir
		loads    []chan loaded
		noTimers bool
		files    map[string][]string // moduleFiles
		err      error
	}
	imports := make(chan listed, 1)
	go func() {
		pkgs, err := listImports(cfg)
		if err != nil {
			imports <- listed{err: err}
			return
		}
		if mods := foreignModules(pkgs); len(mods) > 0 {
			imports <- listed{err: &ForeignModules{Mods: mods}}
			return
		}
		l := listed{dirs: libraries(pkgs), noTimers: noTimers(pkgs), files: moduleFiles(pkgs)}
		sem := make(chan struct{}, 2)
		for _, dir := range l.dirs {
			ch := make(chan loaded, 1)
			l.loads = append(l.loads, ch)
			go func() {
				sem <- struct{}{}
				p, err := load(libConfig(cfg, dir))
				<-sem
				ch <- loaded{p, err}
			}()
		}
		imports <- l
	}()
	main, err := Compile(cfg)
	// A main package with errors of its own does not hide those of the
	// packages it imports: they are checked too and reported in the same
	// run (their numbers do not matter then).
	var diags Diagnostics
	if err != nil && (main == nil || !errors.As(err, &diags)) {
		return &Program{Main: main}, err
	}
	l := <-imports
	if l.err != nil {
		if fm := (*ForeignModules)(nil); errors.As(l.err, &fm) {
			return &Program{Main: main}, l.err // compiled again with the copies
		}
		if len(diags) > 0 {
			return &Program{Main: main}, diags
		}
		return &Program{Main: main}, l.err
	}
	pr := &Program{Main: main, NoTimers: l.noTimers}
	subs, calls, accs, mutexes := len(main.Subs), len(callsOf(main)), len(accessesOf(main)), len(mutexesOf(main))
	for i, lib := range l.dirs {
		dir := lib.dir
		rel, err := filepath.Rel(main.Dir, originalFile(cfg.Copies, dir))
		if err != nil {
			rel = dir
		}
		lc := libConfig(cfg, lib)
		lc.SubBase, lc.CallBase, lc.AccessBase, lc.MutexBase, lc.FilePrefix = subs, calls, accs, mutexes, filepath.ToSlash(rel)+"/"
		lc.MainDir, lc.Outside = main.Dir, []string{}
		for d, files := range l.files {
			if d != dir {
				lc.Outside = append(lc.Outside, files...)
			}
		}
		sort.Strings(lc.Outside)
		ld := <-l.loads[i]
		lib, err := compileLoaded(lc, ld.p, ld.err)
		if lib != nil {
			diags = append(diags, lib.Diags...)
		}
		var ds Diagnostics
		if err != nil && !errors.As(err, &ds) {
			return pr, err
		}
		if lib == nil {
			continue
		}
		pr.Libs = append(pr.Libs, lib)
		subs += len(lib.Subs)
		calls += len(callsOf(lib))
		accs += len(accessesOf(lib))
		mutexes += len(mutexesOf(lib))
	}
	if len(diags.Errors()) > 0 {
		return pr, diags
	}
	pr.merge()
	return pr, nil
}

// libConfig is the configuration of a library of the program of cfg, in
// directory dir.
func libConfig(cfg Config, lib libDir) Config {
	lc := cfg
	lc.Dir, lc.Pattern, lc.Library, lc.Tests, lc.ExitsOnly = lib.dir, ".", true, false, lib.exitsOnly
	if lib.path != "" {
		lc.Dir, lc.Pattern = cfg.Dir, lib.path
	}
	return lc
}

func callsOf(p *Package) []*MsgCall {
	c, _ := ResultOf[[]*MsgCall](p, CallsPass)
	return c
}

func mutexesOf(p *Package) []*MutexSite {
	m, _ := ResultOf[[]*MutexSite](p, MutexesPass)
	return m
}

func accessesOf(p *Package) []*Access {
	a, _ := ResultOf[[]*Access](p, AccessesPass)
	return a
}

// merge makes the main package's program information the program's.
func (pr *Program) merge() {
	prog := pr.Main.Prog
	for _, lib := range pr.Libs {
		if lib.Prog == nil {
			continue
		}
		prog.Files = append(prog.Files, lib.Prog.Files...)
		prog.Subprograms = append(prog.Subprograms, lib.Prog.Subprograms...)
		prog.Calls = append(prog.Calls, lib.Prog.Calls...)
		prog.MutexSites = append(prog.MutexSites, lib.Prog.MutexSites...)
		prog.Accesses = append(prog.Accesses, lib.Prog.Accesses...)
		prog.Segments = append(prog.Segments, lib.Prog.Segments...)
	}
}

// listImports lists the package of cfg with everything it imports, with
// their files and modules (no types).
func listImports(cfg Config) ([]*packages.Package, error) {
	lc := &packages.Config{
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule,
		Dir:        cfg.Dir,
		BuildFlags: cfg.BuildFlags,
		Env:        envWith(cfg.Env),
	}
	pkgs, err := packages.Load(lc, pattern(cfg))
	if err != nil {
		return nil, fmt.Errorf("loading the packages %s imports: %v", shownPattern(cfg), err)
	}
	return pkgs, nil
}

// runtimeModule is the module of the runtime (and of svmc).
var runtimeModule = strings.TrimSuffix(RuntimePath, "/rtlib")

// ownSource reports whether module m is the user's own source, which svmc
// compiles with the program: a main module (main's, or another of its
// workspace), or one that main's go.mod replaces by a directory (replace
// example.com/lib => ../lib: a replacement without a version), except
// svmc's own module (the runtime is reached so).
func ownSource(m *packages.Module) bool {
	if m == nil {
		return false
	}
	if m.Main {
		return true
	}
	return m.Replace != nil && m.Replace.Version == "" && m.Path != runtimeModule
}

// ForeignModules is CompileProgram's error when main imports packages that
// hold //svm: directives (or call the runtime's API) from modules the go
// command reads from its module cache: a library published with
// directives and required by version. svmc compiles a library's files
// through a build overlay, which the go command refuses for files of the
// module cache, so the caller replaces each module by a copy of it
// (replace path version => copy, in the go.mod it builds with) and
// compiles again: the copy is then the user's own source (ownSource).
type ForeignModules struct{ Mods []ForeignModule }

// ForeignModule is a module of ForeignModules: its path and version, the
// directory of its files in the module cache, and one of its directives
// (file:line) for messages.
type ForeignModule struct{ Path, Version, Dir, Where string }

func (e *ForeignModules) Error() string {
	var b strings.Builder
	for i, m := range e.Mods {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s@%s holds //svm: directives (%s) but is read from the module cache, where svmc cannot compile it", m.Path, m.Version, m.Where)
	}
	return b.String()
}

// foreignModules are the modules of ForeignModules among pkgs (listImports:
// main and everything it imports): modules that are not the user's own
// source nor the standard library's, with a package main imports whose
// files hold a //svm: directive or that imports the runtime. Most files
// are read only as far as a quick search for "//svm:" in their bytes.
func foreignModules(pkgs []*packages.Package) []ForeignModule {
	found := map[string]ForeignModule{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		m := p.Module
		if m == nil || ownSource(m) || vendored(p) || m.Dir == "" || m.Path == runtimeModule {
			return
		}
		if _, ok := found[m.Path]; ok {
			return
		}
		if where, ok := svmcWork(p); ok {
			found[m.Path] = ForeignModule{Path: m.Path, Version: m.Version, Dir: m.Dir, Where: where.String()}
		}
	})
	var mods []ForeignModule
	for _, m := range found {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods
}

// libraries are the directories of the packages of the user's own modules
// (ownSource) and of its vendor directory (vendored) that main imports
// (pkgs: listImports, main alone at the top) and whose files hold a //svm:
// directive or that import the runtime, sorted by import path.
func libraries(pkgs []*packages.Package) []libDir {
	found := map[string]libDir{} // by import path
	eachLibrary(pkgs, func(p *packages.Package, _ token.Position) {
		d := libDir{dir: filepath.Dir(p.GoFiles[0])}
		if vendored(p) {
			d.path = p.PkgPath
		}
		found[p.PkgPath] = d
	})
	eachExitLibrary(pkgs, func(p *packages.Package) {
		if _, ok := found[p.PkgPath]; !ok {
			found[p.PkgPath] = libDir{dir: filepath.Dir(p.GoFiles[0]), exitsOnly: true}
		}
	})
	var dirs []libDir
	for _, path := range slices.Sorted(maps.Keys(found)) {
		dirs = append(dirs, found[path])
	}
	return dirs
}

// eachLibrary calls f for each package of the user's modules (or vendored)
// that main (pkgs[0]) imports and that gives svmc work, with where
// (svmcWork).
func eachLibrary(pkgs []*packages.Package, f func(p *packages.Package, work token.Position)) {
	if len(pkgs) != 1 {
		return
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p == pkgs[0] || !ownSource(p.Module) && !vendored(p) && !gopathPackage(p) ||
			p.PkgPath == RuntimePath || strings.HasPrefix(p.PkgPath, RuntimePath+"/") {
			return
		}
		if work, ok := svmcWork(p); ok {
			f(p, work)
		}
	})
}

// eachExitLibrary calls f for each package of the user's modules that
// main imports, holds no directive and may end the process, parse flags or
// register signals (exitWork): an os.Exit or log.Fatal there ended the
// run with its trace cut off, a signal.NotifyContext there left SIGINT to
// the runtime, which stopped the run (x647: status 130 where the program's
// graceful shutdown exits 0). Packages with cgo are left as they are.
func eachExitLibrary(pkgs []*packages.Package, f func(p *packages.Package)) {
	if len(pkgs) != 1 {
		return
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p == pkgs[0] || !ownSource(p.Module) && !gopathPackage(p) || len(p.GoFiles) == 0 ||
			p.Module != nil && p.Module.Path == runtimeModule { // svmc's own packages, which the runtime imports
			return
		}
		if _, ok := svmcWork(p); !ok && exitWork(p) {
			f(p)
		}
	})
}

// exitCalls are the texts of the calls exitWork looks for, a byte search
// before any parsing: codegen rewrites what is really one of them (its
// exitFuncs, found by type), and the rest costs a package's compilation.
var exitCalls = [][]byte{[]byte("Exit("), []byte("Fatal"), []byte("flag."), []byte("signal.")}

// exitWork reports whether one of p's files may call what codegen's
// exitFuncs rewrite, and none uses cgo.
func exitWork(p *packages.Package) bool {
	found := false
	for _, f := range p.GoFiles {
		data, err := os.ReadFile(f)
		if err != nil || bytes.Contains(data, []byte(`import "C"`)) {
			return false
		}
		for _, c := range exitCalls {
			found = found || bytes.Contains(data, c)
		}
	}
	return found
}

// Libraries are the libraries CompileProgram compiles with the package
// main of cfg, by import path, each with where it gives svmc work (its
// first directive, the file named from the working directory when below
// it): svmc compile, which writes the main package alone, says that their
// directives run serially in its output's build.
func Libraries(cfg Config) (map[string]token.Position, error) {
	pkgs, err := listImports(cfg)
	if err != nil {
		return nil, err
	}
	found := map[string]token.Position{}
	eachLibrary(pkgs, func(p *packages.Package, work token.Position) { found[p.PkgPath] = displayPos(work) })
	return found, nil
}

// svmcWork is where package p gives svmc something to compile: the first
// //svm: line of its files, or its first file when it calls the runtime's
// API without a directive (rtlib.Send: its message calls get numbers,
// which tie records and svmc check's diagnostics to their lines; line 1,
// no column); false for neither. Files without "//svm:" are read no
// further than a byte search.
func svmcWork(p *packages.Package) (token.Position, bool) {
	for _, f := range p.GoFiles {
		if data, err := os.ReadFile(f); err == nil {
			if line, col := directivePos(data); line > 0 {
				return token.Position{Filename: f, Line: line, Column: col}, true
			}
		}
	}
	if p.Imports[RuntimePath] != nil && len(p.GoFiles) > 0 {
		return token.Position{Filename: p.GoFiles[0], Line: 1}, true
	}
	return token.Position{}, false
}

// libDir is a library of the program: its directory, and its import path
// when it is vendored (a package of a vendor directory is loaded by its
// path from main's directory: the go command takes no directory there).
type libDir struct {
	dir, path string
	exitsOnly bool // compiled for its exits alone (eachExitLibrary)
}

// vendored reports whether p is read from a vendor directory (go mod
// vendor): its files are the user's copy, which a build overlay may
// replace, and it is compiled as the user's own libraries are.
func vendored(p *packages.Package) bool {
	if p.Module == nil || p.Module.Main || len(p.GoFiles) == 0 {
		return false
	}
	return strings.HasSuffix(filepath.ToSlash(filepath.Dir(p.GoFiles[0])), "/vendor/"+p.PkgPath)
}

// gopathPackage reports whether p is a package of a GOPATH workspace (a
// program in no module builds in GOPATH mode, and its libraries there are
// the user's own): no module, and not the standard library's.
func gopathPackage(p *packages.Package) bool {
	if p.Module != nil || len(p.GoFiles) == 0 {
		return false
	}
	return !strings.HasPrefix(p.GoFiles[0], filepath.Join(build.Default.GOROOT, "src")+string(filepath.Separator))
}

// moduleFiles are the Go files of the packages of the user's own modules
// (ownSource) that main imports, main's own included (pkgs: listImports), by directory:
// the places other than a library that may set its exported fields.
func moduleFiles(pkgs []*packages.Package) map[string][]string {
	files := map[string][]string{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if !ownSource(p.Module) || len(p.GoFiles) == 0 {
			return
		}
		dir := filepath.Dir(p.GoFiles[0])
		files[dir] = append(files[dir], p.GoFiles...)
	})
	return files
}

// directivePos is the line and column of the first line of src that
// starts with //svm:, 0 and 0 for none.
func directivePos(src []byte) (line, col int) {
	if !bytes.Contains(src, []byte("//svm:")) {
		return 0, 0
	}
	for i, l := range bytes.Split(src, []byte("\n")) {
		if t := bytes.TrimLeft(l, " \t"); bytes.HasPrefix(t, []byte("//svm:")) {
			return i + 1, len(l) - len(t) + 1
		}
	}
	return 0, 0
}

func pattern(cfg Config) string {
	if cfg.Pattern == "" {
		return "."
	}
	return cfg.Pattern
}
