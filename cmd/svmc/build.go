package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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

// compilePackage compiles pattern and prints diagnostics. Warnings go to
// stderr; errors end the command.
func compilePackage(pattern string, buildFlags []string, stderr io.Writer) (*compiler.Package, error) {
	p, err := compiler.Compile(compiler.Config{Pattern: pattern, BuildFlags: buildFlags})
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

// build compiles the package at pattern into an executable in work. The
// instrumented files replace the originals through a build overlay, so the
// package builds in its own module with its own dependencies; a module other
// than svmc gets the embedded runtime through a replace in a copy of its
// go.mod (-modfile), which needs no network.
func build(pattern, work string, stderr io.Writer) (string, error) {
	modFlags, err := moduleFlags(pattern, work)
	if err != nil {
		return "", err
	}
	p, err := compilePackage(pattern, modFlags, stderr)
	if err != nil {
		return "", err
	}
	out, err := codegen.Generate(p, p.Dir, []string{"svmc", "run"})
	if err != nil {
		return "", err
	}
	src := filepath.Join(work, "src")
	if err := writeOutput(out, src); err != nil {
		return "", err
	}
	overlay := map[string]map[string]string{"Replace": {}}
	for _, name := range out.Names() {
		if strings.HasSuffix(name, ".go") {
			overlay["Replace"][filepath.Join(p.Dir, name)] = filepath.Join(src, name)
		}
	}
	ov, _ := json.MarshalIndent(overlay, "", "  ")
	ovPath := filepath.Join(work, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return "", err
	}
	exe := filepath.Join(work, "prog")
	args := append([]string{"build", "-o", exe, "-overlay", ovPath}, modFlags...)
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = p.Dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the instrumented program failed (files kept in %s)", work)
	}
	return exe, nil
}

// moduleFlags finds the module of the package directory pattern and, unless
// it is svmc itself, writes a go.mod for it that reaches the embedded
// runtime, returning the go command flags that use it. Loading (the user's
// code may import rtlib for templates or ProcessorID) and building both
// use them.
func moduleFlags(pattern, work string) ([]string, error) {
	dir, err := filepath.Abs(pattern)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: svmc run takes the directory of a package main", pattern)
	}
	for d := dir; ; d = filepath.Dir(d) {
		goMod := filepath.Join(d, "go.mod")
		if data, err := os.ReadFile(goMod); err == nil {
			if modfile.ModulePath(data) == svmc.Module {
				return nil, nil
			}
			modPath, err := runtimeModfile(goMod, work)
			if err != nil {
				return nil, err
			}
			return []string{"-modfile=" + modPath, "-mod=mod"}, nil
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("%s is not in a Go module; run 'go mod init' in its directory first", pattern)
		}
	}
}

// runtimeModfile writes a copy of the user's go.mod (and go.sum) that
// requires svmc and replaces it by the runtime source embedded in this svmc.
func runtimeModfile(goMod, work string) (string, error) {
	rtDir, err := extractRuntime()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(goMod)
	if err != nil {
		return "", err
	}
	mf, err := modfile.Parse(goMod, data, nil)
	if err != nil {
		return "", err
	}
	if err := mf.AddRequire(svmc.Module, "v0.0.0"); err != nil {
		return "", err
	}
	if err := mf.AddReplace(svmc.Module, "", rtDir, ""); err != nil {
		return "", err
	}
	out, err := mf.Format()
	if err != nil {
		return "", err
	}
	path := filepath.Join(work, "go.mod")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return "", err
	}
	sum, err := os.ReadFile(strings.TrimSuffix(goMod, ".mod") + ".sum")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(work, "go.sum"), sum, 0o644)
}

// extractRuntime writes the embedded runtime source into the user cache,
// once per content, and returns the module directory.
func extractRuntime() (string, error) {
	files := map[string][]byte{"go.mod": []byte("module " + svmc.Module + "\n\ngo 1.24\n")}
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
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "svmc", "runtime-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "tmp-runtime-")
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		if tmp, err = os.MkdirTemp(filepath.Dir(dir), "tmp-runtime-"); err != nil {
			return "", err
		}
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
	// Another svmc may have won the race; either copy is the same.
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr != nil {
			return "", err
		}
	}
	return dir, nil
}
