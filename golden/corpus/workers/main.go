// Workers: shapes behind an interface from a package of their own,
// generic helpers from another, a method whose pdo writes through the
// receiver's field (given main's shared slice), goroutines under a mutex,
// a producer goroutine under a context, recover, and a pdo over a shared
// slice of counts. Under --mpi the field's writes travel as main's shared
// storage, so the compiler must not warn.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/svmc/svmc/golden/corpus/workers/shape"
	"github.com/svmc/svmc/golden/corpus/workers/stats"
)

type result struct {
	area, perim float64
}

type worker struct {
	shapes []shape.Shape
	out    []result
	scale  func(float64) float64
}

var errEmpty = errors.New("no shapes")

func (w *worker) compute() error {
	if len(w.shapes) == 0 {
		return errEmpty
	}
	total := 0.0
	//svm:pdo loops(i) reduction(+: total)
	for i := 0; i < len(w.shapes); i++ {
		s := w.shapes[i]
		w.out[i] = result{area: w.scale(s.Area()), perim: s.Perimeter()}
		total += w.out[i].area
	}
	fmt.Printf("total area %.3f\n", total)
	return nil
}

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

func producer(ctx context.Context, n int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range n {
			select {
			case ch <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

func main() {
	shapes := shape.Make(3000)
	out := make([]result, len(shapes))
	//svm:shared out
	w := &worker{shapes: shapes, out: out, scale: func(x float64) float64 { return x * 1.5 }}
	if err := w.compute(); err != nil {
		fmt.Println(err)
	}
	if err := (&worker{}).compute(); errors.Is(err, errEmpty) {
		fmt.Println("empty:", err)
	}
	areas := make([]float64, len(w.out))
	for i, r := range w.out {
		areas[i] = r.area
	}
	fmt.Printf("sum %.3f median %.3f\n", stats.Sum(areas), stats.Median(areas))

	var h stats.Hist
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range shapes[:100] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := strings.SplitN(s.String(), "(", 2)[0]
			mu.Lock()
			h.Add(k)
			mu.Unlock()
		}()
	}
	wg.Wait()
	keys := make([]string, 0, len(h.Buckets))
	for k := range h.Buckets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, h.Buckets[k])
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sum := 0
	for v := range producer(ctx, 50) {
		sum += v
	}
	fmt.Println("produced", sum)

	if _, err := safeDiv(1, 0); err != nil {
		fmt.Println(err)
	}
	counts := make([]int, 10)
	//svm:shared counts
	//svm:pdo loops(i)
	for i := 0; i < 10; i++ {
		for _, s := range shapes {
			if int(s.Perimeter())%10 == i {
				counts[i]++
			}
		}
	}
	fmt.Println(counts)
	var sb strings.Builder
	for i := range 3 {
		fmt.Fprintf(&sb, "[%d]", i)
	}
	fmt.Fprintln(os.Stdout, sb.String())
}
