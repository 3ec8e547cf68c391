// Package phys is the particles program's physics: forces behind an
// interface, one of them a pointer receiver.
package phys

import "math"

// Force is anything that pushes a particle.
type Force interface {
	At(x, y float64) (fx, fy float64)
}

type Gravity struct{ G float64 }

func (g Gravity) At(x, y float64) (float64, float64) { return 0, -g.G }

type Spring struct{ K, X0, Y0 float64 }

func (s *Spring) At(x, y float64) (float64, float64) {
	return -s.K * (x - s.X0), -s.K * (y - s.Y0)
}

type Particle struct {
	X, Y, VX, VY float64
	Hits         int32
}

func Energy(p Particle) float64 { return 0.5*(p.VX*p.VX+p.VY*p.VY) + math.Abs(p.Y) }
