// Particles pushed by forces behind an interface (a value and a pointer
// receiver, from a library package), stepped by a pdo in a function whose
// parameters are main's shared slices, bounces counted by an atomic update,
// then a pdo with two reductions. Under --mpi the slices travel through
// step's parameters by address (the compiler warns of none).
package main

import (
	"fmt"

	"github.com/svmc/svmc/golden/corpus/particles/phys"
)

var forces = []phys.Force{phys.Gravity{G: 9.81}, &phys.Spring{K: 2, X0: 0.5, Y0: 0.5}}

func step(ps []phys.Particle, dt float64, walls []int64) {
	//svm:pdo loops(i)
	for i := range ps {
		p := &ps[i]
		fx, fy := 0.0, 0.0
		for _, f := range forces {
			ax, ay := f.At(p.X, p.Y)
			fx, fy = fx+ax, fy+ay
		}
		p.VX += fx * dt
		p.VY += fy * dt
		p.X += p.VX * dt
		p.Y += p.VY * dt
		if p.Y < 0 {
			p.Y, p.VY = -p.Y, -p.VY
			p.Hits++
			//svm:atomic
			walls[0]++
		}
	}
}

func main() {
	n := 5000
	ps := make([]phys.Particle, n)
	walls := make([]int64, 1)
	//svm:shared ps, walls
	for i := range ps {
		ps[i] = phys.Particle{X: float64(i%100) / 100, Y: float64(i/100) / 50}
	}
	for t := 0; t < 50; t++ {
		step(ps, 0.01, walls)
	}
	e := 0.0
	maxHits := int32(0)
	//svm:pdo loops(i) reduction(+: e) reduction(max: maxHits)
	for i := 0; i < n; i++ {
		e += phys.Energy(ps[i])
		maxHits = max(maxHits, ps[i].Hits)
	}
	fmt.Printf("energy %.6f walls %d maxHits %d\n", e, walls[0], maxHits)
}
