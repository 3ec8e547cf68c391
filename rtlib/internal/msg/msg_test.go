package msg

import (
	"reflect"
	"slices"
	"sync"
	"testing"
	"unsafe"
)

type ops[T any] struct{}

func (ops[T]) Copy(dst, src unsafe.Pointer, n int) {
	copy(unsafe.Slice((*T)(dst), n), unsafe.Slice((*T)(src), n))
}

func (ops[T]) Clone(src unsafe.Pointer, n int) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(slices.Clone(unsafe.Slice((*T)(src), n))))
}

func bufOf[T any](v []T) Buf {
	return Buf{Ptr: unsafe.Pointer(unsafe.SliceData(v)), Len: len(v), Type: reflect.TypeFor[T](), Ops: ops[T]{}}
}

func send(nt *Net, src, dst, tag int, seq uint64, v []int, sync bool) (*Req, *MatchError) {
	m := Msg{Src: src, Tag: tag, Seq: seq, Data: bufOf(v), Count: len(v), Bytes: 8 * len(v)}
	return nt.Send(dst, m, sync, new(Req))
}

func recv(nt *Net, dst, src, tag int, buf []int) (*Req, bool) {
	r := &Req{Src: src, Tag: tag, Into: bufOf(buf)}
	return r, nt.Recv(dst, r)
}

// Messages of one sender with one tag arrive in order; a wildcard receive
// takes the earliest that matches, and a tag receive skips the others.
func TestOrderAndWildcards(t *testing.T) {
	nt := New(3, 1<<20)
	send(nt, 0, 2, 5, 1, []int{1}, false)
	send(nt, 1, 2, 7, 1, []int{2}, false)
	send(nt, 0, 2, 5, 2, []int{3}, false)
	send(nt, 0, 2, 6, 3, []int{4}, false)
	var got []int
	b := make([]int, 1)
	r, ok := recv(nt, 2, 0, 6, b) // skips the two tag-5 messages
	if !ok || r.Status.Seq != 3 {
		t.Fatalf("tag 6: ok %v status %+v", ok, r.Status)
	}
	got = append(got, b[0])
	for range 3 {
		r, ok := recv(nt, 2, AnySource, AnyTag, b)
		if !ok {
			t.Fatal("no message")
		}
		got = append(got, b[0]*10+r.Status.Source)
	}
	if want := []int{4, 10, 21, 30}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, ok := recv(nt, 2, AnySource, AnyTag, b); ok {
		t.Fatal("a receive matched with no message left")
	}
}

// A posted receive is filled by the send directly, and posted receives
// match in the order they were posted.
func TestPostedFirst(t *testing.T) {
	nt := New(2, 0)
	b1, b2 := make([]int, 2), make([]int, 2)
	r1, _ := recv(nt, 1, AnySource, 3, b1)
	r2, _ := recv(nt, 1, 0, 3, b2)
	if s, err := send(nt, 0, 1, 3, 1, []int{7, 8}, true); s != nil || err != nil {
		t.Fatalf("send with a posted receive waits: %v %v", s, err)
	}
	if r1.Done.Load() != 1 || r2.Done.Load() != 0 || b1[1] != 8 {
		t.Fatalf("r1 done %d r2 done %d b1 %v", r1.Done.Load(), r2.Done.Load(), b1)
	}
}

// Buffering follows the sender's capacity; beyond it, and for synchronous
// sends, the sender waits until its message is taken, and taking a
// buffered message frees its bytes.
func TestBufferingAndRendezvous(t *testing.T) {
	nt := New(2, 16) // two ints
	if s, _ := send(nt, 0, 1, 0, 1, []int{1, 2}, false); s != nil {
		t.Fatal("a send within the capacity waits")
	}
	v := []int{3}
	s, _ := send(nt, 0, 1, 0, 2, v, false)
	if s == nil {
		t.Fatal("a send beyond the capacity is buffered")
	}
	v[0] = 33 // not copied: the receive sees the sender's slice
	b := make([]int, 2)
	if _, ok := recv(nt, 1, 0, 0, b); !ok || b[1] != 2 {
		t.Fatalf("first message: %v", b)
	}
	if s.Done.Load() != 0 {
		t.Fatal("the waiting sender completed before its message was taken")
	}
	if _, ok := recv(nt, 1, 0, 0, b); !ok || b[0] != 33 || s.Done.Load() != 1 {
		t.Fatalf("second message %v, sender done %d", b, s.Done.Load())
	}
	if s, _ := send(nt, 0, 1, 0, 3, []int{1, 2}, false); s != nil {
		t.Fatal("the capacity was not given back")
	}
	if s, _ := send(nt, 0, 1, 0, 4, []int{1}, true); s == nil {
		t.Fatal("a synchronous send was buffered")
	}
}

func TestMatchErrors(t *testing.T) {
	nt := New(2, 1<<10)
	send(nt, 0, 1, 0, 1, []int{1, 2, 3}, false)
	r, _ := recv(nt, 1, 0, 0, make([]int, 2))
	if r.Err == nil || !r.Err.Truncated || r.Err.Count != 3 || r.Err.Cap != 2 {
		t.Fatalf("truncation: %+v", r.Err)
	}
	nt.Send(1, Msg{Src: 0, Data: bufOf([]float64{1}), Count: 1, Bytes: 8}, false, new(Req))
	r, _ = recv(nt, 1, 0, 0, make([]int, 2))
	if r.Err == nil || r.Err.Truncated || r.Err.SentType != "[]float64" || r.Err.ReceivedType != "[]int" {
		t.Fatalf("type: %+v", r.Err)
	}
}

// Contexts do not mix: a wildcard point-to-point receive does not take a
// collective message.
func TestContexts(t *testing.T) {
	nt := New(2, 1<<10)
	nt.Send(1, Msg{Src: 0, Ctx: Collective, Data: bufOf([]int{1}), Count: 1, Bytes: 8}, false, new(Req))
	if _, ok := recv(nt, 1, AnySource, AnyTag, make([]int, 1)); ok {
		t.Fatal("a point-to-point receive took a collective message")
	}
}

type chanWaker chan struct{}

func (c chanWaker) Wakeup() {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Many senders and one wildcard receiver: every message arrives once, and
// each sender's messages in order.
func TestConcurrent(t *testing.T) {
	const senders, each = 4, 2000
	nt := New(senders+1, 64)
	var wg sync.WaitGroup
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := make(chanWaker, 1)
			for i := range each {
				m := Msg{Src: s, Tag: 1, Seq: uint64(i + 1), Data: bufOf([]int{i}), Count: 1, Bytes: 8}
				if r, _ := nt.Send(senders, m, i%3 == 0, &Req{W: w}); r != nil {
					for r.Done.Load() == 0 {
						<-w
					}
				}
			}
		}()
	}
	next := make([]int, senders)
	w := make(chanWaker, 1)
	b := make([]int, 1)
	for range senders * each {
		r := &Req{Src: AnySource, Tag: 1, Into: bufOf(b), W: w}
		if !nt.Recv(senders, r) {
			for r.Done.Load() == 0 {
				<-w
			}
		}
		src := r.Status.Source
		if b[0] != next[src] {
			t.Fatalf("from %d: got %d, want %d", src, b[0], next[src])
		}
		next[src]++
	}
	wg.Wait()
}

// A message from another process (Arrive) matches as a local one does, in
// order with them, whether its receive is posted before or after; its
// Taken runs once a receive took it; a receive of another element type
// or too short fails as for a local one.
func TestArrive(t *testing.T) {
	nt := New(2, 1<<20)
	raw := func(v ...int64) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v)) }
	taken := 0
	nt.Arrive(1, &Msg{Src: 0, Tag: 3, Seq: 1, Count: 2, Raw: raw(5, 6), RawType: "int64", Taken: func(*Msg) { taken++ }})
	nt.Send(1, Msg{Src: 0, Tag: 3, Seq: 2, Data: bufOf([]int64{7}), Count: 1, Bytes: 8}, false, new(Req))
	if taken != 0 {
		t.Fatal("Taken ran before a receive took the message")
	}
	b := make([]int64, 2)
	r := &Req{Src: AnySource, Tag: 3, Into: bufOf(b)}
	if !nt.Recv(1, r) || r.Err != nil || r.Status.Seq != 1 || b[0] != 5 || b[1] != 6 || taken != 1 {
		t.Fatalf("first: status %+v err %v data %v taken %d", r.Status, r.Err, b, taken)
	}
	r = &Req{Src: 0, Tag: 3, Into: bufOf(b)}
	if !nt.Recv(1, r) || r.Status.Seq != 2 || b[0] != 7 {
		t.Fatalf("second: status %+v data %v", r.Status, b)
	}
	posted := &Req{Src: 0, Tag: 4, Into: bufOf(b)}
	if nt.Recv(1, posted) {
		t.Fatal("a receive completed with no message")
	}
	nt.Arrive(1, &Msg{Src: 0, Tag: 4, Seq: 3, Count: 1, Raw: raw(9), RawType: "int64"})
	if posted.Done.Load() != 1 || b[0] != 9 {
		t.Fatalf("posted receive: done %d data %v", posted.Done.Load(), b)
	}
	floats := make([]float64, 2)
	nt.Arrive(1, &Msg{Src: 0, Tag: 5, Count: 1, Raw: raw(1), RawType: "int64"})
	r = &Req{Src: 0, Tag: 5, Into: bufOf(floats)}
	if !nt.Recv(1, r) || r.Err == nil || r.Err.Truncated || r.Err.SentType != "[]int64" {
		t.Fatalf("another type: %+v", r.Err)
	}
	nt.Arrive(1, &Msg{Src: 0, Tag: 6, Count: 2, Raw: raw(1, 2), RawType: "int64"})
	r = &Req{Src: 0, Tag: 6, Into: bufOf(make([]int64, 1))}
	if !nt.Recv(1, r) || r.Err == nil || !r.Err.Truncated {
		t.Fatalf("too short: %+v", r.Err)
	}
}

// Claim hands over the earliest posted receive a message from another
// process matches, only if it fits, and Finish completes it with the
// message's status; a receive that does not fit stays posted for Arrive
// to fail.
func TestClaim(t *testing.T) {
	nt := New(2, 1<<20)
	first, second := make([]int64, 2), make([]int64, 2)
	r1 := &Req{Src: AnySource, Tag: 5, Into: bufOf(first)}
	r2 := &Req{Src: 0, Tag: 5, Into: bufOf(second)}
	nt.Recv(1, r1)
	nt.Recv(1, r2)
	m := &Msg{Src: 0, Tag: 5, Seq: 9, Count: 2, RawType: "int64"}
	if q := nt.Claim(1, m, func(*Req) bool { return false }); q != nil {
		t.Fatal("claimed a receive that does not fit")
	}
	taken := false
	m.Taken = func(*Msg) { taken = true }
	q := nt.Claim(1, m, func(*Req) bool { return true })
	if q != r1 {
		t.Fatalf("claimed %p, want the earliest posted %p", q, r1)
	}
	first[0], first[1] = 3, 4 // the caller fills the buffer
	nt.Finish(q, m)
	if r1.Done.Load() != 1 || r1.Status.Seq != 9 || r1.Status.Source != 0 || r1.Status.Count != 2 || !taken {
		t.Fatalf("finished: done %d status %+v taken %v", r1.Done.Load(), r1.Status, taken)
	}
	if r2.Done.Load() != 0 || nt.Claim(1, &Msg{Src: 0, Tag: 5}, func(*Req) bool { return true }) != r2 {
		t.Fatal("the second receive is not still posted, next in line")
	}
}

// A long queue keeps its order whichever message a receive takes: 300
// messages of tags 0-2 (past the length where taking the first reslices
// the queue instead of moving the others up), every tag-2 one taken
// first, then the rest from any tag, in sending order; nothing is left.
func TestLongQueueOrder(t *testing.T) {
	const n = 300
	nt := New(2, 1<<20)
	for k := range n {
		send(nt, 0, 1, k%3, uint64(k+1), []int{k}, false)
	}
	b := make([]int, 1)
	var got []int
	for range n / 3 {
		if _, ok := recv(nt, 1, 0, 2, b); !ok {
			t.Fatal("a tag-2 message is missing")
		}
		got = append(got, b[0])
	}
	for range n - n/3 {
		if _, ok := recv(nt, 1, AnySource, AnyTag, b); !ok {
			t.Fatal("a message is missing")
		}
		got = append(got, b[0])
	}
	var want []int
	for k := 2; k < n; k += 3 {
		want = append(want, k)
	}
	for k := range n {
		if k%3 != 2 {
			want = append(want, k)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("received %v, want %v", got, want)
	}
	if _, ok := recv(nt, 1, AnySource, AnyTag, b); ok {
		t.Fatal("a receive matched with no message left")
	}
	if bx := &nt.boxes[1]; len(bx.unexp) != 0 {
		t.Fatalf("%d messages still queued", len(bx.unexp))
	}
}

// BenchmarkRecvLongQueue is a receive of the first of 10 000 queued
// messages (a processor that fell behind buffered sends), a new one
// queued behind each: before dequeue resliced, each receive moved the
// whole queue up.
func BenchmarkRecvLongQueue(b *testing.B) {
	nt := New(2, 1<<30)
	for k := range 10000 {
		send(nt, 0, 1, 0, uint64(k+1), []int{k}, false)
	}
	buf := make([]int, 1)
	r := &Req{Src: 0, Tag: 0, Into: bufOf(buf)}
	b.ReportAllocs()
	k := 10000
	for b.Loop() {
		r.Reset()
		if !nt.Recv(1, r) {
			b.Fatal("no message")
		}
		k++
		send(nt, 0, 1, 0, uint64(k), buf, false)
	}
}
