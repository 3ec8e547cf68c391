// Package pipe is a small worker pool over channels.
package pipe

import (
	"errors"
	"fmt"
	"sync"
)

// ParseError is returned for a bad record.
type ParseError struct {
	Line int
	Text string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: bad record %q", e.Line, e.Text) }

type Record struct {
	Key   string
	Value int
}

// Parse parses "key=value" lines with a pool of workers.
func Parse(lines []string, workers int) ([]Record, error) {
	type job struct {
		i    int
		text string
	}
	jobs := make(chan job)
	out := make([]Record, len(lines))
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var k string
				var v int
				if _, err := fmt.Sscanf(j.text, "%1s=%d", &k, &v); err != nil {
					mu.Lock()
					errs = append(errs, &ParseError{Line: j.i + 1, Text: j.text})
					mu.Unlock()
					continue
				}
				out[j.i] = Record{k, v}
			}
		}()
	}
	for i, l := range lines {
		jobs <- job{i, l}
	}
	close(jobs)
	wg.Wait()
	return out, errors.Join(errs...)
}
