// Package paramcheck checks the run-time parameters svmc run and svmc test
// pass as flags before they build anything: the run would report the same
// error, after the build (a second or more). It is the parameter table of
// the runtime (rtlib/internal/params) seen from outside rtlib.
package paramcheck

import (
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
	_, err := params.Load(func(k string) (string, bool) {
		v, ok := flags[k]
		return v, ok
	})
	return err
}
