package golden

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCorpus runs every program of corpus/ — ordinary Go with directives:
// methods and interfaces, generics, closures, goroutines, several files and
// a library package, os.Exit, cgo — with go run and with svmc run on 1, 2 and 4
// processors: the standard output and the exit status must be the same.
// Every change runs against it.
func TestCorpus(t *testing.T) {
	runtimeInputs()
	if testing.Short() {
		t.Skip("builds svmc and every program")
	}
	svmc := filepath.Join(t.TempDir(), "svmc")
	if out, err := exec.Command("go", "build", "-o", svmc, "../cmd/svmc").CombinedOutput(); err != nil {
		t.Fatalf("building svmc: %v\n%s", err, out)
	}
	dirs, err := filepath.Glob(filepath.Join("corpus", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The message-passing examples must print what their serial build
	// prints, with any number of processors.
	for _, ex := range []string{"ring", "halo", "master", "collectives"} {
		dirs = append(dirs, filepath.Join("..", "examples", ex, "main.go"))
	}
	seen := map[string]bool{}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			if filepath.Base(dir) == "cgo" && !cgoEnabled() {
				t.Skip("cgo is disabled here (no C compiler; .ci/setup.sh installs gcc)")
			}
			pkg := "./" + filepath.ToSlash(dir)
			// A program whose processors print side by side says so.
			unordered := false
			files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
			for _, f := range files {
				src, _ := os.ReadFile(f)
				unordered = unordered || bytes.Contains(src, []byte("\n// corpus: unordered"))
			}
			want, wantCode := runProgram(t, exec.Command("go", "run", pkg))
			for _, n := range []int{1, 2, 4} {
				got, code := runProgram(t, exec.Command(svmc, "run", "-n", strconv.Itoa(n), pkg))
				if unordered {
					got, want = sortedLines(got), sortedLines(want)
				}
				if !bytes.Equal(got, want) || code != wantCode {
					t.Errorf("-n %d: exit %d, stdout\n%s\ngo run: exit %d, stdout\n%s", n, code, got, wantCode, want)
				}
			}
		})
	}
}

// cgoEnabled reports whether the go command builds cgo packages here.
func cgoEnabled() bool {
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	return err == nil && strings.TrimSpace(string(out)) == "1"
}

// runProgram runs cmd and returns its standard output and exit status (go
// run reports a program's status 3 as its own status 1 with "exit status
// 3" on stderr, which runProgram reads back).
func runProgram(t *testing.T, cmd *exec.Cmd) ([]byte, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var xe *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), 0
	case errors.As(err, &xe):
		code := xe.ExitCode()
		if i := bytes.LastIndex(stderr.Bytes(), []byte("exit status ")); i >= 0 {
			if n, err := strconv.Atoi(string(bytes.TrimSpace(stderr.Bytes()[i+len("exit status "):]))); err == nil {
				code = n
			}
		}
		return stdout.Bytes(), code
	}
	t.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.Bytes())
	return nil, 0
}

// sortedLines is out with its lines sorted.
func sortedLines(out []byte) []byte {
	lines := bytes.SplitAfter(out, []byte("\n"))
	slices.SortFunc(lines, bytes.Compare)
	return bytes.Join(lines, nil)
}
