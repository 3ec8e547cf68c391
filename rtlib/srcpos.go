package rtlib

import (
	"os"
	"path/filepath"
	"strings"
)

// The tables and the //line comments of generated code name files relative
// to the main package's directory ("main.go", "../lib/lib.go"), which keeps
// generated code and traces the same wherever the program was built. A
// message to the user names them as svmc's compile errors do: relative to
// the directory the program started in when the file lies below it, else
// absolute — so that svmc run ./cmd/app from the module root says
// cmd/app/main.go:12 and lib/lib.go:5:2, not main.go:12 and
// ../../lib/lib.go:5:2.

// BuildDir is the absolute directory of the main package when svmc built
// the program; svmc build and svmc run set it (-ldflags -X). Without it
// messages name files as the tables do.
var BuildDir string

// startDir is the working directory at the program's start ("" without
// BuildDir).
var startDir = func() string {
	if BuildDir == "" {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}()

// shownFile is how messages name file f of the tables or of a //line
// comment.
func shownFile(f string) string {
	if startDir == "" || f == "" || filepath.IsAbs(f) {
		return f
	}
	abs := filepath.Join(BuildDir, filepath.FromSlash(f))
	if rel, err := filepath.Rel(startDir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return abs
}

// shownPos is shownFile for the file of a position "file:line" or
// "file:line:col" (any other string is returned as it is).
func shownPos(pos string) string {
	file, rest := pos, ""
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 || i == len(file)-1 || strings.Trim(file[i+1:], "0123456789") != "" {
			break
		}
		file, rest = file[:i], file[i:]+rest
	}
	if rest == "" {
		return pos
	}
	return shownFile(file) + rest
}
