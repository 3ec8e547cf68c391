package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkJacobiRanks: examples/jacobi (512×512, 200 iterations) as a
// whole process on 1, 2 and 4 processors in one process and as 1, 2 and 4
// MPI ranks (mpirun's start included), side by side in one run. For the
// ranks it reports the bytes of shared storage moved per iteration (each
// rank's diffs reach every other rank) beside the ideal halo exchange (one
// row each way across each of the k−1 boundaries, 8-byte elements), and
// what mpirun takes to start and end k processes that do nothing.
//
//	go test ./cmd/svmc -run '^$' -bench JacobiRanks -count 3
func BenchmarkJacobiRanks(b *testing.B) {
	if err := checkMPI(true); err != nil {
		b.Skipf("MPI is not installed: %v", err)
	}
	const n, iters = 512, 200
	root, _ := filepath.Abs("../..")
	dir := b.TempDir()
	one, ranks := filepath.Join(dir, "jacobi"), filepath.Join(dir, "jacobi-mpi")
	for _, args := range [][]string{{"build", "-o", one, "./examples/jacobi"}, {"build", "--mpi", "-o", ranks, "./examples/jacobi"}} {
		cmd := exec.Command(svmcBin, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("svmc %v: %v\n%s", args, err, out)
		}
	}
	progArgs := []string{"-n", strconv.Itoa(n), "-iters", strconv.Itoa(iters)}
	for _, k := range []int{1, 2, 4} {
		b.Run("process/procs="+strconv.Itoa(k), func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(one, progArgs...)
				cmd.Env = append(os.Environ(), "SVMC_NPROCS="+strconv.Itoa(k))
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
		})
		b.Run("mpi/ranks="+strconv.Itoa(k), func(b *testing.B) {
			tr := filepath.Join(b.TempDir(), "t.sddf")
			env := append(os.Environ(), "SVMC_TRACE="+tr)
			if out, err := mpirunCommand(k, "", ranks, env, progArgs).CombinedOutput(); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			if err := mergeRankTraces(tr, k); err != nil {
				b.Fatal(err)
			}
			sent := 0.0
			for _, r := range readTrace(b, tr) {
				if r.Desc.Name == "rank-info" {
					sent += r.Double("bytes sent")
				}
			}
			for b.Loop() {
				if out, err := mpirunCommand(k, "", ranks, os.Environ(), progArgs).CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
			b.ReportMetric(sent*float64(k-1)/iters, "moved-B/iter")
			b.ReportMetric(float64(2*(k-1)*n*8), "halo-B/iter")
		})
		// What mpirun alone takes to start and end k processes.
		b.Run("mpirun-true/ranks="+strconv.Itoa(k), func(b *testing.B) {
			for b.Loop() {
				if out, err := mpirunCommand(k, "", "true", nil, nil).CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
		})
	}
}
