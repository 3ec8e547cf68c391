// Services: encoding/csv parsed into records with wrapped errors, a pdo
// with two reductions (+ and max); an HTTP handler (httptest) that calls a
// function holding a pdo, which runs on the handler's goroutine; math/rand/v2
// generators seeded per iteration; a channel pipeline of goroutines with a
// context deadline.
package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"time"
)

type row struct {
	city string
	temp float64
}

func parse(r io.Reader) ([]row, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	rows := make([]row, 0, len(recs))
	for _, rec := range recs[1:] {
		t, err := strconv.ParseFloat(rec[1], 64)
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", rec, err)
		}
		rows = append(rows, row{rec[0], t})
	}
	return rows, nil
}

func stats(rows []row) (mean, hi float64) {
	sum := 0.0
	hi = -1e9
	//svm:pdo reduction(+: sum) reduction(max: hi)
	for i := range rows {
		sum += rows[i].temp
		hi = max(hi, rows[i].temp)
	}
	return sum / float64(len(rows)), hi
}

func simulate(seed uint64, n int) []float64 {
	out := make([]float64, n)
	//svm:pdo
	for i := range out {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		s := 0.0
		for range 100 {
			s += r.Float64()
		}
		out[i] = s
	}
	return out
}

func pipeline(ctx context.Context, xs []float64) float64 {
	in := make(chan float64)
	out := make(chan float64)
	go func() {
		defer close(in)
		for _, x := range xs {
			select {
			case in <- x:
			case <-ctx.Done():
				return
			}
		}
	}()
	done := make(chan struct{})
	for range 3 {
		go func() {
			for x := range in {
				out <- x * x
			}
			done <- struct{}{}
		}()
	}
	go func() {
		for range 3 {
			<-done
		}
		close(out)
	}()
	t := 0.0
	for y := range out {
		t += y
	}
	return t
}

func main() {
	var b strings.Builder
	b.WriteString("city,temp\n")
	for i := range 300 {
		fmt.Fprintf(&b, "c%d,%d.5\n", i%17, (i*37)%41)
	}
	rows, err := parse(strings.NewReader(b.String()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	m, h := stats(rows)
	fmt.Printf("mean %.3f max %.1f\n", m, h)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		xs := simulate(7, n)
		s := 0.0
		for _, x := range xs {
			s += x
		}
		fmt.Fprintf(w, "%.4f", s)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?n=50")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("served", string(body))

	xs := simulate(3, 200)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Printf("pipeline %.3f\n", pipeline(ctx, xs))
}
