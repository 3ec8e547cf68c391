// Package paramcheck checks the run-time parameters svmc run and svmc test
// pass as flags before they build anything: the run would report the same
// error, after the build (a second or more). It is the parameter table of
// the runtime (rtlib/internal/params) seen from outside rtlib.
package paramcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/svmc/svmc/rtlib/internal/params"
)

// Flags reports what a run would say of the parameters given as flags:
// env holds "SVMC_FLAG_<NAME>=value" entries (others are ignored). Only
// the flags are read; the environment and parameter files are the run's
// to check.
func Flags(env []string) error {
	flags := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "SVMC_FLAG_") {
			flags[k] = v
		}
	}
	s, err := params.Load(func(k string) (string, bool) {
		v, ok := flags[k]
		return v, ok
	})
	if err != nil {
		return err
	}
	// The files a run writes, in a directory that is not there: the run
	// could not create them, after the build, and a missing trace was
	// then blamed on the program.
	v := &s.Values
	files := map[string]string{"trace": v.Trace, "stat_file": v.StatFile, "cpuprofile": v.CPUProfile, "gotrace": v.GoTrace,
		"stdout": v.Stdout.Path, "stderr": v.Stderr.Path}
	if v.Info.Has("file") {
		files["info"] = v.Info.Path
	}
	for _, name := range params.Names() {
		d, _ := params.Find(name)
		path, given := flags[d.Flag()]
		if !given || files[name] == "" {
			continue
		}
		if dir := filepath.Dir(files[name]); dir != "." {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return fmt.Errorf("%s %s: no directory %s to write it in", d.FlagName(), path, dir)
			}
		}
	}
	return nil
}
