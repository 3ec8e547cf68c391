package rtlib

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

// sizeNet is a transport that only knows the job's shape (applyLazy asks
// no more of it where no request is deferred).
type sizeNet struct {
	rankNet
	rank, size int
}

func (n sizeNet) Rank() int { return n.rank }
func (n sizeNet) Size() int { return n.size }

// lazyRank is rank `rank` of a 3-rank job keeping one segment lazily, its
// storage and twin as given, every page current and without a home.
func lazyRank(rank int, store, twin []byte) *run {
	r := &run{rank: rank, ranks: sizeNet{rank: rank, size: 3}, perRank: 1, n: 3}
	st := StorageOf(store)
	r.exStores, r.twins, r.twinned = []Storage{st}, [][]byte{twin}, true
	n := (len(store) + rankPageSize - 1) / rankPageSize
	g := &lazySeg{store: st, pages: n, home: make([]int16, n), valid: make([]bool, n),
		stale: make([]bool, n), pending: make([]bool, n), perm: make([]uint32, n)}
	for i := range n {
		g.home[i], g.valid[i] = -1, true
	}
	r.pages = &rankPages{r: r, segs: []*lazySeg{g}, parallel: true}
	return r
}

// TestApplyLazy: the lowest of a page's first writers becomes its home and
// gets the others' diffs in a second round; then the home alone applies
// other writers' diffs, a rank that neither is the home nor the only
// writer marks its copy invalid, and the page is stale everywhere until
// the ranks synchronise it — the same states on every rank but valid.
func TestApplyLazy(t *testing.T) {
	const size = 3 * rankPageSize
	type state struct {
		home         int16
		valid, stale bool
	}
	base := make([]byte, size)
	steps := []struct {
		writers []int // ranks that write page 1 in this pdo
		want    [3]state
	}{
		{[]int{2, 1}, [3]state{{1, false, true}, {1, true, true}, {1, false, true}}}, // first writers: the lowest is the home
		{[]int{1}, [3]state{{1, false, true}, {1, true, true}, {1, false, true}}},    // the home alone
		{[]int{2}, [3]state{{1, false, true}, {1, true, true}, {1, true, true}}},     // another writer alone
		{[]int{0, 2}, [3]state{{1, false, true}, {1, true, true}, {1, false, true}}}, // two writers, neither the home
	}
	ranks := [3]*run{}
	for k := range ranks {
		ranks[k] = lazyRank(k, bytes.Clone(base), bytes.Clone(base))
	}
	for i, s := range steps {
		// Each writer changes its own byte of page 1 (offset by rank).
		for _, w := range s.writers {
			ranks[w].exStores[0].bytes()[rankPageSize+8*w+i] = byte(10*i + w + 1)
		}
		var entries []lazyEntry
		for k := range ranks { // in rank order, as the Allgather gives them
			r := ranks[k]
			out := r.lazyDiffs(nil)
			var err error
			if entries, _, err = r.pages.readLazy(k, out, entries); err != nil {
				t.Fatal(err)
			}
		}
		// The second round, where a page without a home had several writers.
		var second [][]byte
		needs := 0
		for _, r := range ranks {
			out, need, err := r.firstWrites(entries)
			if err != nil {
				t.Fatal(err)
			}
			second = append(second, out)
			if need {
				needs++
			}
		}
		if needs != 0 && needs != len(ranks) {
			t.Fatalf("step %d: %d of %d ranks want a second round", i, needs, len(ranks))
		}
		if i == 0 && needs == 0 {
			t.Fatalf("step 0: two first writers, no second round")
		}
		for k, d := range second {
			var err error
			if entries, _, err = ranks[k].pages.readLazy(k, d, entries); err != nil {
				t.Fatal(err)
			}
		}
		for k, r := range ranks {
			if c, _, err := r.applyLazy(entries); c != nil || err != nil {
				t.Fatalf("step %d rank %d: %v %v", i, k, c, err)
			}
			g := r.pages.segs[0]
			if got := (state{g.home[1], g.valid[1], g.stale[1]}); got != s.want[k] {
				t.Errorf("step %d, writers %v: rank %d has page 1 %+v, want %+v", i, s.writers, k, got, s.want[k])
			}
			if g.home[0] != -1 || !g.valid[0] || g.stale[0] {
				t.Errorf("step %d: rank %d's unwritten page 0 changed state", i, k)
			}
			copy(r.twins[0], r.exStores[0].bytes()) // the next pdo's twin
		}
	}
	// The home holds every write; so does each rank that kept page 1 valid.
	home := ranks[1].exStores[0].bytes()[rankPageSize : 2*rankPageSize]
	for i, s := range steps {
		for _, w := range s.writers {
			if got := home[8*w+i]; got != byte(10*i+w+1) {
				t.Errorf("the home lost step %d's write of rank %d: %d", i, w, got)
			}
		}
	}
	for k, r := range ranks {
		if g := r.pages.segs[0]; g.valid[1] && !bytes.Equal(r.exStores[0].bytes()[rankPageSize:2*rankPageSize], home) {
			t.Errorf("rank %d holds page 1 valid but not as its home does", k)
		}
	}
}

// TestLazyDiffOffsets: a page's diff names offsets in its segment, so
// that the home applies it where it was written (pages past the first
// included), and a home sends only a notice.
func TestLazyDiffOffsets(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const size = 3*rankPageSize + 100 // a short last page
	twin := make([]byte, size)
	rng.Read(twin)
	mine := bytes.Clone(twin)
	for range 200 {
		mine[rng.Intn(size)]++
	}
	r := lazyRank(0, mine, twin)
	r.pages.segs[0].home = []int16{0, 1, 2, 1} // page 0 is this rank's own
	out := r.lazyDiffs(nil)
	entries, rest, err := r.pages.readLazy(0, out, nil)
	if err != nil || len(rest) != 0 || len(entries) != 4 {
		t.Fatalf("%d entries, %d bytes left, %v", len(entries), len(rest), err)
	}
	other := bytes.Clone(twin)
	for _, e := range entries {
		if e.pg == 0 {
			if len(e.diff) != 0 {
				t.Errorf("the home's own page 0 came with a diff of %d bytes", len(e.diff))
			}
			continue
		}
		if c, err := applyDiff(e.diff, []Storage{StorageOf(other)}, [][]byte{twin}); c != nil || err != nil {
			t.Fatal(c, err)
		}
	}
	lo := rankPageSize
	if !bytes.Equal(other[lo:], mine[lo:]) || !bytes.Equal(other[:lo], twin[:lo]) {
		t.Error("pages 1–3 applied elsewhere differ from the writer's, or page 0 travelled")
	}
}

// TestNoticeRuns: the notices of pages a rank homes go as runs over
// consecutive pages — across the rows of a [][]T, past eager segments —
// and come back page by page, in order, with the diffs of pages homed
// elsewhere between them.
func TestNoticeRuns(t *testing.T) {
	r := &run{rank: 0, ranks: sizeNet{rank: 0, size: 2}, perRank: 1, n: 2}
	sizes := []int{100, 0, 3 * rankPageSize, 8}
	r.pages = &rankPages{r: r}
	for e, n := range sizes {
		store, twin := make([]byte, max(n, 1)), make([]byte, max(n, 1))
		r.exStores, r.twins = append(r.exStores, StorageOf(store)), append(r.twins, twin)
		if n == 0 {
			r.pages.segs = append(r.pages.segs, nil) // an eager segment
			continue
		}
		pages := (n + rankPageSize - 1) / rankPageSize
		g := &lazySeg{store: StorageOf(store), e: e, pages: pages, home: make([]int16, pages), valid: make([]bool, pages),
			stale: make([]bool, pages), pending: make([]bool, pages), perm: make([]uint32, pages)}
		r.pages.segs = append(r.pages.segs, g)
	}
	r.pages.segs[2].home[2] = 1 // homed on the other rank: a diff
	for _, w := range [][2]int{{0, 0}, {2, 0}, {2, rankPageSize + 5}, {2, 2*rankPageSize + 1}, {3, 7}} {
		r.exStores[w[0]].bytes()[w[1]] = 9
	}
	out := r.lazyDiffs(nil)
	if n := binary.LittleEndian.Uint32(out); n != 3 {
		t.Errorf("%d entries, want 3 (a run of 3 pages, a diff, a run of 1)", n)
	}
	got, rest, err := r.pages.readLazy(0, out, nil)
	if err != nil || len(rest) != 0 {
		t.Fatal(err, len(rest))
	}
	want := [][2]int{{0, 0}, {2, 0}, {2, 1}, {2, 2}, {3, 0}}
	if len(got) != len(want) {
		t.Fatalf("%d pages, want %d: %v", len(got), len(want), got)
	}
	for i, e := range got {
		if [2]int{e.e, e.pg} != want[i] || (len(e.diff) > 0) != (i == 3) {
			t.Errorf("page %d: segment %d page %d, diff of %d bytes; want %v", i, e.e, e.pg, len(e.diff), want[i])
		}
	}
}
