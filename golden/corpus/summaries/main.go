// Ordinary Go around pdos: a library type behind an interface whose
// method has a pdo with reductions, called by worker goroutines (context,
// WaitGroup.Go, channels: run serially there, with a note) and then by main
// on every processor.
package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/svmc/svmc/golden/corpus/summaries/stats"
)

type job struct {
	id int
	xs []float64
}

type result struct {
	id int
	s  stats.Summary
}

func worker(ctx context.Context, sum stats.Summarizer, jobs <-chan job, out chan<- result) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case j, ok := <-jobs:
			if !ok {
				return nil
			}
			out <- result{j.id, sum.Summarize(j.xs)}
		}
	}
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var sum stats.Summarizer = stats.Parallel{Scale: 2}
	jobs := make(chan job)
	out := make(chan result, 16)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for w := range 3 {
		wg.Go(func() { errs[w] = worker(ctx, sum, jobs, out) })
	}
	go func() {
		for id := range 12 {
			xs := make([]float64, 1000+id)
			for i := range xs {
				xs[i] = float64((i*7+id)%101) / 10
			}
			jobs <- job{id, xs}
		}
		close(jobs)
	}()
	go func() { wg.Wait(); close(out) }()
	res := make([]stats.Summary, 12)
	for r := range out {
		res[r.id] = r.s
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Println("error:", err)
	}
	// And once from main itself, on every processor.
	all := make([]float64, 0, 20000)
	for _, r := range res {
		all = append(all, r.Mean, r.Std, r.Min, r.Max)
	}
	for i := range 5000 {
		all = append(all, float64(i%13))
	}
	s := sum.Summarize(all)
	fmt.Printf("%.4f %.4f %.1f %.1f\n", res[5].Mean, res[11].Std, s.Min, s.Max)
	fmt.Printf("%.6f %.6f\n", s.Mean, s.Std)
}
