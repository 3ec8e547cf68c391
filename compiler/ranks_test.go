package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRankPrivate: built for MPI ranks, a pdo that writes a variable
// declared outside it that is neither shared nor a reduction variable gets
// a warning at the write, with the fix that fits (shared for elements, a
// reduction for a whole variable); shared, reduction and per-iteration
// variables get none, //svm:ignore race silences one, and a build for one
// process says nothing of it. A parameter every call gives shared storage
// is shared (its writes travel whatever name reaches them); one given
// shared and private storage is warned of with both calls.
func TestRankPrivate(t *testing.T) {
	want := map[string]string{}
	re := regexp.MustCompile(`// want (\w+): (\w+) advice`)
	for _, name := range []string{"main.go", "accounts.go"} {
		src, err := os.ReadFile(filepath.Join("testdata/ranks", name))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				want[fmt.Sprintf("%s:%d", name, i+1)] = m[1] + " " + m[2]
			}
		}
	}
	for _, ranks := range []bool{true, false} {
		p, err := Compile(Config{Dir: "testdata/ranks", Pattern: ".", Ranks: ranks})
		if p == nil || len(p.Diags.Errors()) > 0 {
			t.Fatalf("does not compile: %v %v", err, p.Diags)
		}
		got := map[string]string{}
		for _, d := range p.Diags {
			if !strings.Contains(d.Msg, "is private to each rank") || d.Suppressed != "" {
				continue
			}
			name, _, _ := strings.Cut(d.Msg, " ")
			advice := "shared"
			if strings.Contains(d.Msg, "reduction(+: ") {
				advice = "reduction"
			}
			if strings.Contains(d.Msg, "a slice the iterations replace (found = …, an append or another slice) cannot be combined between ranks") {
				advice = "collect"
			}
			if strings.Contains(d.Msg, "a string the iterations assign cannot be combined between ranks") {
				advice = "assign"
			}
			if strings.Contains(d.Msg, "reduction(||: big) when any iteration may set it") {
				advice = "logical"
			}
			if strings.Contains(d.Msg, "share its storage through a slice, data := s.areas[:] and //svm:shared data") {
				advice = "array"
			}
			if strings.Contains(d.Msg, "declare it //svm:shared table in main (or the function that makes it) before the loop: a package-level variable is shared from a function's body") {
				advice = "global"
			}
			if strings.Contains(d.Msg, "a map cannot be //svm:shared") {
				advice = "map"
			}
			if strings.Contains(d.Msg, "its field v is given shared storage at line 75 but not at line 76: declare the slice assigned there //svm:shared") {
				advice = "field"
			}
			switch {
			case strings.Contains(d.Msg, "an atomic counter counts one rank's iterations"):
				advice = "atomic"
			case strings.Contains(d.Msg, "a sync.Mutex excludes the goroutines of one rank only"):
				advice = "mutex"
			case strings.Contains(d.Msg, "its elements hold pointers (string), and shared storage travels between ranks as bytes"):
				advice = "pointers"
			case strings.Contains(d.Msg, "the replicated region at line") && !strings.Contains(d.Msg, "//svm:shared"):
				advice = "gather"
			case strings.Contains(d.Msg, "declare it //svm:shared plain: inc is called on an element, which it changes as an assignment would"):
				advice = "element"
			case strings.Contains(d.Msg, "its elements hold pointers (named), and shared storage travels between ranks as bytes"):
				advice = "pointerelem"
			case strings.Contains(d.Msg, "and the method may change what it is called on"):
				advice = "method"
			}
			if strings.Contains(d.Msg, "(the elements each rank writes travel at the loop's end)") && !strings.Contains(d.Msg, "; if nothing but the same iterations of a later pdo over the same space reads them, each rank holds what it needs and //svm:ignore race silences this") {
				t.Errorf("%s: the advice to share %s does not say when no sharing is needed (owner computes): %s", d.Pos, name, d.Msg)
			}
			got[fmt.Sprintf("%s:%d", filepath.Base(d.Pos.Filename), d.Pos.Line)] = name + " " + advice
			if name == "v" && !strings.Contains(d.Msg, "it is a parameter, given shared storage at line 72 but not at line 73") {
				t.Errorf("fill's warning does not name the calls that give v shared and private storage: %s", d.Msg)
			}
		}
		if !ranks {
			want = map[string]string{}
		}
		if len(got) != len(want) {
			t.Errorf("ranks %v: warnings %v, want %v", ranks, got, want)
		}
		for line, w := range want {
			if got[line] != w {
				t.Errorf("ranks %v: %s: %q, want %q", ranks, line, got[line], w)
			}
		}
	}
}

// TestRankNested: built for ranks, the constructs a replicated region
// holds that need every processor on every rank (which the runtime refuses
// when the region spreads over ranks) are warned at compile time, and so is
// a pdo's send on a channel made outside it (each rank's own: a collector
// summed one rank's part); in one process they are not.
func TestRankNested(t *testing.T) {
	got := rankDiags(t, `package main

func main() {
	a := make([]int, 8)
	//svm:replicated
	{
		//svm:barrier_checkin
		a[0] = 1
		//svm:barrier_checkout
		//svm:pdo loops(i)
		for i := range a {
			a[i] = i
		}
		//svm:barrier
	}
	ch := make(chan int, 8)
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		ch <- i
		local := make(chan int, 1)
		local <- i
	}
}
`, func(d Diagnostic) string {
		if strings.Contains(d.Msg, "inside the replicated region at line 5 cannot run under --mpi") ||
			strings.Contains(d.Msg, "is a channel of one rank under --mpi") {
			return fmt.Sprint(d.Pos.Line, " ", strings.Fields(d.Msg)[0:2])
		}
		return ""
	})
	if want := "[7 [a barrier] 10 [a pdo] 19 [ch is]]"; fmt.Sprint(got[true]) != want || len(got[false]) != 0 {
		t.Errorf("built for ranks %v, want %s; in one process %v, want none", got[true], want, got[false])
	}
}

// rankDiags compiles a program of one file (main.go) built for ranks and
// built for one process, and lists what keep makes of its diagnostics
// (those it gives "" left out), by build.
func rankDiags(t *testing.T, src string, keep func(Diagnostic) string) map[bool][]string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/ranks\n\ngo 1.24\n", "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := map[bool][]string{}
	for _, ranks := range []bool{true, false} {
		p, err := Compile(Config{Dir: dir, Pattern: ".", Ranks: ranks})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Diags {
			if k := keep(d); k != "" {
				out[ranks] = append(out[ranks], k)
			}
		}
	}
	return out
}

// TestOrphanedGuards: a function the body of a pdo calls that writes
// package state only in its own critical section or atomic update is not a
// race in one process; built for ranks it is warned of, as what each
// rank's calls write stays on that rank.
func TestOrphanedGuards(t *testing.T) {
	for _, ranks := range []bool{false, true} {
		p, err := Compile(Config{Dir: "testdata/races/f28_orphaned_critical", Pattern: ".", Ranks: ranks})
		if p == nil || len(p.Diags.Errors()) > 0 {
			t.Fatalf("does not compile: %v %v", err, p.Diags)
		}
		var got []string
		for _, d := range p.Diags {
			got = append(got, fmt.Sprintf("%d: %s", d.Pos.Line, d.Msg))
		}
		want := 0
		if ranks {
			want = 1
		}
		n := 0
		for _, g := range got {
			if strings.Contains(g, "writes the package-level variable") {
				n++
				if !strings.HasPrefix(g, "40: work, called in the body of the pdo at line 38, writes the package-level variable global (through work → record) in a critical section, under a lock or atomically: built for ranks") {
					t.Errorf("ranks=%v: %s", ranks, g)
				}
			}
		}
		if n != want {
			t.Errorf("ranks=%v: %d warnings of package state, want %d:\n%s", ranks, n, want, strings.Join(got, "\n"))
		}
	}
}

// TestRankEverywhere: built for ranks, a draw from math/rand's or
// math/rand/v2's generator in code every rank runs (main, what it calls,
// an init function, a package-level initialiser) is warned of once per
// function; a draw in a pdo body or in a function only a pdo body calls,
// or from a generator of the program's own, is not; os.Mkdir and
// os.Remove there are (all ranks but the first fail), os.MkdirAll and
// os.Remove in a pdo body are not; in one process nothing is.
func TestRankEverywhere(t *testing.T) {
	got := rankDiags(t, `package main

import (
	"math/rand"
	v2 "math/rand/v2"
	"os"
)

var seed = v2.Uint64()

func init() { _ = rand.Intn(3) }

func fill(xs []float64) {
	for i := range xs {
		xs[i] = v2.Float64()
		xs[i] += v2.Float64()
	}
}

func jitter() float64 { return rand.Float64() }

func clean() { _ = os.Remove("out/tmp") }

func main() {
	_ = os.Mkdir("out", 0o755)
	_ = os.MkdirAll("out/parts", 0o755)
	clean()
	xs := make([]float64, 8)
	fill(xs)
	rng := v2.New(v2.NewPCG(1, 2))
	ys := make([]float64, 8)
	//svm:shared ys
	//svm:pdo
	for i := range ys {
		ys[i] = xs[i] + jitter() + v2.Float64() + rng.Float64()
		_ = os.Remove("out/part")
	}
	_ = seed
}
`, func(d Diagnostic) string {
		if strings.Contains(d.Msg, "draws a random number in code every rank runs") || strings.Contains(d.Msg, "in code every rank runs under --mpi: every rank does it") {
			return fmt.Sprintf("%d %s", d.Pos.Line, strings.Fields(d.Msg)[0])
		}
		return ""
	})
	if want := "9 v2.Uint64, 11 rand.Intn, 15 v2.Float64, 22 os.Remove, 25 os.Mkdir"; strings.Join(got[true], ", ") != want || len(got[false]) != 0 {
		t.Errorf("built for ranks %v, want %s; in one process %v, want none", got[true], want, got[false])
	}
}

// TestRankRecover: a pdo or psection whose function defers a recover is
// warned of when built for ranks (a panic there ends the job), whether the
// deferred function is a literal or a function of the package; a deferred
// call that does not recover, or recovers only in a function literal of
// its own, is not.
func TestRankRecover(t *testing.T) {
	got := rankDiags(t, `package main

import (
	"errors"
	"sync"
)

func parse(i int) int {
	if i == 7 {
		panic(errors.New("bad"))
	}
	return i
}

func sum(n int) (s int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	//svm:pdo reduction(+: s)
	for i := range n {
		s += parse(i)
	}
	return s, nil
}

func handle(err *error) {
	if r := recover(); r != nil {
		*err = errors.New("recovered")
	}
}

func both() (err error) {
	defer handle(&err)
	//svm:psection
	{
		//svm:section
		_ = parse(1)
		//svm:section
		_ = parse(7)
	}
	return nil
}

func plain(n int) (s int) {
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
	defer func() { go func() { _ = recover() }() }()
	//svm:pdo reduction(+: s)
	for i := range n {
		s += i
	}
	return s
}

func main() {
	_, _ = sum(10)
	_ = both()
	f := func() (s int) {
		defer func() { _ = recover() }()
		//svm:pdo reduction(+: s)
		for i := range 4 {
			s += parse(i)
		}
		return s
	}
	_ = f()
	_ = plain(3)
}
`, func(d Diagnostic) string {
		if strings.Contains(d.Msg, "ends the whole job") {
			return fmt.Sprintf("%d %s", d.Pos.Line, d.Msg[strings.Index(d.Msg, "deferred at"):strings.Index(d.Msg, " takes")])
		}
		return ""
	})
	if want := "21 deferred at line 16, 36 deferred at line 35, 63 deferred at line 62"; strings.Join(got[true], ", ") != want || len(got[false]) != 0 {
		t.Errorf("built for ranks %v, want %s; in one process %v, want none", got[true], want, got[false])
	}
}

// TestRankTypeParamElements: elements of a type parameter whose type set
// holds no pointers (T Number) travel between ranks as bytes, and the
// warning says to share them; T any may hold pointers: where the
// package's calls give it a type that does, the warning names it (put
// with string), and where they give it none (keep, with int only), it
// says to share them as for T Number.
func TestRankTypeParamElements(t *testing.T) {
	got := rankDiags(t, `package main

type Number interface{ ~int | ~float64 }

func fill[T Number](xs []T, v T) {
	//svm:pdo
	for i := range xs {
		xs[i] = v
	}
}

func put[T any](xs []T, v T) {
	//svm:pdo
	for i := range xs {
		xs[i] = v
	}
}

func keep[T any](xs []T, v T) {
	//svm:pdo
	for i := range xs {
		xs[i] = v
	}
}

func main() {
	a := make([]float64, 8)
	fill(a, 2)
	b := make([]string, 8)
	put(b, "x")
	keep(make([]int, 4), 1)
}
`, func(d Diagnostic) string {
		switch {
		case strings.Contains(d.Msg, "hold pointers where T is string (the call of put at main.go:30)"):
			return fmt.Sprintf("%d pointers-string", d.Pos.Line)
		case strings.Contains(d.Msg, "hold pointers"):
			return fmt.Sprintf("%d pointers", d.Pos.Line)
		case strings.Contains(d.Msg, "is private to each rank"):
			return fmt.Sprintf("%d private", d.Pos.Line)
		}
		return ""
	})
	if want := "8 private, 15 pointers-string, 22 private"; strings.Join(got[true], ", ") != want {
		t.Errorf("built for ranks %v, want %s", got[true], want)
	}
}

// TestRankMessages: built for ranks, a message whose elements hold
// pointers (note, with a string) is warned of at its Send and Recv, one of
// numbers (point) is not; and what processor 0 writes in the else-branch
// of `if me != 0` is processor 0's, which runs on every rank (it was
// warned of as private to each rank). In one process: nothing.
func TestRankMessages(t *testing.T) {
	for _, ranks := range []bool{true, false} {
		p, err := Compile(Config{Dir: "testdata/rankmsg", Pattern: ".", Ranks: ranks})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range p.Diags {
			switch {
			case strings.Contains(d.Msg, "a message between processors of different ranks travels as bytes"):
				got = append(got, fmt.Sprintf("%d %s", d.Pos.Line, strings.Fields(d.Msg)[0]))
			case strings.Contains(d.Msg, "is private to each rank"):
				got = append(got, fmt.Sprintf("%d private", d.Pos.Line))
			}
		}
		want := "25 rtlib.Send, 30 rtlib.Recv"
		if !ranks {
			want = ""
		}
		if strings.Join(got, ", ") != want {
			t.Errorf("ranks %v: %q, want %q", ranks, got, want)
		}
	}
}
