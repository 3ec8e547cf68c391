package output

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svmc/svmc/rtlib/internal/params"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRoute: processor 0's output only, a file per processor (the files
// of an earlier run with more processors removed, or kept with keep), and
// one common file whose lines from concurrent writers stay whole.
func TestRoute(t *testing.T) {
	dir := t.TempDir()
	var def bytes.Buffer
	var fs Files
	ws, err := fs.Route(params.Output{Mode: params.OutProc0}, &def, false, 3, "stdout")
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range ws {
		fmt.Fprintf(w, "p%d\n", i)
	}
	if def.String() != "p0\n" {
		t.Errorf("proc0: %q", def.String())
	}

	pattern := filepath.Join(dir, "out%d.txt")
	os.WriteFile(filepath.Join(dir, "out7.txt"), []byte("old"), 0o666)
	os.WriteFile(filepath.Join(dir, "out1.txt"), []byte("old\n"), 0o666)
	ws, err = fs.Route(params.Output{Mode: params.OutEach, Path: pattern}, &def, false, 2, "stdout")
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range ws {
		fmt.Fprintf(w, "p%d\n", i)
	}
	if err := fs.Close(); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "out0.txt")) != "p0\n" || read(t, filepath.Join(dir, "out1.txt")) != "p1\n" {
		t.Error("each: wrong contents")
	}
	if _, err := os.Stat(filepath.Join(dir, "out7.txt")); !os.IsNotExist(err) {
		t.Error("each: the file of processor 7 of an earlier run is still there")
	}
	ws, _ = fs.Route(params.Output{Mode: params.OutEach, Path: pattern}, &def, true, 2, "stdout")
	fmt.Fprint(ws[1], "again\n")
	fs.Close()
	if got := read(t, filepath.Join(dir, "out1.txt")); got != "p1\nagain\n" {
		t.Errorf("each with keep: %q", got)
	}

	common := filepath.Join(dir, "all.txt")
	ws, err = fs.Route(params.Output{Mode: params.OutCommon, Path: common}, &def, false, 4, "stdout")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	line := strings.Repeat("x", 100) + "\n"
	for _, w := range ws {
		wg.Add(1)
		go func(w io.Writer) {
			defer wg.Done()
			for range 200 {
				w.Write([]byte(line))
			}
		}(w)
	}
	wg.Wait()
	fs.Close()
	got := read(t, common)
	if strings.Count(got, line) != 800 || len(got) != 800*len(line) {
		t.Errorf("common: %d whole lines in %d bytes", strings.Count(got, line), len(got))
	}

	if _, err := fs.Route(params.Output{Mode: params.OutEach, Path: filepath.Join(dir, "no", "x%d")}, &def, false, 1, "stderr"); err == nil || !strings.HasPrefix(err.Error(), "stderr: open ") {
		t.Errorf("a file that cannot be opened: %v", err)
	}
}

// TestRemoveOld: the files of an each pattern for any processor number go,
// and no other file: not another number's text, a name with more around
// it, or a name without digits where %d stands.
func TestRemoveOld(t *testing.T) {
	dir := t.TempDir()
	gone := []string{"out.0.txt", "out.1.txt", "out.23.txt"}
	kept := []string{"out..txt", "out.x.txt", "out.1a.txt", "out.1.txt.bak", "xout.1.txt", "other.1.txt", "out.txt"}
	for _, name := range append(append([]string{}, gone...), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	RemoveOld(filepath.Join(dir, "out.%d.txt"))
	for _, name := range gone {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s is still there", name)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}
