package rtlib

import (
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
		g, ok := m.next(l)
		if !ok {
			t.Fatal("no grant")
		}
		return g
	}
	l.queue = []lockWaiter{{1, 1, 0}, {2, 2, 0}, {1, 1, 0}, {1, 1, 1}}
	g := grant()
	if g.w.rank != 1 || len(g.pubs) != 0 || g.seen != 0 {
		t.Fatalf("first grant %+v", g)
	}
	if _, ok := m.next(l); ok {
		t.Fatal("granted a held lock")
	}
	l.held = false
	m.logs[0] = append(m.logs[0], pub(1, 1))
	g = grant()
	if g.w.rank != 2 || g.seen != 1 || string(g.pubs) != "\x02\x00\x00\x00\x01\x01" {
		t.Fatalf("second grant %+v: want rank 1's publication", g)
	}
	l.held = false
	m.logs[0] = append(m.logs[0], pub(2, 1))
	m.logs[1] = append(m.logs[1], pub(2, 9)) // another pdo's
	g = grant()
	if g.w.rank != 1 || g.seen != 2 || string(g.pubs) != "\x02\x00\x00\x00\x02\x01" {
		t.Fatalf("third grant %+v: want rank 2's publication only", g)
	}
	l.held = false
	g = grant()
	if g.w.epoch != 1 || g.seen != 1 || string(g.pubs) != "\x02\x00\x00\x00\x02\x09" {
		t.Fatalf("fourth grant %+v: want the next pdo's publication", g)
	}
}
