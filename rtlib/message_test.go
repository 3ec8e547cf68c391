package rtlib

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svmc/svmc/rtlib/internal/stats"
	"github.com/svmc/svmc/trace"
)

// msgProg is testProg with message-passing call sites 1..4 on lines 40..43
// of main.go: Send, Recv, Isend, Request.Wait.
func msgProg() *Program {
	p := testProg()
	p.Calls = []Call{{}, {Func: "Send", File: "main.go", Sub: 1, Line: 40, Col: 3}, {Func: "Recv", File: "main.go", Sub: 1, Line: 41, Col: 7},
		{Func: "Isend", File: "main.go", Sub: 1, Line: 42, Col: 3}, {Func: "Request.Wait", File: "main.go", Sub: 1, Line: 43, Col: 3}}
	return p
}

// everyProc runs body on every processor of an n-processor run.
func everyProc(t testing.TB, n int, par Params, body func(p *Proc)) error {
	t.Helper()
	par.NProcs = n
	if par.Stderr == nil {
		par.Stderr = io.Discard
	}
	return Run(msgProg(), par, func(p *Proc) { p.Replicated(1, 1, body) })
}

func TestRing(t *testing.T) {
	for n := 1; n <= 4; n++ {
		got := make([]int, n)
		err := everyProc(t, n, Params{}, func(p *Proc) {
			me := ProcessorID()
			out := []int{me * 10}
			in := make([]int, 1)
			Send((me+1)%n, 7, out)
			st := Recv((me+n-1)%n, 7, in)
			if st.Source != (me+n-1)%n || st.Tag != 7 || st.Count != 1 {
				panic(fmt.Sprint("status ", st))
			}
			got[me] = in[0]
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i := range n {
			if want := ((i + n - 1) % n) * 10; got[i] != want {
				t.Errorf("n=%d: processor %d got %d, want %d", n, i, got[i], want)
			}
		}
	}
}

// Messages of one sender with one tag do not overtake, also through a
// wildcard receive, and Probe sees the next message without taking it.
func TestNonOvertakingAndProbe(t *testing.T) {
	const m = 200
	var got []int
	err := everyProc(t, 2, Params{MsgBuffer: 64}, func(p *Proc) { // a small buffer: some sends wait
		if ProcessorID() == 0 {
			for i := range m {
				Send(1, i%3, []int{i})
			}
			return
		}
		b := make([]int, 1)
		for range m {
			pr := Probe(0, AnyTag)
			st := Recv(AnySource, AnyTag, b)
			if st != pr || b[0]%3 != st.Tag {
				panic(fmt.Sprint("probe ", pr, " recv ", st, " value ", b[0]))
			}
			got = append(got, b[0])
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("message %d is %d: overtaken", i, v)
		}
	}
}

func TestNonBlocking(t *testing.T) {
	for _, buf := range []int{0, -1} {
		err := everyProc(t, 3, Params{MsgBuffer: buf}, func(p *Proc) {
			me := ProcessorID()
			var reqs []*Request
			in := make([][]float64, 3)
			for q := range 3 {
				if q != me {
					in[q] = make([]float64, 2)
					reqs = append(reqs, Irecv(q, 1, in[q]))
				}
			}
			for q := range 3 {
				if q != me {
					reqs = append(reqs, Isend(q, 1, []float64{float64(me), float64(q)}))
				}
			}
			// Test until the first receive is complete, then wait for all.
			for {
				if ok, st := reqs[0].Test(); ok {
					if st.Count != 2 {
						panic("count")
					}
					break
				}
				time.Sleep(time.Microsecond)
			}
			sts := WaitAll(reqs[1:]...)
			if len(sts) != len(reqs)-1 {
				panic("statuses")
			}
			for q := range 3 {
				if q != me && (in[q][0] != float64(q) || in[q][1] != float64(me)) {
					panic(fmt.Sprint("from ", q, ": ", in[q]))
				}
			}
		})
		if err != nil {
			t.Fatalf("msg_buffer %d: %v", buf, err)
		}
	}
}

func TestSendrecvShift(t *testing.T) {
	const n = 4
	got := make([]string, n)
	err := everyProc(t, n, Params{MsgBuffer: -1}, func(p *Proc) { // no buffering: Sendrecv must not deadlock
		me := ProcessorID()
		in := make([]byte, 8)
		st := Sendrecv((me+1)%n, 0, []byte(fmt.Sprint("from", me)), (me+n-1)%n, 0, in)
		got[me] = string(in[:st.Count])
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"from3", "from0", "from1", "from2"}; !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
}

func TestCollectives(t *testing.T) {
	for n := 1; n <= 4; n++ {
		type result struct {
			bcast, red, allred, gath, scat, allg, a2a []int
			bx                                        []uint8
			mx                                        []float64
		}
		res := make([]result, n)
		err := everyProc(t, n, Params{}, func(p *Proc) {
			me := ProcessorID()
			r := &res[me]
			r.bcast = make([]int, 3)
			if me == n-1 {
				copy(r.bcast, []int{7, 8, 9})
			}
			Bcast(n-1, r.bcast)
			r.red = make([]int, 2)
			Reduce(0, Sum, []int{me, 1}, r.red)
			r.allred = make([]int, 1)
			Allreduce(Prod, []int{me + 1}, r.allred)
			r.mx = make([]float64, 1)
			Allreduce(Max, []float64{float64(me) / 2}, r.mx)
			r.bx = make([]uint8, 1)
			Allreduce(BXor, []uint8{1 << me}, r.bx)
			r.gath = make([]int, 2*n)
			Gather(0, []int{me, -me}, r.gath)
			src := make([]int, n)
			for i := range src {
				src[i] = 100 + i
			}
			r.scat = make([]int, 1)
			Scatter(0, src, r.scat)
			r.allg = make([]int, n)
			Allgather([]int{me * me}, r.allg)
			out := make([]int, n)
			for j := range out {
				out[j] = me*10 + j
			}
			r.a2a = make([]int, n)
			Alltoall(out, r.a2a)
			Barrier()
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		fact, sum, bx := 1, 0, 0
		for i := range n {
			fact *= i + 1
			sum += i
			bx ^= 1 << i
		}
		for me, r := range res {
			check := func(what string, got, want any) {
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("n=%d processor %d %s: got %v, want %v", n, me, what, got, want)
				}
			}
			check("Bcast", r.bcast, []int{7, 8, 9})
			if me == 0 {
				check("Reduce", r.red, []int{sum, n})
				var g []int
				for i := range n {
					g = append(g, i, -i)
				}
				check("Gather", r.gath, g)
			}
			check("Allreduce Prod", r.allred, []int{fact})
			check("Allreduce Max", r.mx, []float64{float64(n-1) / 2})
			check("Allreduce BXor", r.bx, []uint8{uint8(bx)})
			check("Scatter", r.scat, []int{100 + me})
			var sq, col []int
			for i := range n {
				sq = append(sq, i*i)
				col = append(col, i*10+me)
			}
			check("Allgather", r.allg, sq)
			check("Alltoall", r.a2a, col)
		}
	}
}

// runError runs body on n processors (replicated) and returns the error's
// text.
func runError(t *testing.T, n int, par Params, body func(p *Proc)) string {
	t.Helper()
	if par.Deadlock == 0 {
		par.Deadlock = 200 * time.Millisecond
	}
	err := everyProc(t, n, par, body)
	if err == nil {
		t.Fatal("the run succeeded")
	}
	var re *Error
	if !errors.As(err, &re) {
		t.Fatalf("not an *Error: %v", err)
	}
	return err.Error()
}

func TestMessageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(p *Proc)
		want []string
	}{
		{"truncated", func(p *Proc) {
			if ProcessorID() == 0 {
				SendAt(1, 1, 0, []int{1, 2, 3})
			} else {
				RecvAt(2, 0, 0, make([]int, 2))
			}
		}, []string{"main.go:41:7: processor 1: Recv: a message of 3 elements from processor 0 (Send at main.go:40:3) does not fit the receive buffer of 2 elements"}},
		{"element type", func(p *Proc) {
			if ProcessorID() == 0 {
				SendAt(1, 1, 0, []int32{1})
			} else {
				RecvAt(2, 0, 0, make([]int64, 2))
			}
		}, []string{"main.go:41:7: processor 1: Recv: a message of []int32 from processor 0 (Send at main.go:40:3) reached a receive buffer of []int64"}},
		{"peer", func(p *Proc) { SendAt(1, 2, 0, []int{1}) },
			[]string{"main.go:40:3: processor ", ": Send: destination 2 is not a processor of the active processor set (processors 0 to 1)"}},
		{"tag", func(p *Proc) { SendAt(1, 0, -3, []int{1}) },
			[]string{"main.go:40:3: processor ", "Send: tag -3 is negative"}},
		{"waited twice", func(p *Proc) {
			q := IsendAt(3, ProcessorID(), 0, []int{1})
			Recv(ProcessorID(), 0, make([]int, 1))
			q.WaitAt(4)
			q.WaitAt(4)
		}, []string{"main.go:43:3: processor ", "Wait of a request that was already completed at main.go:43:3 (Isend made at main.go:42:3)"}},
		{"deadlock", func(p *Proc) { RecvAt(2, 1-ProcessorID(), 5, make([]int, 1)) },
			[]string{"deadlock", "processor 0: in Recv, waiting for a message from processor 1 (main.go:41:7)",
				"processor 1: in Recv, waiting for a message from processor 0 (main.go:41:7)"}},
		{"wrong tag", func(p *Proc) { // the sent message is named beside the wait
			if ProcessorID() == 1 {
				SendAt(1, 0, 8, []int{1, 2})
			} else {
				RecvAt(2, 1, 7, make([]int, 2))
			}
		}, []string{"deadlock", "processor 0: in Recv, waiting for a message from processor 1 (main.go:41:7)",
			"not received: the message processor 1 sent to processor 0 with tag 8 at main.go:40:3 (2 elements), which matches none of its receives"}},
		{"unbuffered", func(p *Proc) { // fine with buffering, a deadlock without
			SendAt(1, 1-ProcessorID(), 0, []int{1})
			RecvAt(2, 1-ProcessorID(), 0, make([]int, 1))
		}, []string{"deadlock", "in Send, waiting for processor 1 to receive (main.go:40:3)"}},
		{"collective mismatch", func(p *Proc) {
			if ProcessorID() == 0 {
				Bcast(0, []int{1})
			} else {
				Allreduce(Sum, []int{1}, make([]int, 1))
			}
		}, []string{"processors called different collectives"}},
		{"reduction op", func(p *Proc) { Allreduce(BOr, []float64{1}, make([]float64, 1)) },
			[]string{"Allreduce: BOr needs an integer element type, not float64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			par := Params{}
			if tc.name == "unbuffered" {
				par.MsgBuffer = -1
			}
			msg := runError(t, 2, par, tc.body)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\nlacks %q", msg, w)
				}
			}
		})
	}
}

// The records of a traced exchange: entries and exits with their
// parameters; the receive names the message the send numbered.
func TestMessageRecords(t *testing.T) {
	var buf bytes.Buffer
	err := Run(msgProg(), Params{NProcs: 2, Stage: 3, Trace: &buf, Stderr: io.Discard}, func(p *Proc) {
		p.Replicated(1, 1, func(p *Proc) {
			if ProcessorID() == 0 {
				SendAt(1, 1, 9, []int16{1, 2, 3})
			} else {
				RecvAt(2, 0, AnyTag, make([]int16, 4))
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range readTrace(t, buf.Bytes()) {
		switch r.Desc.Tag {
		case trace.TagMsgCallStart:
			got = append(got, fmt.Sprintf("%d start %s site %d peer %d tag %d id %d %s[%d] addr %d",
				r.Node(), trace.CallKindName(r.Int("call kind")), r.Int("call site"), r.Int("peer"), r.Int("tag"),
				r.Int("message id"), r.String("element type"), r.Int("count"), addrLen(r)))
		case trace.TagMsgCallStop:
			got = append(got, fmt.Sprintf("%d stop %s from %d tag %d count %d id %d",
				r.Node(), trace.CallKindName(r.Int("call kind")), r.Int("matched source"), r.Int("matched tag"),
				r.Int("matched count"), r.Int("message id")))
		}
	}
	slices.Sort(got)
	want := []string{
		"0 start Send site 1 peer 1 tag 9 id 1 int16[3] addr 4",
		"0 stop Send from -1 tag -1 count 3 id 1",
		"1 start Recv site 2 peer 0 tag -1 id 0 int16[4] addr 4",
		"1 stop Recv from 0 tag 9 count 3 id 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Outside a run (the serial build) the program is processor 0: messages to
// itself arrive, and a call that would wait forever is an error.
func TestSerialMessages(t *testing.T) {
	Send(0, 1, []string{"a", "b"})
	in := make([]string, 2)
	if st := Recv(0, AnyTag, in); st.Count != 2 || in[1] != "b" {
		t.Errorf("self message: %v %v", st, in)
	}
	out := make([]int, 1)
	Allreduce(Sum, []int{5}, out)
	if out[0] != 5 {
		t.Errorf("Allreduce on one processor: %v", out)
	}
}

func addrLen(r *trace.Record) int {
	_, v := r.IntArray("buffer address")
	return len(v)
}

// The statistics' message-passing group (seed 000 §11.1.2): every call
// counted once (no division by n), all its time lost, and the real
// dissynchronisation in its productive time: a buffered send 30 ms after
// its receive was called gives about 30 ms: the time from the receive's
// call to the send's, which the test measures itself (on a loaded machine
// processor 1 may reach its Recv a few milliseconds late).
func TestMessageStatistics(t *testing.T) {
	var buf bytes.Buffer
	var sendAt, recvAt time.Time
	err := everyProc(t, 2, Params{Stats: true, Trace: &buf}, func(p *Proc) {
		if ProcessorID() == 0 {
			time.Sleep(30 * time.Millisecond)
			sendAt = time.Now()
			Send(1, 0, []int{1})
		} else {
			recvAt = time.Now()
			Recv(0, 0, make([]int, 1))
		}
		Barrier()
	})
	late := float64(sendAt.Sub(recvAt).Microseconds()) // the dissynchronisation as the test saw it
	if err != nil {
		t.Fatal(err)
	}
	var calls, dissync, lost, rmt float64
	for _, r := range readTrace(t, buf.Bytes()) {
		if r.Desc.Name == "stat-interval" && r.Int("interval id") == 0 {
			rmt = r.Double("dissynchronisation microseconds")
		}
		// (the UserGrp row counts the direct calls apart, per processor)
		if r.Desc.Name == "stat-group" && r.Int("interval id") == 0 && r.Int("group") == int(stats.MsgPas) && r.Int("caller group") != int(stats.User) {
			calls += r.Double("calls")
			dissync += r.Double("productive microseconds")
			lost += r.Double("lost microseconds")
		}
	}
	if calls != 4 { // Send, Recv and two Barriers
		t.Errorf("message-passing calls %v, want 4", calls)
	}
	if late < 20e3 || dissync < late-1e3 || dissync > late+2e3 {
		t.Errorf("dissynchronisation %.0f µs, want about %.0f (the send's call %.0f µs after the receive's)", dissync, late, late)
	}
	if lost < late-1e3 {
		t.Errorf("lost %.0f µs, want the receiver's wait of %.0f µs at least", lost, late)
	}
	if rmt != dissync {
		t.Errorf("RMT %.0f µs, the groups' RMTi add up to %.0f", rmt, dissync)
	}
	// IsSynchrTime off: calls and lost time still, no dissynchronisation.
	buf.Reset()
	if err := everyProc(t, 2, Params{Stats: true, Trace: &buf, NoSynchrTime: true}, func(p *Proc) {
		if ProcessorID() == 0 {
			time.Sleep(10 * time.Millisecond)
			Send(1, 0, []int{1})
		} else {
			Recv(0, 0, make([]int, 1))
		}
	}); err != nil {
		t.Fatal(err)
	}
	for _, r := range readTrace(t, buf.Bytes()) {
		if r.Desc.Name == "stat-group" && r.Int("group") == int(stats.MsgPas) && r.Double("productive microseconds") != 0 {
			t.Errorf("IsSynchrTime off: dissynchronisation %v", r.Double("productive microseconds"))
		}
	}
}

// A run that deadlocks in message passing leaves the calls it was in as
// entries without exits.
func TestMessageDeadlockTraced(t *testing.T) {
	var buf bytes.Buffer
	err := everyProc(t, 2, Params{Stage: 3, Trace: &buf, Deadlock: 200 * time.Millisecond}, func(p *Proc) {
		Send(1-ProcessorID(), 0, []int{1}) // buffered: both go on
		RecvAt(2, 1-ProcessorID(), 9, make([]int, 1))
	})
	if err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Fatalf("want a deadlock, got %v", err)
	}
	open := map[int][]string{}
	for _, r := range readTrace(t, buf.Bytes()) {
		switch r.Desc.Tag {
		case trace.TagMsgCallStart:
			open[r.Node()] = append(open[r.Node()], trace.CallKindName(r.Int("call kind")))
		case trace.TagMsgCallStop:
			open[r.Node()] = open[r.Node()][:len(open[r.Node()])-1]
		}
	}
	for p := range 2 {
		if !slices.Equal(open[p], []string{"Recv"}) {
			t.Errorf("processor %d: calls entered and not left: %v, want [Recv]", p, open[p])
		}
	}
}

// A collective in exclusive code of a set of several processors would
// wait for members that never run it: an error at the call.
func TestCollectiveInExclusiveMode(t *testing.T) {
	err := Run(msgProg(), Params{NProcs: 2, Stderr: io.Discard}, func(p *Proc) {
		AllreduceAt(2, Sum, []int{1}, make([]int, 1))
	})
	want := "main.go:41:7: processor 0: Allreduce is a collective of the active processor set (processors 0 to 1), but in exclusive mode only its leader, processor 0, runs this code"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	// One processor: the set is the leader alone.
	if err := Run(msgProg(), Params{NProcs: 1, Stderr: io.Discard}, func(p *Proc) {
		Allreduce(Sum, []int{1}, make([]int, 1))
	}); err != nil {
		t.Fatal(err)
	}
}

// TestUnreceivedWarning: a run that ends normally with messages no
// receive took says so, a line per send site with its senders and tag
// (x243: a worker's progress messages the master never read ended the run
// without a word); --info-off messages silences it, and a run whose
// messages were all received says nothing.
func TestUnreceivedWarning(t *testing.T) {
	body := func(extra bool) func(p *Proc) {
		return func(p *Proc) {
			p.Replicated(1, 1, func(p *Proc) {
				buf := make([]int, 2)
				if ProcessorID() == 0 {
					for src := 1; src < NumProcessors(); src++ {
						RecvAt(2, src, 7, buf)
					}
					return
				}
				SendAt(1, 0, 7, buf)
				if extra {
					SendAt(1, 0, 9, buf[:1])
				}
			})
		}
	}
	for _, tc := range []struct {
		extra bool
		off   []string
		want  string
	}{
		{true, nil, "svmc: main.go:40:3: 2 message(s) sent here by processors 1, 2 to processor 0 with tag 9 were never received"},
		{true, []string{"messages"}, ""},
		{false, nil, ""},
	} {
		var stderr bytes.Buffer
		if err := Run(msgProg(), Params{NProcs: 3, Stderr: &stderr, InfoOff: tc.off}, body(tc.extra)); err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSpace(stderr.String())
		if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
			t.Errorf("extra %v, off %v: stderr %q, want %q", tc.extra, tc.off, got, tc.want)
		}
	}
}

// TestReduceInPlace: a reduction whose send and receive buffers are one
// slice (which svmc check reports, as MPI forbids it) still gives the
// sum at every root: the root's own contribution is read before the
// result overwrites it (at a root other than member 0 it was lost).
func TestReduceInPlace(t *testing.T) {
	const n = 3
	got := make([][]int, n)
	all := make([][]int, n)
	err := everyProc(t, n, Params{}, func(p *Proc) {
		me := ProcessorID()
		for root := range n {
			buf := []int{me + 1, 10 * (me + 1)}
			Reduce(root, Sum, buf, buf)
			if me == root {
				got[root] = buf
			}
		}
		a := []int{me + 1}
		Allreduce(Sum, a, a)
		all[me] = a
	})
	if err != nil {
		t.Fatal(err)
	}
	for root, v := range got {
		if !slices.Equal(v, []int{6, 60}) {
			t.Errorf("in-place Reduce at root %d: %v, want [6 60]", root, v)
		}
	}
	for me, v := range all {
		if !slices.Equal(v, []int{6}) {
			t.Errorf("in-place Allreduce on processor %d: %v, want [6]", me, v)
		}
	}
}

// TestInPlace gives every call of two buffers one slice for both (or
// overlapping parts of one), as a Go programmer writes a ring shift or an
// exchange in place: the results must be those of separate buffers, with
// and without buffering of messages (svmc check still reports the
// overlap, as MPI forbids it).
func TestInPlace(t *testing.T) {
	for _, msgBuf := range []int{0, -1} {
		for n := 1; n <= 4; n++ {
			type result struct{ shift, a2a, gath, scat, red, allred, allg []int }
			res := make([]result, n)
			err := everyProc(t, n, Params{MsgBuffer: msgBuf}, func(p *Proc) {
				me := ProcessorID()
				r := &res[me]
				r.shift = []int{me, 10 * me}
				Sendrecv((me+1)%n, 0, r.shift, (me+n-1)%n, 0, r.shift)
				r.a2a = make([]int, n)
				for j := range r.a2a {
					r.a2a[j] = me*10 + j
				}
				Alltoall(r.a2a, r.a2a)
				// The root's part at the front of its receive buffer,
				// where processor 0's part goes.
				r.gath = make([]int, n+1)
				r.gath[0] = me + 1
				Gather(n-1, r.gath[:1], r.gath[:n])
				r.scat = make([]int, n)
				for j := range r.scat {
					r.scat[j] = 100 + j
				}
				Scatter(n-1, r.scat, r.scat[:1]) // the root's own part is its last
				r.red = []int{me, 1}
				Reduce(n-1, Sum, r.red, r.red)
				r.allred = []int{me + 1}
				Allreduce(Prod, r.allred, r.allred)
				r.allg = make([]int, n)
				r.allg[me] = me * 7
				Allgather(r.allg[me:me+1], r.allg) // MPI_IN_PLACE's pattern
			})
			if err != nil {
				t.Fatalf("n=%d msg_buffer %d: %v", n, msgBuf, err)
			}
			fact, sum := 1, 0
			for i := range n {
				fact *= i + 1
				sum += i
			}
			for me, r := range res {
				check := func(what string, got, want []int) {
					if !slices.Equal(got, want) {
						t.Errorf("n=%d msg_buffer %d processor %d %s in place: got %v, want %v", n, msgBuf, me, what, got, want)
					}
				}
				prev := (me + n - 1) % n
				check("Sendrecv", r.shift, []int{prev, 10 * prev})
				var col []int
				for i := range n {
					col = append(col, i*10+me)
				}
				check("Alltoall", r.a2a, col)
				if me == n-1 {
					var g []int
					for i := range n {
						g = append(g, i+1)
					}
					check("Gather", r.gath[:n], g)
					check("Reduce", r.red, []int{sum, n})
				}
				check("Scatter", r.scat[:1], []int{100 + me})
				check("Allreduce", r.allred, []int{fact})
				var sevens []int
				for i := range n {
					sevens = append(sevens, 7*i)
				}
				check("Allgather", r.allg, sevens)
			}
		}
	}
}
