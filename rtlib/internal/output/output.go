// Package output routes the user program's standard output and error of
// each processor (seed 000 §8.2): processor 0's stream (rtlib shares it
// with the work each processor runs alone), one file per processor, or one
// stream or file that all share, with each Write whole.
package output

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/svmc/svmc/rtlib/internal/params"
)

// LockedWriter serialises the writes of several processors to one writer,
// buffered when it is a file.
type LockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	bw *bufio.Writer
	f  *os.File
}

// Shared returns a writer that several processors may write to at once,
// each Write whole.
func Shared(w io.Writer) *LockedWriter { return &LockedWriter{w: w} }

// File returns a LockedWriter of f with a buffer of size bytes.
func File(f *os.File, size int) *LockedWriter {
	return &LockedWriter{f: f, bw: bufio.NewWriterSize(f, size)}
}

func (l *LockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bw != nil {
		return l.bw.Write(b)
	}
	return l.w.Write(b)
}

// Close flushes and closes a file.
func (l *LockedWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.bw != nil {
		err = l.bw.Flush()
	}
	if l.f != nil {
		if cerr := l.f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Files is the open user output of a run.
type Files struct {
	files []*LockedWriter
}

// Open opens path for writing (appending with keep).
func (o *Files) Open(path string, keep bool) (*LockedWriter, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if keep {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if err != nil {
		return nil, err
	}
	lw := File(f, 32<<10)
	o.files = append(o.files, lw)
	return lw, nil
}

// Close flushes and closes every file.
func (o *Files) Close() error {
	var err error
	for _, f := range o.files {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	o.files = nil
	return err
}

// Route returns the writer of each of n processors for one stream routed
// by o: def is the stream (os.Stdout or os.Stderr) unless o.W names
// another; files are opened in o (appended to with keep; otherwise the
// files of an earlier run's each pattern are removed first). what names
// the parameter in errors.
func (o *Files) Route(out params.Output, def io.Writer, keep bool, n int, what string) ([]io.Writer, error) {
	w := out.W
	if w == nil {
		w = def
	}
	ws := make([]io.Writer, n)
	switch out.Mode {
	case params.OutProc0:
		if out.Path != "" {
			lw, err := o.Open(out.Path, keep)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", what, err)
			}
			w = lw
		}
		for i := range ws {
			ws[i] = io.Discard
		}
		if n > 0 {
			ws[0] = w
		}
	case params.OutCommon:
		var lw *LockedWriter
		if out.Path != "" {
			var err error
			if lw, err = o.Open(out.Path, keep); err != nil {
				return nil, fmt.Errorf("%s: %v", what, err)
			}
		} else {
			lw = Shared(w)
		}
		for i := range ws {
			ws[i] = lw
		}
	case params.OutEach:
		if !keep {
			RemoveOld(out.Path)
		}
		for i := range ws {
			lw, err := o.Open(strings.Replace(out.Path, "%d", strconv.Itoa(i), 1), keep)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", what, err)
			}
			ws[i] = lw
		}
	default:
		return nil, fmt.Errorf("%s: bad output mode %d", what, out.Mode)
	}
	return ws, nil
}

// RemoveOld removes the files an each pattern names for any processor
// number (the files of an earlier run with more processors).
func RemoveOld(pattern string) {
	dir, base := filepath.Split(pattern)
	i := strings.Index(base, "%d")
	if i < 0 {
		return
	}
	pre, suf := base[:i], base[i+2:]
	// A name of the pattern: pre, one or more digits, suf. (Matched by
	// hand: regexp would link its tables into every instrumented program.)
	ofPattern := func(name string) bool {
		num, okPre := strings.CutPrefix(name, pre)
		num, okSuf := strings.CutSuffix(num, suf)
		return okPre && okSuf && num != "" && strings.Trim(num, "0123456789") == ""
	}
	d := dir
	if d == "" {
		d = "."
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() && ofPattern(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
