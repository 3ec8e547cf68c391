package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteResultNamesTheFile: an output that cannot be written is named
// as the user named it, not by the temporary name it is written under
// first ("open /nope/.r.txt.772196927.tmp: no such file or directory").
func TestWriteResultNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodir", "r.txt")
	err := writeResult("-o", path, nil, func(io.Writer) error { return nil })
	if err == nil || err.Error() != "-o "+path+": cannot write it: no such file or directory" {
		t.Errorf("writeResult: %v", err)
	}
}

// TestTraceWriteFails: a trace that cannot be written to its end (a full
// disk; here the file size limit, ulimit -f, which makes a write fail with
// EFBIG) is said by the trace's name, not by the partial file's the
// runtime writes under (x641: "write /mnt/small/t.sddf.28753.partial: no
// space left on device"), with what the file holds, which svmc report
// reads; one whose header cannot be written (/dev/full) is said so, and
// svmc run adds nothing about a device.
func TestTraceWriteFails(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import "fmt"

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 8; i++ {
		s += fib(22)
	}
	fmt.Println(s)
}
`})
	exe := filepath.Join(dir, "prog")
	if res := runSvmc(t, dir, "build", "-o", exe, "."); res.code != 0 {
		t.Fatalf("svmc build: %s", res.stderr)
	}
	c := exec.Command("sh", "-c", "ulimit -f 64; exec "+exe)
	c.Dir = dir
	c.Env = append(os.Environ(), "SVMC_TRACE=t.sddf", "SVMC_NPROCS=2", "SVMC_THROTTLE_CALLS=0")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if xe, ok := err.(*exec.ExitError); !ok || xe.ExitCode() != 2 || stdout.String() != "141688\n" ||
		stderr.String() != "svmc: writing the trace t.sddf failed: file too large; it holds the records written before, without the trace's end (svmc report reads them)\n" {
		t.Errorf("%v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	rep := runSvmc(t, dir, "report", "t.sddf")
	if rep.code != 0 || !strings.Contains(rep.stdout, "warning: the trace is truncated") || !strings.Contains(rep.stdout, "2 processors") {
		t.Errorf("svmc report of the cut trace: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	res := runSvmc(t, dir, "run", "-n", "2", "--trace", "/dev/full", ".")
	if res.code != 2 || res.stderr != "svmc: writing the trace /dev/full failed: no space left on device\n" {
		t.Errorf("--trace /dev/full: exit %d, stderr %q", res.code, res.stderr)
	}
}
