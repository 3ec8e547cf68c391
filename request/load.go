package request

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/svmc/svmc/internal/limits"
)

// ParseFile reads and parses the request file at path and the files it
// includes (see Load).
func ParseFile(path string) (*File, error) { return Load(path, nil) }

// maxIncludes bounds the INCLUDE entries followed while loading one file, so
// that a file including another many times over cannot blow up.
const maxIncludes = 1000

// Load reads the request file at path with read (if nil, reading at most
// limits.RequestFile bytes of each file), parses
// it and, recursively, every file it includes, and links each Include to its
// File. An included path is relative to the directory of the including file
// (an absolute path is taken as it is); positions in an included file carry
// that resolved path, those in the top file path as given. A file that
// includes itself, directly or through others, is an error naming the
// chain. The error is an ErrorList of every error of every file, except
// when path itself cannot be read; on error the File holds what could be
// parsed.
func Load(path string, read func(name string) ([]byte, error)) (*File, error) {
	if read == nil {
		read = func(name string) ([]byte, error) { return limits.ReadFile(name, limits.RequestFile, "a request file") }
	}
	data, err := read(path)
	if err != nil {
		return nil, err
	}
	l := &loader{read: read}
	f := l.load(path, data, nil)
	return f, l.errs.Err()
}

type loader struct {
	read  func(string) ([]byte, error)
	errs  ErrorList
	keys  []string // cleaned paths of the files being loaded, outermost first
	names []string // their names as shown
	count int
}

func (l *loader) load(name string, src []byte, from *Include) *File {
	f, err := Parse(name, src)
	switch {
	case err != nil && from != nil && !startsLikeRequestFile(src):
		// Not a request file at all: say so at the INCLUDE, without
		// quoting what the file holds (it may be anything readable, say
		// a password file).
		l.errs = append(l.errs, Diagnostic{from.PathPos, fmt.Sprintf("cannot include %q: %s is not a request file (it does not begin with CONFIG, REQUEST or INCLUDE)", from.Path, name)})
	case err != nil:
		l.errs = append(l.errs, err.(ErrorList)...)
	}
	l.keys = append(l.keys, filepath.Clean(name))
	l.names = append(l.names, name)
	defer func() {
		l.keys = l.keys[:len(l.keys)-1]
		l.names = l.names[:len(l.names)-1]
	}()
	for _, e := range f.Entries {
		in, ok := e.(*Include)
		if !ok {
			continue
		}
		if l.count++; l.count > maxIncludes {
			if l.count == maxIncludes+1 {
				l.errs = append(l.errs, Diagnostic{in.PathPos, fmt.Sprintf("more than %d INCLUDEs", maxIncludes)})
			}
			return f
		}
		resolved := in.Path
		if !filepath.IsAbs(resolved) {
			resolved = filepath.Join(filepath.Dir(name), in.Path)
		}
		key := filepath.Clean(resolved)
		if i := indexOf(l.keys, key); i >= 0 {
			chain := append(append([]string(nil), l.names[i:]...), resolved)
			l.errs = append(l.errs, Diagnostic{in.PathPos, "include cycle: " + strings.Join(chain, " -> ")})
			continue
		}
		data, err := l.read(resolved)
		if err != nil {
			var msg string
			if errors.Is(err, fs.ErrNotExist) {
				msg = fmt.Sprintf("cannot include %q: %s does not exist", in.Path, resolved)
			} else {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				msg = fmt.Sprintf("cannot include %q: %s: %v", in.Path, resolved, err)
			}
			l.errs = append(l.errs, Diagnostic{in.PathPos, msg})
			continue
		}
		in.File = l.load(resolved, data, in)
	}
	return f
}

// startsLikeRequestFile reports whether the first word of src, after
// blank lines and comments, is an entry keyword (in any case) or close to
// one.
func startsLikeRequestFile(src []byte) bool {
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word := strings.Fields(line)[0]
		for _, k := range entryKeywords {
			if strings.EqualFold(word, k) {
				return true
			}
		}
		return suggest(word, entryKeywords) != ""
	}
	return true // empty: nothing to complain about
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// walk calls fn for every entry of f in order, an included file's entries
// right after its Include. A File reached again through its own includes
// (possible only in a File built by hand) is not entered again.
func walk(f *File, fn func(Entry)) { walkFile(f, fn, map[*File]bool{}) }

func walkFile(f *File, fn func(Entry), open map[*File]bool) {
	if f == nil || open[f] {
		return
	}
	open[f] = true
	for _, e := range f.Entries {
		fn(e)
		if in, ok := e.(*Include); ok {
			walkFile(in.File, fn, open)
		}
	}
	delete(open, f)
}

// Config is the configuration a request file sets.
type Config struct {
	TraceBufSize       int64 // bytes of a processor's trace buffer; 0 if not set
	KernelTraceBufSize int64 // bytes of the kernel's trace buffer; 0 if not set
	Stage              int   // tracing stage 0..6; -1 if not set
}

// Config returns the configuration f and its included files set; where a
// parameter is set more than once the last setting (in file order, an
// included file's entries at the place of its INCLUDE) wins.
func (f *File) Config() Config {
	c := Config{Stage: -1}
	walk(f, func(e Entry) {
		ce, ok := e.(*ConfigEntry)
		if !ok {
			return
		}
		switch ce.Key {
		case ConfigTraceBufSize:
			c.TraceBufSize = ce.Value
		case ConfigKernelTraceBufSize:
			c.KernelTraceBufSize = ce.Value
		case ConfigTraceStage:
			c.Stage = int(ce.Value)
		}
	})
	return c
}
