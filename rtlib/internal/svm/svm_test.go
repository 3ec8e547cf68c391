package svm

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// access runs the check and, on a miss, the protocol; it returns whether
// the access faulted and the fault.
func access(s *Space, p, pg int, write bool) (bool, Fault) {
	var f Fault
	need := ReadOnly
	if write {
		need = Writable
	}
	if s.Hit(p, pg, need) {
		return false, f
	}
	if write {
		return s.Write(p, pg, &f), f
	}
	return s.Read(p, pg, &f), f
}

// A block-distributed array of 8 pages on 2 processors: each writes its
// half in two intervals. Every page faults exactly on the processor the
// distribution gives it, once per interval, and travels once.
func TestBlockDistribution(t *testing.T) {
	for _, model := range []Model{RC, SC} {
		s := New(2, model)
		g, err := s.AddSegment(0x10000, 8*4096, 4096)
		if err != nil || g.Pages != 8 {
			t.Fatalf("segment %+v %v", g, err)
		}
		faults := [2][2]int{} // [interval][processor]
		sent := [2][2]int{}   // pages that travelled to a processor
		for iv := range 2 {
			for p := range 2 {
				for pg := p * 4; pg < p*4+4; pg++ {
					if ok, f := access(s, p, pg, true); ok {
						faults[iv][p]++
						if f.From >= 0 && f.From != p {
							sent[iv][p]++
						}
					}
				}
			}
			s.Sync()
		}
		// Processor 0 owns every page at the start: in the first interval
		// its four writes only gain permission (RC: they fault to be
		// noticed; SC: it may write already), processor 1 fetches its four.
		want := map[Model][2][2]int{RC: {{4, 4}, {4, 4}}, SC: {{0, 4}, {0, 0}}}[model]
		if faults != want {
			t.Errorf("%v: faults per interval and processor %v, want %v", model, faults, want)
		}
		if sent != [2][2]int{{0, 4}, {0, 0}} {
			t.Errorf("%v: pages sent %v, want the second half to processor 1 once", model, sent)
		}
		for pg := range 8 {
			if want := pg / 4; s.Owner(pg) != want {
				t.Errorf("%v: page %d owned by %d, want %d", model, pg, s.Owner(pg), want)
			}
		}
	}
}

// Two processors write alternate elements of one page: under SC every
// write after the other's faults (a ping-pong that depends on the
// interleaving); under RC each faults once per interval.
func TestFalseSharing(t *testing.T) {
	counts := map[Model]int{}
	for _, model := range []Model{SC, RC} {
		s := New(2, model)
		s.AddSegment(0, 4096, 4096)
		n := 0
		for i := range 200 {
			if ok, _ := access(s, i%2, 0, true); ok {
				n++
			}
		}
		notices := s.Sync()
		counts[model] = n
		if model == RC && len(notices) != 1 {
			t.Errorf("RC: notices %+v, want processor 1's copy invalidated (two writers, owner 0)", notices)
		}
	}
	if counts[SC] < 199 || counts[RC] != 2 {
		t.Errorf("faults: SC %d (want 199 or 200), RC %d (want 2)", counts[SC], counts[RC])
	}
}

// Readers share a page; a writer invalidates them (SC) or, under RC, at
// the next Sync.
func TestReadersAndWriter(t *testing.T) {
	s := New(4, SC)
	s.AddSegment(0, 4096, 4096)
	for p := 1; p < 4; p++ {
		if ok, f := access(s, p, 0, false); !ok || f.From != 0 {
			t.Fatalf("read by %d: %v %+v", p, ok, f)
		}
	}
	_, f := access(s, 2, 0, true)
	if f.From != -1 || len(f.Invalidated) != 3 {
		t.Errorf("SC write by a reader: %+v, want no transfer and 3 copies invalidated", f)
	}
	r := New(4, RC)
	r.AddSegment(0, 4096, 4096)
	for p := 1; p < 4; p++ {
		access(r, p, 0, false)
	}
	access(r, 2, 0, true)
	if n := r.Sync(); len(n) != 3 {
		t.Errorf("RC: notices %+v, want processors 0, 1, 3", n)
	}
	if r.Perm(2, 0) != ReadOnly || r.Perm(1, 0) != NoAccess {
		t.Errorf("after Sync: writer %d, reader %d", r.Perm(2, 0), r.Perm(1, 0))
	}
}

// Random accesses from goroutines: SC keeps one writer or several readers
// per page at every moment it is observed after the run.
func TestConcurrentSC(t *testing.T) {
	const procs, pages = 4, 16
	s := New(procs, SC)
	s.AddSegment(0, pages*4096, 4096)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			for range 20000 {
				access(s, p, rng.IntN(pages), rng.IntN(3) == 0)
			}
		}()
	}
	wg.Wait()
	for pg := range pages {
		writers, readers := 0, 0
		for p := range procs {
			switch s.Perm(p, pg) {
			case Writable:
				writers++
			case ReadOnly:
				readers++
			}
		}
		if writers > 1 || writers == 1 && readers > 0 {
			t.Errorf("page %d: %d writers and %d readers", pg, writers, readers)
		}
	}
}

func TestPageSize(t *testing.T) {
	s := New(2, RC)
	if _, err := s.AddSegment(0, 100, 3000); err == nil {
		t.Error("a page size of 3000 was accepted")
	}
	g, _ := s.AddSegment(4000, 200, 4096) // crosses a page boundary
	if g.Pages != 2 || g.Page(4100) != g.Page(4000)+1 {
		t.Errorf("segment %+v", g)
	}
}

// BenchmarkHit is the access check that finds the page accessible: one
// load and one compare.
func BenchmarkHit(b *testing.B) {
	s := New(2, RC)
	s.AddSegment(0, 8<<20, 4096)
	n := 0
	for i := range b.N {
		if s.Hit(1, i&2047, ReadOnly) {
			n++
		}
	}
	_ = n
}

// BenchmarkFault is a read fault followed by its invalidation (the slow
// path, with its lock).
func BenchmarkFault(b *testing.B) {
	s := New(2, SC)
	s.AddSegment(0, 4096, 4096)
	var f Fault
	for i := range b.N {
		if i%2 == 0 {
			s.Read(1, 0, &f)
		} else {
			s.Write(0, 0, &f)
		}
	}
}

// coherence(multiple_writers) on a falsely shared page under SC: from
// then on, two processors writing alternately fault once each per
// interval instead of at every alternation; switching back to invalidate
// restores the ping-pong.
func TestSetModel(t *testing.T) {
	s := New(2, SC)
	g, _ := s.AddSegment(0, 4096, 4096)
	write := func(p int) int {
		var f Fault
		if !s.Hit(p, 0, Writable) && s.Write(p, 0, &f) {
			return 1
		}
		return 0
	}
	alternate := func() (n int) {
		for i := range 100 {
			n += write(i % 2)
		}
		return n
	}
	if n := alternate(); n != 99 {
		t.Errorf("SC: %d faults for 100 alternating writes, want 99 (processor 0 owns the page writable)", n)
	}
	s.SetModel(g, RC)
	if n := alternate(); n != 2 {
		t.Errorf("after SetModel(RC): %d faults, want 2", n)
	}
	if ns := s.Sync(); len(ns) != 1 || ns[0].Proc != 1 {
		t.Errorf("Sync after two writers: %+v, want processor 1's copy invalidated", ns)
	}
	s.SetModel(g, SC)
	if n := alternate(); n != 100 {
		t.Errorf("back to SC: %d faults, want 100", n)
	}
}
