package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svmc/svmc/trace"
)

// traceEnd returns the status and message of a trace's trace-end, which
// must be its last record.
func traceEnd(t *testing.T, path string) (status int, msg string) {
	t.Helper()
	recs := readTrace(t, path)
	if len(recs) == 0 || recs[len(recs)-1].Desc.Name != "trace-end" {
		t.Fatalf("%s does not end with trace-end", path)
	}
	end := recs[len(recs)-1]
	return field(end, "status"), end.String("message")
}

// TestExitKeepsTrace: os.Exit, log.Fatalf inside a pdo, a Logger's Fatal
// and syscall.Exit end the program with their status and a complete
// trace, whose trace-end says where the program exited; a file that used
// os only for os.Exit still builds. (syscall.Exit, which ends the process
// at once, left x566's short run a trace of no records.)
func TestExitKeepsTrace(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go": `package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	l := log.New(os.Stderr, "app: ", 0)
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 10; i++ {
		if i == 7 && len(os.Args) > 2 {
			log.Fatalf("inside the pdo at %d", i)
		}
		s += i
	}
	fmt.Println(s)
	if len(os.Args) > 1 && os.Args[1] != "raw" {
		l.Fatal("bye")
	}
	if len(os.Args) > 1 {
		rawQuit(4)
	}
	quit(3)
}
`,
		"quit.go": `package main

import "os"

func quit(code int) { os.Exit(code) }
`,
		"raw.go": `package main

import "syscall"

func rawQuit(code int) {
	syscall.Exit(code)
}
`})
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
		at     string
	}{
		{nil, 3, "", "quit.go:5"},
		{[]string{"x"}, 1, "app: bye", "main.go:21"},
		{[]string{"x", "y"}, 1, "inside the pdo at 7", "main.go:15"},
		{[]string{"raw"}, 4, "", "raw.go:6"},
	} {
		tr := filepath.Join(dir, "t.sddf")
		res := runSvmc(t, dir, append([]string{"run", "-n", "2", "--trace", tr, ".", "--"}, c.args...)...)
		if res.code != c.code || !strings.Contains(res.stderr, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, res.code, res.stderr, c.code, c.stderr)
		}
		status, msg := traceEnd(t, tr)
		if status != 6 || !strings.Contains(msg, "os.Exit("+string(rune('0'+c.code))+") at "+c.at) {
			t.Errorf("%v: trace-end status %d %q, want 6 (exit) at %s", c.args, status, msg, c.at)
		}
	}
}

// TestLibraryExitSaysWhy: an os.Exit svmc cannot rewrite, in a module the
// program requires by version (x555: flag.Parse's, before svmc rewrote
// it; a package of the user's module is rewritten now), ends the run with
// the program's status, and svmc says what such an exit is ("exit status
// 2 without svmc's runtime ending the run" was all it said).
func TestLibraryExitSaysWhy(t *testing.T) {
	proxy := filepath.Join(t.TempDir(), "proxy")
	publish(t, proxy, "example.com/check", "v1.0.0", map[string]string{"go.mod": "module example.com/check\n\ngo 1.24\n", "check.go": `package check

import (
	"fmt"
	"os"
)

// Args ends the program with status 2 on an argument it does not know.
func Args(args []string) {
	for _, a := range args {
		if a != "ok" {
			fmt.Fprintln(os.Stderr, "unknown argument", a)
			os.Exit(2)
		}
	}
}
`})
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", filepath.Join(t.TempDir(), "modcache"))
	t.Setenv("GOFLAGS", "-modcacherw") // the test's cleanup removes the cache
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"

	"example.com/check"
)

func main() {
	xs := make([]int, len(os.Args[1:]))
	//svm:pdo loops(i)
	for i := range xs {
		xs[i] = i
	}
	check.Args(os.Args[1:])
	fmt.Println(xs)
}
`})
	get := exec.Command("go", "get", "example.com/check@v1.0.0")
	get.Dir = dir
	if out, err := get.CombinedOutput(); err != nil {
		t.Fatalf("go get: %v\n%s", err, out)
	}
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".", "--", "-bogus")
	if res.code != 2 || !strings.Contains(res.stderr, "unknown argument -bogus") ||
		!strings.Contains(res.stderr, "(exit status 2: os.Exit was called in code svmc does not rewrite, such as a dependency's, so svmc's runtime did not end the run): ") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
	// With GOTRACEBACK set no filter reads the program's standard error,
	// so status 2 may also be a crash Go reported there.
	cmd := exec.Command(svmcBin, "run", "-n", "2", "--trace", tr, ".", "--", "-bogus")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOTRACEBACK=all")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "(exit status 2: a crash the Go runtime reported above, or os.Exit in code svmc does not rewrite") {
		t.Errorf("GOTRACEBACK=all: %s", out)
	}
}

// TestFlagExitKeepsTrace: flag's exits, after -h (status 0) and after a
// flag the program does not define (status 2), of flag.Parse and of a
// subcommand's FlagSet made with flag.ExitOnError, go through the runtime,
// so that the trace is complete (x634: "svmc run . -- -h" left a trace
// without its end); a FlagSet that returns its errors still returns them.
func TestFlagExitKeepsTrace(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

func main() {
	n := flag.Int("n", 4, "size")
	flag.Parse()
	if flag.Arg(0) == "serve" {
		fs := flag.NewFlagSet("serve", flag.ExitOnError)
		port := fs.Int("port", 80, "port")
		fs.Parse(flag.Args()[1:])
		*n = *port
	}
	if flag.Arg(0) == "quiet" {
		fs := flag.NewFlagSet("quiet", flag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		if err := fs.Parse(flag.Args()[1:]); err != nil {
			fmt.Println("returned:", errors.Is(err, flag.ErrHelp), err)
		}
	}
	xs := make([]int, *n)
	//svm:pdo loops(i)
	for i := range xs {
		xs[i] = i
	}
	fmt.Println(len(xs))
}
`})
	for _, c := range []struct {
		args           []string
		code, status   int
		stdout, stderr string
		at             string
	}{
		{[]string{"-h"}, 0, 0, "", "Usage of ", "main.go:12"},
		{[]string{"-bogus"}, 2, 6, "", "flag provided but not defined: -bogus", "main.go:12"},
		{[]string{"serve", "-port", "x"}, 2, 6, "", `invalid value "x" for flag -port`, "main.go:16"},
		{[]string{"serve", "-help"}, 0, 0, "", "Usage of serve:", "main.go:16"},
		{[]string{"serve", "-port", "3"}, 0, 0, "3\n", "", ""},
		{[]string{"quiet", "-h"}, 0, 0, "returned: true flag: help requested\n4\n", "", ""},
	} {
		tr := filepath.Join(dir, "t.sddf")
		res := runSvmc(t, dir, append([]string{"run", "-n", "2", "--trace", tr, ".", "--"}, c.args...)...)
		if res.code != c.code || res.stdout != c.stdout || !strings.Contains(res.stderr, c.stderr) || strings.Contains(res.stderr, "svmc:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q and %q", c.args, res.code, res.stdout, res.stderr, c.code, c.stdout, c.stderr)
		}
		status, msg := traceEnd(t, tr)
		if status != c.status || c.at != "" && !strings.Contains(msg, fmt.Sprintf("os.Exit(%d) at %s", c.code, c.at)) {
			t.Errorf("%v: trace-end status %d %q, want %d at %s", c.args, status, msg, c.status, c.at)
		}
	}
}

// TestExitsInPackagesWithoutDirectives: a package of the module without
// directives that calls log.Fatalf, or flag.Parse (which exits after -h),
// is compiled for those calls alone (x648: svmc did not compile it, and
// its exits cut the trace off): they end the run through the runtime,
// naming their line, while its functions stay plain — no region of theirs
// in the trace.
func TestExitsInPackagesWithoutDirectives(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"

	"example.com/user/internal/cfg"
)

func main() {
	cfg.Parse()
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 100; i++ {
		s += i
	}
	fmt.Println(s)
	ws := cfg.Load("words.txt")
	fmt.Println(len(ws), cfg.Short(ws))
}
`, "internal/cfg/cfg.go": `package cfg

import (
	"flag"
	"log"
	"os"
	"strings"
)

var verbose = flag.Bool("v", false, "verbose")

// Parse parses the command line.
func Parse() { flag.Parse() }

// Load reads the words of a file.
func Load(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatalf("cfg: %v", err)
	}
	if *verbose {
		log.Printf("read %s", path)
	}
	return svm_words(string(data))
}

// Short counts the words of fewer than 4 letters.
func Short(ws []string) int {
	n := 0
	for _, w := range ws {
		if len(w) < 4 {
			n++
		}
	}
	return n
}

// svm_words: a name with svmc's prefix, which a package svmc compiles for
// its exits alone may use as before (it generates no such name there).
func svm_words(s string) []string { return strings.Fields(s) }

var svm_calls int
`})
	tr := filepath.Join(dir, "t.sddf")
	for _, c := range []struct {
		args         []string
		code, status int
		stderr, at   string
	}{
		{nil, 1, 6, "cfg: open words.txt: no such file or directory", "os.Exit(1) at internal/cfg/cfg.go:19"},
		{[]string{"-h"}, 0, 0, "Usage of ", "os.Exit(0) at internal/cfg/cfg.go:13"},
	} {
		res := runSvmc(t, dir, append([]string{"run", "-n", "2", "--trace", tr, "."}, append([]string{"--"}, c.args...)...)...)
		if res.code != c.code || !strings.Contains(res.stderr, c.stderr) || strings.Contains(res.stderr, "svmc:") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, res.code, res.stderr, c.code, c.stderr)
		}
		if status, msg := traceEnd(t, tr); status != c.status || !strings.Contains(msg, c.at) {
			t.Errorf("%v: trace-end status %d %q; want %d at %s", c.args, status, msg, c.status, c.at)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "words.txt"), []byte("a bb ccc dddd eeeee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 0 || res.stdout != "4950\n5 3\n" {
		t.Fatalf("exit %d, %q %q", res.code, res.stdout, res.stderr)
	}
	if rep := runSvmc(t, dir, "report", tr); rep.code != 0 || strings.Contains(rep.stdout, "Short") || strings.Contains(rep.stdout, "Load") {
		t.Errorf("the plain functions of cfg have regions in the trace:\n%s", rep.stdout)
	}
}

// TestOrdinaryGo: the smoke program of ordinary Go (sort.Interface methods
// called by the standard library, a function value, goroutines, os.Exit(0)
// at the end) prints what go run prints, and its trace ends normally.
func TestOrdinaryGo(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": ordinaryMain})
	goRun := exec.Command("go", "run", ".")
	goRun.Dir = dir
	want, err := goRun.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 0 || res.stdout != string(want) {
		t.Errorf("exit %d, stdout %q, want %q\n%s", res.code, res.stdout, want, res.stderr)
	}
	if status, msg := traceEnd(t, tr); status != 0 || !strings.Contains(msg, "os.Exit(0)") {
		t.Errorf("trace-end %d %q", status, msg)
	}
	// os.Exit ends the regions open where it is called: the report has no
	// warning about regions left open.
	if rep := runSvmc(t, dir, "report", tr); rep.code != 0 || strings.Contains(rep.stdout, "still open") {
		t.Errorf("report: exit %d\n%s", rep.code, rep.stdout)
	}
}

// TestPDOInGoroutines: two goroutines the program starts each run a pdo
// with a reduction: each gets its own sum (they used to share processor
// 0's team), and the runtime says once that the pdo runs serially there.
func TestPDOInGoroutines(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"sync"
)

func main() {
	sums := make([]int, 2)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := 0
			//svm:pdo loops(i) reduction(+: s)
			for i := 0; i < 100*(g+1); i++ {
				s++
			}
			sums[g] = s
		}()
	}
	wg.Wait()
	fmt.Println(sums)
}
`})
	for _, n := range []string{"1", "2", "4"} {
		res := runSvmc(t, dir, "run", "-n", n, ".")
		if res.code != 0 || res.stdout != "[100 200]\n" {
			t.Errorf("-n %s: exit %d, stdout %q\n%s", n, res.code, res.stdout, res.stderr)
		}
		// On one processor the pdo runs as it would on the processor:
		// no note (the compiler's warning stays).
		want := 1
		if n == "1" {
			want = 0
		}
		if strings.Count(res.stderr, "main.go:16:4: pdo runs all its iterations on this goroutine") != want {
			t.Errorf("-n %s: stderr %q, want %d notes that the pdo runs serially", n, res.stderr, want)
		}
	}
}

const ordinaryMain = `// Ordinary Go around one parallel loop.
package main

import (
	"fmt"
	"os"
	"sort"
	"sync"
)

type byVal []int

func (b byVal) Len() int           { return len(b) }
func (b byVal) Less(i, j int) bool { return b[i] < b[j] }
func (b byVal) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func twice(x int) int { return 2 * x }

func main() {
	a := make([]int, 20000)
	x := 1
	for i := range a {
		x = (x*1103515245 + 12345) & 0x7fffffff
		a[i] = x % 1000
	}
	sort.Sort(byVal(a))
	f := twice
	var wg sync.WaitGroup
	part := make([]int, 2)
	for g := range part {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				part[g] += f(i)
			}
		}()
	}
	wg.Wait()
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < len(a); i++ {
		s += a[i]
	}
	fmt.Fprintln(os.Stderr, "sorted:", sort.IsSorted(byVal(a)))
	fmt.Println("sum", s, "parts", part[0]+part[1])
	os.Exit(0)
}
`

// TestBuild: svmc build writes a binary of the instrumented program that
// reads its run-time parameters itself.
func TestBuild(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import "fmt"

func main() {
	total := 0
	//svm:pdo loops(i) reduction(+: total)
	for i := 1; i <= 100; i++ {
		total += i
	}
	fmt.Println(total)
}
`})
	bin := filepath.Join(t.TempDir(), "prog")
	if res := runSvmc(t, dir, "build", "-o", bin, "."); res.code != 0 {
		t.Fatalf("svmc build: exit %d\n%s", res.code, res.stderr)
	}
	tr := filepath.Join(t.TempDir(), "t.sddf")
	cmd := exec.Command(bin)
	cmd.Env = append(cmd.Environ(), "SVMC_NPROCS=3", "SVMC_TRACE="+tr)
	out, err := cmd.Output()
	if err != nil || string(out) != "5050\n" {
		t.Fatalf("the binary: %v, %q", err, out)
	}
	if status, _ := traceEnd(t, tr); status != 0 {
		t.Errorf("trace-end status %d", status)
	}
	// Without -o, as go build: here, named after the package (module
	// example.com/user).
	if res := runSvmc(t, dir, "build", "."); res.code != 0 {
		t.Fatalf("build without -o: exit %d, %q", res.code, res.stderr)
	}
	if out, err := exec.Command(filepath.Join(dir, "user")).Output(); err != nil || string(out) != "5050\n" {
		t.Errorf("the binary of svmc build without -o: %v, %q", err, out)
	}
}

// TestCompileOutput: svmc compile refuses to write over the package's own
// sources, and removes the files it generated earlier for a source file
// that is gone, leaving other files alone.
func TestCompileOutput(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go":   "package main\n\nfunc main() { helper() }\n",
		"helper.go": "package main\n\nfunc helper() {}\n",
	})
	if res := runSvmc(t, dir, "compile", "-o", ".", "."); res.code == 0 || !strings.Contains(res.stderr, "directory of the package's own sources") {
		t.Errorf("compile -o .: exit %d, %q", res.code, res.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); !strings.HasPrefix(string(data), "package main") {
		t.Fatalf("the source was replaced: %q", data)
	}
	if res := runSvmc(t, dir, "compile", "-o", "svm", "."); res.code != 0 {
		t.Fatalf("compile: %d %s", res.code, res.stderr)
	}
	os.WriteFile(filepath.Join(dir, "svm", "notes.go"), []byte("package main\n"), 0o644)
	os.Remove(filepath.Join(dir, "helper.go"))
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	if res := runSvmc(t, dir, "compile", "-o", "svm", "."); res.code != 0 {
		t.Fatalf("compile again: %d %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "svm", "helper.go")); !os.IsNotExist(err) {
		t.Error("the generated helper.go of the deleted source is still there")
	}
	if _, err := os.Stat(filepath.Join(dir, "svm", "notes.go")); err != nil {
		t.Error("a file svmc did not generate was removed")
	}
}

// TestGoGenerateTwice: a //go:generate line that runs svmc compile is made
// inert in the generated copy, so go generate ./... works again after the
// first run (it used to run svmc on the generated package too).
func TestGoGenerateTwice(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": "package main\n\n//go:generate " + svmcBin + " compile -o ./svm .\n\nfunc main() {\n\ts := 0\n\t//svm:pdo loops(i) reduction(+: s)\n\tfor i := range 10 {\n\t\ts += i\n\t}\n\tprintln(s)\n}\n"})
	for round := 1; round <= 2; round++ {
		cmd := exec.Command("go", "generate", "./...")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go generate, round %d: %v\n%s", round, err, out)
		}
	}
	gen, err := os.ReadFile(filepath.Join(dir, "svm", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gen), "\n//go:generate") {
		t.Errorf("the generated copy still has an active //go:generate line:\n%s", gen)
	}
}

// TestByteOrderMark: a source file may begin with a byte-order mark (go
// accepts it; gofmt would remove it, so the file is written here rather
// than kept in the repository); the instrumented copy must not carry it
// after its header.
func TestByteOrderMark(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": "\uFEFFpackage main\n\nimport \"fmt\"\n\nfunc main() {\n\ts := 0\n\t//svm:pdo loops(i) reduction(+: s)\n\tfor i := 0; i < 100; i++ {\n\t\ts += i\n\t}\n\tfmt.Println(s)\n}\n"})
	res := runSvmc(t, dir, "run", "-n", "2", ".")
	if res.code != 0 || res.stdout != "4950\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

// --tags chooses the files as go build -tags does, for what svmc compiles
// and what it builds alike: a file behind a build tag with a pdo of its
// own is compiled with the tag and left out without it.
func TestBuildTags(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go": `package main

import "fmt"

func main() {
	fmt.Println(mode, total(8))
}
`,
		"plain.go": `//go:build !fast

package main

const mode = "plain"

func total(n int) int {
	s := 0
	for i := range n {
		s += i
	}
	return s
}
`,
		"fast.go": `//go:build fast

package main

const mode = "fast"

func total(n int) int {
	s := 0
	//svm:pdo reduction(+: s)
	for i := range n {
		s += i * 10
	}
	return s
}
`,
	})
	if res := runSvmc(t, dir, "run", "-n", "2", "--tags", "fast", "."); res.code != 0 || res.stdout != "fast 280\n" {
		t.Errorf("svmc run --tags fast: exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
	}
	if res := runSvmc(t, dir, "run", "-n", "2", "."); res.code != 0 || res.stdout != "plain 28\n" {
		t.Errorf("svmc run: exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
	}
	bin := filepath.Join(t.TempDir(), "prog")
	if res := runSvmc(t, dir, "build", "--tags", "fast", "-o", bin, "."); res.code != 0 {
		t.Fatalf("svmc build --tags fast: exit %d\n%s", res.code, res.stderr)
	}
	if out, err := exec.Command(bin).Output(); err != nil || string(out) != "fast 280\n" {
		t.Errorf("the built program: %q, %v", out, err)
	}
}

// svmc run takes a package as the go command does: its directory, one of
// its Go files (go run main.go; svmc runs the whole package and says so)
// or its import path.
func TestPackageArguments(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"cmd/app/main.go": `package main

import "fmt"

func main() {
	s := 0
	//svm:pdo reduction(+: s)
	for i := range 10 {
		s += sq(i)
	}
	fmt.Println(s)
}
`,
		"cmd/app/sq.go": "package main\n\nfunc sq(x int) int { return x * x }\n",
		"lib/lib.go":    "package lib\n\nfunc Sq(x int) int { return x * x }\n",
	})
	for _, c := range []struct {
		arg, note string
	}{
		{"./cmd/app", ""},
		{"cmd/app/main.go", "svmc: cmd/app/main.go is one file of the package in cmd/app: svmc compiles the whole package, not that file alone"},
		{"example.com/user/cmd/app", ""},
	} {
		res := runSvmc(t, dir, "run", "-n", "2", c.arg)
		if res.code != 0 || res.stdout != "285\n" || !strings.Contains(res.stderr, c.note) {
			t.Errorf("svmc run %s: exit %d, stdout %q\n%s", c.arg, res.code, res.stdout, res.stderr)
		}
	}
	if res := runSvmc(t, dir, "run", "go.mod"); res.code == 0 || !strings.Contains(res.stderr, "go.mod: svmc takes the directory of a package main, one of its Go files or its import path") {
		t.Errorf("svmc run go.mod: exit %d\n%s", res.code, res.stderr)
	}
	// A library is named as the user named it (it was ".").
	if res := runSvmc(t, dir, "run", "./lib"); res.code == 0 || !strings.Contains(res.stderr, "svmc: ./lib is package lib; svmc compiles programs (package main): a program that imports it compiles it with its own code, and svmc vet ./lib checks its directives\n") {
		t.Errorf("svmc run ./lib: exit %d\n%s", res.code, res.stderr)
	}
}

// A program that handles SIGINT itself (signal.NotifyContext, a graceful
// shutdown) ends as it decides, with a complete trace that ends normally;
// svmc's runtime stopped it as "interrupted (SIGINT)" before, and its
// shutdown never ran. (One that does not handle it is still stopped with
// its trace: rtlib's TestInterruptMidLoop.)
func TestProgramHandlesSignal(t *testing.T) {
	checkGracefulShutdown(t, writeModule(t, map[string]string{"main.go": gracefulProgram}))
	// The same with signal.NotifyContext in a package of the module that
	// holds no directive (x647: svmc did not compile it, the runtime never
	// learnt that the program handles SIGINT, and stopped the run itself:
	// status 130, "svmc: interrupted (SIGINT)", after the program's line).
	inPackage := strings.NewReplacer(
		"\t\"context\"\n", "",
		"\t\"os\"\n\t\"os/signal\"\n\t\"time\"\n", "\t\"time\"\n\n\t\"example.com/user/shutdown\"\n",
		"signal.NotifyContext(context.Background(), os.Interrupt)", "shutdown.OnInterrupt()",
	).Replace(gracefulProgram)
	checkGracefulShutdown(t, writeModule(t, map[string]string{"main.go": inPackage, "shutdown/shutdown.go": `package shutdown

import (
	"context"
	"os"
	"os/signal"
)

// OnInterrupt is a context that SIGINT cancels.
func OnInterrupt() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}
`}))
}

// gracefulProgram runs pdos until SIGINT, then says so and exits 0.
const gracefulProgram = `package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for k := 0; ctx.Err() == nil; k++ {
		s := 0
		//svm:pdo reduction(+: s)
		for i := range 100 {
			s += i
		}
		if k == 20 {
			fmt.Println("ready")
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Println("graceful shutdown")
}
`

// checkGracefulShutdown runs the program of dir, which prints "ready" and
// on SIGINT "graceful shutdown", built and under svmc run.
func checkGracefulShutdown(t *testing.T, dir string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "prog")
	if res := runSvmc(t, dir, "build", "-o", bin, "."); res.code != 0 {
		t.Fatalf("svmc build: %s", res.stderr)
	}
	tr := filepath.Join(t.TempDir(), "t.sddf")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "SVMC_NPROCS=2", "SVMC_TRACE="+tr)
	rd, _, stderr := startReady(t, cmd, "ready\n")
	cmd.Process.Signal(os.Interrupt)
	rest, _ := io.ReadAll(rd)
	err := cmd.Wait()
	if err != nil || string(rest) != "graceful shutdown\n" || stderr.Len() != 0 {
		t.Fatalf("exit %v, stdout %q, stderr %q", err, rest, stderr.String())
	}
	if status, msg := traceEnd(t, tr); status != 0 {
		t.Errorf("trace-end status %d %q, want 0", status, msg)
	}

	// SIGINT sent to svmc run alone (a script, an editor's stop button,
	// kill -INT; no terminal's Ctrl-C reaching the program too) is passed
	// on: the program ran on for ever before.
	tr2 := filepath.Join(t.TempDir(), "t2.sddf")
	run, rd2, runErr := signalledRun(t, dir, tr2, os.Interrupt)
	rest2, _ := io.ReadAll(rd2)
	if err := run.Wait(); err != nil || string(rest2) != "graceful shutdown\n" {
		t.Fatalf("svmc run interrupted: exit %v, stdout %q, stderr %q", err, rest2, runErr.String())
	}
	if status, msg := traceEnd(t, tr2); status != 0 {
		t.Errorf("svmc run interrupted: trace-end status %d %q, want 0", status, msg)
	}
}

// TestQuitDumpsProgram: SIGQUIT sent to svmc run (kill -QUIT; a terminal's
// Ctrl-\ reaches both) gives the program's goroutine dump, as under go run,
// not svmc's own; svmc says the program quit on it, and the trace the
// program wrote is under its name. Before, svmc printed the stacks of its
// own goroutines (x590). SIGQUIT while svmc works alone (here svmc report
// reading a pipe that stays open) stops it with a line, as the go command
// stops, instead of a dump of svmc's goroutines.
func TestQuitDumpsProgram(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import "fmt"

func spin(k int) int {
	s := 0
	//svm:pdo reduction(+: s)
	for i := range 1000 {
		s += i * k
	}
	return s
}

func main() {
	for k := 0; spin(k) >= 0; k++ {
		if k == 100 {
			fmt.Println("ready")
		}
	}
}
`})
	tr := filepath.Join(t.TempDir(), "t.sddf")
	run, rd, stderr := signalledRun(t, dir, tr, syscall.SIGQUIT)
	io.Copy(io.Discard, rd)
	err := run.Wait()
	out := stderr.String()
	var xe *exec.ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != 2 {
		t.Errorf("svmc run: %v, want exit status 2", err)
	}
	if !strings.Contains(out, "SIGQUIT: quit\n") || !regexp.MustCompile(`\n\tmain\.go:\d+ `).MatchString(out) {
		t.Errorf("no goroutine dump of the program:\n%s", out)
	}
	if strings.Contains(out, "runForwarding") || strings.Contains(out, "cobra") {
		t.Errorf("svmc's own goroutines in the dump:\n%s", out)
	}
	if want := "svmc: the program ended without completing its trace (it quit on SIGQUIT, after Go printed every goroutine's stack above): " + tr; !strings.Contains(out, want) {
		t.Errorf("stderr ends\n%s\nwant %q", out[max(0, len(out)-600):], want)
	}
	if _, err := os.Stat(tr); err != nil {
		t.Errorf("no trace: %v", err)
	}

	rep := exec.Command(svmcBin, "report", "-")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	rep.Stdin = pr
	var repErr strings.Builder
	rep.Stderr = &repErr
	if err := rep.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	waitIdle(t, rep.Process.Pid) // started, and reading standard input
	rep.Process.Signal(syscall.SIGQUIT)
	err = rep.Wait()
	if !errors.As(err, &xe) || xe.ExitCode() != 128+3 || repErr.String() != "svmc: stopped by SIGQUIT\n" {
		t.Errorf("svmc report: %v, stderr %q; want exit status 131 and one line", err, repErr.String())
	}
}

// TestClosedOutputPipe: a program whose standard output is a pipe that its
// reader closes (svmc run … | head) ends as plain Go ends it, with status
// 141 (128 + SIGPIPE) and nothing on stderr, but with its trace complete:
// it died by SIGPIPE with the trace unwritten before. Both a loop of pdos
// and serial code that only prints stop at their next write.
func TestClosedOutputPipe(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 {
		for k := 0; ; k++ {
			fmt.Println("y", k)
		}
	}
	for k := 0; k < 1000000; k++ {
		s := 0
		//svm:pdo reduction(+: s)
		for i := range 100 {
			s += i * k
		}
		fmt.Println(k, s)
	}
}
`})
	bin := filepath.Join(t.TempDir(), "prog")
	if res := runSvmc(t, dir, "build", "-o", bin, "."); res.code != 0 {
		t.Fatalf("svmc build: %s", res.stderr)
	}
	for _, args := range [][]string{nil, {"serial"}} {
		tr := filepath.Join(t.TempDir(), "t.sddf")
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "SVMC_NPROCS=2", "SVMC_TRACE="+tr)
		rd, out, stderr := startReady(t, cmd, "")
		if _, err := rd.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		out.Close() // the reader goes, as head does
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		var xe *exec.ExitError
		if !errors.As(err, &xe) || xe.ExitCode() != 141 || stderr.Len() != 0 {
			t.Fatalf("%v: exit %v, stderr %q; want status 141 and nothing on stderr", args, err, stderr.String())
		}
		if status, msg := traceEnd(t, tr); status != trace.EndInterrupt || !strings.Contains(msg, "SIGPIPE") {
			t.Errorf("%v: trace-end status %d %q, want interrupt (4) by SIGPIPE", args, status, msg)
		}
	}
}

// waitIdle waits until process pid has used no CPU for 0.3 s: it has
// started (a loaded machine may take longer than any fixed sleep) and
// waits for input. Without /proc it waits a second.
func waitIdle(t *testing.T, pid int) {
	t.Helper()
	last, still := "", 0
	for deadline := time.Now().Add(30 * time.Second); still < 3 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			time.Sleep(time.Second)
			return
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if cpu := f[11] + " " + f[12]; cpu == last { // utime, stime
			still++
		} else {
			last, still = cpu, 0
		}
	}
}

// signalledRun starts svmc run -n 2 --trace tr of the program in dir,
// waits for its first line, "ready", and sends svmc sig; the run is
// killed if it has not ended a minute later.
func signalledRun(t *testing.T, dir, tr string, sig os.Signal) (*exec.Cmd, *bufio.Reader, *strings.Builder) {
	t.Helper()
	run := exec.Command(svmcBin, "run", "-n", "2", "--trace", tr, ".")
	run.Dir = dir
	rd, _, stderr := startReady(t, run, "ready\n")
	run.Process.Signal(sig)
	timer := time.AfterFunc(60*time.Second, func() { run.Process.Kill() })
	t.Cleanup(func() { timer.Stop() })
	return run, rd, stderr
}

// startReady starts cmd with its standard output on a pipe and its
// standard error collected, and returns once it printed its first line,
// which must be want unless want is "".
func startReady(t *testing.T, cmd *exec.Cmd, want string) (*bufio.Reader, io.ReadCloser, *strings.Builder) {
	t.Helper()
	stderr := new(strings.Builder)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(out)
	line, err := rd.ReadString('\n')
	if err != nil || want != "" && line != want {
		cmd.Process.Kill()
		t.Fatalf("%s: first line %q %v\n%s", cmd.Path, line, err, stderr.String())
	}
	return rd, out, stderr
}

// TestChdirKeepsTrace: a program that changes its directory still leaves
// its trace under the relative name it was given, in the directory it
// started in (the rename of the partial trace failed, and the trace was
// lost, with exit status 2).
func TestChdirKeepsTrace(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
)

func main() {
	away, err := os.MkdirTemp("", "away")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(away)
	if err := os.Chdir(away); err != nil {
		panic(err)
	}
	s := 0
	//svm:pdo reduction(+: s)
	for i := range 100 {
		s += i
	}
	fmt.Println(s)
}
`})
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", "t.sddf", ".")
	if res.code != 0 || strings.TrimSpace(res.stdout) != "4950" {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if status, msg := traceEnd(t, filepath.Join(dir, "t.sddf")); status != trace.EndNormal {
		t.Errorf("trace-end status %d %q", status, msg)
	}
}
