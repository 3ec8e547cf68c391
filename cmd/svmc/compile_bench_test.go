package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCompileBuild measures what a user waits for after an edit: a
// go build of a program of 240 pdos (plain), and svmc build of the same
// program (svmc's load and checks, code generation, and the go build of the
// instrumented code against the embedded runtime). Each iteration edits the
// source, so that no build cache hides the work. Compare the two side by
// side (benchstat -col /mode); binary-MB reports the executable's size.
// The modes gorun and svmcrun are the edit-and-run cycle: go run . against
// svmc run -n 1 . (both build without DWARF, and run the short program).
func BenchmarkCompileBuild(b *testing.B) {
	dir := b.TempDir()
	writeBigProgram(b, dir, 240)
	for _, mode := range []string{"plain", "svmc", "gorun", "svmcrun"} {
		b.Run("mode="+mode, func(b *testing.B) {
			exe := filepath.Join(dir, mode+".bin")
			cmd := map[string][]string{
				"plain":   {"go", "build", "-o", exe, "."},
				"svmc":    {svmcBin, "build", "-o", exe, "."},
				"gorun":   {"go", "run", "."},
				"svmcrun": {svmcBin, "run", "-n", "1", "."},
			}[mode]
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				f, err := os.OpenFile(filepath.Join(dir, "main.go"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				fmt.Fprintf(f, "// edit %s %d\n", mode, i)
				f.Close()
				b.StartTimer()
				c := exec.Command(cmd[0], cmd[1:]...)
				c.Dir = dir
				if out, err := c.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
				}
			}
			if fi, err := os.Stat(exe); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "binary-MB")
			}
		})
	}
}

// writeBigProgram writes a module with a program of n functions, each a
// pdo with a reduction under one of six strategies, and main calling them.
func writeBigProgram(b *testing.B, dir string, n int) {
	strategies := []string{"", "strategy(block)", "strategy(cyclic)", "strategy(dynamic(4))", "strategy(guided(2))", "strategy(cyclic(3))"}
	var src strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\n")
	for k := range n {
		fmt.Fprintf(&src, `func work%d(a []float64, n int) float64 {
	s := 0.0
	//svm:pdo loops(i) %s reduction(+: s)
	for i := 0; i < n; i++ {
		a[i] = float64(i*%d) * 0.5
		s += a[i]
	}
	return s
}

`, k, strategies[k%len(strategies)], k+1)
	}
	src.WriteString("func main() {\n\ta := make([]float64, 1000)\n\ttotal := 0.0\n")
	for k := range n {
		fmt.Fprintf(&src, "\ttotal += work%d(a, len(a))\n", k)
	}
	src.WriteString("\tfmt.Println(total)\n}\n")
	for name, text := range map[string]string{"go.mod": "module big\n\ngo 1.26\n", "main.go": src.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
