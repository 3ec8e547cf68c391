// SPMD code in a replicated region: each processor sums its block of a
// shared array of a named float type with a generic function and a generic
// accumulator from a library package, then Reduce and Gather to processor
// 0, which alone writes the results; a closure made the samples in a pdo.
package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/svmc/svmc/golden/corpus/spmd/stat"

	"github.com/svmc/svmc/rtlib"
)

type celsius float64

type sampler func(i int) celsius

func wave(period int) sampler {
	return func(i int) celsius { return celsius(20 + 5*math.Sin(float64(i)/float64(period))) }
}

func main() {
	const n = 1200
	temps := make([]celsius, n)
	//svm:shared temps
	s := wave(37)
	//svm:pdo loops(i)
	for i := 0; i < n; i++ {
		temps[i] = s(i)
	}
	var report []string
	var grand celsius
	//svm:replicated
	{
		me, np := rtlib.ProcessorID(), rtlib.NumProcessors()
		lo, hi := me*n/np, (me+1)*n/np
		var acc stat.Acc[celsius]
		for _, t := range temps[lo:hi] {
			if t > 22 {
				acc.Add(t)
			}
		}
		local := []celsius{stat.Sum(temps[lo:hi])}
		tot := make([]celsius, 1)
		rtlib.Reduce(0, rtlib.Sum, local, tot)
		counts := make([]int, np)
		rtlib.Gather(0, []int{acc.N}, counts)
		if me == 0 {
			grand = tot[0]
			for p, c := range counts {
				report = append(report, fmt.Sprintf("p%d:%d", p, c))
			}
		}
	}
	hot := 0
	for _, r := range report {
		var p, c int
		fmt.Sscanf(r, "p%d:%d", &p, &c)
		hot += c
	}
	// (len(report) is the number of processors: not printed.)
	fmt.Printf("mean %.6f hot %d %s\n", float64(grand)/n, hot, strings.Repeat("*", hot/100))
}
