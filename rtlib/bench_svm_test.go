package rtlib

import (
	"io"
	"slices"
	"testing"
)

// BenchmarkSVMCheck is a Jacobi sweep over a 256×256 grid of float64 (512
// KiB, 128 pages), plain and as svmc generates a pdo body over shared
// grids: at stage 0 (the layer off: the unchecked copy of the body after
// one test), at stage 4 (the layer on: a page-table load per access, one
// write fault per page and sweep under RC, whose barrier makes the pages
// read-only again) and at stage 6 (a record per fault too); inline-stage0
// is a check per access with the layer off, as serial code has it.
// Compare the ns/op side by side; the goal is stage 0 within 1.10×
// of plain.
func BenchmarkSVMCheck(b *testing.B) {
	const n = 256
	newGrid := func() [][]float64 {
		g := make([][]float64, n)
		cells := make([]float64, n*n)
		for i := range g {
			g[i] = cells[i*n : (i+1)*n]
		}
		return g
	}
	b.Run("plain", func(b *testing.B) {
		a, c := newGrid(), newGrid()
		for b.Loop() {
			for i := 1; i < n-1; i++ {
				for j := 1; j < n-1; j++ {
					c[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1])
				}
			}
		}
	})
	// Serial code keeps a check per access: its cost with the layer off.
	b.Run("inline-stage0", func(b *testing.B) {
		err := Run(testProg(), Params{NProcs: 1, Stage: 0, Trace: io.Discard, Stderr: io.Discard}, func(p *Proc) {
			a, c := newGrid(), newGrid()
			p.Shared(1, 1, SharedVar{Num: 1, Store: StorageOf(a), Rows: RowsOf(a)},
				SharedVar{Num: 2, Store: StorageOf(c), Rows: RowsOf(c)})
			for b.Loop() {
				for i := 1; i < n-1; i++ {
					for j := 1; j < n-1; j++ {
						*W(p, 1, &c[i][j]) = 0.25 * (*R(p, 2, &a[i-1][j]) + *R(p, 3, &a[i+1][j]) + *R(p, 4, &a[i][j-1]) + *R(p, 5, &a[i][j+1]))
					}
				}
			}
		})
		if err != nil {
			b.Fatal(err)
		}
	})
	// The check between ranks with lazy pages, every page current (a
	// stencil's steady state inside its share): the span from the
	// processor's cache and one load of the page's permission.
	b.Run("rank-pages", func(b *testing.B) {
		a, c := newGrid(), newGrid()
		rp := &rankPages{}
		var spans []pageSpan
		for _, g := range [][][]float64{a, c} {
			st := StorageOf(g[0][:n*n])
			pages := (st.Size + rankPageSize - 1) / rankPageSize
			ls := &lazySeg{store: st, pages: pages, perm: make([]uint32, pages)}
			for i := range ls.perm {
				ls.perm[i] = 1
			}
			spans = append(spans, pageSpan{lo: st.Addr, size: uintptr(st.Size), g: ls})
		}
		slices.SortFunc(spans, func(x, y pageSpan) int { return cmpUintptr(x.lo, y.lo) })
		rp.spans.Store(&spans)
		p := &Proc{rp: &pageCache{pg: rp, sites: make([]pageSpan, 6)}}
		for b.Loop() {
			for i := 1; i < n-1; i++ {
				for j := 1; j < n-1; j++ {
					*W(p, 1, &c[i][j]) = 0.25 * (*R(p, 2, &a[i-1][j]) + *R(p, 3, &a[i+1][j]) + *R(p, 4, &a[i][j-1]) + *R(p, 5, &a[i][j+1]))
				}
			}
		}
	})
	for _, stage := range []int{0, 4, 6} {
		b.Run("stage"+string(rune('0'+stage)), func(b *testing.B) {
			err := Run(testProg(), Params{NProcs: 1, Stage: stage, Trace: io.Discard, Stderr: io.Discard}, func(p *Proc) {
				a, c := newGrid(), newGrid()
				p.Shared(1, 1, SharedVar{Num: 1, Store: StorageOf(a), Rows: RowsOf(a)},
					SharedVar{Num: 2, Store: StorageOf(c), Rows: RowsOf(c)})
				for b.Loop() {
					// As svmc generates a pdo body with checked accesses:
					// unchecked when the layer is off.
					if !p.Checking() {
						for i := 1; i < n-1; i++ {
							for j := 1; j < n-1; j++ {
								c[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1])
							}
						}
					} else {
						for i := 1; i < n-1; i++ {
							for j := 1; j < n-1; j++ {
								*W(p, 1, &c[i][j]) = 0.25 * (*R(p, 2, &a[i-1][j]) + *R(p, 3, &a[i+1][j]) + *R(p, 4, &a[i][j-1]) + *R(p, 5, &a[i][j+1]))
							}
						}
					}
					p.Barrier(1, 2)
				}
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
