package codegen

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/svmc/svmc/compiler"
)

// editor rewrites a source file by byte-offset edits, in the manner of
// cmd/cover: the user's text stays as written, generated code goes around
// it, and after every piece of generated code a //line directive in column 1
// puts the positions of the following user text back to where they were.
type editor struct {
	name     string // file name written in //line directives
	src      []byte
	edits    []edit
	seq      int
	lineOffs []int // offsets at which lines begin, computed on first use
	copies   []*copySpec
}

type edit struct {
	start, end int
	text       string
	prio       int       // order of edits at the same start
	check      bool      // an SVM access check: left out of unchecked copies
	wraps      *copySpec // code around the text of that copy: not part of it
	// passes: the edit makes a call of that subprogram pass the
	// processor; entry: the edit is that subprogram's traced entry. A
	// subprogram whose body holds no other edits may get a plain clone
	// (clones.go).
	passes, entry *compiler.Sub
}

// copySpec is a copy of the edited text of src[from:to] without its
// access checks, which generated code holds in place of its token: the
// unchecked version of a loop body (see gen.pdo).
type copySpec struct {
	token    string
	from, to int
	// moved: the text is moved, not copied (gen.literalSub): its access
	// checks stay, and the file leaves out the edits inside it where
	// the text stood.
	moved bool
}

// uncheckedCopy returns the token of a copy whose range is set later
// (when the edits that bound it are placed).
func (e *editor) uncheckedCopy() *copySpec {
	c := &copySpec{token: fmt.Sprintf("\x00svm_copy%d\x00", len(e.copies))}
	e.copies = append(e.copies, c)
	return c
}

// moveCopy returns the token of src[from:to] with its edits, to be placed
// where the text moves to; move replaces the text where it stood.
func (e *editor) moveCopy(from, to int) *copySpec {
	c := e.uncheckedCopy()
	c.from, c.to, c.moved = from, to, true
	return c
}

// move replaces src[from:to], the text of c, by text (without newlines).
func (e *editor) move(from, to int, text string, c *copySpec) {
	e.add(from, to, text, opening)
	e.edits[len(e.edits)-1].wraps = c
}

// inlineResume is a /*line*/ comment that gives the text at offset off its
// original position, for text that follows generated code on its line.
func (e *editor) inlineResume(off int) string {
	r := strings.TrimSpace(e.resume(off, true))
	return "/*" + strings.TrimPrefix(r, "//") + "*/"
}

// order places code inserted at the same offset as other code.
type order int

const (
	opening   order = iota // opens a construct: after what is already there, outer first
	closing                // closes a construct: inner first
	following              // follows the text before the offset (a directive's own code): first of all
	exprOpen               // opens an expression around user text: last of all, next to the text
	exprClose              // closes such an expression: before everything else at the offset
)

func (e *editor) add(start, end int, text string, o order) {
	e.seq++
	prio := e.seq
	switch o {
	case closing:
		// Code that closes a construct goes before code of the constructs
		// that enclose it, which were opened earlier.
		prio = -e.seq
	case following:
		prio = -1<<40 + e.seq
	case exprOpen:
		prio = 1<<40 + e.seq
	case exprClose:
		prio = -1<<41 - e.seq
	}
	e.edits = append(e.edits, edit{start: start, end: end, text: text, prio: prio})
}

// check inserts text of an SVM access check (see copySpec).
func (e *editor) check(at int, text string, o order) {
	e.add(at, at, text, o)
	e.edits[len(e.edits)-1].check = true
}

// raw replaces src[start:end] by text without any line bookkeeping; the
// text must not contain newlines.
func (e *editor) raw(start, end int, text string) { e.add(start, end, text, opening) }

// lines inserts code (one or more statements) at offset at, on lines of its
// own, keeping the positions of the user text after it. The code itself is
// placed at line src of the user's file (the directive it implements).
func (e *editor) lines(at int, code string, o order, src int) {
	code = e.at(src) + code
	switch {
	case e.blankBefore(at):
		at = e.lineStart(at)
		e.add(at, at, code+"\n"+e.resume(at, false), o)
	case e.blankAfter(at) && e.nextLine(at) < len(e.src):
		at = e.nextLine(at)
		e.add(at, at, code+"\n"+e.resume(at, false), o)
	default:
		e.add(at, at, "\n"+code+"\n"+e.resume(at, true), o)
	}
}

// replace replaces src[start:end] by code on lines of its own, placed at
// line src of the user's file. It returns the range it replaced (whole
// lines where the rest of a line is blank).
func (e *editor) replace(start, end int, code string, o order, src int) (int, int) {
	code = e.at(src) + code
	prefix := "\n"
	if e.blankBefore(start) {
		start, prefix = e.lineStart(start), ""
	}
	if e.blankAfter(end) && e.nextLine(end) < len(e.src) {
		end = e.nextLine(end)
		e.add(start, end, prefix+code+"\n"+e.resume(end, false), o)
		return start, end
	}
	e.add(start, end, prefix+code+"\n"+e.resume(end, true), o)
	return start, end
}

// at is the //line directive that places generated code at a line of the
// user's file.
func (e *editor) at(line int) string { return fmt.Sprintf("//line %s:%d\n", e.name, line) }

// resume is the //line directive that gives the text at offset off its
// original position.
func (e *editor) resume(off int, withCol bool) string {
	if e.lineOffs == nil {
		e.lineOffs = []int{0}
		for i, c := range e.src {
			if c == '\n' {
				e.lineOffs = append(e.lineOffs, i+1)
			}
		}
	}
	// The line is the last that begins at or before off; columns count
	// bytes, as Go's do.
	i := sort.SearchInts(e.lineOffs, off+1) - 1
	line, col := i+1, off-e.lineOffs[i]+1
	if withCol {
		return fmt.Sprintf("//line %s:%d:%d\n", e.name, line, col)
	}
	return fmt.Sprintf("//line %s:%d\n", e.name, line)
}

func (e *editor) lineStart(off int) int {
	return bytes.LastIndexByte(e.src[:off], '\n') + 1
}

func (e *editor) nextLine(off int) int {
	i := bytes.IndexByte(e.src[off:], '\n')
	if i < 0 {
		return len(e.src)
	}
	return off + i + 1
}

func (e *editor) blankBefore(off int) bool {
	return len(bytes.TrimLeft(e.src[e.lineStart(off):off], " \t")) == 0
}

func (e *editor) blankAfter(off int) bool {
	end := e.nextLine(off)
	return len(bytes.TrimSpace(e.src[off:end])) == 0
}

// replaced reports whether generated code replaces user text that overlaps
// [start, end) without lying inside it: code inserted at start and end
// would cut into the replacement.
func (e *editor) replaced(start, end int) bool {
	for _, ed := range e.edits {
		if ed.start < ed.end && ed.start < end && start < ed.end && (ed.start < start || ed.end > end) {
			return true
		}
	}
	return false
}

// apply returns the edited text. Overlapping edits are a bug of the
// generator, not of the user's program.
func (e *editor) apply() ([]byte, error) {
	e.sortEdits()
	out, err := e.render(0, len(e.src), e.edits, nil)
	return []byte(out), err
}

func (e *editor) sortEdits() {
	sort.SliceStable(e.edits, func(i, j int) bool {
		a, b := e.edits[i], e.edits[j]
		if a.start != b.start {
			return a.start < b.start
		}
		// Insertions before a replacement that starts at the same place.
		if (a.start == a.end) != (b.start == b.end) {
			return a.start == a.end
		}
		return a.prio < b.prio
	})
}

// wrap inserts code at offset at around the text of copy c.
func (e *editor) wrap(at int, text string, o order, c *copySpec) {
	e.add(at, at, text, o)
	e.edits[len(e.edits)-1].wraps = c
}

// render is src[from:to] with the edits inside it (sorted), copies
// expanded; for copy c (nil: the file), without the access checks and the
// code around it.
func (e *editor) render(from, to int, edits []edit, c *copySpec) (string, error) {
	var out strings.Builder
	last, movedTo := from, -1
	for _, ed := range edits {
		if ed.start < from || ed.end > to || c != nil && (ed.check && !c.moved || ed.wraps == c || strings.Contains(ed.text, c.token)) {
			continue
		}
		if ed.start < movedTo {
			continue // rendered where the text moved to
		}
		if c != nil && c.moved && ed.start == ed.end && (ed.start == c.from || ed.start == c.to) {
			continue // code around the literal, not in it
		}
		if ed.wraps != nil && ed.wraps.moved && ed.start == ed.wraps.from && ed.end == ed.wraps.to {
			movedTo = ed.end
		}
		if ed.start < last {
			return "", fmt.Errorf("svmc internal error: overlapping edits at offset %d of %s", ed.start, e.name)
		}
		out.Write(e.src[last:ed.start])
		text := ed.text
		for _, cc := range e.copies {
			if strings.Contains(text, cc.token) {
				// The copy's text gets its own position back first.
				body, err := e.render(cc.from, cc.to, edits, cc)
				if err != nil {
					return "", err
				}
				text = strings.Replace(text, cc.token, e.resume(cc.from, cc.from != e.lineStart(cc.from))+body, 1)
			}
		}
		out.WriteString(text)
		last = ed.end
	}
	out.Write(e.src[last:to])
	return out.String(), nil
}
