// Message records for the golden traces: a shift by Sendrecv, a ring of
// non-blocking exchanges completed by WaitAll and Wait, a probe, and the
// collectives. Every receive names its source, so each processor's records
// are the same on every run.
package main

import (
	"fmt"

	"github.com/svmc/svmc/rtlib"
)

func exchange(me, n int) int {
	in := make([]int32, 2)
	rtlib.Sendrecv((me+1)%n, 1, []int32{int32(me), 1}, (me+n-1)%n, 1, in)
	a := make([]float64, 1)
	r := rtlib.Irecv((me+n-1)%n, 2, a)
	s := rtlib.Isend((me+1)%n, 2, []float64{float64(me)})
	rtlib.WaitAll(s)
	r.Wait()
	return int(in[0]) + int(a[0])
}

func main() {
	total := make([]int, 1)
	ok := false
	//svm:replicated
	{
		me, n := rtlib.ProcessorID(), rtlib.NumProcessors()
		got := exchange(me, n)
		if me == 0 {
			rtlib.Send(0, 3, []byte("self"))
			st := rtlib.Probe(0, rtlib.AnyTag)
			rtlib.Recv(0, st.Tag, make([]byte, st.Count))
		}
		rtlib.Bcast(0, []int{got})
		rtlib.Allreduce(rtlib.Sum, []int{got}, total)
		rtlib.Barrier()
		if me == 0 {
			ok = total[0] == n*(n-1) // each processor got twice its left neighbour's number
		}
	}
	fmt.Println("exchanges right:", ok)
}
