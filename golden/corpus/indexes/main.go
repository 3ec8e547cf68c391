// Indexes: pdo bodies that name their elements through locals (a row's
// start, a copy of the loop variable), declare the loop variable again
// (i := i + 1, as Go allows in a loop's body), and nests that do the same
// with the inner variable: the results are the serial program's.
package main

import "fmt"

func blur(img []float64, w, h int) []float64 {
	out := make([]float64, len(img))
	//svm:pdo
	for y := range h {
		row := y * w
		for x := range w {
			idx := row + x
			s, n := 0.0, 0.0
			for dx := -1; dx <= 1; dx++ {
				if x+dx >= 0 && x+dx < w {
					s += img[idx+dx]
					n++
				}
			}
			out[idx] = s / n
		}
	}
	return out
}

func main() {
	const w, h = 8, 6
	img := make([]float64, w*h)
	for i := range img {
		img[i] = float64(i % 7)
	}
	b := blur(img, w, h)
	shifted := make([]int, 11)
	//svm:pdo
	for i := range 10 {
		i := i + 1 // the body's own i
		shifted[i] = i * i
	}
	grid := make([][]int, 4)
	for i := range grid {
		grid[i] = make([]int, 5)
	}
	//svm:pdo loops(i, j)
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			j := j * 10
			grid[i][j/10] = i + j
		}
	}
	fmt.Printf("%.3f %.3f %v %v\n", b[0], b[len(b)-1], shifted, grid)
}
