package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mpiMessages passes messages of a struct type around a ring with
// synchronous sends against posted Irecvs, meets at a barrier inside the
// replicated region, gathers on processor 0 from any source (rank 0
// decides the order for processor 0's copies on the other ranks), passes
// 400 KB messages (their data travels apart from the header) into a
// posted receive and into none yet (two of them buffered fit msg_buffer's
// default 1 MiB), and writes a shared array, one
// element per processor, that the ranks exchange at the region's end. Its
// output does not depend on the number of processors.
const mpiMessages = `package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

type pair struct {
	From int32
	Half float64
}

func main() {
	n := rtlib.NumProcessors()
	counts := make([]int, 16)
	//svm:shared counts
	got := make([]pair, 16)
	order := []int{}
	bigOK := make([]bool, 16)
	//svm:replicated
	{
		me, np := rtlib.ProcessorID(), rtlib.NumProcessors()
		counts[me] = 10*me + 1
		next, prev := (me+1)%np, (me+np-1)%np
		in := make([]pair, 1)
		r := rtlib.Irecv(prev, 1, in)
		rtlib.Ssend(next, 1, []pair{{int32(me), float64(me) / 2}})
		rtlib.WaitAll(r)
		big, into := make([]float64, 50000), make([]float64, 50000)
		for i := range big {
			big[i] = float64(me*1000000 + i)
		}
		posted := rtlib.Irecv(prev, 3, into)
		rtlib.Send(next, 3, big)
		posted.Wait()
		ok := into[0] == float64(prev*1000000) && into[49999] == float64(prev*1000000+49999)
		rtlib.Send(next, 4, big)
		//svm:barrier
		rtlib.Recv(prev, 4, into)
		ok = ok && into[5] == float64(prev*1000000+5)
		// Two processors of one rank send to the same other rank at
		// once (2 ranks of 2: 0→2 and 1→3): their headers and data
		// must not cross.
		far, from := (me+2)%np, (me+np-2%np)%np
		into2 := make([]float64, 50000)
		q2 := rtlib.Irecv(from, 5, into2)
		rtlib.Send(far, 5, big)
		q2.Wait()
		ok = ok && into2[7] == float64(from*1000000+7) && into2[49999] == float64(from*1000000+49999)
		flags := make([]int, np)
		rtlib.Gather(0, []int{map[bool]int{true: 1}[ok]}, flags)
		if me == 0 {
			for q, f := range flags {
				bigOK[q] = f == 1
			}
		}
		//svm:barrier
		if me == 0 {
			got[0] = in[0]
			for range np - 1 {
				b := make([]pair, 1)
				st := rtlib.Recv(rtlib.AnySource, 2, b)
				got[st.Source] = b[0]
				order = append(order, st.Source)
			}
		} else {
			rtlib.Send(0, 2, in)
		}
	}
	s, ring := 0, true
	for _, c := range counts {
		s += c
	}
	for i := range n {
		p := (i + n - 1) % n
		ring = ring && got[i] == pair{int32(p), float64(p) / 2}
	}
	seen := map[int]bool{}
	for _, q := range order {
		seen[q] = true
	}
	big := true
	for q := range n {
		big = big && bigOK[q]
	}
	fmt.Println("counts", s == 10*n*(n-1)/2+n, "ring", ring, "order", len(seen) == n-1, "big", big)
}
`

// TestMPIMessages: under svmc run --mpi the messages between processors of
// different ranks are MPI messages: the ranks' rank-info records count
// them, the merged trace pairs every receive with its send across ranks
// with no clock repair beyond the shift's error, and the report says how
// many went between ranks.
func TestMPIMessages(t *testing.T) {
	mpiReady(t)
	root, _ := filepath.Abs("../..")
	tr := filepath.Join(t.TempDir(), "ring.sddf")
	res := runSvmc(t, root, "run", "--mpi", "-n", "4", "--trace", tr, "./examples/ring")
	if res.code != 0 || !strings.Contains(res.stdout, "lap 2: 21780") {
		t.Fatalf("svmc run --mpi -n 4 ring: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	sent, ranks := 0, 0
	for _, r := range readTrace(t, tr) {
		if r.Desc.Name == "rank-info" {
			ranks++
			sent += r.Int("messages sent")
		}
	}
	// Each lap: 0→1, 1→2, 2→3 between ranks and 3→0, which goes to
	// every rank's processor 0 (three ranks other than 3's).
	if ranks != 4 || sent != 3*(3+3) {
		t.Errorf("rank-info: %d records, %d messages sent between ranks; want 4 and 18", ranks, sent)
	}
	rep := runSvmc(t, root, "report", tr)
	if rep.code != 0 || !strings.Contains(rep.stdout, "18 messages") || !strings.Contains(rep.stdout, "late sender") {
		t.Errorf("svmc report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	rep = runSvmc(t, root, "report", "--format", "json", tr)
	var js struct {
		Model struct {
			Order struct {
				MaxCorrection float64 `json:"max_correction_us"`
			} `json:"order"`
			Messages struct {
				Unmatched int `json:"unmatched"`
			} `json:"messages"`
		} `json:"model"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &js); err != nil || js.Model.Order.MaxCorrection > 100 {
		t.Errorf("merged trace: %v, the consistent order moved a record by %.1f µs (want under 100 µs: processor 0's messages leave from rank 0, as its records say)", err, js.Model.Order.MaxCorrection)
	}
}

// TestMPIMessagesInIterations: messages between a pdo's iterations on
// different ranks. A message to processor 0 from an
// iteration went to processor 0's copies on every rank as from a
// replicated region, where the copy on the sender's rank never takes it:
// the first exchange was reported a deadlock ("processor 1: in Send,
// waiting for processor 0 to receive") once those copies filled the
// buffer of standard sends (msg_buffer).
func TestMPIMessagesInIterations(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	n := rtlib.NumProcessors()
	sums := make([]int, n)
	//svm:shared sums
	//svm:pdo loops(me)
	for me := 0; me < n; me++ {
		b := make([]int, 1<<14) // 128 KiB: the lost copies filled msg_buffer
		b[0] = me
		for range 50 {
			switch {
			case me == 0 && n > 1:
				b[0]++
				rtlib.Send(1, 7, b)
				rtlib.Recv(1, 7, b)
			case me == 1:
				rtlib.Recv(0, 7, b)
				b[0] *= 2
				rtlib.Send(0, 7, b)
			}
			sums[me] += b[0]
		}
	}
	fmt.Println(sums[:min(n, 2)])
}
`})
	for _, n := range []string{"2", "3"} {
		in := runSvmc(t, dir, "run", "-n", n, ".")
		// Round k carries 2^(k+1) - 2 both ways: each sum is 2^52 - 104.
		if in.code != 0 || in.stdout != "[4503599627370392 4503599627370392]\n" {
			t.Fatalf("-n %s in one process: exit %d, %q\n%s", n, in.code, in.stdout, in.stderr)
		}
		res := runSvmc(t, dir, "run", "--mpi", "-n", n, ".")
		if res.code != 0 || res.stdout != in.stdout {
			t.Errorf("--mpi -n %s: exit %d, %q; in one process %q\n%s", n, res.code, res.stdout, in.stdout, res.stderr)
		}
	}
}

// TestMPIMapOrder: exclusive code that builds a slice from a map, and a
// pdo over it: each rank ranged over the map in an order of its own, so
// the elements a rank computed belonged to another order (100 of 200
// mismatched on two ranks). A build for ranks visits such maps in key
// order; the loop's break, labelled continue, return, defer and delete
// keep their meaning.
func TestMPIMapOrder(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"maps"
	"slices"
)

func find(m map[string]int, want int) string {
	for k, v := range m {
		if v == want {
			return k
		}
	}
	return ""
}

func main() {
	m := map[string]int{}
	for i := range 200 {
		m[fmt.Sprintf("k%03d", i)] = i
	}
	var keys []string
	for k := range m {
		if len(keys) == 150 {
			break
		}
		keys = append(keys, k)
	}
	skipped := 0
outer:
	for k, v := range m {
		defer func() { skipped += 0 }()
		for range 2 {
			if v%3 == 0 {
				skipped++
				continue outer
			}
		}
		if v > 190 {
			delete(m, k)
		}
	}
	vals := slices.Collect(maps.Values(m))
	got := make([]int, len(keys))
	//svm:shared got
	//svm:pdo
	for i := range keys {
		got[i] = m[keys[i]] * 2
	}
	bad := 0
	for i, k := range keys {
		if got[i] != 2*m[k] {
			bad++
		}
	}
	fmt.Println("mismatches:", bad, "skipped:", skipped, "left:", len(vals), find(m, 7))
}
`})
	for _, n := range []string{"2", "3"} {
		res := runSvmc(t, dir, "run", "--mpi", "-n", n, ".")
		if want := "mismatches: 0 skipped: 67 left: 194 k007\n"; res.code != 0 || res.stdout != want {
			t.Errorf("--mpi -n %s: exit %d, %q, want %q\n%s", n, res.code, res.stdout, want, res.stderr)
		}
	}
}

// TestMPIFiles: files written by exclusive code are written once, by rank
// 0, as its output is printed once: a log opened for appending got a line
// per rank, a report written with os.WriteFile was written by each.
// Files the iterations of a pdo write are written on their ranks, all of
// them.
func TestMPIFiles(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := os.Args[1]
	f, err := os.OpenFile(filepath.Join(out, "run.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(f, "started")
	f.Close()
	if err := os.MkdirAll(filepath.Join(out, "parts"), 0o755); err != nil {
		log.Fatal(err)
	}
	w, err := os.Create(filepath.Join(out, "report"))
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	fmt.Fprintln(w, "report")
	//svm:pdo loops(i)
	for i := 0; i < 6; i++ {
		name := filepath.Join(out, "parts", fmt.Sprint(i))
		if err := os.WriteFile(name, []byte(strings.Repeat("#", i)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(out, "parts"))
	fmt.Println(len(entries), err)
}
`})
	for _, n := range []string{"2", "3"} {
		out := t.TempDir()
		res := runSvmc(t, dir, "run", "--mpi", "-n", n, ".", "--", out)
		if res.code != 0 || res.stdout != "6 <nil>\n" {
			t.Errorf("--mpi -n %s: exit %d, %q\n%s", n, res.code, res.stdout, res.stderr)
			continue
		}
		for name, want := range map[string]string{"run.log": "started\n", "report": "report\n"} {
			if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != want {
				t.Errorf("--mpi -n %s: %s %q, %v; want %q", n, name, b, err, want)
			}
		}
		for i := range 6 {
			if b, err := os.ReadFile(filepath.Join(out, "parts", strconv.Itoa(i))); err != nil || len(b) != i {
				t.Errorf("--mpi -n %s: part %d: %q, %v", n, i, b, err)
			}
		}
	}
}

// TestMPIMessageErrors: what cannot run between ranks stops the job with
// its position and why: a pdo inside a replicated region, processor 0
// receiving from any source without blocking, a message of pointers.
func TestMPIMessageErrors(t *testing.T) {
	mpiReady(t)
	cases := []struct{ name, body, want string }{
		{"pdo", `	a := make([]int, 8)
	//svm:replicated
	{
		//svm:pdo loops(i)
		for i := range a {
			a[i] = i
		}
	}
	fmt.Println(a)`, "main.go:15:3: processor 0: a pdo inside a replicated region cannot run under --mpi with more than one rank"},
		{"irecv", `	//svm:replicated
	{
		b := make([]int, 1)
		if rtlib.ProcessorID() == 0 {
			rtlib.Irecv(rtlib.AnySource, 1, b).Wait()
		} else if rtlib.ProcessorID() == 1 {
			rtlib.Send(0, 1, b)
		}
	}
	fmt.Println("done")`, "main.go:16:4: processor 0: Irecv from any source by processor 0 cannot run under --mpi"},
		{"pointers", `	//svm:replicated
	{
		if rtlib.ProcessorID() == 1 {
			rtlib.Send(0, 1, []string{"x"})
		} else if rtlib.ProcessorID() == 0 {
			rtlib.Recv(1, 1, make([]string, 1))
		}
	}
	fmt.Println("done")`, "main.go:15:4: processor 1: a message of []string cannot go to processor 0 on another rank"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/svmc/svmc/rtlib\"\n)\n\nvar _ = rtlib.ProcessorID\n\nfunc main() {\n" + c.body + "\n}\n"
			dir := writeModule(t, map[string]string{"main.go": src})
			if one := runSvmc(t, dir, "run", "-n", "2", "."); one.code != 0 {
				t.Fatalf("in one process: exit %d\n%s%s", one.code, one.stdout, one.stderr)
			}
			res := runSvmc(t, dir, "run", "--mpi", "-n", "2", ".")
			if res.code == 0 || !strings.Contains(res.stderr, c.want) || strings.Contains(res.stderr, "goroutine ") {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", res.code, res.stderr, c.want)
			}
		})
	}
}

// TestMPIProbeAnySource: processor 0 probing and exchanging with any
// source in a replicated region — the master that sizes each result by
// Probe before it receives it, and a Sendrecv that takes whichever reply
// comes — gives the results of one process under --mpi, where processor 0
// runs on every rank and rank 0 decides for its copies which message each
// call took. Both stopped the job ("Probe from any source by processor 0
// cannot run under --mpi").
func TestMPIProbeAnySource(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"slices"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	sums := make([]int, 8)
	replies := []int{}
	//svm:replicated
	{
		me, np := rtlib.ProcessorID(), rtlib.NumProcessors()
		if me == 0 {
			for range np - 1 {
				st := rtlib.Probe(rtlib.AnySource, 7)
				b := make([]int, st.Count)
				rtlib.Recv(st.Source, 7, b)
				for _, v := range b {
					sums[st.Source] += v
				}
			}
			for q := 1; q < np; q++ {
				got := make([]int, 1)
				st := rtlib.Sendrecv(q, 8, []int{q * 10}, rtlib.AnySource, 9, got)
				replies = append(replies, got[0]+st.Source)
			}
		} else {
			part := make([]int, me*3)
			for i := range part {
				part[i] = me + i
			}
			rtlib.Send(0, 7, part)
			x := make([]int, 1)
			rtlib.Recv(0, 8, x)
			rtlib.Send(0, 9, []int{x[0] + 1})
		}
	}
	slices.Sort(replies)
	fmt.Println("sums", sums, "replies", replies)
}
`})
	for _, n := range []string{"1", "2", "3", "4"} {
		one := runSvmc(t, dir, "run", "-n", n, ".")
		if one.code != 0 {
			t.Fatalf("-n %s in one process: exit %d\n%s%s", n, one.code, one.stdout, one.stderr)
		}
		res := runSvmc(t, dir, "run", "--mpi", "-n", n, ".")
		if res.code != 0 || res.stdout != one.stdout {
			t.Errorf("--mpi -n %s: exit %d, stdout %q, want %q\n%s", n, res.code, res.stdout, one.stdout, res.stderr)
		}
	}
}

// wantFailure checks that a run failed and that its standard error holds
// every one of wants.
func wantFailure(t *testing.T, res result, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if res.code == 0 || !strings.Contains(res.stderr, w) {
			t.Errorf("exit %d, stderr:\n%s\nwant it to contain %q", res.code, res.stderr, w)
		}
	}
}

// wantRanksOutput runs the program in dir under --mpi on each number of
// ranks of ns and checks that it ends well with output want.
func wantRanksOutput(t *testing.T, dir, want string, ns ...string) {
	t.Helper()
	for _, n := range ns {
		res := runSvmc(t, dir, "run", "--mpi", "--time-limit", "60s", "-n", n, ".")
		if res.code != 0 || res.stdout != want {
			t.Errorf("--mpi -n %s: exit %d, stdout %q, want %q\n%s", n, res.code, res.stdout, want, res.stderr)
		}
	}
}

// TestMPITestSameOnEveryRank: processor 0 runs on every rank, and each
// rank's copy saw the message it polls for with Test arrive at its own
// time: the copies counted different numbers of polls, ran a different
// number of pdos after them, and the job hung (x421). Rank 0's answer is
// now every copy's. Processor 0 also polls an Isend of its own, which
// only rank 0's copy sends.
func TestMPITestSameOnEveryRank(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	polls, sendPolls := 0, 0
	//svm:replicated
	{
		switch rtlib.ProcessorID() {
		case 1:
			time.Sleep(30 * time.Millisecond)
			rtlib.Send(0, 1, []int{42})
			in := make([]int, 1)
			rtlib.Recv(0, 2, in)
		case 0:
			buf := make([]int, 1)
			req := rtlib.Irecv(1, 1, buf)
			for {
				if ok, _ := req.Test(); ok {
					break
				}
				polls++
				runtime.Gosched()
			}
			out := rtlib.Isend(1, 2, []int{buf[0] + 1})
			for {
				if ok, _ := out.Test(); ok {
					break
				}
				sendPolls++
			}
		}
	}
	n := (polls + sendPolls) % 1000
	total := 0
	for range n {
		//svm:pdo reduction(+: total)
		for i := range 4 {
			total += i
		}
	}
	fmt.Println(polls > 0, total == 6*n)
}
`})
	wantRanksOutput(t, dir, "true true\n", "2", "3")
}

// TestMPIRanksGoDifferentWays: a random number drawn in code processor 0
// runs on every rank differs between the ranks' copies, which then run
// different numbers of pdos; the rank that ran fewer ended while the
// other waited at a pdo's end, and the job hung without a word (its
// MPI_Finalize waited for the other rank; x423 did it with time.Since,
// whose reading the ranks now share: TestMPIClockSameOnEveryRank). The
// ranks now end together, and the watchdogs find the job that cannot,
// naming each processor's state and saying why.
func TestMPIRanksGoDifferentWays(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"math/rand/v2"
)

func main() {
	var a [1000]float64
	//svm:shared a
	rounds := 10 + rand.IntN(10000)
	for range rounds {
		//svm:pdo
		for i := range a {
			a[i] += 1
		}
	}
	fmt.Println(rounds > 0)
}
`})
	res := runSvmc(t, dir, "run", "--mpi", "--time-limit", "60s", "-n", "2", ".")
	wantFailure(t, res,
		"svmc: deadlock: no processor of the 2 ranks can proceed",
		"has ended, waiting for the other ranks to end",
		"waiting at the barrier at the end of pdo (main.go:13:3)",
		"some ranks ended the program while others wait in it: processor 0 runs on every rank")
}

// TestMPIPartedInSections: the ranks' copies of processor 0 run a
// section's loop a different number of times (the rank from the launcher
// stands for any difference; the corpus's sections program has one, a
// variable its pdo writes that is not shared), and a rank reaches the
// dynamic pdo after the psection while rank 0 is still in the loop. The
// job hung without a word: the member that waited for rank 0's chunk and
// the idle processor that waited its section's turn were not published
// as waiting, so the watchdogs never found every rank quiet.
func TestMPIPartedInSections(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	rank, _ := strconv.Atoi(os.Getenv("OMPI_COMM_WORLD_RANK") + os.Getenv("PMI_RANK"))
	var s [8]int
	//svm:psection
	{
		//svm:section
		{
			for range 3 + 5*(1-min(rank, 1)) {
				//svm:pdo
				for i := range s {
					s[i]++
				}
			}
		}
		//svm:section
		{
			s[0]++
		}
	}
	//svm:pdo strategy(dynamic(1))
	for i := range s {
		s[i]++
	}
	fmt.Println(s)
}
`})
	res := runSvmc(t, dir, "run", "--mpi", "--time-limit", "60s", "-n", "2", ".")
	wantFailure(t, res,
		"svmc: deadlock: no processor of the 2 ranks can proceed",
		"\n  rank 0:\n    processor 0: waiting at the barrier at the end of pdo (main.go:17:5)\n",
		"\n  rank 1:\n    processor 1: waiting for rank 0 to hand out a chunk of the pdo (main.go:28:2)\n",
		"rank 0 has not reached the dynamic pdo another rank waits in: processor 0 runs on every rank")
	// With s shared the loop's ends exchange it (a gather between ranks),
	// and the psection's end on one rank meets a loop's end on the other:
	// MPI says the collective was truncated, which svmc explains (and
	// OpenMPI's own lines about it are left out).
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	shared := strings.Replace(string(src), "var s [8]int\n", "var s [8]int\n\t//svm:shared s\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(shared), 0o644); err != nil {
		t.Fatal(err)
	}
	res = runSvmc(t, dir, "run", "--mpi", "--time-limit", "60s", "-n", "2", ".")
	if want := "MPI_ERR_TRUNCATE: message truncated: the ranks reached different meeting points (processor 0 runs on every rank"; res.code == 0 || !strings.Contains(res.stderr, want) || strings.Contains(res.stderr, "NBC_Progress") {
		t.Errorf("s shared: exit %d, stderr:\n%s\nwant it to contain %q and no NBC_Progress", res.code, res.stderr, want)
	}
}

// TestMPIClockSameOnEveryRank: processor 0's copies read one clock, rank
// 0's: a loop bounded by time.Since ran a different number of pdos on each
// rank and the job stopped (x423). The file uses its import of time (under
// another name) only through the functions svmc rewrites.
func TestMPIClockSameOnEveryRank(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	tm "time"
)

func main() {
	var a [1000]float64
	//svm:shared a
	start := tm.Now()
	rounds := 0
	for tm.Since(start).Nanoseconds() < 2e8 {
		//svm:pdo
		for i := range a {
			a[i] += 1
		}
		rounds++
	}
	fmt.Println(rounds > 0, a[999] == float64(rounds))
}
`})
	wantRanksOutput(t, dir, "true true\n", "2", "3")
}

// TestMPIDeadlock: a deadlock across ranks (processor 1 on rank 1 waits
// for a message processor 2 on rank 2 never sends, the others wait at the
// region's end) is found by rank 0 from the ranks' watchdogs, as one
// process finds it: the job stops with every processor's wait, and the
// merged trace ends with the error.
func TestMPIDeadlock(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		b := make([]int, 1)
		if rtlib.ProcessorID() == 1 {
			rtlib.Recv(2, 9, b)
		}
	}
	fmt.Println("unreachable")
}
`})
	want := []string{"processor 0: waiting at the barrier at the end of replicated region (main.go:10:2)",
		"processor 1: in Recv, waiting for a message from processor 2 (main.go:14:4)",
		"processor 2: waiting at the barrier at the end of replicated region (main.go:10:2)"}
	one := runSvmc(t, dir, "run", "-n", "3", ".")
	tr := filepath.Join(t.TempDir(), "t.sddf")
	res := runSvmc(t, dir, "run", "--mpi", "-n", "3", "--trace", tr, ".")
	for _, r := range []struct {
		name string
		res  result
		head string
	}{{"one process", one, "deadlock: no processor can proceed"}, {"3 ranks", res, "deadlock: no processor of the 3 ranks can proceed, and no message is on its way between them"}} {
		if r.res.code == 0 || !strings.Contains(r.res.stderr, r.head) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %q", r.name, r.res.code, r.res.stderr, r.head)
		}
		for _, w := range want {
			if !strings.Contains(r.res.stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", r.name, w, r.res.stderr)
			}
		}
	}
	recs := readTrace(t, tr)
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") == 0 {
		t.Errorf("the merged trace ends with %v, want trace-end of the failed run", end)
	}
}

// TestMPIRankKilled: a rank killed outright (SIGKILL, as kill -9 or the
// OOM killer do) ends the job; mpirun names the rank and the signal, svmc
// says whose trace is cut, and the merged trace holds the other rank's
// complete trace and what the killed one had written.
func TestMPIRankKilled(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"syscall"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	//svm:replicated
	{
		me := rtlib.ProcessorID()
		b := make([]int, 1)
		for i := range 20000 {
			if me == 1 && i == 10000 {
				syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
			}
			rtlib.Send(1-me, 1, b)
			rtlib.Recv(1-me, 1, b)
		}
	}
	fmt.Println("unreachable")
}
`})
	tr := filepath.Join(t.TempDir(), "t.sddf")
	res := runSvmc(t, dir, "run", "--mpi", "-n", "2", "--trace", tr, ".")
	if res.code == 0 || !strings.Contains(res.stderr, "rank 1 ended without completing its trace (killed)") || !strings.Contains(res.stderr, "signal 9") {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	calls := map[int]int{}
	recs := readTrace(t, tr)
	for _, r := range recs {
		if r.Desc.Name == "msg-call-start" {
			calls[r.Node()]++
		}
	}
	// Rank 0 wrote every call it made; rank 1 what it had flushed.
	if calls[0] < 20000 || calls[1] == 0 || calls[1] > 20000 {
		t.Errorf("message calls per processor in the merged trace: %v", calls)
	}
	if end := recs[len(recs)-1]; end.Desc.Name != "trace-end" || end.Int("status") == 0 {
		t.Errorf("the merged trace ends with %v", end)
	}
}

// TestMPILongMessages: messages between ranks of every length around the
// size of a slot of the receiving rank's ring of posted receives
// (ranks_mpi.go): a program's message whose data travels with its header
// just under the size from which it travels apart, one just over it, and
// a critical section's publication of 240 KB of shared storage, which is
// longer than a slot and goes as a marker and the message on a tag of its
// own; then the two processors send each other 800 KB at once before
// either receives (a blocking standard send of a message that long leaves
// from the sender's slice under --mpi and waits until the other rank's
// transport has taken it, which it does without a receive posted), the
// second time while the receiver computes for 20 ms first; last, in a
// replicated region, every processor sends processor 0 800 KB (a message
// to processor 0 goes to its copy on every rank, the sender's own rank
// delivering it while the others' travel). The results are those of the
// run in one process.
func TestMPILongMessages(t *testing.T) {
	mpiReady(t)
	dir := writeModule(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"time"

	"github.com/svmc/svmc/rtlib"
)

func main() {
	acc := make([]float64, 30000)
	//svm:shared acc
	sums := make([]float64, 4)
	//svm:shared sums
	//svm:pdo loops(me)
	for me := 0; me < 2; me++ {
		for _, n := range []int{65536 - 200, 65536 + 8, 3} {
			buf := make([]byte, n)
			if me == 0 {
				for i := range buf {
					buf[i] = byte(i * 7)
				}
				rtlib.Send(1, 1, buf)
			} else {
				rtlib.Recv(0, 1, buf)
				s := 0
				for i, b := range buf {
					s += int(b) * (i%5 + 1)
				}
				sums[1] += float64(s)
			}
		}
		for k := 0; k < 3; k++ {
			//svm:critical
			for i := range acc {
				acc[i] += float64(me + k + i%3)
			}
			//svm:end critical
		}
		out, in := make([]float64, 100000), make([]float64, 100000)
		for round := range 2 {
			for i := range out {
				out[i] = float64(me*3 + round + i%7)
			}
			rtlib.Send(1-me, 2, out)
			if round == 1 && me == 1 {
				time.Sleep(20 * time.Millisecond)
			}
			rtlib.Recv(1-me, 2, in)
			for i, v := range in {
				sums[2+me] += v * float64(i%3+1)
			}
		}
	}
	t := 0.0
	for _, v := range acc {
		t += v
	}
	var big float64
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		msg := make([]float64, 100000)
		if me == 0 {
			for k := 1; k < n; k++ {
				rtlib.Recv(k, 3, msg)
				for i, v := range msg {
					big += v * float64(i%2+k)
				}
			}
		} else {
			for i := range msg {
				msg[i] = float64(me + i%11)
			}
			rtlib.Send(0, 3, msg)
		}
	}
	fmt.Println(sums[1], t, sums[2], sums[3], big)
}
`})
	for _, n := range []string{"2", "3"} {
		one := runSvmc(t, dir, "run", "-n", n, ".")
		if one.code != 0 || one.stdout == "" {
			t.Fatalf("-n %s in one process: exit %d\n%s%s", n, one.code, one.stdout, one.stderr)
		}
		if res := runSvmc(t, dir, "run", "--mpi", "-n", n, "."); res.code != 0 || res.stdout != one.stdout {
			t.Errorf("--mpi -n %s: exit %d, printed %q, want %q\n%s", n, res.code, res.stdout, one.stdout, res.stderr)
		}
	}
}
