package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/svmc/svmc/compiler"
)

// goErrorLine is one error of the Go compiler: file:line[:col]: message.
var goErrorLine = regexp.MustCompile(`^(?:\./)?([^\s:]+\.go):(\d+)(?::(\d+))?: (.*)$`)

// explainBuildFailure turns the output of a go build of the instrumented
// program into the error svmc reports. The user's package type-checked and
// its directives passed svmc's checks before codegen ran, so a Go compile
// error now is in code svmc generated: svmc's bug, not the user's. Each is
// reported at the directive whose code it most likely is (the nearest one
// at or above the line Go names, in that file), with Go's own words after.
// Output with no compile error (a module that cannot be found, a linker or
// cgo failure) is passed on as it is: that is the environment's problem.
func explainBuildFailure(goOut []byte, p *compiler.Package, work string) error {
	var b strings.Builder
	n := 0
	for _, line := range strings.Split(string(bytes.TrimSpace(goOut)), "\n") {
		m := goErrorLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		ln, _ := strconv.Atoi(m[2])
		at := m[1] + ":" + m[2]
		if m[3] != "" {
			at += ":" + m[3]
		}
		if d := directiveAbove(p, m[1], ln); d != nil {
			pos := p.Fset.Position(d.Pos())
			fmt.Fprintf(&b, "%s:%d:%d: in the code svmc generated for %s (Go reports %s): %s\n",
				filepath.Base(pos.Filename), pos.Line, pos.Column, d.Dir.Comment.Text, at, m[4])
		} else {
			fmt.Fprintf(&b, "%s: in code svmc generated: %s\n", at, m[4])
		}
	}
	if n == 0 {
		return buildFailure{fmt.Sprintf("building the instrumented program failed (files kept in %s):\n%s", work, bytes.TrimSpace(goOut))}
	}
	return buildFailure{fmt.Sprintf("%ssvmc internal error: the instrumented program does not compile, although the program is valid Go and its directives passed svmc's checks; this is a bug in svmc, not in your program. Please report it with the generated files kept in %s", b.String(), work)}
}

// buildFailure is a failed go build of the instrumented program; its work
// directory is kept for the report the message asks for.
type buildFailure struct{ msg string }

func (e buildFailure) Error() string { return e.msg }

// removeWork removes a work directory unless building in it failed.
func removeWork(work string, buildErr error) {
	var bf buildFailure
	if !errors.As(buildErr, &bf) {
		os.RemoveAll(work)
		return
	}
	keepWork(work)
}

// directiveAbove is the construct of file name whose directive stands
// nearest above line (or on it), nil when none does. Within a function only
// its own directives count, the nearest below when none stands above (an
// error at a goto before a pdo is the pdo's code, not that of a directive
// of the function before); a function without directives has none.
func directiveAbove(p *compiler.Package, name string, line int) *compiler.Construct {
	var best, below *compiler.Construct
	bestLine, belowLine := 0, 0
	inside := false
	for _, s := range p.Subs {
		if filepath.Base(s.File.Name) != filepath.Base(name) {
			continue
		}
		if in := p.Fset.Position(s.Decl.Pos()).Line <= line && line <= p.Fset.Position(s.Decl.End()).Line; in != inside {
			if !in {
				continue
			}
			inside, best, bestLine = true, nil, 0 // the function's own from here on
		}
		for _, c := range s.Constructs {
			l := p.Fset.Position(c.Pos()).Line
			if l <= line && l > bestLine {
				best, bestLine = c, l
			}
			if inside && l > line && (below == nil || l < belowLine) {
				below, belowLine = c, l
			}
		}
		if inside {
			break
		}
	}
	if best == nil {
		return below
	}
	return best
}
