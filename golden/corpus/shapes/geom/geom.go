// Package geom is a library without directives that the program imports.
package geom

import "math"

// Shape is anything with an area.
type Shape interface {
	Area() float64
	Name() string
}

// Circle is a circle.
type Circle struct{ R float64 }

func (c Circle) Area() float64 { return math.Pi * c.R * c.R }
func (c Circle) Name() string  { return "circle" }

// Rect is a rectangle.
type Rect struct{ W, H float64 }

func (r Rect) Area() float64 { return r.W * r.H }
func (r Rect) Name() string  { return "rect" }
