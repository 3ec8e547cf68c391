package rtlib

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGenericInstances: a package that refers to Proc and Iter, as every
// instrumented package does, compiles no method of an instance of a
// generic type of the runtime's. The Go compiler compiles the methods of
// every generic instance reachable from a type a package refers to again
// in that package: with sync/atomic.Pointer and sync.Map fields in the
// runtime's structures, a ten-line main compiled some 250 such functions
// (about 100 ms of every svmc build). ptrs.go says what replaced them;
// os.File's own atomic.Pointer, which the standard library holds, is
// allowed.
func TestGenericInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	out, err := exec.Command("go", "build", "-gcflags=github.com/svmc/svmc/rtlib/testdata/instances=-S", "-o", os.DevNull, "./testdata/instances").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var funcs, generic []string
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, " STEXT") || strings.HasPrefix(line, "\t") {
			continue
		}
		name, _, _ := strings.Cut(line, " STEXT")
		funcs = append(funcs, name)
		if (strings.Contains(name, "sync/atomic.(*Pointer[") || strings.Contains(name, "internal/sync.")) && !strings.Contains(name, "os.dirInfo") && !strings.Contains(name, "go.shape.struct { os.") {
			generic = append(generic, name)
		}
	}
	if len(funcs) == 0 {
		t.Fatalf("no function in the compiler's listing:\n%s", out)
	}
	if len(generic) > 0 {
		t.Errorf("the program compiled %d methods of generic instances the runtime's types reach (of %d functions), e.g. %s", len(generic), len(funcs), generic[0])
	}
	t.Logf("%d functions compiled", len(funcs))
}
