// want race=no
// a grid's setter called with each iteration's own coordinates
package main

type grid struct {
	w, h  int
	cells []float64
}

func (g *grid) set(x, y int, v float64) {
	idx := y*g.w + x
	g.cells[idx] = v
}

func main() {
	g := &grid{w: 8, h: 8, cells: make([]float64, 64)}
	//svm:pdo loops(y)
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			g.set(x, y, float64(x*y))
		}
	}
}
