package compiler

import (
	"go/ast"
	"strings"

	"github.com/svmc/svmc/directives"
)

// ParsePass parses every //svm: line comment of every file; all errors of
// all files are reported together. A directive with errors is dropped, and
// the function it stands in is left out of the later checks, which run on
// the other functions (the pass is Confined) — except a pdo whose clauses
// have errors, which leaves its loop a plain one and the function checked.
var ParsePass = confined(newPass("parse", "parse every //svm: comment of every file", (*Package).parseDirectives))

func confined(ps *Pass) *Pass { ps.Confined = true; return ps }

// parseDirectives fills File.Dirs and returns every directive parsed.
func (p *Package) parseDirectives() []*Dir {
	var all []*Dir
	for _, f := range p.Files {
		for _, cg := range f.Syntax.Comments {
			for _, c := range cg.List {
				if !directives.IsDirective(c.Text) {
					if nearMiss(c.Text) {
						p.warnf(c.Slash, "%s is an ordinary comment, not a directive: a directive is a line comment that begins exactly //svm: (no blank, lower case); svmc ignores this one",
							strings.TrimSpace(firstLine(c.Text)))
					}
					continue
				}
				d, errs := directives.Parse(c.Text, p.Fset.Position(c.Slash))
				for _, e := range errs {
					d := Diagnostic{Pos: displayPos(e.Pos), Msg: e.Msg}
					if e.Pos.Offset >= 0 && e.Pos.Offset <= f.Tok.Size() && e.Pos.Line == f.Tok.Line(f.Tok.Pos(e.Pos.Offset)) {
						d.At = f.Tok.Pos(e.Pos.Offset)
					}
					p.Diags = append(p.Diags, d)
				}
				if d != nil && len(errs) > 0 && d.Kind == directives.PDO {
					// A pdo with a bad clause leaves a plain loop: the
					// function's other constructs are still checked, so
					// their errors and warnings come in the same run.
					continue
				}
				if d == nil || len(errs) > 0 {
					f.Dropped = append(f.Dropped, c.Slash)
					continue
				}
				if !p.aloneOnLine(f, c) {
					p.errorf(c.Slash, "%s directive must stand on a line of its own", d.Kind)
					f.Dropped = append(f.Dropped, c.Slash)
					continue
				}
				dir := &Dir{Directive: d, Comment: c, File: f}
				f.Dirs = append(f.Dirs, dir)
				all = append(all, dir)
			}
		}
	}
	return all
}

func (p *Package) aloneOnLine(f *File, c *ast.Comment) bool {
	off := f.Tok.Offset(c.Slash)
	for i := off - 1; i >= 0 && f.Src[i] != '\n'; i-- {
		if f.Src[i] != ' ' && f.Src[i] != '\t' {
			return false
		}
	}
	return true
}

// nearMiss reports whether a comment that is not a directive looks like one
// written almost right: // svm:pdo, //SVM:PDO, /*svm:barrier*/.
func nearMiss(text string) bool {
	body := strings.TrimPrefix(strings.TrimPrefix(text, "//"), "/*")
	body = strings.TrimLeft(body, " \t")
	return len(body) > 4 && strings.EqualFold(body[:4], "svm:") && body[4] != ' ' && body[4] != '\t' && body[4] != '\n'
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
