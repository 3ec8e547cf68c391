package rtlib

import (
	"bytes"
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

// TestRankDiffs: two ranks writing interleaved bytes of the same storage
// (neighbouring elements of cyclic shares share words) each send the bytes
// they changed; applied to the other, both end with every write, whatever
// the order. A diff made of words instead of bytes would carry the twin's
// value of the neighbour's byte and undo its write.
func TestRankDiffs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 200 {
		n := 1 + rng.Intn(300)
		twin := make([]byte, n)
		rng.Read(twin)
		a, b, want := bytes.Clone(twin), bytes.Clone(twin), bytes.Clone(twin)
		for i := range n {
			switch rng.Intn(3) { // rank a owns some bytes, rank b others
			case 0:
				a[i]++
				want[i] = a[i]
			case 1:
				b[i] += 2
				want[i] = b[i]
			}
		}
		da := appendDiff(nil, 0, twin, a)
		db := appendDiff(nil, 0, twin, b)
		if c, err := applyDiff(db, []Storage{StorageOf(a)}, [][]byte{twin}); c != nil || err != nil {
			t.Fatal(c, err)
		}
		if c, err := applyDiff(da, []Storage{StorageOf(b)}, [][]byte{twin}); c != nil || err != nil {
			t.Fatal(c, err)
		}
		if !bytes.Equal(a, want) || !bytes.Equal(b, want) {
			t.Fatalf("round %d: after the exchange\n a %v\n b %v\nwant %v", round, a, b, want)
		}
	}
	// Segment 0, offset 8, two groups: the second lies past 12 bytes.
	if _, err := applyDiff([]byte{0, 0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 1, 9}, []Storage{StorageOf(make([]byte, 12))}, [][]byte{make([]byte, 12)}); err == nil {
		t.Error("a run past the storage's end was applied")
	}
}

// TestRankConflict: a byte both ranks changed, to different values, is a
// conflict (a lost update otherwise); to the same value it is not.
func TestRankConflict(t *testing.T) {
	twin := make([]byte, 20)
	for _, c := range []struct {
		mine, theirs byte
		want         bool
	}{{1, 2, true}, {3, 3, false}, {0, 5, false}} {
		a, b := bytes.Clone(twin), bytes.Clone(twin)
		a[13], b[13] = c.mine, c.theirs
		b[2] = 7 // a change of theirs alone
		got, err := applyDiff(appendDiff(nil, 0, twin, b), []Storage{StorageOf(a)}, [][]byte{twin})
		if err != nil || (got != nil) != c.want || got != nil && got.off != 13 {
			t.Errorf("mine %d, theirs %d: conflict %v (%v), want %v", c.mine, c.theirs, got, err, c.want)
		}
	}
}

// TestChangedBytes: the mask of a word's changed bytes, against the
// byte by byte answer.
func TestChangedBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for range 100000 {
		x := rng.Uint64()
		for k := range 8 {
			if rng.Intn(3) == 0 {
				x &^= 0xff << (8 * k)
			}
		}
		var want byte
		for k := range 8 {
			if byte(x>>(8*k)) != 0 {
				want |= 1 << k
			}
		}
		if got := changedBytes(x); got != want {
			t.Fatalf("changedBytes(%#x) = %08b, want %08b", x, got, want)
		}
	}
}

// TestRankWiden: partial results travel as 64-bit values of their class and
// come back as they were.
func TestRankWiden(t *testing.T) {
	for _, c := range []struct {
		bits uint64
		k    reflect.Kind
		want uint64
	}{
		{0xff, reflect.Int8, ^uint64(0)},
		{0xfffe, reflect.Int16, ^uint64(1)},
		{0xff, reflect.Uint8, 0xff},
		{0x3fc00000, reflect.Float32, 0x3ff8000000000000}, // 1.5
	} {
		if got := widen(c.bits, c.k); got != c.want {
			t.Errorf("widen(%#x, %v) = %#x, want %#x", c.bits, c.k, got, c.want)
		}
		if c.k == reflect.Float32 && narrow(c.want, c.k) != c.bits {
			t.Errorf("narrow(%#x, float32) = %#x", c.want, narrow(c.want, c.k))
		}
	}
}

// TestHasPointers: storage that holds pointers does not travel between
// ranks.
func TestHasPointers(t *testing.T) {
	type cell struct {
		x, y float64
		n    [3]int32
	}
	type named struct {
		v    float64
		name string
	}
	for _, c := range []struct {
		v    any
		want bool
	}{
		{float64(0), false}, {cell{}, false}, {[4]cell{}, false},
		{named{}, true}, {[]float64{}, true}, {"", true}, {[2]*int{}, true},
	} {
		if got := hasPointers(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("hasPointers(%T) = %v", c.v, got)
		}
	}
	if st := StorageOf([][]float64{{1}}); !st.pointers {
		t.Error("the row headers of a [][]float64 are storage without pointers")
	}
}

// BenchmarkRankDiff: a pdo's end between ranks on 4 MB of shared float64
// storage (Jacobi's two 512×512 grids) of which one rank changed a half:
// its diff against the twin, and another rank applying it.
//
//	go test ./rtlib -run '^$' -bench RankDiff
func BenchmarkRankDiff(b *testing.B) {
	const n = 512 * 512
	twin := make([]float64, 2*n)
	for i := range twin {
		twin[i] = float64(i) / 7
	}
	now, other := slices.Clone(twin), slices.Clone(twin)
	for i := n / 2; i < n+n/2; i++ {
		now[i] *= 1.0001
	}
	tw, st := StorageOf(twin).bytes(), StorageOf(now)
	dst := []Storage{StorageOf(other)}
	d := appendDiff(nil, 0, tw, st.bytes())
	b.Run("diff", func(b *testing.B) {
		b.SetBytes(int64(len(tw)))
		for b.Loop() {
			d = appendDiff(d[:0], 0, tw, st.bytes())
		}
	})
	b.Run("apply", func(b *testing.B) {
		b.SetBytes(int64(len(d)))
		// The other rank changed none of these words: its twin reads as
		// its storage (the same memory here).
		mine := [][]byte{dst[0].bytes()}
		for b.Loop() {
			if c, err := applyDiff(d, dst, mine); c != nil || err != nil {
				b.Fatal(c, err)
			}
		}
	})
}

// TestLocalRanks reads the number of a job's ranks on this machine from
// the launchers' variables: a waiting processor yields its core between
// polls only when they may outnumber the cores.
func TestLocalRanks(t *testing.T) {
	for _, c := range []struct {
		ompi, mpich string
		want        int
	}{
		{"", "", 0},
		{"3", "", 3},
		{"", "2", 2},
		{"4", "2", 4},
		{"x", "", 0},
		{"0", "5", 5},
	} {
		t.Setenv("OMPI_COMM_WORLD_LOCAL_SIZE", c.ompi)
		t.Setenv("MPI_LOCALNRANKS", c.mpich)
		if got := localRanks(); got != c.want {
			t.Errorf("OMPI_COMM_WORLD_LOCAL_SIZE=%q MPI_LOCALNRANKS=%q: localRanks() = %d, want %d", c.ompi, c.mpich, got, c.want)
		}
	}
}
