// Interfaces, methods of the program's own types called through them, a
// closure passed to the standard library, and a library package: the areas
// of many shapes summed in a pdo, grouped in a critical section.
package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/svmc/svmc/golden/corpus/shapes/geom"
)

type square struct{ side float64 }

func (s *square) Area() float64 { return s.side * s.side }
func (s *square) Name() string  { return "square" }

func main() {
	var shapes []geom.Shape
	for i := range 60 {
		switch i % 3 {
		case 0:
			shapes = append(shapes, geom.Circle{R: float64(i % 7)})
		case 1:
			shapes = append(shapes, geom.Rect{W: float64(i % 5), H: 2})
		default:
			shapes = append(shapes, &square{side: float64(i % 4)})
		}
	}
	byName := map[string]float64{}
	total := 0.0
	//svm:pdo loops(i) reduction(+: total)
	for i := range shapes {
		a := shapes[i].Area()
		total += a
		//svm:critical areas
		byName[shapes[i].Name()] += a
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%.3f", n, byName[n])
	}
	fmt.Printf("%.3f %s\n", total, strings.Join(parts, " "))
	report(shapes[:4])
}
