package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// svmcPipe runs svmc with stdin and returns its stdout; it fails the test
// on a non-zero exit.
func svmcPipe(t *testing.T, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(svmcBin, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("svmc %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// TestPipes: "-" is standard input and standard output, as Go tools have
// it: `svmc trace convert --to ascii a.sddf - | svmc trace convert --to
// binary - - | svmc report -` gives the report of a.sddf, and view and
// export write to standard output with -o -. Before, -o - wrote a file
// named "-" and report - failed with "empty input". Also svmc --version
// and --nprocs, the long name of -n.
func TestPipes(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	t.Setenv("MODE", "quick")
	tr := filepath.Join(dir, "a.sddf")
	if res := runSvmc(t, dir, "run", "--nprocs", "2", "--trace", tr, "."); res.code != 0 {
		t.Fatalf("run --nprocs: %d %s", res.code, res.stderr)
	}
	ascii := svmcPipe(t, dir, nil, "trace", "convert", "--to", "ascii", "a.sddf", "-")
	if !bytes.HasPrefix(ascii, []byte("SDDFA")) {
		t.Fatalf("convert to -: %.20q", ascii)
	}
	binary := svmcPipe(t, dir, ascii, "trace", "convert", "--to", "binary", "-", "-")
	orig, _ := os.ReadFile(tr)
	if !bytes.Equal(binary, orig) {
		t.Errorf("ascii and back through pipes: %d bytes, the trace has %d", len(binary), len(orig))
	}
	rep := string(svmcPipe(t, dir, binary, "report", "-"))
	want := string(svmcPipe(t, dir, nil, "report", "a.sddf"))
	if rep != strings.Replace(want, "svmc report: a.sddf", "svmc report: standard input", 1) {
		t.Errorf("report - differs from report a.sddf:\n%s\nwant\n%s", rep, want)
	}
	if page := svmcPipe(t, dir, orig, "view", "-"); !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) {
		t.Errorf("view -: %.30q", page)
	}
	if js := svmcPipe(t, dir, nil, "export", "--format", "chrome", "a.sddf", "-o", "-"); !bytes.HasPrefix(js, []byte(`{"traceEvents":[`)) {
		t.Errorf("export -o -: %.30q", js)
	}
	// -o NAME.gz: the same JSON, gzip-compressed.
	svmcPipe(t, dir, nil, "export", "--format", "chrome", "a.sddf", "-o", "a.json.gz")
	plain := svmcPipe(t, dir, nil, "export", "--format", "chrome", "a.sddf", "-o", "-")
	if gz, err := os.Open(filepath.Join(dir, "a.json.gz")); err != nil {
		t.Error(err)
	} else if zr, err := gzip.NewReader(gz); err != nil {
		t.Errorf("a.json.gz: %v", err)
	} else if js, err := io.ReadAll(zr); err != nil || !bytes.Equal(js, plain) || !json.Valid(js) {
		t.Errorf("a.json.gz: %d bytes, %v; want the %d bytes of -o -", len(js), err, len(plain))
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error("a file named - was written")
	}
	if v := string(svmcPipe(t, dir, nil, "--version")); !strings.HasPrefix(v, "svmc version ") {
		t.Errorf("--version: %q", v)
	}
}

// TestTruncatedTrace: a trace cut in the middle of a record (a run killed
// while writing, a copy cut short) is reported up to the damage with a
// warning that names its offset, in both orders; damage of another kind
// stays an error (TestHostileFixtures). Before, report refused it.
func TestTruncatedTrace(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	t.Setenv("MODE", "suicide")
	tr := filepath.Join(dir, "a.sddf")
	runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".") // killed: no trace-end
	data, err := os.ReadFile(tr)
	if err != nil || len(data) < 1000 {
		t.Fatalf("trace of the killed run: %d bytes, %v", len(data), err)
	}
	cut := filepath.Join(dir, "cut.sddf")
	os.WriteFile(cut, data[:len(data)-7], 0o644)
	for _, args := range [][]string{{"report", cut}, {"report", "--file-order", cut}} {
		res := runSvmc(t, dir, args...)
		if res.code != 0 || !strings.Contains(res.stdout, "warning: the trace is truncated (trace: "+cut+": byte offset ") ||
			!strings.Contains(res.stdout, "records before the damage") {
			t.Errorf("svmc %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
		}
	}
}

// TestCompletion: shells complete the values of the flags that have a
// fixed set (svmc completion bash|zsh|fish).
func TestCompletion(t *testing.T) {
	for args, want := range map[string]string{
		"run --stage":     "0\n1\n2\n3\n4\n5\n6\n",
		"report --format": "text\njson\nhtml\n",
		"export --format": "chrome\notf2\npprof\n",
	} {
		out := string(svmcPipe(t, ".", nil, append(append([]string{"__complete"}, strings.Fields(args)...), "")...))
		if !strings.HasPrefix(out, want) {
			t.Errorf("completion of %s: %q, want %q first", args, out, want)
		}
	}
}

// TestPprofExport: `go tool pprof -top` reads the profile svmc export
// writes and names the pdo at its line, per processor with -tagfocus.
func TestPprofExport(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command for go tool pprof")
	}
	dir := writeModule(t, map[string]string{"main.go": `package main

import "time"

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 2; i++ {
		time.Sleep(20 * time.Millisecond)
		s++
	}
	println(s)
}
`})
	if res := runSvmc(t, dir, "run", "-n", "2", "--trace", "t.sddf", "."); res.code != 0 {
		t.Fatalf("run: %s", res.stderr)
	}
	svmcPipe(t, dir, nil, "export", "--format", "pprof", "t.sddf", "-o", "t.pb.gz")
	top := exec.Command("go", "tool", "pprof", "-top", "-tagfocus", "processor=^1$", "t.pb.gz")
	top.Dir = dir
	out, err := top.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Type: time") || !regexp.MustCompile(`\d+(\.\d+)?(ms|us|s) .* main: pdo main\.go:7`).Match(out) {
		t.Errorf("go tool pprof -top:\n%s", out)
	}
}

// TestProgress: view and export say how much of a large trace they read,
// as report does, on a terminal (SVMC_PROGRESS=1 here), and clear the line.
func TestProgress(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": endlessProg})
	t.Setenv("MODE", "quick")
	if res := runSvmc(t, dir, "run", "--trace", "a.sddf", "."); res.code != 0 {
		t.Fatal(res.stderr)
	}
	// The share of the trace svmc report's progress shows as read: a
	// binary trace with its run index is read once, one without (cut
	// short) twice.
	data, err := os.ReadFile(filepath.Join(dir, "a.sddf"))
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)-10]
	for _, c := range []struct {
		data      []byte
		fileOrder bool
		want      int64
	}{{data, false, int64(len(data))}, {data, true, int64(len(data))}, {cut, false, 2 * int64(len(cut))}} {
		if got := readSize(bytes.NewReader(c.data), int64(len(c.data)), c.fileOrder); got != c.want {
			t.Errorf("readSize of %d bytes (file order %v) = %d, want %d", len(c.data), c.fileOrder, got, c.want)
		}
	}
	t.Setenv("SVMC_PROGRESS", "1")
	for _, args := range [][]string{{"view", "a.sddf", "-o", "a.html"}, {"export", "--format", "chrome", "a.sddf", "-o", "a.json"}, {"report", "a.sddf"}} {
		res := runSvmc(t, dir, args...)
		if args[0] == "report" {
			// Too small a trace for a progress line: it reads it
			// through the counting reader all the same.
			if res.code != 0 || !strings.Contains(res.stdout, "Time of all processors") {
				t.Errorf("svmc report with progress: exit %d, stderr %q", res.code, res.stderr)
			}
			continue
		}
		if res.code != 0 || !strings.Contains(res.stderr, "\rsvmc "+args[0]+": a.sddf (0 MB): ") || !strings.Contains(res.stderr, "MB read") ||
			!strings.Contains(res.stderr, "\r\033[K") {
			t.Errorf("svmc %s: exit %d, stderr %q", args[0], res.code, res.stderr)
		}
	}
}
