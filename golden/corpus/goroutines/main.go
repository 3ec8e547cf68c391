// Goroutines the program starts, each running a pdo with a reduction, and
// one started by init before the processors exist: each pdo runs serially
// on its goroutine and gets its own result.
package main

import (
	"fmt"
	"sync"
)

var early int
var earlyDone sync.WaitGroup

func sum(n int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func init() {
	earlyDone.Add(1)
	go func() {
		defer earlyDone.Done()
		early = sum(100)
	}()
}

func main() {
	sums := make([]int, 3)
	var wg sync.WaitGroup
	for g := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := 0
			//svm:pdo loops(i) reduction(+: s)
			for i := 0; i < 100*(g+1); i++ {
				s++
			}
			sums[g] = s
		}()
	}
	wg.Wait()
	earlyDone.Wait()
	// A function literal called by the processor itself keeps its team.
	total := func() int {
		t := 0
		//svm:pdo loops(i) reduction(+: t)
		for i := range 1000 {
			t += i
		}
		return t
	}()
	fmt.Println(sums, early, sum(10), total)
}
