package rtlib

import (
	"bytes"
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
