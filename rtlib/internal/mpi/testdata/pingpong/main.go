//go:build mpi

// Command pingpong measures a message's round trip between ranks 0 and 1
// through the binding, as testdata/pingpong.c does through MPI's C API:
// for each size, the best of five rounds of reps round trips after a
// warm-up, printed by rank 0 as "SIZE one-way-µs MB/s".
package main

import (
	"fmt"
	"os"

	"github.com/svmc/svmc/rtlib/internal/mpi"
)

func main() {
	c, err := mpi.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	r := c.Rank()
	for _, size := range []int{8, 1 << 20} {
		reps := 20000
		if size > 1024 {
			reps = 200
		}
		buf := make([]byte, size)
		best := 1e9
		for round := range 6 {
			if err := c.Barrier(); err != nil {
				panic(err)
			}
			t0 := mpi.Wtime()
			for range reps {
				if r == 0 {
					must(mpi.Send(c, buf, 1, 1))
					_, err := mpi.Recv(c, buf, 1, 1)
					must(err)
				} else if r == 1 {
					_, err := mpi.Recv(c, buf, 0, 1)
					must(err)
					must(mpi.Send(c, buf, 0, 1))
				}
			}
			if t := mpi.Wtime() - t0; round > 0 { // round 0 warms up
				best = min(best, t)
			}
		}
		if r == 0 {
			oneWay := best / float64(2*reps)
			fmt.Printf("%d %.4f %.1f\n", size, oneWay*1e6, float64(size)/oneWay/1e6)
		}
	}
	must(c.Finalize())
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
