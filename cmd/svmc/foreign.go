package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/svmc/svmc/compiler"
)

// A library published with //svm: directives and required by version is
// read by the go command from its module cache, whose files a build
// overlay may not replace: svmc could not compile it there, and its
// directives ran as plain serial Go without a word. compileForeign copies
// such modules into the work directory and replaces them by their copies
// in the go.mod (or go.work) the program is built with, so that they are
// compiled as the user's own libraries are (compiler.ForeignModules).

// replaceForeign copies the modules of fm into work/deps and replaces each
// by its copy in setup's go.mod or go.work copy; copies maps each copy to
// the directory it was copied from (compiler.Config.Copies).
func replaceForeign(setup goSetup, work string, fm *compiler.ForeignModules) (copies map[string]string, err error) {
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
	copies = map[string]string{}
	byMod := map[string]string{}
	for _, m := range fm.Mods {
		esc, err := module.EscapePath(m.Path)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(work, "deps", filepath.FromSlash(esc)+"@"+m.Version)
		if err := copyTree(m.Dir, dst); err != nil {
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
	var out []byte
	if work {
		wf, err := modfile.ParseWork(path, data, nil)
		if err != nil {
			return err
		}
		for _, m := range fm.Mods {
			if err := wf.AddReplace(m.Path, m.Version, copies[m.Path+"@"+m.Version], ""); err != nil {
				return err
			}
		}
		wf.Cleanup()
		out = modfile.Format(wf.Syntax)
	} else {
		mf, err := modfile.Parse(path, data, nil)
		if err != nil {
			return err
		}
		for _, m := range fm.Mods {
			if err := mf.AddReplace(m.Path, m.Version, copies[m.Path+"@"+m.Version], ""); err != nil {
				return err
			}
		}
		if out, err = mf.Format(); err != nil {
			return err
		}
	}
	return os.WriteFile(path, out, 0o644)
}

// copyTree copies the regular files under src to dst, writable (the
// module cache's are read-only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

// foreignOf is err's ForeignModules, nil when it is another error.
func foreignOf(err error) *compiler.ForeignModules {
	var fm *compiler.ForeignModules
	if errors.As(err, &fm) {
		return fm
	}
	return nil
}
