package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	goversion "go/version"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/modfile"

	"github.com/svmc/svmc"
	"github.com/svmc/svmc/codegen"
	"github.com/svmc/svmc/compiler"
	"github.com/svmc/svmc/progdb"
)

const (
	version       = "0.1.0"
	progdbVersion = progdb.Version
)

// instrumentAll is --instrument-all: instrument the subprograms the Go
// compiler would inline too (compiler.InlinePass leaves them as written).
var instrumentAll bool

// buildRanks is --mpi of run and build: the compiler warns where a pdo
// writes what each rank keeps to itself.
var buildRanks bool

// buildTags is --tags: the build tags of the go command, for the loading
// that chooses the files svmc compiles and for the build alike.
var buildTags string

// instrumentFlag adds the flags of a command that compiles: --instrument-all
// and --tags.
func instrumentFlag(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&chdirTo, "chdir", "C", "",
		"change to `DIR` before anything else, as go's -C: the package and the files named are found from there")
	cmd.Flags().BoolVar(&instrumentAll, "instrument-all", false,
		"also instrument the functions small enough for Go to inline (Less, Swap, accessors), which svmc leaves as written: their calls get regions, at their cost")
	cmd.Flags().StringVar(&buildTags, "tags", "",
		"comma-separated build tags, as go build -tags takes them: the files they choose are the ones svmc compiles and builds")
}

// chdirTo is -C of the commands that compile (go run -C DIR .): main
// changes to it once the flags are parsed (beforeCommand).
var chdirTo string

// beforeCommand is the root's PersistentPreRunE: -C's change of directory,
// then the check of an analysis command's output directory (outDirOK).
func beforeCommand(cmd *cobra.Command, _ []string) error {
	if chdirTo != "" {
		if err := os.Chdir(chdirTo); err != nil {
			return fmt.Errorf("-C %s: %v", chdirTo, errors.Unwrap(err))
		}
	}
	return outDirOK(cmd)
}

// buildLdflags is --ldflags of build and run: the linker's flags, as go
// build -ldflags takes them (-X main.version=1.2).
var buildLdflags string

func ldflagsFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&buildLdflags, "ldflags", "",
		"the linker's flags, as go build -ldflags takes them (-ldflags '-X main.version=1.2'); GOFLAGS=-ldflags=... works too")
}

// userLdflags is what the user asked the linker for: --ldflags, or else
// GOFLAGS' -ldflags, which svmc's own -ldflags on go build's command line
// would override without a word (x601: -X main.version=1.3 in GOFLAGS left
// the version "dev").
func userLdflags() string {
	if buildLdflags != "" {
		return buildLdflags
	}
	v := ""
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if name, val, ok := strings.Cut(f, "="); ok && (name == "-ldflags" || name == "--ldflags") {
			v = val // the last one counts, as for the go command
		}
	}
	return v
}

// compilePackage compiles pattern and prints diagnostics. Warnings go to
// stderr; errors end the command.
func compilePackage(pattern string, setup goSetup, stderr io.Writer) (*compiler.Package, error) {
	// A library package compiles alone too, numbered on its own (svmc run
	// and build number a program's libraries with it).
	p, err := compiler.Compile(compiler.Config{Dir: setup.dir, Pattern: ".", BuildFlags: setup.flags, Env: setup.env, Library: true, InstrumentAll: instrumentAll, Ranks: buildRanks})
	if p != nil {
		for _, d := range p.Diags {
			fmt.Fprintln(stderr, d)
		}
	}
	if err != nil {
		var ds compiler.Diagnostics
		if errors.As(err, &ds) {
			return nil, exitError{1}
		}
		return nil, err
	}
	return p, nil
}

// writeOutput writes the generated files into dir.
func writeOutput(out *codegen.Output, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range out.Names() {
		if err := os.WriteFile(filepath.Join(dir, name), out.Files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkOutDir refuses an output directory that holds the package's own
// sources: the generated files would replace them.
func checkOutDir(p *compiler.Package, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for _, f := range p.Files {
		if filepath.Dir(f.Path) == abs {
			return fmt.Errorf("compile -o %s: that is the directory of the package's own sources (%s), which the instrumented files would replace; write them to another directory, such as %s",
				dir, f.Name, filepath.Join(dir, "svm"))
		}
	}
	return nil
}

// removeStale removes the files an earlier svmc compile wrote into dir that
// this one did not write (a file deleted from the package): they would
// break the package's build. Only files svmc generated are touched.
func removeStale(out *codegen.Output, dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || out.Files[name] != nil || !strings.HasSuffix(name, ".go") {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		head := make([]byte, 200)
		n, _ := io.ReadFull(f, head)
		f.Close()
		first, _, _ := strings.Cut(string(head[:n]), "\n")
		if strings.HasPrefix(first, "// Code generated by") && strings.Contains(first, "svmc") && strings.HasSuffix(first, "DO NOT EDIT.") {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// build compiles the package at pattern into an executable in work. The
// instrumented files replace the originals through a build overlay, so the
// package builds in its own module with its own dependencies; a module other
// than svmc gets the embedded runtime through a replace in a copy of its
// go.mod (-modfile), which needs no network.
func build(pattern, work string, debug bool, stderr io.Writer, goFlags ...string) (string, error) {
	setup, err := moduleSetup(pattern, work)
	if err != nil {
		return "", err
	}
	p, ovPath, err := instrument(setup, work, false, stderr)
	if err != nil {
		return "", err
	}
	builtProg = p.Prog
	// Named as go run names it, after the package's last path element:
	// the program's usage messages print os.Args[0].
	name := path.Base(p.ImportPath)
	if isMajorVersion(name) && path.Dir(p.ImportPath) != "." {
		name = path.Base(path.Dir(p.ImportPath)) // example.com/tool/v2 is tool
	}
	if name == "." || name == "/" || name == "" {
		name = "prog"
	}
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		return "", err
	}
	exe := filepath.Join(work, "bin", name)
	flags := setup.flags
	var ldflags []string
	if u := userLdflags(); u != "" {
		ldflags = append(ldflags, u)
	}
	if !debug {
		flags = withoutDebug(flags, p.ImportPath)
		ldflags = append(ldflags, "-s", "-w")
	}
	if x := buildDirFlag(p.Dir); x != "" {
		ldflags = append(ldflags, x)
	}
	if len(ldflags) > 0 {
		flags = append([]string{"-ldflags=" + strings.Join(ldflags, " ")}, flags...)
	}
	args := append(append([]string{"build", "-o", exe, "-overlay", ovPath}, goFlags...), flags...)
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = p.Dir
	cmd.Env = append(os.Environ(), setup.env...)
	var goOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &goOut, &goOut
	if err := cmd.Run(); err != nil {
		if plain, perr := plainBuild(p.Dir); perr != nil {
			// The user's error, as go build's exit status says it.
			fmt.Fprintf(stderr, "svmc: the program does not build without svmc either (go build in %s), so the instrumented program cannot build:\n%s\n", p.Dir, plain)
			return "", exitError{1}
		}
		return "", explainBuildFailure(goOut.Bytes(), p, work)
	}
	return exe, nil
}

// buildDirFlag is the linker flag that tells the runtime the main
// package's directory, dir, by which its messages name files relative to
// the directory the program starts in (rtlib.BuildDir); "" for a directory
// the flag cannot quote (then they name them relative to dir).
func buildDirFlag(dir string) string {
	x := "-X=github.com/svmc/svmc/rtlib.BuildDir=" + dir
	switch {
	case !strings.ContainsAny(x, " \t\n\r'\""):
		return x
	case !strings.ContainsAny(x, "'\n\r"):
		return "'" + x + "'"
	}
	return ""
}

// withoutDebug adds to the go build flags what go run adds to build a
// program it runs and deletes: no DWARF in the main package and none in
// the executable (build adds -ldflags=-s -w). Stack traces, svmc's reports of
// failures and profiles read the runtime's own tables, which stay; the
// build of 240 pdos takes 0.58 s instead of 0.77. Where flags already set
// the module's -gcflags (its language version), the main package's
// pattern would replace them, so the option joins them.
func withoutDebug(flags []string, mainPath string) []string {
	out := slices.Clone(flags)
	for i, f := range out {
		if strings.HasPrefix(f, "-gcflags=") {
			out[i] = f + " -dwarf=false"
			return out
		}
	}
	return append(out, "-gcflags="+mainPath+"=-dwarf=false")
}

// plainBuild builds the package in dir as the user would, without svmc
// (with svmc's --tags): when the instrumented program failed to build,
// whether the program builds at all tells the user's fault (a C library
// its cgo preamble does not link, a missing module) from svmc's, which
// type-checking before codegen cannot do for everything the go command
// checks. It returns go build's output.
func plainBuild(dir string) (string, error) {
	args := []string{"build", "-o", os.DevNull}
	if buildTags != "" {
		args = append(args, "-tags="+buildTags)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(bytes.TrimSpace(out)), err
}

// builtProg is the program information of the last program build made
// (svmc run --race names constructs with it).
var builtProg *progdb.Program

// instrument compiles the package of setup (with its tests when tests is
// set) and the libraries of its module it imports that hold directives,
// writes the generated files into work/src (a directory per package) and
// returns the go command's overlay that puts them in the packages' places.
func instrument(setup goSetup, work string, tests bool, stderr io.Writer) (*compiler.Package, string, error) {
	cfg := compiler.Config{Dir: setup.dir, Pattern: ".", BuildFlags: setup.flags, Env: setup.env, Tests: tests, InstrumentAll: instrumentAll, Ranks: buildRanks, Copies: setup.copies}
	prog, err := compiler.CompileProgram(cfg)
	if fm := foreignOf(err); fm != nil {
		if cfg.Copies, err = replaceForeign(setup, fm); err != nil {
			return nil, "", err
		}
		prog, err = compiler.CompileProgram(cfg)
	}
	if prog != nil {
		for _, p := range prog.Packages() {
			if p == nil {
				continue
			}
			for _, d := range p.Diags {
				fmt.Fprintln(stderr, d)
			}
		}
	}
	if err != nil {
		var ds compiler.Diagnostics
		if errors.As(err, &ds) {
			return nil, "", exitError{1}
		}
		return nil, "", err
	}
	command := []string{"svmc", "run"}
	if tests {
		command = []string{"svmc", "test"}
	}
	p := prog.Main
	outs, err := codegen.GenerateForBuild(prog, p.Dir, command)
	if err != nil {
		return nil, "", err
	}
	overlay := map[string]map[string]string{"Replace": {}}
	for i, pkg := range prog.Packages() {
		src := filepath.Join(work, "src", strconv.Itoa(i))
		if err := writeOutput(outs[i], src); err != nil {
			return nil, "", err
		}
		for _, name := range outs[i].Names() {
			if strings.HasSuffix(name, ".go") {
				overlay["Replace"][filepath.Join(pkg.Dir, name)] = filepath.Join(src, name)
			}
		}
	}
	ov, _ := json.MarshalIndent(overlay, "", "  ")
	ovPath := filepath.Join(work, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return nil, "", err
	}
	return p, ovPath, nil
}

// goSetup is how the go command loads and builds the user's package so
// that the runtime embedded in this svmc is importable: in the package's
// directory, with flags and environment.
type goSetup struct {
	dir   string
	flags []string
	env   []string
	// copies maps a directory the build reads in place of the user's to
	// the user's (compiler.Config.Copies): the vendor directory of the
	// build's workspace (vendor.go).
	copies map[string]string
}

// moduleSetup finds the module of the package directory pattern and makes
// the embedded runtime reachable from it without network: in a workspace
// (go.work) through a copy of the workspace that also uses the runtime's
// module; otherwise through a copy of the module's go.mod that requires
// and replaces it (-modfile). svmc's own module needs neither.
func moduleSetup(pattern, work string) (goSetup, error) {
	setup, err := moduleOf(pattern, work)
	if err == nil && buildTags != "" {
		setup.flags = append(setup.flags, "-tags="+buildTags)
	}
	return setup, err
}

// moduleOf is moduleSetup's work.
func moduleOf(pattern, work string) (goSetup, error) {
	if pkg, version, ok := atVersion(pattern); ok {
		return versionSetup(pkg, version, work) // atversion.go
	}
	dir, err := packageDir(pattern)
	if err != nil {
		return goSetup{}, err
	}
	return moduleAt(dir, pattern, work, true)
}

// moduleAt is moduleOf for the package directory dir (pattern as the
// user named it), in the user's workspace if any when withWork.
func moduleAt(dir, pattern, work string, withWork bool) (goSetup, error) {
	setup := goSetup{dir: dir}
	for d := dir; ; d = filepath.Dir(d) {
		goMod := filepath.Join(d, "go.mod")
		if data, err := os.ReadFile(goMod); err == nil {
			if modfile.ModulePath(data) == svmc.Module {
				return setup, nil
			}
			if ws := findWorkspace(dir); ws != "" && withWork {
				path, err := runtimeWorkspace(ws, work)
				if err != nil {
					return goSetup{}, err
				}
				setup.env = []string{"GOWORK=" + path}
				// Names in the workspace's vendor directory, when
				// runtimeWorkspace linked one, are the user's.
				setup.copies = map[string]string{filepath.Join(work, "vendor"): filepath.Join(filepath.Dir(ws), "vendor")}
				return setup, nil
			}
			if usesVendor(d, goVersionOf(data)) {
				path, err := vendorWorkspace(d, data, work) // vendor.go
				if err != nil {
					return goSetup{}, err
				}
				setup.env = []string{"GOWORK=" + path}
				setup.copies = map[string]string{filepath.Join(work, "vendor"): filepath.Join(d, "vendor")}
				return setup, nil
			}
			modPath, lang, err := runtimeModfile(goMod, work)
			if err != nil {
				return goSetup{}, err
			}
			setup.flags = []string{"-modfile=" + modPath, "-mod=mod"}
			if lang != "" {
				// Requiring the runtime raises the copy's go line to the
				// runtime's, and with it the language of the module's
				// packages: go 1.21's loops have one variable, later ones
				// one per iteration (x198: &j taken in a loop printed
				// other values). The module's own version is kept.
				setup.flags = append(setup.flags, "-gcflags="+modfile.ModulePath(data)+"/...=-lang="+lang)
			}
			setup.env = []string{"GOWORK=off"}
			return setup, nil
		}
		if filepath.Dir(d) == d {
			return gopathSetup(setup, pattern)
		}
	}
}

// gopathSetup is moduleOf for a package in no module: a program in a
// scratch directory, run as go run main.go runs it. The go command builds
// it in GOPATH mode (GO111MODULE=off), with a GOPATH whose src holds the
// embedded runtime (a link), so that the instrumented code's imports of
// svmc's packages resolve offline; the program itself can import the
// standard library and the packages of the user's GOPATH, as go run's can
// outside a module in GOPATH mode. The GOPATH lies
// beside the runtime's directory, one per runtime: in a work directory of
// its own, the runtime's packages were compiled again at every run (10 s).
func gopathSetup(setup goSetup, pattern string) (goSetup, error) {
	rt, err := extractRuntime()
	if err != nil {
		return goSetup{}, err
	}
	gopath := filepath.Join(filepath.Dir(rt), "gopath-"+strings.TrimPrefix(filepath.Base(rt), "runtime-"))
	at := filepath.Join(gopath, "src", filepath.FromSlash(svmc.Module))
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		return goSetup{}, err
	}
	if err := os.Symlink(rt, at); err != nil {
		if to, lerr := os.Readlink(at); !os.IsExist(err) || lerr != nil || to != rt {
			return goSetup{}, fmt.Errorf("%s is not in a Go module, and svmc could not set up a GOPATH for it (%s): %v; run 'go mod init' in its directory", pattern, at, err)
		}
	}
	// The user's GOPATH after svmc's: a package of a GOPATH workspace
	// (GO111MODULE=off) still finds its neighbours.
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		if user := strings.TrimSpace(string(out)); user != "" {
			gopath += string(filepath.ListSeparator) + user
		}
	}
	setup.env = []string{"GO111MODULE=off", "GOPATH=" + gopath, "GOFLAGS="}
	return setup, nil
}

// packageArg is the one package args name for the command name: none
// (the directory here), a directory, an import path or a Go file, or Go
// files as go run takes them (go run *.go): several arguments, each ending
// in .go, all of one directory, whose whole package svmc compiles (saying
// so when they are not all of its files). more is what to say when args
// name more than that.
func packageArg(name string, args []string, more string) (string, error) {
	switch {
	case len(args) == 0:
		return ".", nil
	case len(args) == 1:
		return args[0], nil
	case !slices.ContainsFunc(args, func(a string) bool { return !strings.HasSuffix(a, ".go") }):
		dir := filepath.Dir(args[0])
		for _, f := range args {
			if filepath.Dir(f) != dir {
				return "", fmt.Errorf("named files must all be in one directory; have %s and %s", dir, filepath.Dir(f))
			}
			if fi, err := os.Stat(f); err != nil || fi.IsDir() {
				return "", fmt.Errorf("%s: no such Go file", f)
			}
		}
		all, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		all = slices.DeleteFunc(all, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
		if len(all) > len(args) {
			fmt.Fprintf(os.Stderr, "svmc: %s are files of the package in %s: svmc compiles the whole package, not those files alone\n", strings.Join(args, ", "), dir)
		}
		if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, ".") {
			dir = "." + string(filepath.Separator) + dir // a directory, not an import path
		}
		return dir, nil
	}
	return "", fmt.Errorf("%s takes one package%s", name, more)
}

// packageDir is the directory of the package pattern names, as the go
// command takes it: a directory, a Go file of the package (go run main.go:
// svmc compiles the whole package, which it says when the file is not all
// of it) or an import path.
func packageDir(pattern string) (string, error) {
	if fi, err := os.Stat(pattern); err == nil {
		if fi.IsDir() {
			return filepath.Abs(pattern)
		}
		if strings.HasSuffix(pattern, ".go") {
			dir := filepath.Dir(pattern)
			if all, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(all) > 1 {
				fmt.Fprintf(os.Stderr, "svmc: %s is one file of the package in %s: svmc compiles the whole package, not that file alone\n", pattern, dir)
			}
			return filepath.Abs(dir)
		}
		return "", fmt.Errorf("%s: svmc takes the directory of a package main, one of its Go files or its import path", pattern)
	}
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", pattern).Output()
	dirs := strings.Fields(string(out))
	if err != nil || len(dirs) != 1 {
		msg := "no such directory or package"
		var xe *exec.ExitError
		if errors.As(err, &xe) && len(xe.Stderr) > 0 {
			msg = strings.TrimSpace(string(xe.Stderr))
		} else if len(dirs) > 1 {
			msg = fmt.Sprintf("it names %d packages; svmc takes one", len(dirs))
		}
		return "", fmt.Errorf("%s: %s", pattern, msg)
	}
	return dirs[0], nil
}

// findWorkspace is the go.work the go command would use in dir: $GOWORK,
// or the nearest go.work above dir; "" for none (or GOWORK=off).
func findWorkspace(dir string) string {
	switch gw := os.Getenv("GOWORK"); gw {
	case "off":
		return ""
	case "":
	default:
		return gw
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return filepath.Join(d, "go.work")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// runtimeWorkspace writes a copy of the workspace ws into work, its paths
// made absolute, that also uses the embedded runtime's module.
func runtimeWorkspace(ws, work string) (string, error) {
	rtDir, err := extractRuntime()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(ws)
	if err != nil {
		return "", err
	}
	wf, err := modfile.ParseWork(ws, data, nil)
	if err != nil {
		return "", err
	}
	base := filepath.Dir(ws)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	for _, u := range slices.Clone(wf.Use) {
		if err := wf.AddUse(abs(u.Path), u.ModulePath); err != nil {
			return "", err
		}
		if !filepath.IsAbs(u.Path) {
			wf.DropUse(u.Path)
		}
	}
	for _, r := range wf.Replace {
		if r.New.Version == "" && modfile.IsDirectoryPath(r.New.Path) && !filepath.IsAbs(r.New.Path) {
			if err := wf.AddReplace(r.Old.Path, r.Old.Version, abs(r.New.Path), ""); err != nil {
				return "", err
			}
		}
	}
	if err := wf.AddUse(rtDir, svmc.Module); err != nil {
		return "", err
	}
	wf.Cleanup()
	path := filepath.Join(work, "go.work")
	if err := os.WriteFile(path, modfile.Format(wf.Syntax), 0o644); err != nil {
		return "", err
	}
	if wf.Go != nil && usesVendor(base, wf.Go.Version) {
		// go work vendor's directory, beside the copy (vendor.go)
		if err := linkVendor(filepath.Join(base, "vendor"), filepath.Join(work, "vendor")); err != nil {
			return "", err
		}
	}
	return path, copySum(ws+".sum", path+".sum")
}

// runtimeModfile writes a copy of the user's go.mod (and go.sum) that
// requires svmc and replaces it by the runtime source embedded in this svmc.
//
// lang is the module's language version (go1.21) when it is older than
// the runtime's, whose go line the copy's is raised to: the build keeps
// the module's with -lang.
func runtimeModfile(goMod, work string) (path, lang string, err error) {
	rtDir, err := extractRuntime()
	if err != nil {
		return "", "", err
	}
	data, err := os.ReadFile(goMod)
	if err != nil {
		return "", "", err
	}
	mf, err := modfile.Parse(goMod, data, nil)
	if err != nil {
		return "", "", err
	}
	if mf.Go != nil {
		if v := goversion.Lang("go" + mf.Go.Version); v != "" && goversion.Compare(v, runtimeGo) < 0 {
			lang = v
		}
	}
	if err := mf.AddRequire(svmc.Module, "v0.0.0"); err != nil {
		return "", "", err
	}
	if err := mf.AddReplace(svmc.Module, "", rtDir, ""); err != nil {
		return "", "", err
	}
	out, err := mf.Format()
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(work, "go.mod")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return "", "", err
	}
	return path, lang, copySum(strings.TrimSuffix(goMod, ".mod")+".sum", filepath.Join(work, "go.sum"))
}

// copySum copies the checksum file from (go.sum, go.work.sum) to to, an
// empty one when there is none.
func copySum(from, to string) error {
	sum, err := os.ReadFile(from)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(to, sum, 0o644)
}

// runtimeGo is the language version of the embedded runtime's module.
const runtimeGo = "go1.24"

// extractRuntime writes the embedded runtime source into the user cache,
// once per content, and returns the module directory. The directory is
// trusted only when it holds exactly the embedded files and nobody else
// can change it: code another local user planted there would run inside
// the user's program. A directory that fails the check is extracted again.
func extractRuntime() (string, error) {
	files := map[string][]byte{"go.mod": []byte("module " + svmc.Module + "\n\ngo " + strings.TrimPrefix(runtimeGo, "go") + "\n")}
	h := sha256.New()
	err := fs.WalkDir(svmc.RuntimeSource, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := svmc.RuntimeSource.ReadFile(path)
		files[path] = data
		h.Write([]byte(path))
		h.Write(data)
		return err
	})
	if err != nil {
		return "", err
	}
	base, err := runtimeBase()
	if err != nil {
		return "", err
	}
	return trustedDir(base, filepath.Join(base, "runtime-"+hex.EncodeToString(h.Sum(nil))[:16]), files, "the runtime directory")
}

// trustedDir is dir, in base, holding exactly files: used again when it
// does and nobody else can change it (verifyRuntime), written again
// otherwise (what names it in an error). Unused directories of base are
// pruned (pruneRuntimes).
func trustedDir(base, dir string, files map[string][]byte, what string) (string, error) {
	defer pruneRuntimes(base, dir, time.Now())
	if _, err := os.Lstat(dir); err == nil {
		if verifyRuntime(dir, files) == nil {
			return dir, nil
		}
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("%s %s is not as svmc wrote it and cannot be removed: %v", what, dir, err)
		}
	}
	tmp, err := os.MkdirTemp(base, "tmp-runtime-")
	if err != nil {
		return "", err
	}
	for path, data := range files {
		full := filepath.Join(tmp, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return "", err
		}
	}
	os.Chmod(tmp, 0o755)
	// Another svmc may have won the race; either copy is the same, and
	// the winner's is checked like any other.
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if verr := verifyRuntime(dir, files); verr != nil {
			return "", fmt.Errorf("%v (%v)", err, verr)
		}
	}
	return dir, nil
}

// runtimeBase is the directory that holds the extracted runtimes: svmc's
// in the user cache, or without one (neither HOME nor XDG_CACHE_HOME)
// svmc-UID in the temporary directory, created private. Either must be a
// directory of the user's that nobody else can write.
// runtimeUnused is how long a runtime directory no svmc used is kept.
const runtimeUnused = 30 * 24 * time.Hour

// pruneRuntimes marks the runtime directory keep as used now and removes
// the ones of other svmc versions (and the module copies, foreign.go) that
// no svmc used for runtimeUnused
// (every version leaves one: 46 after a month of rebuilding svmc here),
// and temporary ones left by an extraction that died. A directory in use
// by another svmc was marked when that svmc started.
func pruneRuntimes(base, keep string, now time.Time) {
	os.Chtimes(keep, now, now)
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(base, name)
		ours := strings.HasPrefix(name, "runtime-") || strings.HasPrefix(name, "module-") || strings.HasPrefix(name, "tmp-runtime-")
		if !e.IsDir() || path == keep || !ours {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > runtimeUnused {
			os.RemoveAll(path)
		}
	}
}

func runtimeBase() (string, error) {
	cache, err := os.UserCacheDir()
	var base string
	if err == nil {
		base = filepath.Join(cache, "svmc")
		if err := os.MkdirAll(base, 0o755); err != nil {
			return "", err
		}
	} else {
		base = filepath.Join(os.TempDir(), "svmc-"+strconv.Itoa(os.Getuid()))
		if err := os.Mkdir(base, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	fi, err := os.Lstat(base)
	if err != nil {
		return "", err
	}
	if err := private(fi); err != nil {
		return "", fmt.Errorf("svmc will not use %s for its runtime: %v; remove it, or set XDG_CACHE_HOME to a directory of yours", base, err)
	}
	return base, nil
}

// verifyRuntime checks that dir holds exactly files, as regular files and
// directories of the user's that nobody else can write.
func verifyRuntime(dir string, files map[string][]byte) error {
	found := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := private(fi); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		want, ok := files[filepath.ToSlash(rel)]
		if !ok {
			return fmt.Errorf("%s: not a file of svmc's runtime", path)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s: changed", path)
		}
		found++
		return nil
	})
	if err == nil && found != len(files) {
		err = fmt.Errorf("%s: %d of the runtime's %d files", dir, found, len(files))
	}
	return err
}

// isMajorVersion reports whether an import path's element is a major
// version suffix (v2, v10), which go build skips in naming an executable.
func isMajorVersion(elem string) bool {
	if len(elem) < 2 || elem[0] != 'v' || elem[1] == '0' || elem == "v1" {
		return false
	}
	for _, c := range elem[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
