package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// rankErrors is what svmc run --mpi writes the job's standard error
// through. Every rank runs processor 0's exclusive code, so an error there
// is reported by every rank alike: it is written once. When a rank fails,
// mpirun stops the others (they report being interrupted) and adds boxes
// of its own saying that a process failed; once svmc has said what failed,
// those are noise and are left out. mpirun's other messages (a rank killed
// by a signal, a host that cannot be reached) pass through.
type rankErrors struct {
	mu     sync.Mutex
	out    io.Writer
	line   []byte   // the unfinished line
	block  []string // the error block being read: "svmc: …" and its tab-indented lines
	box    []string // mpirun's box being read, between its dashed lines
	inBox  bool
	seen   map[string]bool // error blocks written
	failed bool            // svmc reported a failure
}

func newRankErrors(out io.Writer) *rankErrors {
	return &rankErrors{out: out, seen: map[string]bool{}}
}

func (w *rankErrors) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			break
		}
		w.take(string(w.line[:i]))
		w.line = w.line[i+1:]
	}
	return len(p), nil
}

// Flush writes what is held (at the job's end).
func (w *rankErrors) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.line) > 0 {
		w.take(string(w.line))
		w.line = nil
	}
	w.endBlock()
	if w.inBox {
		w.endBox()
	}
}

var dashes = regexp.MustCompile(`^-{20,}$`)

// interrupted is a rank's report that mpirun stopped it (rtlib's
// InterruptError).
var interrupted = regexp.MustCompile(`^svmc: (rank \d+ )?interrupted \(SIG(TERM|INT)\)`)

// nbcNoise is what OpenMPI's non-blocking collectives print of an error
// their call also returns, which svmc reports with what it means (a
// collective truncated: the ranks met at different points).
var nbcNoise = regexp.MustCompile(`^(MPI Error in NBC subrequest |NBC_Progress: an error \d+ was found during schedule )`)

func (w *rankErrors) take(l string) {
	if nbcNoise.MatchString(l) {
		return
	}
	if dashes.MatchString(l) {
		w.endBlock()
		if w.inBox {
			w.endBox()
		} else {
			w.inBox, w.box = true, nil
		}
		return
	}
	if w.inBox {
		w.box = append(w.box, l)
		return
	}
	if strings.HasPrefix(l, "\t") && len(w.block) > 0 {
		w.block = append(w.block, l)
		return
	}
	w.endBlock()
	if strings.HasPrefix(l, "svmc: ") {
		w.block = []string{l}
		return
	}
	fmt.Fprintln(w.out, l)
}

// endBlock writes the error block read, unless the same was written.
func (w *rankErrors) endBlock() {
	if len(w.block) == 0 {
		return
	}
	b := strings.Join(w.block, "\n")
	w.block = nil
	if w.seen[b] {
		return
	}
	// A rank stopped because another failed says it was interrupted.
	if w.failed && interrupted.MatchString(b) {
		return
	}
	w.seen[b] = true
	w.failed = true
	fmt.Fprintln(w.out, b)
}

// endBox writes mpirun's box read, unless it only says that a process
// failed after svmc said what failed.
func (w *rankErrors) endBox() {
	w.inBox = false
	text := strings.Join(w.box, "\n")
	if w.failed && (strings.Contains(text, "Primary job  terminated normally, but") ||
		strings.Contains(text, "mpirun detected that one or more processes exited with non-zero status")) {
		return
	}
	rule := strings.Repeat("-", 74)
	fmt.Fprintln(w.out, rule)
	for _, l := range w.box {
		fmt.Fprintln(w.out, l)
	}
	fmt.Fprintln(w.out, rule)
}
