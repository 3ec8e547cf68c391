package rtlib

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BenchmarkLibgomp runs the same EPCC repetitions as the BenchmarkEPCC_*
// benchmarks with libgomp (testdata/epcc/epcc.c, built with the system's
// gcc -fopenmp), so that svmc's constructs and OpenMP's are measured side
// by side in one run:
//
//	go test ./rtlib -run '^$' -bench 'EPCC_(PDO_default|PDO_dynamic1|REDUCTION|BARRIER|CRITICAL|LOCK|ATOMIC)/N=2/stage=0|Libgomp/.*N=2' -count 5
//
// ns/op and overhead-ns/op are the C program's own figures (its time per
// repetition, without process start); the pairs to compare are
//
//	EPCC_PDO_default   Libgomp/PARALLEL_FOR (fork/join per loop) and FOR (in a team)
//	EPCC_PDO_dynamic1  Libgomp/DYNAMIC1
//	EPCC_REDUCTION     Libgomp/REDUCTION
//	EPCC_BARRIER, _CRITICAL, _LOCK, _ATOMIC   Libgomp/the same name
//
// Without a gcc that supports OpenMP the benchmark is skipped and says so.
func BenchmarkLibgomp(b *testing.B) {
	exe, err := epccBinary()
	if err != nil {
		b.Skipf("libgomp comparison skipped: %v", err)
	}
	for _, c := range []string{"PARALLEL_FOR", "FOR", "DYNAMIC1", "REDUCTION", "BARRIER", "CRITICAL", "LOCK", "ATOMIC"} {
		for _, n := range []int{2, 4} {
			b.Run(fmt.Sprintf("%s/N=%d", c, n), func(b *testing.B) {
				out, err := exec.Command(exe, c, fmt.Sprint(n), fmt.Sprint(b.N)).Output()
				if err != nil {
					b.Fatalf("epcc %s: %v", c, err)
				}
				var per, over float64
				var count int64
				if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "ns_per_rep=%g overhead_ns=%g count=%d", &per, &over, &count); err != nil {
					b.Fatalf("epcc %s printed %q: %v", c, out, err)
				}
				b.ReportMetric(per, "ns/op")
				b.ReportMetric(over, "overhead-ns/op")
			})
		}
	}
}

// epccBinary builds testdata/epcc/epcc.c, once per version of the source:
// into a directory named by its hash under the temporary directory, kept for
// the next run (a directory per run was left behind by every benchmark run).
var epccBinary = sync.OnceValues(func() (string, error) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return "", fmt.Errorf("no gcc on PATH")
	}
	src := filepath.Join("testdata", "epcc", "epcc.c")
	text, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(text)
	dir := filepath.Join(os.TempDir(), "svmc-epcc-"+hex.EncodeToString(sum[:6]))
	exe := filepath.Join(dir, "epcc")
	if _, err := os.Stat(exe); err == nil {
		return exe, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "epcc-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if out, err := exec.Command(gcc, "-O2", "-fopenmp", "-o", tmp.Name(), src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc -fopenmp failed (no OpenMP support?): %v\n%s", err, out)
	}
	// Renamed into place whole: a benchmark run beside this one sees the
	// binary complete or not at all.
	return exe, os.Rename(tmp.Name(), exe)
})
