package compiler

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiagnostics works like golang.org/x/tools/go/analysis/analysistest:
// each directory under testdata/diag is a small package main, and the
// diagnostics the compiler must report are written as comments on the line
// they are reported at:
//
//	s++ //svm:barrier // want 6:`^barrier directive must stand on a line of its own`
//	for i := 0; i != n; i++ { // want `condition must use <, <=, > or >=`
//
// A want comment is "// want" followed by one or more expectations, each a
// Go string literal (interpreted or raw) holding a regular expression, which
// may be preceded by a column and a colon (6:`re`). An expectation is met by
// one diagnostic reported on that line (and at that column, if one is given)
// whose message, without its position, matches the expression. A pattern
// that starts with "warning: " (or "^warning: ") expects a warning and is
// matched, without that prefix, against the warning's message; every other
// pattern expects an error. In a directive the want comment is a remark
// ("//" ends a directive), so it does not disturb the directive.
//
// The test fails on every diagnostic no expectation meets, on every
// expectation no diagnostic meets, on a diagnostic without file, line and
// column, and when Compile's error disagrees with the errors it reported.
// The packages must be plain Go that compiles: the compiler reports Go
// errors before it looks at directives. TestHarness checks the checker.
//
// A compiler pass that reports errors stops the passes that require it
// (Pass.Requires), so the cases are grouped by the pass that finds them, one
// package per theme with one function per case:
//
//	syntax       parse: directive syntax; a directive sharing its line with code
//	nearmiss     parse: comments that look almost like directives (warnings)
//	placement    attach: outside a function, in init, inside an expression
//	reserved     subprograms: identifiers with the prefix svm_
//	pdoloops     structure: the loop nest of a pdo
//	jumps        structure: leaving a pdo or region body; directives in a pdo body
//	ends         structure: pairing of end directives
//	mapping      structure: templates, processor arrangements, strategies
//	reductions   structure: reduction clauses
//	exprs        structure: types of directive expressions, with columns
//	limits       structure: constant sizes, empty dimensions, labels, coherence
//	tasks        structure: sections, regions, locks, atomic, dynamic templates
//	goroutines   structure: pdo, psection, barrier in a goroutine the program starts (warnings)
//	warnings     classify: a shared scalar written in a pdo (the package compiles)
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
			p, problems, err := checkDiagnostics(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range problems {
				t.Error(pr)
			}
			if len(problems) > 0 {
				t.Logf("all diagnostics of %s:\n%v", dir, p.Diags)
			}
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
	pos := fmt.Sprintf("%s:%d", relPath(e.file), e.line)
	if e.col > 0 {
		pos += fmt.Sprintf(":%d", e.col)
	}
	kind := "error"
	if e.warning {
		kind = "warning"
	}
	return fmt.Sprintf("%s: %s matching %s", pos, kind, e.src)
}

// relPath is file relative to the working directory, if it lies below it.
func relPath(file string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return file
}

// checkDiagnostics compiles the package in dir and compares its diagnostics
// with the want comments of its files. It returns one problem per
// diagnostic that no expectation meets, per expectation no diagnostic meets,
// and per other fault; err is for a package it cannot check at all.
func checkDiagnostics(dir string) (p *Package, problems []string, err error) {
	wants, err := readWants(dir)
	if err != nil {
		return nil, nil, err
	}
	p, err = Compile(Config{Dir: dir, Pattern: "."})
	if p == nil {
		return nil, nil, fmt.Errorf("compile %s: %v", dir, err)
	}
	if _, ok := err.(Diagnostics); err != nil && !ok {
		return nil, nil, fmt.Errorf("compile %s: error of type %T, want Diagnostics: %v", dir, err, err)
	}
	if (err != nil) != (len(p.Diags.Errors()) > 0) {
		problems = append(problems, fmt.Sprintf("Compile returned error %v, but the package has %d error diagnostics", err, len(p.Diags.Errors())))
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	for _, d := range p.Diags {
		if d.Pos.Filename == "" || d.Pos.Line <= 0 || d.Pos.Column <= 0 {
			problems = append(problems, fmt.Sprintf("diagnostic without a full position (file:line:col): %s", d))
			continue
		}
		file := d.Pos.Filename
		if !filepath.IsAbs(file) {
			file = filepath.Join(wd, file)
		}
		if !meet(wants, file, d) {
			problems = append(problems, fmt.Sprintf("unexpected diagnostic: %s%s", d, sourceLine(file, d.Pos)))
		}
	}
	for _, w := range wants {
		if !w.met {
			problems = append(problems, fmt.Sprintf("missing diagnostic: %s", w))
		}
	}
	return p, problems, nil
}

// meet marks the first unmet expectation that d meets and reports whether
// there was one. Expectations with a column are tried first.
func meet(wants []*expectation, file string, d Diagnostic) bool {
	for _, withCol := range []bool{true, false} {
		for _, w := range wants {
			if !w.met && (w.col > 0) == withCol && w.file == file && w.line == d.Pos.Line && (w.col == 0 || w.col == d.Pos.Column) &&
				w.warning == d.Warning && w.re.MatchString(d.Msg) {
				w.met = true
				return true
			}
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

// readWants collects the want comments of the Go files of dir, in file and
// line order.
func readWants(dir string) ([]*expectation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	var wants []*expectation
	for _, name := range files {
		abs, err := filepath.Abs(name)
		if err != nil {
			return nil, err
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(string(src), "\n") {
			m := wantRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			ws, err := parseWant(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad want comment: %v", name, i+1, err)
			}
			for _, w := range ws {
				w.file, w.line = abs, i+1
			}
			wants = append(wants, ws...)
		}
	}
	return wants, nil
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

// TestHarness checks the checker itself on a package whose want comments
// are wrong in every way it must notice.
func TestHarness(t *testing.T) {
	t.Parallel()
	_, problems, err := checkDiagnostics(filepath.Join("testdata", "harness"))
	if err != nil {
		t.Fatal(err)
	}
	for i, pr := range problems {
		problems[i], _, _ = strings.Cut(pr, "\n") // drop the source line
	}
	want := []string{
		"unexpected diagnostic: testdata/harness/main.go:9:3: barrier inside the body of the pdo at line 7: it would run once per iteration on one processor; move it before or after the pdo",
		"unexpected diagnostic: testdata/harness/main.go:15:3: return inside the body of the pdo at line 12: a parallel body cannot leave its construct; record what it would return (an error or result per iteration in a slice indexed by the iteration, or the first index with reduction(min: k)) and return after the loop",
		"unexpected diagnostic: testdata/harness/main.go:17:13: lock: undefined: x",
		"missing diagnostic: testdata/harness/main.go:9:4: error matching `barrier inside`",
		"missing diagnostic: testdata/harness/main.go:15: error matching `break inside`",
		"missing diagnostic: testdata/harness/main.go:17: warning matching `warning: lock`",
		"missing diagnostic: testdata/harness/main.go:19: error matching `atomic`",
		"missing diagnostic: testdata/harness/main.go:21: error matching `nothing is reported here`",
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems the checker finds (-want +got):\n%s", diff)
	}
}

func TestParseWant(t *testing.T) {
	good := []struct {
		in   string
		want []string // col/warning/expr
	}{
		{"`a`", []string{"0 false a"}},
		{`"a\\(" 12:` + "`b` `warning: c` 3:\"^warning: d\"", []string{"0 false a\\(", "12 false b", "0 true c", "3 true ^d"}},
	}
	for _, tt := range good {
		ws, err := parseWant(tt.in)
		if err != nil {
			t.Errorf("parseWant(%s): %v", tt.in, err)
			continue
		}
		var got []string
		for _, w := range ws {
			got = append(got, fmt.Sprintf("%d %v %s", w.col, w.warning, w.re))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseWant(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, in := range []string{"", "12", "12 `a`", "0:`a`", "`(`", "`a` b", "1:2:`a`"} {
		if _, err := parseWant(in); err == nil {
			t.Errorf("parseWant(%s) succeeded, want an error", in)
		}
	}
}
