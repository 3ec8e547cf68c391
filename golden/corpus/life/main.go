// The game of life on boards behind pointers, their cells' slices shared
// (the pdo writes them through next.cells), boards swapped between
// generations, a package-level array shared and filled by a pdo, then
// summed by the program's own goroutines.
package main

import (
	"fmt"
	"sync"
)

var grid [64][64]float64

type board struct {
	cells []int8
	w, h  int
}

func (b *board) at(x, y int) int8 { return b.cells[((y+b.h)%b.h)*b.w+(x+b.w)%b.w] }

func (b *board) neighbours(x, y int) int {
	n := 0
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if dx != 0 || dy != 0 {
				n += int(b.at(x+dx, y+dy))
			}
		}
	}
	return n
}

func life(cur, next *board) {
	// next.cells is cellsA or cellsB, shared in main: its writes are
	// those of the variables taken from the field.
	//svm:pdo loops(y)
	for y := 0; y < cur.h; y++ {
		for x := 0; x < cur.w; x++ {
			k := cur.neighbours(x, y)
			alive := cur.at(x, y) == 1
			v := int8(0)
			if k == 3 || alive && k == 2 {
				v = 1
			}
			next.cells[y*cur.w+x] = v
		}
	}
}

func main() {
	//svm:shared grid
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		for j := 0; j < 64; j++ {
			grid[i][j] = float64(i*j) / 64
		}
	}
	w, h := 40, 30
	a := &board{cells: make([]int8, w*h), w: w, h: h}
	b := &board{cells: make([]int8, w*h), w: w, h: h}
	cellsA, cellsB := a.cells, b.cells
	//svm:shared cellsA, cellsB
	_, _ = cellsA, cellsB
	for _, p := range [][2]int{{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}, {10, 10}, {11, 10}, {12, 10}} {
		a.cells[p[1]*w+p[0]] = 1
	}
	for gen := 0; gen < 12; gen++ {
		life(a, b)
		a, b = b, a
	}
	pop := 0
	for _, c := range a.cells {
		pop += int(c)
	}
	var wg sync.WaitGroup
	sums := make([]float64, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g * 16; i < (g+1)*16; i++ {
				for j := range 64 {
					sums[g] += grid[i][j]
				}
			}
		}()
	}
	wg.Wait()
	fmt.Println("population", pop, "grid", sums)
}
