package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkOrdinary runs the programs of testdata/ordinary — ordinary Go:
// interfaces the standard library calls (sort), recursion, function and
// method values and closures, the program's own goroutines, and all of
// them before one pdo — built plainly and with svmc build, side by side:
//
//	mode=plain     the go build binary
//	mode=stage0    the svmc binary on 1 processor, no trace (SVMC_STAGE=0)
//	mode=stage0-n2 the same on 2 processors: the idle one waits for work
//	               while processor 0 runs the program's own goroutines
//	mode=traced    the svmc binary on 1 processor writing a binary trace at
//	               the default stage; trace-MB is its size
//
//	go test ./cmd/svmc -run '^$' -bench Ordinary -count 5 | benchstat -col /mode -
//
// The builds happen once, outside the timing.
func BenchmarkOrdinary(b *testing.B) {
	progs, err := filepath.Glob(filepath.Join("testdata", "ordinary", "*"))
	if err != nil || len(progs) == 0 {
		b.Fatalf("no programs in testdata/ordinary: %v", err)
	}
	bin := b.TempDir()
	for _, dir := range progs {
		name := filepath.Base(dir)
		plain := filepath.Join(bin, name+".plain")
		inst := filepath.Join(bin, name+".svmc")
		if out, err := exec.Command("go", "build", "-o", plain, "./"+dir).CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", dir, err, out)
		}
		if out, err := exec.Command(svmcBin, "build", "-o", inst, "./"+dir).CombinedOutput(); err != nil {
			b.Fatalf("svmc build %s: %v\n%s", dir, err, out)
		}
		traceFile := filepath.Join(bin, name+".sddf")
		for _, mode := range []string{"plain", "stage0", "stage0-n2", "traced"} {
			b.Run("prog="+name+"/mode="+mode, func(b *testing.B) {
				for b.Loop() {
					var cmd *exec.Cmd
					switch mode {
					case "plain":
						cmd = exec.Command(plain)
					case "stage0":
						cmd = exec.Command(inst)
						cmd.Env = append(os.Environ(), "SVMC_NPROCS=1", "SVMC_STAGE=0")
					case "stage0-n2":
						cmd = exec.Command(inst)
						cmd.Env = append(os.Environ(), "SVMC_NPROCS=2", "SVMC_STAGE=0")
					case "traced":
						cmd = exec.Command(inst)
						cmd.Env = append(os.Environ(), "SVMC_NPROCS=1", "SVMC_TRACE="+traceFile)
					}
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%s: %v\n%s", cmd.Path, err, out)
					}
				}
				if mode == "traced" {
					if fi, err := os.Stat(traceFile); err == nil {
						b.ReportMetric(float64(fi.Size())/(1<<20), "trace-MB")
					}
				}
			})
		}
	}
}
