// Every collective operation once, over all processors: the root
// broadcasts a scale, scatters the data, each processor scales its part,
// the parts are gathered back, reduced, all-reduced, all-gathered and
// exchanged all-to-all, with a barrier at the end. Everything printed is
// independent of the number of processors (1 to 4, and the serial build).
//
//	svmc run -n 4 --trace coll.sddf ./examples/collectives && svmc report coll.sddf
package main

import (
	"fmt"
	"slices"

	"github.com/svmc/svmc/rtlib"
)

const size = 12 // divisible by 1, 2, 3 and 4

func main() {
	var gathered, maxima []int
	var total, product int
	var everyone []int
	var exchanged int
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		k := size / n
		scale := []int{0}
		data := make([]int, 0)
		if me == 0 {
			scale[0] = 3
			for i := range size {
				data = append(data, i+1)
			}
		}
		rtlib.Bcast(0, scale)
		part := make([]int, k)
		rtlib.Scatter(0, data, part)
		for i := range part {
			part[i] *= scale[0]
		}
		all := make([]int, size)
		rtlib.Gather(0, part, all)
		local := 0
		for _, v := range part {
			local += v
		}
		sum := make([]int, 1)
		rtlib.Reduce(0, rtlib.Sum, []int{local}, sum)
		mx := make([]int, 1)
		rtlib.Allreduce(rtlib.Max, []int{slices.Max(part)}, mx)
		prod := make([]int, 1)
		rtlib.Allreduce(rtlib.Prod, []int{2}, prod) // 2^n
		firsts := make([]int, n)
		rtlib.Allgather([]int{part[0]}, firsts)
		out := make([]int, n)
		for j := range out {
			out[j] = local // every processor sends its sum to each
		}
		in := make([]int, n)
		rtlib.Alltoall(out, in)
		got := 0
		for _, v := range in {
			got += v
		}
		all2 := make([]int, n)
		rtlib.Allgather([]int{got}, all2)
		rtlib.Barrier()
		if me == 0 {
			gathered, total, maxima = all, sum[0], mx
			product = prod[0] >> n // 1 with any n
			everyone = firsts
			exchanged = all2[0]
			for _, v := range all2 {
				if v != exchanged {
					exchanged = -1
				}
			}
		}
	}
	fmt.Println("gathered:", gathered)
	fmt.Println("sum:", total, "max:", maxima[0], "product/2^n:", product)
	fmt.Println("first element of the data:", everyone[0], "all-to-all: each processor received", exchanged)
}
