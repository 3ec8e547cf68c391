package params

import (
	"fmt"
	"path/filepath"
)

// Collisions checks that no file the run writes is another file of the
// same run: a trace that is also the user's output file ruins the trace,
// an output that is the request or parameter file destroys it. The user's
// stdout and stderr may share a file (as 2>&1 does).
func (s *Set) Collisions() error {
	v := &s.Values
	type file struct{ what, path string }
	var writes, reads []file
	if v.Trace != "" {
		writes = append(writes, file{s.named("trace", v.Trace), v.Trace})
	}
	if v.Info.Has("file") {
		writes = append(writes, file{s.named("info", "file:"+v.Info.Path), v.Info.Path})
	}
	var user []file
	for _, o := range []struct {
		name string
		out  Output
	}{{"stdout", v.Stdout}, {"stderr", v.Stderr}} {
		switch {
		case o.out.Path == "":
		case o.out.Mode == OutEach:
			for p := 0; p < v.NProcs; p++ {
				user = append(user, file{s.named(o.name, o.out.String()) + fmt.Sprintf(" (processor %d)", p), fmt.Sprintf(o.out.Path, p)})
			}
		default:
			user = append(user, file{s.named(o.name, o.out.String()), o.out.Path})
		}
	}
	if v.Request != "" {
		reads = append(reads, file{s.named("request", v.Request), v.Request})
	}
	if s.ParamFile != "" {
		reads = append(reads, file{"the parameter file " + s.ParamFile, s.ParamFile})
	}
	seen := map[string]file{}
	claim := func(f file, others bool) error {
		k := fileKey(f.path)
		if g, ok := seen[k]; ok {
			return fmt.Errorf("%s is the same file as %s: a run cannot write it twice", f.what, g.what)
		}
		if others {
			seen[k] = f
		}
		return nil
	}
	for _, f := range writes {
		if err := claim(f, true); err != nil {
			return err
		}
	}
	for _, f := range user {
		if err := claim(f, false); err != nil {
			return err
		}
	}
	for _, f := range append(writes, user...) {
		seen[fileKey(f.path)] = f
	}
	for _, f := range reads {
		if g, ok := seen[fileKey(f.path)]; ok {
			return fmt.Errorf("%s is the same file as %s: the run would overwrite it", g.what, f.what)
		}
	}
	return nil
}

// named is how a setting is named in messages: "--trace t.sddf",
// "SVMC_TRACE=t.sddf" or "trace = t.sddf".
func (s *Set) named(name, value string) string {
	src := s.Texts[name].Source
	switch {
	case len(src) > 5 && src[:5] == "flag ":
		return src[5:] + " " + value
	case len(src) > 12 && src[:12] == "environment ":
		return src[12:] + "=" + value
	}
	return name + " = " + value
}

// fileKey is a name that two paths of the same file share: absolute, with
// the symbolic links of the directory (and of the file, if it exists)
// resolved.
func fileKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}
