// Jacobi relaxation of a 2-D grid split into blocks of rows, one block per
// processor: before each sweep a processor exchanges its first and last
// rows with its neighbours (a halo exchange with Sendrecv), after the
// sweeps processor 0 gathers the grid and prints a checksum, which is the
// same with any number of processors as in the serial build.
//
//	svmc run -n 4 --trace halo.sddf ./examples/halo && svmc report halo.sddf
package main

import (
	"flag"
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

const rows, cols = 24, 32 // rows divisible by 1, 2, 3 and 4

func main() {
	sweeps := flag.Int("sweeps", 20, "Jacobi sweeps")
	flag.Parse()
	var grid []float64 // the whole grid, on processor 0 at the end
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		k := rows / n
		// The block with a halo row above and below: local row r+1 is
		// global row me*k+r.
		cur := make([]float64, (k+2)*cols)
		nxt := make([]float64, (k+2)*cols)
		for r := range k {
			g := me*k + r
			for c := range cols {
				if g == 0 || c == 0 || c == cols-1 {
					cur[(r+1)*cols+c] = 1 // the top and the sides are hot
				}
			}
		}
		row := func(a []float64, r int) []float64 { return a[r*cols : (r+1)*cols] }
		up, down := me-1, me+1
		for s := 0; s < *sweeps; s++ {
			// Exchange halos: send the first row up and receive the lower
			// halo from below, then the other way round.
			if up >= 0 && down < n {
				rtlib.Sendrecv(up, 1, row(cur, 1), down, 1, row(cur, k+1))
				rtlib.Sendrecv(down, 2, row(cur, k), up, 2, row(cur, 0))
			} else if up >= 0 {
				rtlib.Send(up, 1, row(cur, 1))
				rtlib.Recv(up, 2, row(cur, 0))
			} else if down < n {
				rtlib.Recv(down, 1, row(cur, k+1))
				rtlib.Send(down, 2, row(cur, k))
			}
			for r := 1; r <= k; r++ {
				g := me*k + r - 1
				for c := range cols {
					i := r*cols + c
					if g == 0 || g == rows-1 || c == 0 || c == cols-1 {
						nxt[i] = cur[i]
						continue
					}
					nxt[i] = 0.25 * (cur[i-cols] + cur[i+cols] + cur[i-1] + cur[i+1])
				}
			}
			cur, nxt = nxt, cur
		}
		all := make([]float64, 0)
		if me == 0 {
			all = make([]float64, rows*cols)
		}
		rtlib.Gather(0, cur[cols:(k+1)*cols], all)
		if me == 0 {
			grid = all
		}
	}
	sum, mid := 0.0, 0.0
	for _, v := range grid {
		sum += v
	}
	mid = grid[rows/2*cols+cols/2]
	fmt.Printf("sum %.12g, centre %.12g\n", sum, mid)
}
