// A token travels around a ring of processors: processor 0 starts it with
// the sum of its block of the data, each next processor adds its own block
// and passes it on, and the token comes back to processor 0, once per lap.
// The totals do not depend on the number of processors, and the serial
// build (one processor, which passes the token to itself) prints the same.
//
//	svmc run -n 4 --trace ring.sddf ./examples/ring && svmc report ring.sddf
package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

const (
	size = 120 // divisible by 1, 2, 3 and 4
	laps = 3
)

func blockSum(data []int, me, n, lap int) int {
	k := len(data) / n
	s := 0
	for _, v := range data[me*k : (me+1)*k] {
		s += v * (lap + 1)
	}
	return s
}

func main() {
	data := make([]int, size)
	for i := range data {
		data[i] = i + 1
	}
	totals := make([]int, laps)
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		next, prev := (me+1)%n, (me+n-1)%n
		token := make([]int, 1)
		for lap := range laps {
			if me == 0 {
				token[0] = blockSum(data, me, n, lap)
				rtlib.Send(next, lap, token)
				rtlib.Recv(prev, lap, token)
				totals[lap] = token[0]
			} else {
				rtlib.Recv(prev, lap, token)
				token[0] += blockSum(data, me, n, lap)
				rtlib.Send(next, lap, token)
			}
		}
	}
	for lap, v := range totals {
		fmt.Printf("lap %d: %d\n", lap, v)
	}
}
