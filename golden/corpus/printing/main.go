// Output from everywhere a plain Go program prints it: a pdo's iterations,
// a method called through an interface in them, closures, goroutines
// started in exclusive code and in iterations, a bufio.Writer on
// os.Stdout, standard error. Every line must appear once, whatever the
// number of processors or ranks.
//
// corpus: unordered (the iterations print in the order they run)
package main

import (
	"bufio"
	"fmt"
	"os"
	"sync"
)

type shouter interface{ shout(i int) }

type loud struct{ prefix string }

func (l loud) shout(i int) {
	for k := 0; k < 1; k++ {
		fmt.Printf("%s %d\n", l.prefix, i)
	}
}

func main() {
	var s shouter = loud{"method of iteration"}
	//svm:pdo loops(i)
	for i := 0; i < 6; i++ {
		fmt.Println("iteration", i)
		s.shout(i)
	}
	report := func(what string, n int) { fmt.Printf("%s: %d\n", what, n) }
	report("closure", 1)

	//svm:pdo loops(i)
	for i := 0; i < 4; i++ {
		var iw sync.WaitGroup
		iw.Add(1)
		go func() {
			defer iw.Done()
			fmt.Println("goroutine of iteration", i)
		}()
		iw.Wait()
	}

	var wg sync.WaitGroup
	results := make(chan string)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- fmt.Sprint("worker ", g)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	got := 0
	for r := range results {
		got++
		_ = r
	}
	done := make(chan bool)
	go func() {
		fmt.Println("goroutine of main, workers", got)
		done <- true
	}()
	<-done
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, "buffered")
	w.Flush()
	fmt.Fprintln(os.Stderr, "to stderr")
	dotted()
}
