package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// initPanicProg panics while its packages are initialised when LIMIT is
// not a number (line 19, in mustAtoi's line 14), and its library conf
// (compiled with it: it holds a pdo) panics in its init function
// (conf.go:8) when MODE is "bad". The init
// function of main prints: it must not run after a panic, as it does
// not in the plain program.
var initPanicProg = map[string]string{
	"main.go": `package main

import (
	"fmt"
	"os"
	"strconv"

	"example.com/user/conf"
)

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("bad limit %q", s))
	}
	return n
}

var limit = mustAtoi(os.Getenv("LIMIT"))
var q, r = divmod(limit, 3)

func divmod(a, b int) (int, int) { return a / b, a % b }

func init() {
	fmt.Println("init sees", limit, conf.Mode)
}

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < limit; i++ {
		s += i
	}
	fmt.Println(s, q, r)
}
`,
	"conf/conf.go": `package conf

import "os"

// Mode is the mode the program runs in.
var Mode = os.Getenv("MODE")

func init() {
	if Mode == "bad" {
		panic("bad mode")
	}
}

// Scale multiplies xs by k.
func Scale(xs []float64, k float64) {
	//svm:pdo loops(i)
	for i := range xs {
		xs[i] *= k
	}
}
`,
}

// TestInitPanic: a panic while the program's packages are initialised
// (a variable's initialiser, a library's init function) ends the run as a
// panic of processor 0 does: exit status 2, a message naming the
// initialiser and the line that panicked, no Go stack, and a complete
// trace whose report says so; no init function runs after it. Before,
// Go's panic and stack were printed with the instrumented names
// (main.svm_mustAtoi) and no trace was written.
func TestInitPanic(t *testing.T) {
	dir := writeModule(t, initPanicProg)
	t.Setenv("LIMIT", "10")
	t.Setenv("MODE", "fast")
	if res := runSvmc(t, dir, "run", "-n", "2", "."); res.code != 0 || res.stdout != "init sees 10 fast\n45 3 1\n" {
		t.Fatalf("a run without a panic: exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
	for _, c := range []struct {
		limit, mode string
		want        []string
	}{
		{"ten", "fast", []string{"processor 0 panicked while the program's packages were initialised (main.go:19), before main: bad limit \"ten\"", "at main.go:14"}},
		{"10", "bad", []string{"processor 0 panicked while the program's packages were initialised (conf/conf.go:8), before main: bad mode", "at conf/conf.go:10"}},
	} {
		t.Setenv("LIMIT", c.limit)
		t.Setenv("MODE", c.mode)
		tr := filepath.Join(t.TempDir(), "t.sddf")
		res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
		if res.code != 2 || res.stdout != "" {
			t.Errorf("LIMIT=%s MODE=%s: exit %d, stdout %q (want 2 and nothing: no init function runs after the panic)", c.limit, c.mode, res.code, res.stdout)
		}
		for _, w := range c.want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("LIMIT=%s MODE=%s: stderr %q does not say %q", c.limit, c.mode, res.stderr, w)
			}
		}
		if strings.Contains(res.stderr, "goroutine 1") || strings.Contains(res.stderr, "svm_") {
			t.Errorf("LIMIT=%s MODE=%s: a Go stack or generated names on stderr:\n%s", c.limit, c.mode, res.stderr)
		}
		if _, err := os.Stat(tr); err != nil {
			t.Fatalf("LIMIT=%s MODE=%s: no trace: %v", c.limit, c.mode, err)
		}
		if rep := runSvmc(t, dir, "report", tr); !strings.Contains(rep.stdout, "the run ended abnormally (panic): "+c.want[0]) {
			t.Errorf("LIMIT=%s MODE=%s: the report does not name the panic:\n%s%s", c.limit, c.mode, rep.stdout, rep.stderr)
		}
	}
}
