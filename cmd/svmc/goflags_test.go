package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// TestGoStyleFlags: the go command's single-dash long flags reach svmc's
// parser with two dashes (svmc run -tags debug read -tags as the shorthands
// -t -a -g -s and failed; svmc report -out FILE T read -o ut and two
// arguments); one-letter flags, words that name no flag and everything
// after -- stay.
func TestGoStyleFlags(t *testing.T) {
	root := &cobra.Command{Use: "svmc"}
	root.AddCommand(runCmd(), reportCmd(), testCmd())
	for _, c := range []struct{ in, want []string }{
		{[]string{"run", "-tags", "debug", "."}, []string{"run", "--tags", "debug", "."}},
		{[]string{"run", "-nprocs=3", "-race", ".", "--", "-tags", "x"}, []string{"run", "--nprocs=3", "--race", ".", "--", "-tags", "x"}},
		{[]string{"report", "-out", "r.txt", "t.sddf"}, []string{"report", "--out", "r.txt", "t.sddf"}},
		{[]string{"run", "-n", "2", "-n4", "-x", "-verbose", "."}, []string{"run", "-n", "2", "-n4", "-x", "-verbose", "."}},
		{[]string{"test", "-n", "2", "./p", "--", "-v", "-count", "1"}, []string{"test", "-n", "2", "./p", "--", "-v", "-count", "1"}},
		{[]string{"-tags", "x"}, []string{"-tags", "x"}},
		// go test's flags among svmc test's move after --, with their values.
		{[]string{"test", "-n", "2", "-run", "TestX", "-v", "./p", "-bench=.", "-count", "1"}, []string{"test", "-n", "2", "./p", "--", "-run", "TestX", "-v", "-bench=.", "-count", "1"}},
		{[]string{"test", "-trace", "t.sddf", "-benchtime", "10x", ".", "--", "-cpu", "1"}, []string{"test", "--trace", "t.sddf", ".", "--", "-benchtime", "10x", "-cpu", "1"}},
		{[]string{"run", "-v", "."}, []string{"run", "-v", "."}},
		// go test's build flags too: svmc test -race was "unknown shorthand flag".
		{[]string{"test", "-race", "-n", "2", "./...", "-ldflags", "-X p.v=1"}, []string{"test", "-n", "2", "./...", "--", "-race", "-ldflags", "-X p.v=1"}},
		// go test -c -o FILE, the test binary to keep: -o was "unknown shorthand flag".
		{[]string{"test", "-c", "-o", "p.test", "./p"}, []string{"test", "./p", "--", "-c", "-o", "p.test"}},
		// -args and what follows it go to the test binary as they are.
		{[]string{"test", "-n", "2", ".", "-v", "-args", "-big", "-n", "3", "--", "x"}, []string{"test", "-n", "2", ".", "--", "-v", "-args", "-big", "-n", "3", "--", "x"}},
	} {
		if diff := cmp.Diff(c.want, goStyleFlags(root, c.in)); diff != "" {
			t.Errorf("goStyleFlags(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

// TestBuildNamesExecutable: svmc build without -o writes the executable
// here, named as go build names it (after the package's last path element,
// a major version skipped); -o naming a directory writes it inside. Before,
// svmc build without -o failed ("build needs -o BIN") and -o DIR failed to
// write over the directory.
func TestBuildNamesExecutable(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module example.com/tool/v2\n\ngo 1.24\n",
		"main.go": `package main

import "fmt"

func main() {
	s := 0
	//svm:pdo reduction(+: s)
	for i := range 10 {
		s += i
	}
	fmt.Println(s)
}
`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		exe  string
	}{
		{[]string{"build"}, "tool"},
		{[]string{"build", "-o", "bin", "."}, filepath.Join("bin", "tool")},
	} {
		if res := runSvmc(t, dir, c.args...); res.code != 0 {
			t.Fatalf("svmc %s: exit %d\n%s", strings.Join(c.args, " "), res.code, res.stderr)
		}
		out, err := exec.Command(filepath.Join(dir, c.exe)).CombinedOutput()
		if err != nil || string(out) != "45\n" {
			t.Errorf("svmc %s; %s: %v, output %q, want 45", strings.Join(c.args, " "), c.exe, err, out)
		}
	}
}

func TestBuildOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("tool", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, pattern, exe, want, err string }{
		{"", ".", "/w/bin/app", "app", ""},
		{"", "main.go", "/w/bin/app", "main", ""},
		{"x/", ".", "/w/bin/app", "x/app", ""},
		{"tool", ".", "/w/bin/app", "tool/app", ""},
		{"b.out", "./cmd/app", "/w/bin/app", "b.out", ""},
		{"", ".", "/w/bin/tool", "", "the executable would be tool, a directory here: name it with -o FILE"},
	} {
		got, err := buildOutput(c.out, c.pattern, c.exe)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("buildOutput(%q, %q, %q): %q, %v; want the error %q", c.out, c.pattern, c.exe, got, err, c.err)
			}
			continue
		}
		if want := filepath.Join(dir, c.want); err != nil || got != want {
			t.Errorf("buildOutput(%q, %q, %q) = %q, %v; want %q", c.out, c.pattern, c.exe, got, err, want)
		}
	}
	for elem, want := range map[string]bool{"v2": true, "v10": true, "v1": false, "v0": false, "v": false, "vx": false, "tool": false} {
		if isMajorVersion(elem) != want {
			t.Errorf("isMajorVersion(%q) = %v", elem, !want)
		}
	}
}

// TestLdflags: the linker's flags the user gives reach the link, as go
// build's: svmc build -ldflags '-X main.version=…' (one dash, as go build
// takes it), svmc run --ldflags=…, and GOFLAGS=-ldflags=…, which svmc's own
// -ldflags (its runtime's build directory) overrode without a word before
// (x601: the version stayed "dev"). svmc's own flag still applies: a
// run-time error names the line from the directory the program starts in.
func TestLdflags(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
)

var version = "dev"

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 10; i++ {
		s += i
	}
	fmt.Println(version, s)
	if len(os.Args) > 1 {
		var m map[string]int
		m["x"] = s
	}
}
`})
	bin := filepath.Join(t.TempDir(), "prog")
	if res := runSvmc(t, dir, "build", "-ldflags", "-X main.version=1.2", "-o", bin, "."); res.code != 0 {
		t.Fatalf("svmc build: %s", res.stderr)
	}
	if out, err := exec.Command(bin).Output(); err != nil || string(out) != "1.2 45\n" {
		t.Errorf("svmc build -ldflags: %q %v, want version 1.2", out, err)
	}
	if res := runSvmc(t, dir, "run", "--ldflags=-X main.version=1.5 -X main.unused=x", "-n", "2", "."); res.code != 0 || res.stdout != "1.5 45\n" {
		t.Errorf("svmc run --ldflags: exit %d, %q %s", res.code, res.stdout, res.stderr)
	}
	t.Setenv("GOFLAGS", "-ldflags=-X=main.version=1.3")
	res := runSvmc(t, dir, "run", "-n", "2", ".", "--", "crash")
	if res.stdout != "1.3 45\n" {
		t.Errorf("GOFLAGS=-ldflags: %q, want version 1.3", res.stdout)
	}
	if !strings.Contains(res.stderr, "assignment to entry in nil map\n\tat main.go:19") {
		t.Errorf("the runtime's error does not name main.go:19 from the package's directory:\n%s", res.stderr)
	}
}

// TestGoBuildFlags: a go build flag that svmc's commands that build do not
// take is said to be go build's, with the way to pass it (GOFLAGS); other
// commands' unknown flags are not; svmc build --race builds the binary
// with the race detector, as svmc run --race does (it was "unknown
// shorthand flag: 'r' in -race").
func TestGoBuildFlags(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ts := 0\n\t//svm:pdo loops(i) reduction(+: s)\n\tfor i := 0; i < 10; i++ {\n\t\ts += i\n\t}\n\tfmt.Println(s)\n}\n"})
	res := runSvmc(t, dir, "build", "-trimpath", ".")
	if want := "svmc: unknown shorthand flag: 't' in -trimpath; svmc build does not take go build's -trimpath, which GOFLAGS=-trimpath passes to the build (svmc build --help lists the flags)\n"; res.code != 2 || res.stderr != want {
		t.Errorf("svmc build -trimpath: exit %d, %q; want 2 and %q", res.code, res.stderr, want)
	}
	if res := runSvmc(t, dir, "report", "-trimpath", "t.sddf"); strings.Contains(res.stderr, "GOFLAGS") {
		t.Errorf("svmc report -trimpath speaks of the build: %q", res.stderr)
	}
	if out, _ := exec.Command("go", "env", "CGO_ENABLED").Output(); strings.TrimSpace(string(out)) != "1" {
		t.Skip("the race detector needs cgo")
	}
	bin := filepath.Join(t.TempDir(), "prog")
	if res := runSvmc(t, dir, "build", "-race", "-o", bin, "."); res.code != 0 {
		t.Fatalf("svmc build -race: exit %d\n%s", res.code, res.stderr)
	}
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil || !strings.Contains(string(info), "-race=true") {
		t.Errorf("svmc build -race: %v, build settings\n%s", err, info)
	}
	if out, err := exec.Command(bin).Output(); err != nil || string(out) != "45\n" {
		t.Errorf("the race binary: %q %v", out, err)
	}
}
