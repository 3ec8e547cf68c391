package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// svmc vet runs go vet with svmc as the vet tool: a package whose pdo
// reads a[i-1] is reported at the line with exit status 1 (also as go
// vet's JSON); a second package of the module, race-free, passes; a
// package without directives is skipped.
func TestSvmcVet(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go": `package main

import "example.com/user/lib"

func main() {
	a := make([]float64, 64)
	//svm:pdo loops(i)
	for i := 1; i < len(a); i++ {
		a[i] = a[i-1] + 1
	}
	lib.Fill(a)
}
`,
		"lib/lib.go": `package lib

// Fill is race-free.
func Fill(a []float64) {
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		a[i] = float64(i)
	}
}
`,
		"plain/plain.go": "package plain\n\nfunc F(m map[int]int) { m[1] = 2 }\n",
	})
	res := runSvmc(t, dir, "vet", "./...")
	if res.code != 1 || !strings.Contains(res.stderr, "main.go:9:10: loop-carried dependence in the pdo at line 7: a[i-1] is read here") ||
		strings.Contains(res.stderr, "lib.go") || strings.Contains(res.stderr, "plain.go") {
		t.Errorf("svmc vet ./...: exit %d\n%s", res.code, res.stderr)
	}
	if res := runSvmc(t, dir, "vet", "./lib"); res.code != 0 || res.stderr != "" {
		t.Errorf("svmc vet ./lib: exit %d\n%s", res.code, res.stderr)
	}
	// -C DIR as go vet -C (which takes it only first, before svmc's
	// -vettool: it was "-C flag must be first flag on command line").
	for _, c := range [][]string{{"-C", ".."}, {"-C=.."}} {
		res := runSvmc(t, filepath.Join(dir, "lib"), append(append([]string{"vet"}, c...), ".")...)
		if res.code != 1 || !strings.Contains(res.stderr, "main.go:9:10: loop-carried dependence") {
			t.Errorf("svmc vet %v . from lib: exit %d\n%s", c, res.code, res.stderr)
		}
	}
	// --mpi adds the checks of svmc run --mpi: lib's a[i] stays on each
	// rank (before, only svmc run --mpi said so, when it built).
	res = runSvmc(t, dir, "vet", "--mpi", "./lib")
	if res.code != 1 || !strings.Contains(res.stderr, "lib.go:7:3: a is private to each rank under --mpi: the pdo at line 5 writes it") {
		t.Errorf("svmc vet --mpi ./lib: exit %d\n%s", res.code, res.stderr)
	}
	// go vet writes one JSON object per package it vets.
	res = runSvmc(t, dir, "vet", "-json", ".")
	out := map[string]map[string][]struct {
		Posn, Message string
	}{}
	dec := json.NewDecoder(strings.NewReader(res.stdout + res.stderr))
	for dec.More() {
		if err := dec.Decode(&out); err != nil {
			t.Fatalf("svmc vet -json: %v\n%s%s", err, res.stdout, res.stderr)
		}
	}
	ds := out["example.com/user"]["svmc"]
	if len(ds) != 1 || !strings.HasSuffix(ds[0].Posn, "main.go:9:10") {
		t.Errorf("svmc vet -json: %+v", out)
	}
}

// TestVetRuntimeAPI: a module that calls the runtime's API (rtlib.Send)
// without requiring svmc, as svmc run lets it, is vetted the same way:
// go vet alone said "no required module provides package".
func TestVetRuntimeAPI(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

import "github.com/svmc/svmc/rtlib"

func main() {
	a := make([]int, 8)
	//svm:pdo loops(i)
	for i := 1; i < len(a); i++ {
		a[i] = a[i-1] + rtlib.ProcessorID()
	}
}
`})
	res := runSvmc(t, dir, "vet", ".")
	if res.code != 1 || !strings.Contains(res.stderr, "main.go:9:10: loop-carried dependence in the pdo at line 7: a[i-1] is read here") {
		t.Errorf("svmc vet: exit %d\n%s", res.code, res.stderr)
	}
}

// svmc build (and run) report the errors of every package of the program
// in one run: a main package with an error of its own used to hide those
// of the packages it imports until it was fixed.
func TestErrorsOfEveryPackage(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go": `package main

import (
	"fmt"

	"example.com/user/geo"
	"example.com/user/stats"
)

func main() {
	xs := geo.Areas(4)
	//svm:pdo strategy(cylic)
	for i := range xs {
		xs[i]++
	}
	fmt.Println(stats.Sum(xs))
}
`,
		"geo/geo.go": `package geo

func Areas(n int) []float64 {
	out := make([]float64, n)
	//svm:pdo strategy(dynamic(0))
	for i := range out {
		out[i] = float64(i * i)
	}
	return out
}
`,
		"stats/stats.go": `package stats

func Sum(xs []float64) float64 {
	s := 0.0
	//svm:pdo reduction(+: total)
	for _, x := range xs {
		s += x
	}
	return s
}
`,
	})
	res := runSvmc(t, dir, "build", "-o", filepath.Join(t.TempDir(), "prog"), ".")
	for _, want := range []string{
		`main.go:12:21: pdo: unknown strategy "cylic"; did you mean "cyclic"?`,
		`geo/geo.go:5:29: pdo: 0 must be positive`,
		`stats/stats.go:5:25: reduction(+: total): total is not a variable declared before the pdo`,
	} {
		if res.code != 1 || !strings.Contains(res.stderr, want) {
			t.Errorf("svmc build: exit %d, want %q in\n%s", res.code, want, res.stderr)
		}
	}
}
