package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/svmc/svmc/compiler"
)

// A package named with a version, as go run and go install take it
// (svmc run example.com/tool@latest, svmc install example.com/tool@v1.2.0):
// the program of a module the user does not have, built in its own module
// as the go command builds it there, with no go.mod or go.work of the
// user's. Its module is resolved and downloaded through a scratch module
// (go get), and copied out of the module cache, whose files a build
// overlay may not replace (moduleCopy, as a library required by version
// is); the copy is then built as a module of the user's would be, and
// messages name the module cache's files (compiler.Config.Copies).

// atVersion splits pattern into a package path and a version when it
// names one with a version.
func atVersion(pattern string) (pkg, version string, ok bool) {
	if strings.HasPrefix(pattern, ".") || filepath.IsAbs(pattern) || strings.HasSuffix(pattern, ".go") {
		return "", "", false
	}
	i := strings.LastIndex(pattern, "@")
	if i <= 0 || i == len(pattern)-1 {
		return "", "", false
	}
	return pattern[:i], pattern[i+1:], true
}

// versionSetup is moduleOf for pkg@version (atVersion).
func versionSetup(pkg, version, work string) (goSetup, error) {
	named := pkg + "@" + version
	if strings.Contains(pkg, "...") {
		return goSetup{}, fmt.Errorf("%s: a pattern with ... and a version is not taken; name one package main", named)
	}
	scratch := filepath.Join(work, "resolve")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return goSetup{}, err
	}
	if err := os.WriteFile(filepath.Join(scratch, "go.mod"), []byte("module svmc.invalid/resolve\n"), 0o644); err != nil {
		return goSetup{}, err
	}
	goCmd := func(args ...string) ([]byte, error) {
		c := exec.Command("go", args...)
		c.Dir = scratch
		c.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+modMod(os.Getenv("GOFLAGS")))
		out, err := c.Output()
		var xe *exec.ExitError
		if errors.As(err, &xe) && len(xe.Stderr) > 0 {
			msg := strings.TrimSpace(string(xe.Stderr))
			msg = strings.TrimPrefix(msg, "go: ")
			return nil, fmt.Errorf("%s: %s", named, msg)
		}
		return out, err
	}
	if _, err := goCmd("get", named); err != nil {
		return goSetup{}, err
	}
	out, err := goCmd("list", "-f", "{{.Name}}\t{{.Dir}}\t{{with .Module}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}", pkg)
	if err != nil {
		return goSetup{}, err
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\t")
	if len(f) != 5 {
		return goSetup{}, fmt.Errorf("%s: go list said %q", named, out)
	}
	if f[0] != "main" {
		return goSetup{}, fmt.Errorf("%s: package %s is not a package main; svmc runs and installs programs", named, pkg)
	}
	m := compiler.ForeignModule{Path: f[2], Version: f[3], Dir: f[4]}
	rel, err := filepath.Rel(m.Dir, f[1])
	if err != nil {
		return goSetup{}, err
	}
	cp, err := moduleCopy(m)
	if err != nil {
		return goSetup{}, fmt.Errorf("%s: copying %s@%s out of the module cache to compile it: %v", named, m.Path, m.Version, err)
	}
	setup, err := moduleAt(filepath.Join(cp, rel), named, work, false) // go run pkg@version uses no workspace
	if err != nil {
		return goSetup{}, err
	}
	if setup.copies == nil {
		setup.copies = map[string]string{}
	}
	setup.copies[cp] = m.Dir
	return setup, nil
}

// modMod is the user's GOFLAGS with -mod=mod for the scratch module (the
// user's -modcacherw and others kept, another -mod left out).
func modMod(goflags string) string {
	var kept []string
	for _, f := range strings.Fields(goflags) {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "--mod=") {
			kept = append(kept, f)
		}
	}
	return strings.Join(append(kept, "-mod=mod"), " ")
}
