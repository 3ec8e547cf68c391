package rtlib

import (
	"encoding/binary"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"unsafe"
)

// TestApplyEntry: a publication writes exactly the bytes that changed,
// one by one, into storage whose other bytes hold something else (another
// processor's share written meanwhile), and into the twin.
func TestApplyEntry(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := range 100 {
		n := 1 + rng.Intn(70)
		twin, now := make([]byte, n), make([]byte, n)
		rng.Read(twin)
		copy(now, twin)
		changed := map[int]bool{}
		for range rng.Intn(n + 1) {
			k := rng.Intn(n)
			now[k]++
			changed[k] = true
		}
		d := appendDiff(nil, 1, twin, now)
		other := make([]byte, n) // the grantee's storage: other values everywhere
		rng.Read(other)
		want := append([]byte(nil), other...)
		for k := range changed {
			want[k] = now[k]
		}
		applyEntry(d, [][]byte{nil, other})
		if string(other) != string(want) {
			t.Fatalf("round %d: applied %v, want %v (changed %v)", round, other, want, changed)
		}
	}
}

// TestAddInto: a rank's sum of atomic additions, added into another
// rank's element of each kind, as Go's arithmetic would (integers wrap).
func TestAddInto(t *testing.T) {
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	i8 := int8(120)
	sum := addWide(widen(bitsOf(int8(5)), reflect.Int8), widen(bitsOf(int8(-2)), reflect.Int8), reflect.Int8)
	addInto(unsafe.Slice((*byte)(unsafe.Pointer(&i8)), 1), sum, reflect.Int8, 1)
	check("int8", i8, int8(123))
	i8 = 126
	addInto(unsafe.Slice((*byte)(unsafe.Pointer(&i8)), 1), widen(bitsOf(int8(3)), reflect.Int8), reflect.Int8, 1)
	check("int8 wraps", i8, int8(-127))
	u16 := uint16(10)
	addInto(unsafe.Slice((*byte)(unsafe.Pointer(&u16)), 2), widen(bitsOf(uint16(65535)), reflect.Uint16), reflect.Uint16, 2)
	check("uint16", u16, uint16(9))
	i64 := int64(-5)
	addInto(unsafe.Slice((*byte)(unsafe.Pointer(&i64)), 8), widen(bitsOf(int64(-7)), reflect.Int64), reflect.Int64, 8)
	check("int64", i64, int64(-12))
	f32 := float32(1.5)
	fs := addWide(widen(bitsOf(float32(0.25)), reflect.Float32), widen(bitsOf(float32(0.5)), reflect.Float32), reflect.Float32)
	addInto(unsafe.Slice((*byte)(unsafe.Pointer(&f32)), 4), fs, reflect.Float32, 4)
	check("float32", f32, float32(2.25))
	f64 := -1.0
	addInto(unsafe.Slice((*byte)(unsafe.Pointer(&f64)), 8), math.Float64bits(0.125), reflect.Float64, 8)
	check("float64", f64, -0.875)
	check("kindSize int", kindSize(reflect.Int), int(unsafe.Sizeof(0)))
	check("kindSize complex", kindSize(reflect.Complex64), 0)
}

// TestLockMgrGrants: rank 0's manager grants a lock to one waiter at a
// time, in the order asked, each grant bringing the publications of other
// ranks in this pdo since the grantee's last grant — not its own, not
// another pdo's.
func TestLockMgrGrants(t *testing.T) {
	m := &lockMgr{locks: map[string]*globalLock{}, logs: map[int][]publication{}, seen: map[[2]int]int{}}
	l := &globalLock{}
	m.locks["cx"] = l
	pub := func(author, seq int) publication {
		return publication{author: author, seq: seq, diff: []byte{byte(author), byte(seq)}}
	}
	grant := func() pendingGrant {
		t.Helper()
		gs := m.next(nil, l)
		if len(gs) != 1 {
			t.Fatalf("%d grants, want 1", len(gs))
		}
		return gs[0]
	}
	l.queue = []lockWaiter{{1, 1, 0}, {2, 2, 0}, {1, 1, 0}, {1, 1, 1}}
	g := grant()
	if g.w.rank != 1 || len(g.pubs) != 0 || g.seen != 0 {
		t.Fatalf("first grant %+v", g)
	}
	if gs := m.next(nil, l); len(gs) > 0 {
		t.Fatal("granted a held lock")
	}
	l.holders = 0
	m.logs[0] = append(m.logs[0], pub(1, 1))
	g = grant()
	if g.w.rank != 2 || g.seen != 1 || string(g.pubs) != "\x02\x00\x00\x00\x01\x01" {
		t.Fatalf("second grant %+v: want rank 1's publication", g)
	}
	l.holders = 0
	m.logs[0] = append(m.logs[0], pub(2, 1))
	m.logs[1] = append(m.logs[1], pub(2, 9)) // another pdo's
	g = grant()
	if g.w.rank != 1 || g.seen != 2 || string(g.pubs) != "\x02\x00\x00\x00\x02\x01" {
		t.Fatalf("third grant %+v: want rank 2's publication only", g)
	}
	l.holders = 0
	g = grant()
	if g.w.epoch != 1 || g.seen != 1 || string(g.pubs) != "\x02\x00\x00\x00\x02\x09" {
		t.Fatalf("fourth grant %+v: want the next pdo's publication", g)
	}
}

// TestLockMgrCopies: the copies of processor 0 in a replicated region
// (one per rank) are queued once all of them asked, granted together,
// each with what it has not seen, and the lock is free again once every
// copy released it, each release logged.
func TestLockMgrCopies(t *testing.T) {
	net := &postNet{sizeNet: sizeNet{size: 3}}
	r := &run{ranks: net}
	m := &r.rsync.mgr
	m.request(r, "cx", 2, 2, 0, false) // processor 2 holds it
	l := m.locks["cx"]
	if l.holders != 1 || len(net.to) != 1 || net.to[0] != 2 {
		t.Fatalf("holders %d, grants sent to %v after the first request", l.holders, net.to)
	}
	m.request(r, "cx", 0, 0, 0, true)
	m.request(r, "cx", 1, 0, 0, true)
	if len(l.queue) != 0 || l.copies != 2 {
		t.Fatalf("two of three copies: queue %v, copies %d", l.queue, l.copies)
	}
	m.request(r, "cx", 1, 1, 0, false)
	m.request(r, "cx", 2, 0, 0, true)
	if len(l.queue) != 2 || l.queue[0].rank != 1 || l.queue[1].rank != -1 || l.copies != 0 {
		t.Fatalf("queue %v: want processor 1, then the copies", l.queue)
	}
	m.mu.Lock()
	l.holders = 0 // as processor 2's release would, without its grant's message
	m.logs[0] = append(m.logs[0], publication{author: 2, seq: 1, diff: []byte{7}})
	l.queue = l.queue[1:]
	gs := m.next(r, l)
	m.mu.Unlock()
	if len(gs) != 3 || l.holders != 3 {
		t.Fatalf("%d grants, %d holders: want every copy", len(gs), l.holders)
	}
	for k, g := range gs {
		want := "\x01\x00\x00\x00\x07"
		if k == 2 {
			want = "" // its own publication
		}
		if g.w.rank != k || g.w.proc != 0 || g.seen != 1 || string(g.pubs) != want {
			t.Errorf("grant %d: %+v", k, g)
		}
	}
	m.mu.Lock()
	for k := range 2 {
		m.logs[0] = append(m.logs[0], publication{author: k, seq: 1, diff: []byte{9}})
		l.holders--
		if gs := m.next(r, l); len(gs) > 0 || l.holders == 0 {
			t.Fatalf("granted while copy %d of 3 released", k+1)
		}
	}
	m.mu.Unlock()
}

// postNet records the ranks messages are posted to.
type postNet struct {
	sizeNet
	to []int
}

func (n *postNet) Post(dest int, b []byte, sent func(), data []byte, dataSent func()) {
	n.to = append(n.to, dest)
}

// TestGrantsDeferredInCopyBody: while this rank's copy of processor 0 is
// in the body of a hold the copies share, a grant to another processor
// is neither applied nor woken; the copy's next grant applies it first
// (its bytes, then the copy's), and the go that ends the body applies
// what came after.
func TestGrantsDeferredInCopyBody(t *testing.T) {
	store := make([]byte, 8)
	r := &run{procs: []*Proc{{}, {}, {}}}
	r.exStores, r.twins = []Storage{StorageOf(store)}, [][]byte{make([]byte, 8)}
	pub := func(off, v byte) []byte { // one byte at off, in a grant's framing
		var d []byte
		d = binary.LittleEndian.AppendUint32(d, 0)
		d = binary.LittleEndian.AppendUint32(d, uint32(off))
		d = binary.LittleEndian.AppendUint32(d, 1)
		d = append(d, 1, v)
		return append(binary.LittleEndian.AppendUint32(nil, uint32(len(d))), d...)
	}
	gens := func() [3]uint64 {
		return [3]uint64{r.procs[0].gl.gen.Load(), r.procs[1].gl.gen.Load(), r.procs[2].gl.gen.Load()}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.granted(0, 1, pub(0, 10), true)) // the copies' hold: its body starts
	must(r.granted(1, 2, pub(1, 11), false))
	if store[1] != 0 || gens() != [3]uint64{1, 0, 0} {
		t.Fatalf("a grant to processor 1 during the copy's body: storage %v, generations %v", store, gens())
	}
	must(r.granted(0, 3, append(pub(1, 12), pub(2, 12)...), true)) // a nested hold
	if store[1] != 12 || store[2] != 12 || gens() != [3]uint64{2, 1, 0} {
		t.Fatalf("the copy's nested grant: storage %v (want the deferred byte 11 overwritten by 12), generations %v", store, gens())
	}
	must(r.granted(2, 4, pub(3, 13), false))
	r.goPublish() // the nested hold's body ends; the outer goes on
	r.bodyDone(1)
	if store[3] != 0 || gens() != [3]uint64{3, 1, 0} {
		t.Fatalf("after the nested body: storage %v, generations %v", store, gens())
	}
	r.goPublish()
	r.bodyDone(1)
	if store[3] != 13 || r.twins[0][3] != 13 || gens() != [3]uint64{4, 1, 1} || r.rsync.seen != 4 {
		t.Fatalf("after the outer body: storage %v, twin %v, generations %v, seen %d", store, r.twins[0], gens(), r.rsync.seen)
	}
	// While the copy waits for a rank-local lock (one inside its body),
	// what was deferred is applied and nothing more is deferred: the
	// lock's holder may be the processor waiting for its grant.
	must(r.granted(0, 5, nil, true))
	must(r.granted(0, 5, nil, true)) // a hold of two locks, granted key by key
	must(r.granted(1, 6, pub(4, 14), false))
	if store[4] != 0 || gens() != [3]uint64{6, 1, 1} {
		t.Fatalf("a grant during the body: storage %v, generations %v", store, gens())
	}
	r.copyWaits(true)
	must(r.granted(2, 7, pub(5, 15), false))
	r.copyWaits(false)
	if store[4] != 14 || store[5] != 15 || gens() != [3]uint64{6, 2, 2} {
		t.Fatalf("while the copy waited for a lock: storage %v, generations %v", store, gens())
	}
	// The two-lock hold's body ends once: nothing is deferred after it.
	r.goPublish()
	r.bodyDone(2)
	must(r.granted(1, 8, pub(6, 16), false))
	if store[6] != 16 || r.rsync.inBody != 0 {
		t.Fatalf("after a hold of two locks: storage %v, in body %d", store, r.rsync.inBody)
	}
}

// TestApplyEntryIn: a page that arrived takes again exactly the bytes of
// the grants' runs that fall inside it, of its own segment, in store and
// twin.
func TestApplyEntryIn(t *testing.T) {
	now := make([]byte, 32)
	for i := range now {
		now[i] = byte(i)
	}
	var d []byte
	d = appendDiff(d, 1, make([]byte, 32), now) // segment 1: bytes 1..31 changed
	d = appendDiff(d, 0, make([]byte, 32), now) // another segment's
	store, twin := make([]byte, 32), make([]byte, 32)
	applyEntryIn(d, 1, 8, 16, store, twin)
	for i := range store {
		want := byte(0)
		if i >= 8 && i < 16 {
			want = byte(i)
		}
		if store[i] != want || twin[i] != want {
			t.Fatalf("byte %d: store %d, twin %d, want %d", i, store[i], twin[i], want)
		}
	}
	applyEntryIn(d, 1, 24, 40, store, nil) // past the end, no twin
	if store[31] != 31 || twin[31] != 0 {
		t.Fatalf("the last page: store %d, twin %d", store[31], twin[31])
	}
}
