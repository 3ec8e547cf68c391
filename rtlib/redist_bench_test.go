package rtlib

import (
	"fmt"
	"testing"
)

// BenchmarkRedistribute is a redistribute of a one-dimensional template of
// 120 elements between block and cyclic on 2 processors, as a relaxation
// sweep's pdos on_home alternate them (x255): the leader's work between
// the pdos, which the others wait through; traced (stage 3), with its
// template-dist records.
func BenchmarkRedistribute(b *testing.B) {
	for _, stage := range []int{0, 3} {
		b.Run(fmt.Sprintf("stage=%d", stage), func(b *testing.B) {
			benchRun(b, 2, stage, func(p *Proc) {
				P := p.Processors(nil, 1, 1, "P", Extent{Lo: 0, Hi: p.NProcs() - 1})
				T := p.Template(nil, 1, 2, "T", Extent{Lo: 0, Hi: 119})
				p.Distribute(1, 3, P, []Format{Block()}, T)
				for range b.N {
					p.Distribute(1, 4, P, []Format{Cyclic(1)}, T)
					p.Distribute(1, 5, P, []Format{Block()}, T)
				}
			})
		})
	}
}
