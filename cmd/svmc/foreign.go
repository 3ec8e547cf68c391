package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/svmc/svmc/compiler"
)

// A library published with //svm: directives and required by version is
// read by the go command from its module cache, whose files a build
// overlay may not replace: svmc could not compile it there, and its
// directives ran as plain serial Go without a word. replaceForeign copies
// such modules into svmc's cache and replaces them by their copies
// in the go.mod (or go.work) the program is built with, so that they are
// compiled as the user's own libraries are (compiler.ForeignModules).

// replaceForeign copies the modules of fm (moduleCopy) and replaces each
// by its copy in setup's go.mod or go.work copy; copies are setup's and
// these, each mapped to the directory it was copied from
// (compiler.Config.Copies).
func replaceForeign(setup goSetup, fm *compiler.ForeignModules) (copies map[string]string, err error) {
	modPath, workPath := "", ""
	for _, f := range setup.flags {
		if p, ok := strings.CutPrefix(f, "-modfile="); ok {
			modPath = p
		}
	}
	for _, e := range setup.env {
		if p, ok := strings.CutPrefix(e, "GOWORK="); ok && p != "off" {
			workPath = p
		}
	}
	if modPath == "" && workPath == "" {
		return nil, fmt.Errorf("%v (svmc's own module builds without a copy of its go.mod to replace it in)", fm)
	}
	copies = maps.Clone(setup.copies)
	if copies == nil {
		copies = map[string]string{}
	}
	byMod := map[string]string{}
	for _, m := range fm.Mods {
		dst, err := moduleCopy(m)
		if err != nil {
			return nil, fmt.Errorf("copying %s@%s, which holds //svm: directives (%s), to compile it: %v", m.Path, m.Version, m.Where, err)
		}
		byMod[m.Path+"@"+m.Version] = dst
		copies[dst] = m.Dir
	}
	if modPath != "" {
		return copies, addReplaces(modPath, fm, byMod, false)
	}
	return copies, addReplaces(workPath, fm, byMod, true)
}

// addReplaces adds replace path version => copy for each module of fm to
// the go.mod (or go.work, when work) at path.
func addReplaces(path string, fm *compiler.ForeignModules, copies map[string]string, work bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var f interface {
		AddReplace(oldPath, oldVers, newPath, newVers string) error
	}
	var format func() ([]byte, error)
	if work {
		wf, err := modfile.ParseWork(path, data, nil)
		if err != nil {
			return err
		}
		f, format = wf, func() ([]byte, error) { wf.Cleanup(); return modfile.Format(wf.Syntax), nil }
	} else {
		mf, err := modfile.Parse(path, data, nil)
		if err != nil {
			return err
		}
		f, format = mf, mf.Format
	}
	for _, m := range fm.Mods {
		if err := f.AddReplace(m.Path, m.Version, copies[m.Path+"@"+m.Version], ""); err != nil {
			return err
		}
	}
	out, err := format()
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// moduleCopy is the directory of a copy of module m in svmc's cache, made
// once per module version (the module cache's versions do not change) and
// used again while it holds exactly m's files and nobody else can change
// it, as the runtime's directory is (verifyRuntime): a copy of its own in
// every build's work directory was compiled again by every build (the go
// command's build cache keys a package on its directory).
func moduleCopy(m compiler.ForeignModule) (string, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(m.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(m.Dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		return "", err
	}
	base, err := runtimeBase()
	if err != nil {
		return "", err
	}
	base = filepath.Join(base, "deps")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(m.Path + "@" + m.Version))
	return trustedDir(base, filepath.Join(base, "module-"+path.Base(m.Path)+"@"+m.Version+"-"+hex.EncodeToString(h[:])[:12]), files, "the copy")
}

// foreignOf is err's ForeignModules, nil when it is another error.
func foreignOf(err error) *compiler.ForeignModules {
	var fm *compiler.ForeignModules
	if errors.As(err, &fm) {
		return fm
	}
	return nil
}
