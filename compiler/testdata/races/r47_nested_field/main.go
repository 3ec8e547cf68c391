// want race=yes line=21
// a maximum kept in a field of a field of a shared struct, written by
// every processor (x234)
package main

type grid struct {
	w     int
	cells []float64
	stats struct{ max float64 }
}

func (g *grid) smooth() {
	next := make([]float64, len(g.cells))
	//svm:pdo loops(i)
	for i := 1; i < len(g.cells)-1; i++ {
		v := (g.cells[i-1] + g.cells[i+1]) / 2
		next[i] = v
		if v > g.stats.max {
			// the other processors' writes of the same field race
			// with this one
			g.stats.max = v
		}
	}
	copy(g.cells, next)
}

func main() {
	g := &grid{w: 64, cells: make([]float64, 64)}
	g.smooth()
}
