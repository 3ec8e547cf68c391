package rtlib

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/svmc/svmc/trace"
)

// A shared variable's storage becomes a segment once: shared-segment-address
// at stage 6 with its id and address, not again when the directive runs
// again; a slice grown by append is new storage, a new segment. Below
// stage 6 there is no such record.
func TestSharedSegments(t *testing.T) {
	for _, stage := range []int{3, 6} {
		var buf bytes.Buffer
		err := Run(testProg(), Params{NProcs: 2, Stage: stage, Trace: &buf, Stderr: io.Discard, PageSize: 1024}, func(p *Proc) {
			a := make([]float64, 300) // 2400 bytes: 3 or 4 pages of 1 KiB
			var grid [4][4]int32
			for range 2 {
				p.Shared(1, 1, SharedVar{Num: 1, Addr: AddrOf(&a), Store: StorageOf(a[:])}, SharedVar{Num: 2, Addr: AddrOf(&grid), Store: StorageOf(grid[:])})
			}
			a = append(a, 1)
			p.Shared(1, 1, SharedVar{Num: 1, Addr: AddrOf(&a), Store: StorageOf(a[:])})
			g := p.r.segs[StorageOf(a[:])]
			if g == nil || g.PageSize != 1024 || g.Pages < 3 {
				t.Errorf("segment of the grown slice: %+v", g)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int
		for _, r := range readTrace(t, buf.Bytes()) {
			if r.Desc.Tag == trace.TagSharedSegmentAddress {
				ids = append(ids, r.Int("segment id"))
			}
		}
		want := map[int]int{3: 0, 6: 3}[stage]
		if len(ids) != want || want > 0 && (ids[0] != 1 || ids[1] != 2 || ids[2] != 3) {
			t.Errorf("stage %d: segment records %v, want %d (ids 1, 2, 3)", stage, ids, want)
		}
	}
}

func TestPageSizeParam(t *testing.T) {
	err := Run(testProg(), Params{NProcs: 1, PageSize: 3000, Stderr: io.Discard}, func(p *Proc) {})
	if err == nil || !strings.Contains(err.Error(), "page size 3000 is not a power of two") {
		t.Errorf("page size 3000: %v", err)
	}
}

// The access checks at stage 6 on 2 processors, counts right by
// construction: a 16-page array written block by block faults 8 pages on
// each processor (processor 1 receives its 8 from processor 0, the pages'
// first owner), and read in reverse after the loop's barrier it faults the
// other processor's 8 pages on each, sent by that processor. Under both
// models; -race checks the tables are read and written safely.
func TestSVMAccessFaults(t *testing.T) {
	for _, model := range []string{"rc", "sc"} {
		var buf bytes.Buffer
		err := Run(testProg(), Params{NProcs: 2, Stage: 6, Trace: &buf, Stderr: io.Discard, SVMModel: model}, func(p *Proc) {
			a := make([]float64, 8192) // 64 KiB: a large allocation, page-aligned
			p.Shared(1, 1, SharedVar{Num: 1, Addr: AddrOf(&a), Store: StorageOf(a[:])})
			space := []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}
			p.PDO(1, 2, DefaultSchedule(), space, func(q *Proc, it *Iter) {
				for it.Next() {
					i := it.Index(0)
					*W(q, 1, &a[i]) = float64(i)
				}
			})
			p.PDO(1, 3, DefaultSchedule(), space, func(q *Proc, it *Iter) {
				for it.Next() {
					_ = *R(q, 2, &a[len(a)-1-it.Index(0)])
				}
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		type key struct {
			node  int
			write bool
			from  int
		}
		got := map[key]int{}
		for _, r := range readTrace(t, buf.Bytes()) {
			switch r.Desc.Tag {
			case trace.TagWritePageFaultServiced, trace.TagReadPageFaultServiced:
				got[key{r.Int("node id"), r.Desc.Tag == trace.TagWritePageFaultServiced, r.Int("node id that sent the page")}]++
			}
		}
		want := map[key]int{
			{0, true, -1}: 8, {1, true, 0}: 8, // writes: 0 had the pages; 1 gets them from 0
			{0, false, 1}: 8, {1, false, 0}: 8, // reverse reads: the other's pages
		}
		if model == "sc" {
			// Li: processor 0 owns its pages writable from the start, so
			// its writes need no fault at all.
			delete(want, key{0, true, -1})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: faults (node, write, from) = %v, want %v", model, got, want)
		}
	}
}

// Below the page stages the checks cost one test and write nothing.
func TestSVMOffBelowStage4(t *testing.T) {
	var buf bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stage: 3, Trace: &buf, Stderr: io.Discard}, func(p *Proc) {
		if p.sv != nil {
			t.Error("the SVM layer is on at stage 3")
		}
		a := make([]float64, 1024)
		p.Shared(1, 1, SharedVar{Num: 1, Addr: AddrOf(&a), Store: StorageOf(a[:])})
		*W(p, 1, &a[3]) = 1
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readTrace(t, buf.Bytes()) {
		if trace.Stage(r.Desc.Tag) >= 4 && r.Desc.Tag < 2000 {
			t.Errorf("stage 3 wrote %s", r.Desc.Name)
		}
	}
}

// prefetch brings a neighbour's page ahead of use: the read that follows
// does not fault, the page still counts as travelled, and the prefetch
// record names the part.
func TestSVMPrefetch(t *testing.T) {
	var buf bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stage: 6, Trace: &buf, Stderr: io.Discard}, func(p *Proc) {
		a := make([]float64, 8192) // 16 pages
		p.Shared(1, 1, SharedVar{Num: 1, Store: StorageOf(a)})
		space := []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}
		p.PDO(1, 2, DefaultSchedule(), space, func(q *Proc, it *Iter) {
			for it.Next() {
				i := it.Index(0)
				*W(q, 1, &a[i]) = float64(i)
			}
		})
		p.PDO(1, 3, DefaultSchedule(), []Range{{Lo: 0, Hi: 1, Step: 1}}, func(q *Proc, it *Iter) {
			q.RegionStart(1, 3, 7)
			for it.Next() {
				if q.ID() == 1 {
					q.Prefetch(1, 4, []Storage{StorageOf(a[4096-512 : 4096])}) // processor 0's last page
					_ = *R(q, 2, &a[4095])
				}
			}
			q.RegionStop(1, 3, 7)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var reads, prefetches int
	var travelled []int
	for _, r := range readTrace(t, buf.Bytes()) {
		switch r.Desc.Tag {
		case trace.TagReadPageFaultServiced:
			reads++
		case trace.TagPrefetch:
			prefetches++
		case trace.TagPageTravel:
			if r.Int("node id") == 1 {
				_, travelled = r.IntArray("received pages")
			}
		}
	}
	if reads != 0 || prefetches != 1 {
		t.Errorf("read faults %d, prefetch records %d; want 0 and 1", reads, prefetches)
	}
	if len(travelled) != 2 || travelled[0] != 9 {
		t.Errorf("processor 1's last page-travel %v, want 9 pages from processor 0 (8 written, 1 prefetched)", travelled)
	}
}

// A page budget of 2: processor 0 reads processor 1's 8 pages and keeps
// the last 2 (6 page-outs); processor 1 owns the pages it wrote, which
// never count, and pages out 6 of processor 0's too.
func TestSVMPageBudget(t *testing.T) {
	var buf bytes.Buffer
	err := Run(testProg(), Params{NProcs: 2, Stage: 6, Trace: &buf, Stderr: io.Discard, PageBudget: 2}, func(p *Proc) {
		a := make([]float64, 8192)
		p.Shared(1, 1, SharedVar{Num: 1, Store: StorageOf(a)})
		space := []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}
		p.PDO(1, 2, DefaultSchedule(), space, func(q *Proc, it *Iter) {
			for it.Next() {
				*W(q, 1, &a[it.Index(0)]) = 1
			}
		})
		p.PDO(1, 3, DefaultSchedule(), space, func(q *Proc, it *Iter) {
			for it.Next() {
				_ = *R(q, 2, &a[len(a)-1-it.Index(0)])
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	outs := map[int]int{}
	for _, r := range readTrace(t, buf.Bytes()) {
		if r.Desc.Tag == trace.TagPageOut {
			outs[r.Int("node id")]++
		}
	}
	if outs[0] != 6 || outs[1] != 6 {
		t.Errorf("page-outs per processor %v, want 6 and 6", outs)
	}
}

// SVM_Kernel_TraceBuf_Size bounds the page records a buffer holds: with
// 256 bytes the 16 fault records of a stage-6 run force flushes
// (kernel-trace-buffer-overflow, each followed by trace-overhead) that a
// 1 MiB buffer alone would not, and every record keeps its place in its
// processor's clock order.
func TestSVMKernelBuffer(t *testing.T) {
	overflows := func(kernel int) int {
		var buf bytes.Buffer
		err := Run(testProg(), Params{NProcs: 2, Stage: 6, Trace: &buf, Stderr: io.Discard, KernelBufSize: kernel}, func(p *Proc) {
			a := make([]float64, 8192)
			p.Shared(1, 1, SharedVar{Num: 1, Store: StorageOf(a)})
			p.PDO(1, 2, DefaultSchedule(), []Range{{Lo: 0, Hi: len(a) - 1, Step: 1}}, func(q *Proc, it *Iter) {
				for it.Next() {
					*W(q, 1, &a[it.Index(0)]) = 1
				}
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		recs := readTrace(t, buf.Bytes())
		checkClocks(t, recs)
		n := 0
		for _, r := range recs {
			if r.Desc.Tag == trace.TagKernelTraceBufferOverflow {
				n++
			}
		}
		return n
	}
	if n := overflows(0); n != 0 {
		t.Errorf("no kernel bound: %d overflows, want 0", n)
	}
	if n := overflows(256); n < 4 {
		t.Errorf("kernel buffer of 256 bytes: %d overflows, want at least 4 (8 fault records per processor)", n)
	}
}
