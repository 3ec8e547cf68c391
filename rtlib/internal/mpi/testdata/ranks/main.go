//go:build mpi

// Command ranks checks the binding on every rank of an mpirun job: ranks
// and size, point-to-point with wildcards and in order, non-blocking
// requests, barrier, broadcast, reductions, gathers and clock offsets. Each rank prints
// "rank R of N ok" or its first failure, and exits non-zero on a failure.
package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/svmc/svmc/rtlib/internal/mpi"
)

func main() {
	c, err := mpi.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	r, n := c.Rank(), c.Size()
	fail := func(format string, args ...any) {
		fmt.Printf("rank %d of %d: %s\n", r, n, fmt.Sprintf(format, args...))
		os.Exit(1)
	}
	check := func(err error) {
		if err != nil {
			fail("%v", err)
		}
	}
	if n < 2 {
		fail("needs at least 2 ranks")
	}
	next, prev := (r+1)%n, (r+n-1)%n

	// A ring: every rank sends its rank to the next, two messages with
	// the same tag, which must arrive in order.
	for k := range 2 {
		req, err := mpi.Isend(c, []int64{int64(r*10 + k)}, next, 7)
		check(err)
		got := make([]int64, 1)
		st, err := mpi.Recv(c, got, prev, 7)
		check(err)
		if got[0] != int64(prev*10+k) || st.Source != prev || st.Tag != 7 || st.Bytes != 8 {
			fail("ring message %d: got %v %+v from rank %d", k, got, st, prev)
		}
		_, err = req.Wait()
		check(err)
	}

	// Wildcards: rank 0 receives one message from every other rank, in
	// any order, with any tag; each says who sent it.
	if r == 0 {
		seen := map[int]bool{}
		for range n - 1 {
			buf := make([]float64, 4)
			st, err := mpi.Recv(c, buf, mpi.AnySource, mpi.AnyTag)
			check(err)
			if st.Tag != 100+st.Source || st.Bytes != 3*8 || buf[0] != float64(st.Source) || seen[st.Source] {
				fail("wildcard receive %+v %v", st, buf)
			}
			seen[st.Source] = true
		}
	} else {
		check(mpi.Ssend(c, []float64{float64(r), 1, 2}, 0, 100+r))
	}
	// Rank 0's wildcards would take the next stage's messages too.
	check(c.Barrier())

	// Non-blocking receive completed by Test.
	in := make([]byte, 5)
	rq, err := mpi.Irecv(c, in, prev, 9)
	check(err)
	check(mpi.Send(c, []byte("hello"), next, 9))
	for {
		done, st, err := rq.Test()
		check(err)
		if done {
			if string(in) != "hello" || st.Source != prev {
				fail("Irecv: %q %+v", in, st)
			}
			break
		}
	}

	check(c.Barrier())

	b := make([]int32, 3)
	if r == n-1 {
		b = []int32{4, 5, 6}
	}
	check(mpi.Bcast(c, b, n-1))
	if !slices.Equal(b, []int32{4, 5, 6}) {
		fail("Bcast: %v", b)
	}

	sum := []float64{float64(r), 1}
	check(mpi.Allreduce(c, sum, sum, mpi.Sum))
	if want := float64(n * (n - 1) / 2); sum[0] != want || sum[1] != float64(n) {
		fail("Allreduce sum in place: %v, want [%v %v]", sum, want, n)
	}
	mx := make([]int64, 1)
	check(mpi.Allreduce(c, []int64{int64(r * r)}, mx, mpi.Max))
	if mx[0] != int64((n-1)*(n-1)) {
		fail("Allreduce max: %v", mx)
	}

	all := make([]uint16, 2*n)
	check(mpi.Allgather(c, []uint16{uint16(r), uint16(r + 100)}, all))
	for q := range n {
		if all[2*q] != uint16(q) || all[2*q+1] != uint16(q+100) {
			fail("Allgather: %v", all)
		}
	}

	// The non-blocking forms, completed by Test: a sum and a product
	// (in place, and not), and a gathering of parts of different lengths,
	// rank 1's empty, into a buffer too small (a new one is made).
	isum := []int64{int64(r), 2}
	rq, err = mpi.Iallreduce(c, isum, isum, mpi.Sum)
	check(err)
	for done := false; !done; {
		done, _, err = rq.Test()
		check(err)
	}
	if isum[0] != int64(n*(n-1)/2) || isum[1] != int64(2*n) {
		fail("Iallreduce sum in place: %v", isum)
	}
	prod := make([]float64, 1)
	rq, err = mpi.Iallreduce(c, []float64{2}, prod, mpi.Prod)
	check(err)
	for done := false; !done; {
		done, _, err = rq.Test()
		check(err)
	}
	if prod[0] != float64(int(1)<<n) {
		fail("Iallreduce product: %v", prod)
	}
	part := bytes.Repeat([]byte{byte('a' + r)}, r+1)
	if r == 1 {
		part = nil
	}
	g, err := mpi.IAllgatherv(c, part, make([]byte, 1))
	check(err)
	for done := false; !done; {
		done, err = g.Test()
		check(err)
	}
	got, at := g.Result()
	for q := range n {
		want := bytes.Repeat([]byte{byte('a' + q)}, q+1)
		if q == 1 {
			want = nil
		}
		if !bytes.Equal(got[at[q]:at[q+1]], want) {
			fail("IAllgatherv: part %d %q, want %q (all %q at %v)", q, got[at[q]:at[q+1]], want, got, at)
		}
	}

	// A receive buffer too short is an error naming the call and rank.
	if r == 0 {
		check(mpi.Send(c, []int64{1, 2}, 1, 11))
	} else if r == 1 {
		_, err := mpi.Recv(c, make([]int64, 1), 0, 11)
		if err == nil || !strings.Contains(err.Error(), "MPI_Recv from rank 0") {
			fail("a truncated receive: %v", err)
		}
	}

	// Clock offsets, with every rank's clock r×1.5 s ahead of rank 0's
	// (the system's real-time clock, which the processes of one machine
	// share: OpenMPI's MPI_Wtime counts from each process's MPI_Init); a
	// program's message with the same tag waits on its own communicator.
	if r == 1 {
		check(mpi.Send(c, []float64{42}, 0, 1))
	}
	clock := func() float64 {
		return float64(time.Now().UnixNano()-1_790_000_000e9)/1e9 + 1.5*float64(r)
	}
	offs, err := c.ClockOffsets(clock, 20)
	check(err)
	for q, o := range offs {
		if d := math.Abs(o.Offset - 1.5*float64(q)); d > o.Err+1e-6 || o.Err > 0.01 || o.Err < 0 {
			fail("clock offset of rank %d: %+v, want %v within its error", q, o, 1.5*float64(q))
		}
	}
	if r == 0 {
		v := make([]float64, 1)
		st, err := mpi.Recv(c, v, 1, 1)
		check(err)
		if v[0] != 42 || st.Source != 1 {
			fail("the program's message beside the clock exchange: %v %+v", v, st)
		}
	}

	// A blocking send and receive allocate nothing (a receive's status
	// once cost three allocations).
	if r < 2 {
		v := make([]float64, 1)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range 100 {
			if r == 0 {
				check(mpi.Send(c, v, 1, 5))
				_, err := mpi.Recv(c, v, 1, 5)
				check(err)
			} else {
				_, err := mpi.Recv(c, v, 0, 5)
				check(err)
				check(mpi.Send(c, v, 0, 5))
			}
		}
		runtime.ReadMemStats(&m1)
		if a := m1.Mallocs - m0.Mallocs; a >= 50 {
			fail("100 round trips allocated %d times", a)
		}
	}

	// A ring of posted receives: every other rank sends rank 0 more
	// messages than the ring has slots, of sizes up to a slot, some
	// sent before rank 0 opens the ring; rank 0 takes them all, each
	// sender's in order.
	const ringTag, slots, slot, per = 40, 3, 64, 10
	if r == 0 {
		check(c.Barrier()) // the others' first messages are sent
		g, err := c.OpenRing(ringTag, slots, slot)
		check(err)
		seen := make([]int, n)
		for got := 0; got < (n-1)*per; {
			ok, st, b, err := g.Next()
			check(err)
			if !ok {
				continue
			}
			got++
			k := seen[st.Source]
			seen[st.Source]++
			want := bytes.Repeat([]byte{byte(st.Source*per + k)}, 1+(k*7)%slot)
			if st.Tag != ringTag || !bytes.Equal(b, want) || st.Bytes != len(want) {
				fail("ring: message %d from rank %d: %v %+v, want %v", k, st.Source, b, st, want)
			}
		}
		g.Close()
	} else {
		var reqs []*mpi.Request
		for k := range per {
			if k == per/2 {
				check(c.Barrier())
			}
			req, err := mpi.IsendNow(c, bytes.Repeat([]byte{byte(r*per + k)}, 1+(k*7)%slot), 0, ringTag)
			check(err)
			if req != nil {
				reqs = append(reqs, req)
			}
		}
		for _, req := range reqs {
			_, err := req.Wait()
			check(err)
		}
	}

	// Send slots: every other rank sends rank 0 messages of 1 to 48
	// bytes from two slots of 32, overwriting each buffer that fits a
	// slot as soon as IsendNow returns (it sent a copy) and keeping the
	// longer ones, sent from the buffer itself, until their requests
	// complete; rank 0 receives each sender's in order, intact.
	const slotTag, slotN, slotSize, slotMsgs = 41, 2, 32, 48
	if r == 0 {
		buf := make([]byte, slotMsgs)
		for src := 1; src < n; src++ {
			for k := 1; k <= slotMsgs; k++ {
				st, err := mpi.Recv(c, buf, src, slotTag)
				check(err)
				want := bytes.Repeat([]byte{byte(src + k)}, k)
				if st.Bytes != k || !bytes.Equal(buf[:k], want) {
					fail("slots: message %d from rank %d: %v (%d bytes), want %v", k, src, buf[:st.Bytes], st.Bytes, want)
				}
			}
		}
	} else {
		sl, err := mpi.OpenSlots(slotN, slotSize)
		check(err)
		var reqs []*mpi.Request
		for k := 1; k <= slotMsgs; k++ {
			b := bytes.Repeat([]byte{byte(r + k)}, k)
			req, err := sl.IsendNow(c, b, 0, slotTag)
			check(err)
			if req != nil {
				reqs = append(reqs, req)
			}
			if k <= slotSize {
				clear(b)
			}
		}
		for _, req := range reqs {
			_, err := req.Wait()
			check(err)
		}
		sl.Close()
	}

	t0 := mpi.Wtime()
	check(c.Barrier())
	if mpi.Wtime() < t0 {
		fail("Wtime went back")
	}
	fmt.Printf("rank %d of %d ok\n", r, n)
	check(c.Finalize())
}
