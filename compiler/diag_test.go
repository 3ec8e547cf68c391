package compiler

// The diagnostic tests work like golang.org/x/tools/go/analysis/analysistest:
// each directory under testdata/diag is a small package main, and the
// diagnostics the compiler must report are written as comments on the line
// they are reported at:
//
//	x := 1 //svm:barrier // want `must stand on a line of its own`
//	for i := 0; i != n; i++ { // want 2:`condition must use <, <=, > or >=`
//
// A want comment is "// want" followed by one or more expectations, each a
// Go string literal (interpreted or raw) holding a regular expression, which
// may be preceded by a column and a colon ("14:`re`"). An expectation is
// met by one diagnostic reported on that line (and at that column, if one is
// given) whose message matches the expression. A pattern that starts with
// "warning: " (or "^warning: ") expects a warning and is matched, without
// that prefix, against the warning's message; every other pattern expects an
// error. In a
// directive comment the want comment is a remark ("//" ends a directive), so
// it does not disturb the directive.
//
// The test fails on every diagnostic no expectation meets and on every
// expectation no diagnostic meets, and on a diagnostic without a line and
// column. The packages must be plain Go that compiles: the compiler reports
// Go errors before it looks at directives.
//
// Because a compiler pass that reports errors stops the passes after it, the
// cases are grouped by the pass that finds them: one package per theme, with
// one function per case.

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestDiagnostics(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "diag"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join("testdata", "diag", d.Name())
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			checkDiagnostics(t, dir)
		})
	}
}

// expectation is one pattern of a want comment.
type expectation struct {
	file    string // absolute
	line    int
	col     int // 0: any column
	warning bool
	re      *regexp.Regexp
	src     string // the literal as written, for messages
	met     bool
}

func (e *expectation) String() string {
	file := e.file
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil {
			file = rel
		}
	}
	pos := fmt.Sprintf("%s:%d", file, e.line)
	if e.col > 0 {
		pos += fmt.Sprintf(":%d", e.col)
	}
	kind := "error"
	if e.warning {
		kind = "warning"
	}
	return fmt.Sprintf("%s: %s matching %s", pos, kind, e.src)
}

// checkDiagnostics compiles the package in dir and compares its diagnostics
// with the want comments of its files.
func checkDiagnostics(t *testing.T, dir string) {
	t.Helper()
	wants := readWants(t, dir)
	p, err := Compile(Config{Dir: dir, Pattern: "."})
	if p == nil {
		t.Fatalf("compile %s: %v", dir, err)
	}
	if err != nil {
		if _, ok := err.(Diagnostics); !ok {
			t.Fatalf("compile %s: error of type %T, want Diagnostics: %v", dir, err, err)
		}
	}
	if (err != nil) != (len(p.Diags.Errors()) > 0) {
		t.Errorf("Compile returned error %v, but the package has %d error diagnostics", err, len(p.Diags.Errors()))
	}
	wd, _ := os.Getwd()
	for _, d := range p.Diags {
		t.Logf("%s", d)
		if d.Pos.Filename == "" || d.Pos.Line <= 0 || d.Pos.Column <= 0 {
			t.Errorf("diagnostic without a full position (file:line:col): %s", d)
			continue
		}
		file := d.Pos.Filename
		if !filepath.IsAbs(file) {
			file = filepath.Join(wd, file)
		}
		if !meet(wants, file, d) {
			t.Errorf("unexpected diagnostic: %s%s", d, sourceLine(file, d.Pos))
		}
	}
	for _, w := range wants {
		if !w.met {
			t.Errorf("missing diagnostic: %s", w)
		}
	}
}

// meet marks the first unmet expectation that d meets and reports whether
// there was one.
func meet(wants []*expectation, file string, d Diagnostic) bool {
	for _, w := range wants {
		if !w.met && w.file == file && w.line == d.Pos.Line && (w.col == 0 || w.col == d.Pos.Column) &&
			w.warning == d.Warning && w.re.MatchString(d.Msg) {
			w.met = true
			return true
		}
	}
	return false
}

// sourceLine shows the line of pos with a caret under its column.
func sourceLine(file string, pos token.Position) string {
	src, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if pos.Line > len(lines) {
		return ""
	}
	line := lines[pos.Line-1]
	pad := []byte(line[:min(pos.Column-1, len(line))])
	for i, c := range pad {
		if c != '\t' {
			pad[i] = ' '
		}
	}
	return fmt.Sprintf("\n\t%s\n\t%s^", line, pad)
}

var wantRE = regexp.MustCompile(`// want (.*)$`)

// readWants collects the want comments of the Go files of dir.
func readWants(t *testing.T, dir string) []*expectation {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	var wants []*expectation
	for _, name := range files {
		abs, err := filepath.Abs(name)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			m := wantRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			ws, err := parseWant(m[1])
			if err != nil {
				t.Fatalf("%s:%d: bad want comment: %v", name, i+1, err)
			}
			for _, w := range ws {
				w.file, w.line = abs, i+1
			}
			wants = append(wants, ws...)
		}
	}
	sort.SliceStable(wants, func(i, j int) bool { return wants[i].col > wants[j].col }) // columned first
	return wants
}

// parseWant parses the expectations of one want comment:
// { [ int ":" ] string }.
func parseWant(text string) ([]*expectation, error) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("want", -1, len(text))
	s.Init(f, []byte(text), nil, 0)
	var out []*expectation
	col := 0
	for {
		_, tok, lit := s.Scan()
		switch tok {
		case token.EOF, token.SEMICOLON:
			if col != 0 {
				return nil, fmt.Errorf("column %d without a pattern", col)
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("no pattern")
			}
			return out, nil
		case token.INT:
			if col != 0 {
				return nil, fmt.Errorf("two columns")
			}
			n, err := strconv.Atoi(lit)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("bad column %s", lit)
			}
			if _, tok, _ := s.Scan(); tok != token.COLON {
				return nil, fmt.Errorf("column %d must be followed by ':'", n)
			}
			col = n
		case token.STRING:
			pat, err := strconv.Unquote(lit)
			if err != nil {
				return nil, err
			}
			e := &expectation{col: col, src: lit}
			if rest, ok := strings.CutPrefix(pat, "warning: "); ok {
				e.warning, pat = true, rest
			} else if rest, ok := strings.CutPrefix(pat, "^warning: "); ok {
				e.warning, pat = true, "^"+rest
			}
			if e.re, err = regexp.Compile(pat); err != nil {
				return nil, err
			}
			out = append(out, e)
			col = 0
		default:
			return nil, fmt.Errorf("unexpected %s", lit)
		}
	}
}
