// want race=no
// a method that writes the element of its grid each iteration names
package main

type grid struct {
	w     int
	cells []float64
}

func (g *grid) set(x, y int, v float64) { g.cells[y*g.w+x] = v }

func main() {
	g := &grid{w: 8, cells: make([]float64, 64)}
	//svm:pdo loops(y)
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			g.set(x, y, float64(x*y))
		}
	}
}
