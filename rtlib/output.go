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
