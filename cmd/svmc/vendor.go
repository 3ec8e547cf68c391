package main

import (
	"fmt"
	goversion "go/version"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// A module that vendors its dependencies (go mod vendor) builds offline
// with the go command, which reads them from vendor/ instead of the module
// cache. svmc adds its runtime to the build, and the go command checks
// vendor/modules.txt against the go.mod it builds with, reading the file
// from the disk, not through a build overlay: a go.mod copy that requires
// the runtime failed the check, and svmc built with -mod=mod from the
// module cache instead, which an offline machine does not have. A module
// with a vendor directory is therefore built in a workspace of its own
// instead: the module and the runtime's, in a go.work in the work
// directory beside a vendor directory whose modules.txt is the module's
// marked as a workspace's ("## workspace") and whose package directories
// are links to the module's (a workspace's modules need no vendoring, and
// the runtime has no dependencies).

// usesVendor reports whether the go command builds the module (or the
// workspace) in directory dir, whose go version is goVer, from its vendor
// directory: vendor/modules.txt is there, goVer is 1.14 or later (the
// default is -mod=vendor then) and GOFLAGS asks for no other -mod.
func usesVendor(dir, goVer string) bool {
	if _, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt")); err != nil {
		return false
	}
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if v, ok := strings.CutPrefix(f, "-mod="); ok {
			return v == "vendor"
		}
	}
	return goVer != "" && goversion.Compare("go"+goVer, "go1.14") >= 0
}

// goVersionOf is the go version of go.mod data, "" if it has none.
func goVersionOf(data []byte) string {
	if mf, err := modfile.ParseLax("go.mod", data, nil); err == nil && mf.Go != nil {
		return mf.Go.Version
	}
	return ""
}

// vendorWorkspace writes into work a go.work that uses the module in dir
// (its go.mod data) and the embedded runtime's module, and the vendor
// directory beside it; it returns the go.work's path.
func vendorWorkspace(dir string, data []byte, work string) (string, error) {
	rtDir, err := extractRuntime()
	if err != nil {
		return "", err
	}
	goLine := strings.TrimPrefix(runtimeGo, "go")
	if v := goVersionOf(data); v != "" && goversion.Compare("go"+v, runtimeGo) > 0 {
		goLine = v
	}
	wf := &modfile.WorkFile{Syntax: &modfile.FileSyntax{}}
	if err := wf.AddGoStmt(goLine); err != nil {
		return "", err
	}
	for _, d := range []string{dir, rtDir} {
		if err := wf.AddUse(d, ""); err != nil {
			return "", err
		}
	}
	path := filepath.Join(work, "go.work")
	if err := os.WriteFile(path, modfile.Format(wf.Syntax), 0o644); err != nil {
		return "", err
	}
	if err := copySum(filepath.Join(dir, "go.sum"), path+".sum"); err != nil {
		return "", err
	}
	return path, linkVendor(filepath.Join(dir, "vendor"), filepath.Join(work, "vendor"))
}

// linkVendor makes dst the vendor directory src seen from a workspace:
// its modules.txt (marked as a workspace's, as a workspace's own is, its
// replacements by relative directories made relative to dst's parent)
// and a link to each of its other entries.
func linkVendor(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if e.Name() != "modules.txt" {
			if err := os.Symlink(from, to); err != nil {
				return fmt.Errorf("linking the vendored packages %s into the build's workspace: %v", from, err)
			}
			continue
		}
		txt, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		txt = rebaseReplacements(txt, filepath.Dir(src), filepath.Dir(dst))
		if !strings.HasPrefix(string(txt), "## workspace\n") {
			txt = append([]byte("## workspace\n"), txt...)
		}
		if err := os.WriteFile(to, txt, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rebaseReplacements rewrites the replacements by a relative directory in
// modules.txt ("# example.com/lib v0.0.0 => ../lib"), relative to from,
// as relative to to: in a workspace the go command compares them with the
// go.mod's replacements made relative to the workspace's directory.
func rebaseReplacements(txt []byte, from, to string) []byte {
	lines := strings.SplitAfter(string(txt), "\n")
	for i, l := range lines {
		head, repl, ok := strings.Cut(strings.TrimRight(l, "\n"), " => ")
		if !strings.HasPrefix(l, "# ") || !ok {
			continue
		}
		f := strings.Fields(repl)
		if len(f) != 1 || !modfile.IsDirectoryPath(f[0]) || filepath.IsAbs(f[0]) {
			continue
		}
		rel, err := filepath.Rel(to, filepath.Join(from, filepath.FromSlash(f[0])))
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if rel != ".." && !strings.HasPrefix(rel, "../") {
			rel = "./" + rel
		}
		lines[i] = head + " => " + rel + strings.TrimPrefix(l, strings.TrimRight(l, "\n"))
	}
	return []byte(strings.Join(lines, ""))
}
