package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
)

// A program whose own goroutines panic in the ways Go starts goroutines:
// a function literal, a method value, a variadic function; the builtin and
// the generic function beside them must still compile and run.
const goroutinePanicProg = `package main

import (
	"fmt"
	"os"
	"sync"
)

type worker struct{ data []int }

func (w *worker) run(k int, wg *sync.WaitGroup) {
	defer wg.Done()
	fmt.Println("worker", w.data[k])
}

func sum(xs ...int) {
	s := 0
	for _, x := range xs {
		s += x
	}
	fmt.Println("sum", s, xs[3])
}

func send[T any](c chan T, v T) { c <- v }

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+:s)
	for i := 0; i < 10; i++ {
		s += i
	}
	fmt.Println(s)
	c := make(chan int, 1)
	go send(c, 7)
	fmt.Println(<-c)
	go close(c)
	var wg sync.WaitGroup
	w := &worker{data: []int{1, 2, 3}}
	switch os.Getenv("MODE") {
	case "literal":
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			fmt.Println(w.data[k])
		}(5)
	case "method":
		wg.Add(1)
		go w.run(4, &wg)
	case "variadic":
		xs := []int{1, 2}
		go sum(xs...)
	default:
		return
	}
	select {} // the panic ends the run; processor 0 is not stopped
}
`

// TestGoroutinePanic: a panic in a goroutine the program started ends the
// run as a processor's panic does: status 2, the goroutine's go statement
// and the panic's line in the message, a trace that ends with trace-end.
// Before, Go's stack trace was printed and the trace had 0 bytes.
func TestGoroutinePanic(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": goroutinePanicProg})
	for _, c := range []struct{ mode, want string }{
		{"literal", "svmc: the goroutine started at main.go:42:3 panicked: runtime error: index out of range [5] with length 3\n\tat main.go:44\n"},
		{"method", "svmc: the goroutine started at main.go:48:3 panicked: runtime error: index out of range [4] with length 3\n\tat main.go:13\n"},
		{"variadic", "svmc: the goroutine started at main.go:51:3 panicked: runtime error: index out of range [3] with length 2\n\tat main.go:21\n"},
	} {
		tr := filepath.Join(dir, c.mode+".sddf")
		t.Setenv("MODE", c.mode)
		t.Setenv("SVMC_STOP_WAIT", "100ms")
		res := runSvmc(t, dir, "run", "-n", "2", "--trace", tr, ".")
		if res.code != 2 || !strings.HasSuffix(res.stderr, c.want) || strings.Contains(res.stderr, "goroutine 1") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant status 2 and it to end with:\n%s", c.mode, res.code, res.stderr, c.want)
		}
		if !strings.HasPrefix(res.stdout, "45\n7\n") {
			t.Errorf("%s: stdout %q", c.mode, res.stdout)
		}
		recs := readTrace(t, tr)
		end := recs[len(recs)-1]
		if end.Desc.Name != "trace-end" || end.Int("status") != trace.EndPanic {
			t.Errorf("%s: last record %v, want trace-end with status panic", c.mode, end)
		}
	}
	// Without svmc the program is the same Go program.
	os.Unsetenv("MODE")
	res := runSvmc(t, dir, "run", "-n", "2", ".")
	if res.code != 0 || res.stdout != "45\n7\n" {
		t.Errorf("without a panic: exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
}
