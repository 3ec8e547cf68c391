package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mpiReady skips t unless --mpi can build and launch here.
func mpiReady(t *testing.T) {
	t.Helper()
	if err := checkMPI(true); err != nil {
		t.Skipf("MPI is not installed here, so svmc run --mpi is not tested: %v", err)
	}
}

// mpiProg splits its pdos between ranks and needs every rank's part:
// shared storage written by block and cyclic shares (float64 and int32
// elements, neighbours on different ranks), reductions of five kinds and
// four operators, dynamic and guided strategies (rank 0 hands out the
// chunks), a pdo on a template's homes, and output in the pdo and in
// exclusive code (processor 0's, by default).
const mpiProg = `package main

import (
	"fmt"
	"math"
	"time"
)

func fill(a []float64) {
	//svm:shared a
	//svm:pdo loops(i)
	for i := 0; i < len(a); i++ {
		a[i] = math.Sqrt(float64(i))
	}
}

func main() {
	const n = 1000
	a := make([]float64, n)
	fill(a)
	sum := 0.0
	var cnt int32
	var bits uint8
	mx := math.Inf(-1)
	//svm:pdo loops(i) strategy(cyclic) reduction(+: sum, cnt) reduction(max: mx) reduction(|: bits)
	for i := 0; i < n; i++ {
		sum += a[i]
		cnt++
		mx = max(mx, a[i])
		bits |= uint8(1 << (i % 7))
	}
	var prod float32 = 1
	//svm:pdo loops(i) strategy(dynamic(3)) reduction(*: prod)
	for i := 1; i <= 10; i++ {
		prod *= float32(i)
	}
	b := make([]int32, 64)
	//svm:shared b
	//svm:pdo loops(i) strategy(cyclic)
	for i := 0; i < len(b); i++ {
		b[i] = int32(i * i)
	}
	tot := 0
	for _, v := range b {
		tot += int(v)
	}
	//svm:template T(8)
	//svm:distribute (cyclic) :: T
	c := make([]uint16, 8)
	//svm:shared c
	//svm:pdo loops(i) strategy(on_home(T(i)))
	for i := 0; i < 8; i++ {
		c[i] = uint16(100 + i)
		if i == 0 {
			fmt.Println("iteration 0 ran")
		}
	}
	d := make([]int64, 300)
	//svm:shared d
	//svm:pdo loops(i) strategy(guided(4))
	for i := 0; i < len(d); i++ {
		time.Sleep(50 * time.Microsecond) // long enough that every rank gets chunks
		d[i] = int64(i) * 3
	}
	dsum := int64(0)
	for _, v := range d {
		dsum += v
	}
	fmt.Printf("sum=%.6f cnt=%d max=%.4f bits=%b prod=%.0f tot=%d c=%v d=%d\n", sum, cnt, mx, bits, prod, tot, c, dsum)
}
`

// mpiLocalShared makes shared storage inside a pdo's share (a subroutine
// with a shared directive, called from the loop body: on one rank only,
// seven calls split unevenly) before the shared array the ranks exchange:
// the ranks must still name that array alike.
const mpiLocalShared = `package main

import "fmt"

func twice(buf []float64) float64 {
	//svm:shared buf
	buf[0] *= 2
	return buf[0]
}

func main() {
	t := 0.0
	//svm:pdo loops(i) reduction(+: t)
	for i := 0; i < 7; i++ {
		local := []float64{float64(i)}
		t += twice(local)
	}
	a := make([]float64, 100)
	//svm:shared a
	//svm:pdo loops(i) strategy(cyclic)
	for i := 0; i < len(a); i++ {
		a[i] = float64(i) / 2
	}
	s := 0.0
	for _, x := range a {
		s += x
	}
	fmt.Println(t, s)
}
`

// mpiSync updates shared storage in pdos under critical sections (named
// and not), locks of elements and atomic updates (added, decremented,
// multiplied), beside plain writes of each share: between ranks they must
// order every rank's processors and carry the holders' writes.
const mpiSync = `package main

import "fmt"

type cell struct {
	hits int32
	last int32
}

func main() {
	hist := make([]int64, 8)
	best := [2]float64{-1, -1}
	acc := make([]float64, 4)
	cells := make([]cell, 3)
	sq := make([]int32, 200)
	tot := []int64{0}
	ftot := []float64{0}
	down := []int32{1000}
	prod := []uint64{1}
	//svm:shared hist, best, acc, cells, sq, tot, ftot, down, prod
	for round := 0; round < 2; round++ {
		//svm:pdo loops(i) strategy(cyclic)
		for i := 0; i < 200; i++ {
			v := float64((i*37)%200) + 0.25
			sq[i] = int32(i * i)
			//svm:critical
			hist[i%8]++
			//svm:critical top
			{
				if v > best[0] {
					best[0], best[1] = v, float64(i)
				}
			}
			//svm:lock(acc[i%4], acc[(i+1)%4])
			acc[i%4] += float64(i)
			//svm:critical cells
			{
				c := &cells[i%3]
				c.hits++
				c.last = max(c.last, int32(i))
			}
			//svm:atomic
			tot[0] += int64(i)
			//svm:atomic
			ftot[0] += 0.5
			//svm:atomic
			down[0]--
			if i%10 == 0 {
				//svm:atomic
				prod[0] *= 2
			}
		}
	}
	s := int64(0)
	for _, x := range sq {
		s += int64(x)
	}
	fmt.Println(hist, best, acc, cells, s, tot[0], ftot[0], down[0], prod[0])
}
`

// mpiRepSync is a replicated region (SPMD code) whose processors, processor
// 0 among them, update shared storage under critical sections, a lock and
// atomic updates. Under --mpi processor 0 runs on every rank: its copies
// must read the same total in their critical sections, or the pdo after
// the region, whose bounds come from it, splits differently per rank.
const mpiRepSync = `package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	total := make([]int64, 1)
	hist := make([]int64, 5)
	cnt := make([]float64, 2)
	prod := []int64{1}
	acc := make([]int64, 3)
	//svm:shared total, hist, cnt, prod, acc
	last := int64(-1)
	//svm:replicated
	{
		me, np := rtlib.ProcessorID(), rtlib.NumProcessors()
		for k := me; k < 100; k += np {
			//svm:critical
			{
				total[0] += int64(k)
				hist[k%5]++
				if me == 0 {
					last = total[0]
				}
			}
			//svm:lock(acc[k%3])
			acc[k%3] += int64(k * k)
			//svm:atomic
			cnt[0] += float64(k)
			//svm:atomic
			cnt[1]++
			if k < 10 {
				//svm:atomic
				prod[0] *= 2
			}
		}
	}
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < int(last); i++ {
		s += i
	}
	fmt.Println(total[0], hist, cnt, prod[0], acc, int64(s) == last*(last-1)/2, last >= 0)
}
`

// mpiRepNest nests a critical section in a lock in a replicated region:
// processor 0's copies hold the lock together while another processor of
// a copy's rank may hold the critical section and wait for its grant.
const mpiRepNest = `package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	acc := make([]int64, 4)
	log := make([]int64, 64)
	//svm:shared acc, log
	//svm:replicated
	{
		me, np := rtlib.ProcessorID(), rtlib.NumProcessors()
		for k := me; k < 60; k += np {
			//svm:lock(acc[k%4])
			{
				acc[k%4] += int64(k)
				//svm:critical journal
				{
					log[0]++
					log[log[0]] = int64(k)
				}
			}
		}
		// A lock of two elements: processor 0's copies take both
		// together, key by key.
		for k := me; k < 4; k += np {
			//svm:lock(acc[0], acc[1])
			{
				acc[0]++
				acc[1]++
			}
		}
	}
	s := int64(0)
	for _, x := range log[1 : log[0]+1] {
		s += x
	}
	fmt.Println(acc, log[0], s)
}
`

// mpiLazyLock: a page of a lazily kept variable that a critical section's grant
// brought an update of, while this rank's copy of the page was stale:
// fetched from its home, which has not taken the lock since, it must
// keep the update (on 3 ranks: processor 2 adds first, processor 1 later,
// rank 0 is the page's home and takes no lock).
const mpiLazyLock = `package main

import (
	"fmt"
	"time"
)

func main() {
	const n = 3 * 512 // three pages of float64
	v := make([]float64, n)
	//svm:shared v
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		v[i] = float64(i)
	}
	//svm:pdo loops(j)
	for j := 0; j < 3; j++ {
		switch j {
		case 1:
			time.Sleep(200 * time.Millisecond)
			//svm:critical
			v[5] += 1
		case 2:
			//svm:critical
			v[5] += 1
		}
	}
	fmt.Println(v[5], v[600], v[1200])
}
`

// mpiShapes is ordinary Go around one pdo: shapes behind an interface, a
// closure, a summary type from a package of its own updated under a
// critical section, and an atomic counter indexed through the closure,
// all in shared storage.
const mpiShapes = `package main

import (
	"fmt"
	"math"
	"sort"

	"example.com/user/stats"
)

type shape interface{ area() float64 }
type circle struct{ r float64 }
type rect struct{ w, h float64 }

func (c circle) area() float64 { return math.Pi * c.r * c.r }
func (r rect) area() float64   { return r.w * r.h }

func main() {
	shapes := make([]shape, 300)
	for i := range shapes {
		if i%3 == 0 {
			shapes[i] = circle{float64(i%7 + 1)}
		} else {
			shapes[i] = rect{float64(i%5 + 1), float64(i%4 + 1)}
		}
	}
	areas := make([]float64, len(shapes))
	sum := []stats.Summary{{}}
	buckets := make([]int32, 5)
	//svm:shared areas, sum, buckets
	classify := func(a float64) int { return min(int(a/20), 4) }
	//svm:pdo loops(i) strategy(cyclic(7))
	for i := 0; i < len(shapes); i++ {
		a := shapes[i].area()
		areas[i] = a
		//svm:critical summary
		sum[0].Add(a)
		//svm:end critical summary
		//svm:atomic
		buckets[classify(a)]++
	}
	sorted := append([]float64(nil), areas...)
	sort.Float64s(sorted)
	fmt.Printf("n=%d min=%.3f max=%.3f median=%.3f buckets=%v\n", sum[0].N, sum[0].Min, sum[0].Max, sorted[len(sorted)/2], buckets)
}
`

const mpiShapesStats = `package stats

// Summary keeps a running minimum, maximum and count.
type Summary struct {
	Min, Max float64
	N        int64
}

// Add takes v into s.
func (s *Summary) Add(v float64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if s.N == 0 || v > s.Max {
		s.Max = v
	}
	s.N++
}
`

// mpiStencil is a stencil whose shared variables are reached only by
// indexing (fully checked): under --mpi they travel as lazy pages from
// their homes. Every row changes every iteration; a cyclic loop makes
// every rank write every page of v and w (pages with several writers);
// exclusive code reads a and v between and after the pdos (their stale
// pages made current on every rank together).
const mpiStencil = `// A stencil whose shared arrays are reached only through indexing, so
// that under --mpi they travel as lazy pages from their homes.
package main

import "fmt"

func main() {
	const n, iters = 96, 30
	//svm:processors P(nprocs())
	//svm:template T(n, n)
	//svm:distribute (block, *) onto P :: T
	a, b := grid(n), grid(n)
	v := make([]float64, 4096)
	w := make([]int32, 4096)
	//svm:shared a, b, v, w
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i][j] = float64((i*7+j*3)%11) / 10
			b[i][j] = a[i][j]
		}
	}
	for it := 0; it < iters; it++ {
		//svm:pdo label(sweep) loops(i) strategy(on_home(T(i, 0)))
		for i := 1; i < n-1; i++ {
			for j := 1; j < n-1; j++ {
				b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1])
			}
		}
		//svm:pdo label(update) loops(i) strategy(on_home(T(i, 0)))
		for i := 1; i < n-1; i++ {
			for j := 1; j < n-1; j++ {
				a[i][j] = b[i][j]
			}
		}
		if it%10 == 9 {
			fmt.Printf("iteration %d: centre %.9f edge %.9f\n", it, a[n/2][n/2], a[1][n/2])
		}
	}
	// Every rank writes every page (cyclic), then each reads a block.
	//svm:pdo loops(k) strategy(cyclic)
	for k := range 4096 {
		v[k] = float64(k%97) * 0.5
		w[k] = int32(k * 3)
	}
	s := 0.0
	//svm:pdo loops(k) reduction(+: s)
	for k := range 4096 {
		s += v[4095-k] * float64(w[(k+2048)%4096]%7)
	}
	t := 0.0
	for k := 0; k < len(v); k++ {
		t += v[k]
	}
	a[2][2] += t
	fmt.Printf("s=%.3f t=%.3f sum=%.9f\n", s, t, sum(a))
}

func grid(n int) [][]float64 {
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, n)
	}
	return g
}

func sum(a [][]float64) float64 {
	s := 0.0
	for i := 0; i < len(a); i++ {
		for j := 0; j < len(a[i]); j++ {
			s += a[i][j]
		}
	}
	return s
}
`

// TestRunMPI: programs give under svmc run --mpi -n 1..4 what they give in
// one process: mpiProg, example 3.1 and Jacobi (shared arrays written by
// template-owner and block shares, reductions), mpiMessages and the four
// message-passing examples (their messages between ranks over MPI).
func TestRunMPI(t *testing.T) {
	mpiReady(t)
	user := writeModule(t, map[string]string{"main.go": mpiProg})
	local := writeModule(t, map[string]string{"main.go": mpiLocalShared})
	msgs := writeModule(t, map[string]string{"main.go": mpiMessages})
	syncs := writeModule(t, map[string]string{"main.go": mpiSync})
	repSync := writeModule(t, map[string]string{"main.go": mpiRepSync})
	lazyLock := writeModule(t, map[string]string{"main.go": mpiLazyLock})
	repNest := writeModule(t, map[string]string{"main.go": mpiRepNest})
	shapes := writeModule(t, map[string]string{"main.go": mpiShapes, "stats/stats.go": mpiShapesStats})
	stencil := writeModule(t, map[string]string{"main.go": mpiStencil})
	root, _ := filepath.Abs("../..")
	progs := []struct{ name, dir, pkg, want string }{
		{"mpiprog", user, ".", "iteration 0 ran\nsum=21065.833111 cnt=1000 max=31.6070 bits=1111111 prod=3628800 tot=85344 c=[100 101 102 103 104 105 106 107] d=134550\n"},
		{"localshared", local, ".", "42 2475\n"},
		// Critical sections, locks and atomics order every rank's processors.
		{"shapes", shapes, ".", "n=300 min=1.000 max=153.938 median=9.000 buckets=[219 24 15 14 28]\n"},
		{"sync", syncs, ".", "[50 50 50 50 50 50 50 50] [199.25 27] [9800 9900 10000 10100] [{134 198} {134 199} {132 197}] 2646700 39800 200 600 1099511627776\n"},
		// ... in replicated regions too, processor 0's copies together.
		{"repsync", repSync, ".", "4950 [20 20 20 20 20] [4950 100] 1024 [112761 106161 109428] true true\n"},
		{"example31", root, "./examples/example31", ""},
		{"jacobi", root, "./examples/jacobi", ""},
		// Lazy pages: fetched from their homes, stale ones synchronised.
		{"repnest", repNest, ".", "[424 439 450 465] 60 1770\n"},
		{"lazylock", lazyLock, ".", "7 600 1200\n"},
		{"stencil", stencil, ".", "iteration 9: centre 0.499315166 edge 0.404373837\niteration 19: centre 0.499995647 edge 0.410229198\niteration 29: centre 0.499999965 edge 0.411274550\ns=293658.500 t=97891.500 sum=102500.416058842\n"},
		// Messages between processors of different ranks go over MPI.
		{"messages", msgs, ".", "counts true ring true order true big true\n"},
		{"collectives", root, "./examples/collectives", ""},
		{"ring", root, "./examples/ring", ""},
		{"halo", root, "./examples/halo", ""},
		{"master", root, "./examples/master", ""},
		// Ordinary Go from the corpus (TestCorpus runs it in one process):
		// a pdo in a function given main's shared slices, a generic SPMD
		// region with collectives, boards behind pointers, sections.
		{"particles", root, "./golden/corpus/particles", ""},
		{"spmd", root, "./golden/corpus/spmd", ""},
		{"life", root, "./golden/corpus/life", ""},
		{"wordstat", root, "./golden/corpus/wordstat", ""},
		// A method's pdo writes through a field every value of which is
		// main's shared storage; two packages of its own.
		{"workers", root, "./golden/corpus/workers", ""},
		// Goroutines in a package of its own, a psection, a replicated
		// region by processor id, reductions and shared slices.
		{"records", root, "./golden/corpus/records", ""},
		// Reductions on type parameters (T Number): combined between
		// ranks as values ("a complex or boolean variable" before).
		{"typed", root, "./golden/corpus/typed", ""},
		// Output where a plain program prints it: iterations on every
		// rank, goroutines of iterations, processor 0's copies silent.
		{"printing", root, "./golden/corpus/printing", ""},
		// Reductions of strings, bools and complex numbers: values sent
		// between ranks ("cannot be combined between ranks yet" before).
		{"ordered", root, "./golden/corpus/ordered", ""},
		// Pdos without loops(...): over for _, v := range s, for range n.
		{"plainloops", root, "./golden/corpus/plainloops", ""},
		// Slices and arrays reduced element by element between ranks.
		{"histogram", root, "./golden/corpus/histogram", ""},
		// Pdos inside parallel sections, a shared slice made in each: the
		// sections of a rank take turns (their pdos' ends are collectives
		// of every rank: MPI_ERR_TRUNCATE before), and a section's
		// segments are exchanged as processor 0's are.
		{"datasets", root, "./golden/corpus/datasets", ""},
		// An image.Gray drawn through its methods, its pixels shared
		// through a name of their own.
		{"mandel", root, "./golden/corpus/mandel", ""},
	}
	for _, pr := range progs {
		t.Run(pr.name, func(t *testing.T) {
			one := runSvmc(t, pr.dir, "run", "-n", "2", pr.pkg)
			if one.code != 0 || pr.want != "" && one.stdout != pr.want {
				t.Fatalf("in one process: exit %d\n%s%s", one.code, one.stdout, one.stderr)
			}
			bin := filepath.Join(t.TempDir(), pr.name)
			res := runSvmc(t, pr.dir, "build", "--mpi", "-o", bin, pr.pkg)
			if res.code != 0 {
				t.Fatalf("svmc build --mpi: exit %d\n%s", res.code, res.stderr)
			}
			if strings.Contains(pr.pkg, "corpus") && strings.Contains(res.stderr, "warning") {
				t.Errorf("svmc build --mpi warns of a program that is right as ranks:\n%s", res.stderr)
			}
			// 1-4 ranks of one processor, and 2 ranks of 2.
			for _, job := range [][2]int{{1, 1}, {2, 1}, {3, 1}, {4, 1}, {2, 2}} {
				n, k := job[0], job[1]
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := mpirunCommand(n, "", bin, append(os.Environ(), "SVMC_PROCS_PER_RANK="+strconv.Itoa(k)), nil)
				cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				cancel()
				if err != nil || !sameOutput(out.String(), one.stdout, filepath.Join(pr.dir, pr.pkg)) {
					t.Errorf("%d ranks of %d: %v\n%s%s\nwant\n%s", n, k, err, out.String(), errb.String(), one.stdout)
				}
			}
		})
	}
	// The command itself: svmc run --mpi builds, launches, and merges the
	// ranks' traces into one, processors 2k and 2k+1's pdo work from rank k.
	tr := filepath.Join(t.TempDir(), "t.sddf")
	res := runSvmc(t, user, "run", "--mpi", "-n", "2", "--procs-per-rank", "2", "--trace", tr, ".")
	if res.code != 0 || res.stdout != progs[0].want {
		t.Fatalf("svmc run --mpi: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if left, _ := filepath.Glob(tr + ".rank*"); len(left) > 0 {
		t.Errorf("the ranks' traces %v are left after the merge", left)
	}
	work, dyn, clocks := map[int]int{}, map[int]int{}, 0
	recs := readTrace(t, tr)
	for _, r := range recs {
		switch r.Desc.Name {
		case "pdo-work":
			work[r.Node()] += r.Int("iterations")
			if r.Int("chunks") > 0 {
				dyn[r.Node()] += r.Int("iterations")
			}
		case "rank-info":
			clocks++
			// The shift measured again at the end, for the drift: on one
			// machine the ranks share a clock, so it hardly moves.
			if e, d := r.Double("end error microseconds"), r.Double("end shift microseconds")-r.Double("shift microseconds"); e < 0 || math.Abs(d) > 100 {
				t.Errorf("rank %d's end estimate: error %.3f µs, drift %.3f µs (want measured, under 100 µs)", r.Int("rank"), e, d)
			}
		}
	}
	// fill's 1000, the cyclic 1000, dynamic's 10, 64, 8 and guided's 300;
	// both ranks ran chunks of the guided loop that rank 0 handed out.
	if work[0]+work[1]+work[2]+work[3] != 2382 || work[0] == 0 || work[1] == 0 || work[2] == 0 || work[3] == 0 ||
		dyn[0]+dyn[1] == 0 || dyn[2]+dyn[3] == 0 || clocks != 2 {
		t.Errorf("merged trace: pdo iterations per processor %v (want 2382 in all, all 4 working), of dynamic loops %v (want both ranks), %d rank-info records", work, dyn, clocks)
	}
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") != 0 {
		t.Errorf("last record %v, want a normal trace-end", end)
	}
	if rep := runSvmc(t, user, "report", tr); rep.code != 0 || !strings.Contains(rep.stdout, "4 processors") || !strings.Contains(rep.stdout, "MPI job: 2 ranks of 2 processors") || !strings.Contains(rep.stdout, "drifting by at most") {
		t.Errorf("svmc report of the merged trace: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	// The ranks' clocks and the barriers' edges agree: a leader's wait at a
	// pdo's end ends with the exchange between ranks, as its members'
	// does; a correction of a whole run (a leader's record on another
	// rank, a wait that ended before the exchange) was the bug.
	rep := runSvmc(t, user, "report", "--format", "json", tr)
	var js struct {
		Model struct {
			Order struct {
				MaxCorrection float64 `json:"max_correction_us"`
			} `json:"order"`
			Ranks []struct {
				PerRank int `json:"procs_per_rank"`
			} `json:"ranks"`
		} `json:"model"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &js); err != nil || js.Model.Order.MaxCorrection > 1000 || len(js.Model.Ranks) != 2 {
		t.Errorf("merged trace: %v, the consistent order moved a record by %.1f µs (want under 1 ms), ranks %v", err, js.Model.Order.MaxCorrection, js.Model.Ranks)
	}
}

// TestMPIFlags: the errors of --mpi and --hostfile say what is wrong and
// where.
func TestMPIFlags(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	hf := filepath.Join(dir, "hosts")
	os.WriteFile(hf, []byte("# machines\nlocalhost slots=2\nnode2 slots=two\n"), 0o644)
	if res := runSvmc(t, dir, "run", "--hostfile", hf, "."); res.code == 0 || !strings.Contains(res.stderr, "--hostfile needs --mpi") {
		t.Errorf("--hostfile without --mpi: exit %d, %q", res.code, res.stderr)
	}
	// Without MPI's tools, --mpi says what to install.
	cmd := exec.Command(svmcBin, "run", "--mpi", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if want := "svmc: --mpi: pkg-config is not installed; install OpenMPI (apt-get install openmpi-bin libopenmpi-dev) or MPICH"; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("--mpi without MPI: %v, %q; want %q", err, out, want)
	}
	mpiReady(t)
	res := runSvmc(t, dir, "run", "--mpi", "--hostfile", hf, ".")
	if want := hf + ":3: slots=two: want a positive number"; res.code == 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("a wrong hostfile: exit %d, %q; want %q", res.code, res.stderr, want)
	}
}

// TestMPIRankDies: a rank whose processor panics ends the job with the
// processor and line, and the other rank, stopped by mpirun while it
// waited in MPI for the dead one, still completes its trace: the two are
// merged, ending with the panic.
func TestMPIRankDies(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import "fmt"

func main() {
	a := make([]int, 100)
	//svm:shared a
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		if i == 90 {
			panic(fmt.Sprint("bad element ", i))
		}
		a[i] = i
	}
	fmt.Println(a[5])
}
`})
	tr := filepath.Join(dir, "t.sddf")
	res := runSvmc(t, dir, "run", "--mpi", "-n", "2", "--trace", tr, ".")
	if res.code == 0 || !strings.Contains(res.stderr, "svmc: processor 1 panicked: bad element 90\n\tat main.go:11") {
		t.Errorf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	recs := readTrace(t, tr)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || !strings.HasPrefix(end.String("message"), "processor 1 panicked") {
		t.Errorf("last record %v, want the trace-end of rank 1's panic", end)
	}
	ranks := map[int]bool{}
	for _, r := range recs {
		if r.Desc.Name == "rank-info" {
			ranks[r.Int("rank")] = true
		}
	}
	if len(ranks) != 2 {
		t.Errorf("the merged trace has the rank-info records of ranks %v, want both: a rank's trace is missing", ranks)
	}
}

// TestMPIPanicInIteration: in one process a panic in an iteration is
// raised again after the pdo, where a deferred recover takes it; between
// ranks it ends the job, naming the processor and line: rank 0 recovered
// it alone and went on, printing its own result, while rank 1 waited at
// the pdo's end.
func TestMPIPanicInIteration(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import "fmt"

func count(xs []string) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("count: %v", r)
		}
	}()
	//svm:pdo loops(i) reduction(+: n)
	for i := 0; i < len(xs); i++ {
		if xs[i] == "x" {
			panic("bad item " + xs[i])
		}
		n++
	}
	return n, nil
}

func main() {
	fmt.Println(count([]string{"a", "x", "b", "c"}))
	fmt.Println("after")
}
`})
	res := runSvmc(t, dir, "run", "--mpi", "-n", "2", ".")
	if res.code == 0 || !strings.Contains(res.stderr, "svmc: processor 0 panicked: bad item x\n\tat main.go:14") || strings.Contains(res.stdout, "after") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if one := runSvmc(t, dir, "run", "-n", "2", "."); one.code != 0 || one.stdout != "0 count: bad item x\nafter\n" {
		t.Errorf("in one process: exit %d, stdout %q, stderr:\n%s", one.code, one.stdout, one.stderr)
	}
}

// TestMPIConflict: processors of two ranks updating one shared element
// under a critical section take turns between ranks (the sum is right);
// writing it without one, to different values, is a race the ranks see at
// the pdo's end: the run stops there with the ranks, the variable and what
// to do, instead of printing one rank's value.
func TestMPIConflict(t *testing.T) {
	mpiReady(t)
	prog := `package main

import "fmt"

func main() {
	hist := make([]int64, 4)
	//svm:shared hist
	//svm:pdo loops(i)
	for i := 0; i < 100; i++ {
		//svm:critical
		hist[i%4]++
		//svm:end critical
	}
	fmt.Println(hist)
}
`
	dir := writeModule(t, map[string]string{"main.go": prog})
	if one := runSvmc(t, dir, "run", "-n", "2", "."); one.code != 0 || one.stdout != "[25 25 25 25]\n" {
		t.Fatalf("in one process: exit %d\n%s%s", one.code, one.stdout, one.stderr)
	}
	tr := filepath.Join(t.TempDir(), "t.sddf")
	if res := runSvmc(t, dir, "run", "--mpi", "-n", "2", "--trace", tr, "."); res.code != 0 || res.stdout != "[25 25 25 25]\n" {
		t.Errorf("under a critical section: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	} else if rep := runSvmc(t, dir, "report", tr); !strings.Contains(rep.stdout, "100 global locks taken between ranks in pdos") {
		t.Errorf("the report does not count the 100 critical sections between ranks:\n%s%s", rep.stdout, rep.stderr)
	}
	racy := writeModule(t, map[string]string{"main.go": strings.Replace(strings.Replace(prog, "//svm:critical\n", "", 1), "hist[i%4]++\n\t\t//svm:end critical", "hist[0] = int64(i)", 1)})
	res := runSvmc(t, racy, "run", "--mpi", "-n", "2", ".")
	want := "main.go:8:2: pdo: shared variables between ranks: ranks 0 and 1 both changed byte 0 of shared variable 1 of main, to different values outside critical sections"
	if res.code == 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("without one: exit %d, stdout %q, stderr:\n%s\nwant %q", res.code, res.stdout, res.stderr, want)
	}
}

// TestMPIOrderAsRun: a merged trace needs no repair from the consistent
// order where the run itself kept its order: a critical section of data
// no rank exchanges (each rank's own lock: two ranks hold it at once), a
// pdo with nothing to combine whose processors have unequal work, and a
// psection of unequal sections (their ends meet the other ranks now; rank
// 0 went on while rank 1 computed, and its barrier exit came before rank
// 1's entry).
func TestMPIOrderAsRun(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import "fmt"

func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i % 3
	}
	return s
}

func main() {
	hits, sum := 0, 0
	//svm:pdo loops(i) reduction(+: sum)
	for i := 0; i < 40; i++ {
		//svm:critical tally
		hits++
		//svm:end critical
		sum += spin(2000)
	}
	out := make([]int, 8)
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		out[i] = spin(100000 * (i/4*5 + 1))
	}
	var a, b int
	//svm:psection
	{
		//svm:section
		a = spin(10000)
		//svm:section
		b = spin(800000)
	}
	fmt.Println(sum, a, b)
}
`})
	tr := filepath.Join(t.TempDir(), "t.sddf")
	if res := runSvmc(t, dir, "run", "--mpi", "-n", "2", "--trace", tr, "."); res.code != 0 || res.stdout != "79960 9999 799999\n" {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	rep := runSvmc(t, dir, "report", "--format", "json", tr)
	var r struct {
		Model struct {
			Order struct {
				Violations     int     `json:"violations"`
				EdgeViolations int     `json:"edge_violations"`
				MaxCorrection  float64 `json:"max_correction_us"`
			} `json:"order"`
		} `json:"model"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, rep.stderr)
	}
	if o := r.Model.Order; o.Violations != 0 || o.EdgeViolations != 0 {
		t.Errorf("the consistent order repaired %d records (%d edges, up to %.1f µs) of a run that kept its order", o.Violations, o.EdgeViolations, o.MaxCorrection)
	}
}

// TestMPIStdin: a program that reads standard input in exclusive code
// (every rank runs it) reads the same words on every rank, 300 KB of them
// (several chunks), and with none; mpirun gives the input to rank 0 only,
// which forwards it. Before, rank 1 read nothing and counted other words.
func TestMPIStdin(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	var words []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		words = append(words, strings.Fields(sc.Text())...)
	}
	total := 0
	//svm:pdo loops(i) reduction(+: total)
	for i := range words {
		total += len(words[i])
	}
	fmt.Println(len(words), total)
}
`})
	var in strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&in, "%d alpha\n", i)
	}
	// A program that reads none of a large input ends too (the job hung
	// at its end: the transport's close waited for chunks no rank took).
	idle := writeModule(t, map[string]string{"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"done\") }\n"})
	for _, c := range []struct{ dir, in, want string }{
		{dir, in.String(), "60000 288890\n"}, {dir, "", "0 0\n"}, {idle, strings.Repeat(in.String(), 4), "done\n"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, svmcBin, "run", "--mpi", "-n", "3", ".")
		cmd.Dir, cmd.Stdin = c.dir, strings.NewReader(c.in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		cancel()
		if err != nil || out.String() != c.want {
			t.Errorf("%d bytes in: %v, stdout %q, want %q\n%s", len(c.in), err, out.String(), c.want, errb.String())
		}
	}
}

// TestMPILogFatal: log.Fatalf in exclusive code, which every rank runs,
// says its message once (it was said by processor 0's copy on every rank)
// and ends the job with status 1, as the plain program does.
func TestMPILogFatal(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import "log"

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 10; i++ {
		s += i
	}
	log.SetFlags(0)
	log.Printf("sum %d", s)
	log.Fatalf("stop at %d", s)
}
`})
	res := runSvmc(t, dir, "run", "--mpi", "-n", "3", ".")
	if res.code != 1 || strings.Count(res.stderr, "sum 45\n") != 1 || strings.Count(res.stderr, "stop at 45\n") != 1 {
		t.Errorf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
}

// TestMPIDeadlockAtPDOEnd: two processors of rank 1 take two critical
// sections in opposite orders (global locks between ranks) while rank 0's
// processors are done and its leader waits in the pdo's exchange: the
// watchdogs see every processor blocked and the job stops naming them,
// instead of hanging with rank 0 in a collective.
func TestMPIDeadlockAtPDOEnd(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"time"
)

func main() {
	x := make([]int64, 2)
	//svm:shared x
	//svm:pdo loops(i) strategy(cyclic)
	for i := 0; i < 4; i++ {
		switch i {
		case 2:
			//svm:critical a
			{
				time.Sleep(50 * time.Millisecond)
				//svm:critical b
				x[0]++
				//svm:end critical b
			}
		case 3:
			//svm:critical b
			{
				time.Sleep(50 * time.Millisecond)
				//svm:critical a
				x[1]++
				//svm:end critical a
			}
		}
	}
	fmt.Println(x)
}
`})
	res := runSvmc(t, dir, "run", "--mpi", "-n", "2", "--procs-per-rank", "2", ".")
	wantFailure(t, res, "deadlock: no processor of the 2 ranks can proceed",
		"processor 0: waiting at the barrier at the end of pdo (main.go:11:2)",
		"processor 2: waiting to enter the critical section (main.go:18:5)",
		"processor 3: waiting to enter the critical section (main.go:26:5)")
}

// TestMPIPages: the stencil's fully checked arrays travel as lazy pages —
// on 3 ranks the pages next to another rank's rows are fetched from their
// homes, the rest stays put, and the job moves under a third of the bytes
// of --rank-pages eager (every change to every rank) for the same output;
// at stage 6 the page faults in the trace are the real fetches, each page
// sent by a processor of another rank.
func TestMPIPages(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": mpiStencil})
	moved := map[string]float64{}
	var out string
	for _, mode := range []string{"lazy", "eager"} {
		tr := filepath.Join(t.TempDir(), "t.sddf")
		res := runSvmc(t, dir, "run", "--mpi", "-n", "3", "--rank-pages", mode, "--stage", "6", "--trace", tr, ".")
		if res.code != 0 || out != "" && res.stdout != out {
			t.Fatalf("%s: exit %d\n%s%s\nwant\n%s", mode, res.code, res.stdout, res.stderr, out)
		}
		out = res.stdout
		rep := runSvmc(t, dir, "report", "--format", "json", tr)
		var js struct {
			Model struct {
				Ranks []struct {
					Of        int     `json:"ranks"`
					Sent      float64 `json:"bytes_sent"`
					Pages     int     `json:"pages_fetched"`
					PageBytes float64 `json:"page_bytes_received"`
					Served    int     `json:"pages_served"`
					Synced    int     `json:"stale_pages_synchronised"`
					Pre       int     `json:"pages_prefetched"`
				} `json:"ranks"`
			} `json:"model"`
		}
		if err := json.Unmarshal([]byte(rep.stdout), &js); err != nil || len(js.Model.Ranks) != 3 {
			t.Fatalf("%s: report: %v, %d ranks\n%s", mode, err, len(js.Model.Ranks), rep.stderr)
		}
		fetched, served, synced, pre := 0, 0, 0, 0
		for _, r := range js.Model.Ranks {
			// An Allgather's contribution reaches the two other ranks.
			moved[mode] += 2*r.Sent + r.PageBytes
			fetched, served, synced, pre = fetched+r.Pages, served+r.Served, synced+r.Synced, pre+r.Pre
		}
		faults := 0
		for _, rec := range readTrace(t, tr) {
			if rec.Desc.Name != "read-page-fault-serviced" && rec.Desc.Name != "write-page-fault-serviced" {
				continue
			}
			from := rec.Int("node id that sent the page")
			if from >= 0 {
				faults++
				if from == rec.Node() {
					t.Errorf("%s: processor %d fetched a page from itself", mode, from)
				}
			}
		}
		switch mode {
		case "lazy":
			// 30 sweeps read one row across each of the four rank
			// boundaries (the first sweeps' rows were current), and the
			// reduction loop reads v and w written cyclically. From the
			// third sweep on, a sweep prefetches what the last fetched: a
			// fault is then a page that had not arrived yet.
			if fetched < 60 || fetched != served || faults+pre < fetched || faults > fetched || pre < 40 || synced == 0 {
				t.Errorf("lazy: %d pages fetched (%d prefetched), %d served, %d fault records from another rank, %d stale pages synchronised", fetched, pre, served, faults, synced)
			}
		case "eager":
			// (Its fault records are the one-process model's.)
			if fetched != 0 || synced != 0 {
				t.Errorf("eager: %d pages fetched, %d synchronised", fetched, synced)
			}
		}
	}
	if moved["lazy"] > moved["eager"]/3 {
		t.Errorf("bytes moved: lazy %.0f, eager %.0f (want under a third)", moved["lazy"], moved["eager"])
	}
	t.Logf("bytes moved: lazy %.0f, eager %.0f", moved["lazy"], moved["eager"])
}

// mpiSwap is Jacobi as Go programmers write it: two grids swapped after
// each sweep (a, b = b, a), so that a sweep reads one grid's halo and the
// next sweep the other's.
const mpiSwap = `package main

import "fmt"

func main() {
	const n, iters = 128, 40
	a, b := make([][]float64, n), make([][]float64, n)
	for i := range a {
		a[i], b[i] = make([]float64, n), make([]float64, n)
		a[i][0], b[i][0] = 1, 1
	}
	//svm:shared a, b
	for it := 0; it < iters; it++ {
		//svm:pdo loops(i)
		for i := 1; i < n-1; i++ {
			for j := 1; j < n-1; j++ {
				b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1])
			}
		}
		a, b = b, a
		if it%10 == 9 {
			fmt.Printf("%d: %.9f\n", it, a[n/2][1])
		}
	}
	fmt.Printf("%.9f %.9f\n", a[n/2][1], a[n/2][n/2])
}
`

// TestMPIPagesSwap: a construct prefetches the stale pages its last two
// runs fetched, so that swapped grids' halos (one grid's, then the
// other's) arrive while the processors compute: on 3 ranks most fetches
// after the first sweeps are prefetches (with one run's memory, none
// were). The progress line every ten sweeps brings one stale row up to
// date on every rank, not the grid (each serial phase's first fault of a
// variable brings one page, the next two, …).
func TestMPIPagesSwap(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": mpiSwap})
	one := runSvmc(t, dir, "run", "-n", "3", ".")
	tr := filepath.Join(t.TempDir(), "t.sddf")
	res := runSvmc(t, dir, "run", "--mpi", "-n", "3", "--trace", tr, ".")
	if res.code != 0 || one.code != 0 || res.stdout != one.stdout {
		t.Fatalf("exit %d, %d\n%s%s\nwant\n%s", res.code, one.code, res.stdout, res.stderr, one.stdout)
	}
	rep := runSvmc(t, dir, "report", "--format", "json", tr)
	var js struct {
		Model struct {
			Ranks []struct {
				Pages  int `json:"pages_fetched"`
				Pre    int `json:"pages_prefetched"`
				Synced int `json:"stale_pages_synchronised"`
			} `json:"ranks"`
		} `json:"model"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &js); err != nil || len(js.Model.Ranks) != 3 {
		t.Fatalf("report: %v\n%s", err, rep.stderr)
	}
	fetched, pre, synced := 0, 0, 0
	for _, r := range js.Model.Ranks {
		fetched, pre, synced = fetched+r.Pages, pre+r.Pre, synced+r.Synced
	}
	// 40 sweeps, four boundaries, a row of 1 KiB on a page each side.
	if fetched < 100 || 2*pre < fetched {
		t.Errorf("%d pages fetched, %d of them prefetched: want most prefetched", fetched, pre)
	}
	// Four progress lines and the last: a row each (two at the end),
	// counted once per rank; the whole grid's stale rows are ~85.
	if synced == 0 || synced > 3*8 {
		t.Errorf("%d stale pages synchronised for five lines of output", synced)
	}
	t.Logf("%d pages fetched, %d prefetched, %d stale pages synchronised", fetched, pre, synced)
}

// sameOutput compares two outputs of the package in dir, line by line in
// any order when the package says "corpus: unordered" (its processors print
// side by side).
func sameOutput(a, b, dir string) bool {
	src, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if strings.Contains(string(src), "\n// corpus: unordered") {
		x, y := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
		slices.Sort(x)
		slices.Sort(y)
		return slices.Equal(x, y)
	}
	return a == b
}
