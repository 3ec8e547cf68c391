package rtlib

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// OutputMode says where the standard output (or error) of the user program
// goes, per processor (seed 000 §8.2).
type OutputMode int

const (
	// OutProc0: processor 0's output goes to the stream (or to the file
	// Path); the other processors' output is discarded. The default, as in
	// Lib-DVM.
	OutProc0 OutputMode = iota
	// OutEach: every processor writes its own file, Path with %d replaced
	// by the processor number.
	OutEach
	// OutCommon: every processor writes to the stream (or to the one file
	// Path); each Write is whole, writes of different processors do not
	// interleave within one call.
	OutCommon
)

// Output is where one of the user program's standard streams goes.
type Output struct {
	Mode OutputMode
	// Path is the file (OutProc0, OutCommon; "" for the stream itself) or
	// the file name pattern with one %d (OutEach).
	Path string
	// W is the stream; nil for the process's own (os.Stdout, os.Stderr).
	W io.Writer
}

func (o Output) String() string {
	switch o.Mode {
	case OutEach:
		return "each:" + o.Path
	case OutCommon:
		if o.Path == "" {
			return "common"
		}
		return "common:" + o.Path
	}
	if o.Path == "" {
		return "proc0"
	}
	return "proc0:" + o.Path
}

// parseOutput parses "proc0[:PATH]", "each[:PATTERN]" or "common[:PATH]".
// def is the file pattern of "each" without one.
func parseOutput(s, def string) (Output, error) {
	mode, path, _ := strings.Cut(s, ":")
	var o Output
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case "", "proc0":
		o.Mode = OutProc0
	case "each":
		o.Mode = OutEach
		if path == "" {
			path = def
		}
	case "common":
		o.Mode = OutCommon
	default:
		return o, fmt.Errorf("want proc0[:FILE], each[:PATTERN] or common[:FILE]")
	}
	o.Path = path
	if o.Mode == OutEach && strings.Count(path, "%d") != 1 {
		return o, fmt.Errorf("each:%s: the file name pattern needs one %%d for the processor number", path)
	}
	return o, nil
}

// procOut is a processor's user output.
type procOut struct {
	stdout, stderr io.Writer
}

// Stdout is where the user program's standard output goes on p (generated
// code prints through it): see Output. A detached Proc writes as processor
// 0 does.
func (p *Proc) Stdout() io.Writer {
	if p.out.stdout != nil {
		return p.out.stdout
	}
	return p.r.detachedOut(false)
}

// Stderr is where the user program's standard error goes on p.
func (p *Proc) Stderr() io.Writer {
	if p.out.stderr != nil {
		return p.out.stderr
	}
	return p.r.detachedOut(true)
}

func (r *run) detachedOut(stderr bool) io.Writer {
	if len(r.procs) > 0 {
		if stderr {
			return r.procs[0].Stderr()
		}
		return r.procs[0].Stdout()
	}
	if stderr {
		return os.Stderr
	}
	return os.Stdout
}

// lockedWriter serialises the writes of several processors to one writer,
// buffered when it is a file.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	bw *bufio.Writer
	f  *os.File
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bw != nil {
		return l.bw.Write(b)
	}
	return l.w.Write(b)
}

// close flushes and closes a file.
func (l *lockedWriter) close() error {
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

// outputs is the open user output of a run.
type outputs struct {
	files []*lockedWriter
}

func (o *outputs) open(path string, keep bool) (*lockedWriter, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if keep {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if err != nil {
		return nil, err
	}
	lw := &lockedWriter{f: f, bw: bufio.NewWriterSize(f, 32<<10)}
	o.files = append(o.files, lw)
	return lw, nil
}

// close flushes and closes every file.
func (o *outputs) close() error {
	var err error
	for _, f := range o.files {
		if cerr := f.close(); err == nil {
			err = cerr
		}
	}
	o.files = nil
	return err
}

// removeOld removes the files an OutEach pattern names for any processor
// number (the files of an earlier run with more processors).
func removeOld(pattern string) {
	dir, base := filepath.Split(pattern)
	i := strings.Index(base, "%d")
	if i < 0 {
		return
	}
	re := regexp.MustCompile("^" + regexp.QuoteMeta(base[:i]) + "[0-9]+" + regexp.QuoteMeta(base[i+2:]) + "$")
	d := dir
	if d == "" {
		d = "."
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() && re.MatchString(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// setOutput gives every processor its writer for one stream. what names the
// parameter in errors.
func (r *run) setOutput(o Output, def io.Writer, keep bool, what string, set func(p *Proc, w io.Writer)) error {
	w := o.W
	if w == nil {
		w = def
	}
	switch o.Mode {
	case OutProc0:
		if o.Path != "" {
			lw, err := r.outs.open(o.Path, keep)
			if err != nil {
				return fmt.Errorf("%s: %v", what, err)
			}
			w = lw
		}
		for _, p := range r.procs {
			if p.id == 0 {
				set(p, w)
			} else {
				set(p, io.Discard)
			}
		}
	case OutCommon:
		var lw *lockedWriter
		if o.Path != "" {
			var err error
			if lw, err = r.outs.open(o.Path, keep); err != nil {
				return fmt.Errorf("%s: %v", what, err)
			}
		} else {
			lw = &lockedWriter{w: w}
		}
		for _, p := range r.procs {
			set(p, lw)
		}
	case OutEach:
		if !keep {
			removeOld(o.Path)
		}
		for _, p := range r.procs {
			lw, err := r.outs.open(strings.Replace(o.Path, "%d", strconv.Itoa(p.id), 1), keep)
			if err != nil {
				return fmt.Errorf("%s: %v", what, err)
			}
			set(p, lw)
		}
	default:
		return fmt.Errorf("%s: bad output mode %d", what, o.Mode)
	}
	return nil
}

// openOutputs sets up the user output of every processor.
func (r *run) openOutputs(par *Params) error {
	if err := r.setOutput(par.UserStdout, os.Stdout, par.KeepOld, "stdout", func(p *Proc, w io.Writer) { p.out.stdout = w }); err != nil {
		r.outs.close()
		return err
	}
	if err := r.setOutput(par.UserStderr, os.Stderr, par.KeepOld, "stderr", func(p *Proc, w io.Writer) { p.out.stderr = w }); err != nil {
		r.outs.close()
		return err
	}
	return nil
}
