// Master and workers: processor 0 hands out ranges of numbers to the
// workers, each counts the primes in its range and sends the count back;
// the master takes whichever result comes first (AnySource) and gives that
// worker the next range, until none is left. With one processor (or the
// serial build) the master counts the ranges itself. The totals are the
// same either way.
//
//	svmc run -n 4 --trace master.sddf ./examples/master && svmc report master.sddf
package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

const (
	limit                       = 200000
	chunk                       = 10000
	tagWork, tagStop, tagResult = 1, 2, 3
)

func countPrimes(lo, hi int) int {
	n := 0
	for v := max(lo, 2); v < hi; v++ {
		prime := true
		for d := 2; d*d <= v; d++ {
			if v%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			n++
		}
	}
	return n
}

func main() {
	counts := make([]int, limit/chunk)
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		if me == 0 {
			next := 0
			if n == 1 {
				for ; next < len(counts); next++ {
					counts[next] = countPrimes(next*chunk, (next+1)*chunk)
				}
			}
			busy := 0
			for w := 1; w < n; w++ {
				if next < len(counts) {
					rtlib.Send(w, tagWork, []int{next})
					next++
					busy++
				} else {
					rtlib.Send(w, tagStop, []int{})
				}
			}
			res := make([]int, 2)
			for busy > 0 {
				st := rtlib.Recv(rtlib.AnySource, tagResult, res)
				counts[res[0]] = res[1]
				if next < len(counts) {
					rtlib.Send(st.Source, tagWork, []int{next})
					next++
				} else {
					rtlib.Send(st.Source, tagStop, []int{})
					busy--
				}
			}
		} else {
			job := make([]int, 1)
			for {
				st := rtlib.Recv(0, rtlib.AnyTag, job)
				if st.Tag == tagStop {
					break
				}
				c := countPrimes(job[0]*chunk, (job[0]+1)*chunk)
				rtlib.Send(0, tagResult, []int{job[0], c})
			}
		}
	}
	total := 0
	for i, c := range counts {
		total += c
		if i%5 == 4 {
			fmt.Printf("primes below %d: %d\n", (i+1)*chunk, total)
		}
	}
}
