// Package shape has shapes behind an interface.
package shape

import (
	"fmt"
	"math"
)

type Shape interface {
	Area() float64
	Perimeter() float64
	fmt.Stringer
}

type Circle struct{ R float64 }
type Rect struct{ W, H float64 }

func (c Circle) Area() float64      { return math.Pi * c.R * c.R }
func (c Circle) Perimeter() float64 { return 2 * math.Pi * c.R }
func (c Circle) String() string     { return fmt.Sprintf("circle(%.1f)", c.R) }
func (r *Rect) Area() float64       { return r.W * r.H }
func (r *Rect) Perimeter() float64  { return 2 * (r.W + r.H) }
func (r *Rect) String() string      { return fmt.Sprintf("rect(%.1fx%.1f)", r.W, r.H) }

// Make builds n shapes deterministically.
func Make(n int) []Shape {
	out := make([]Shape, 0, n)
	for i := range n {
		if i%3 == 0 {
			out = append(out, Circle{R: float64(i%7) + 1})
		} else {
			out = append(out, &Rect{W: float64(i%5) + 1, H: float64(i%11) + 1})
		}
	}
	return out
}
