// want race=yes line=16
// every iteration adds to the first element of a slice a struct's field
// holds
package main

type grid struct {
	cells []int
}

func main() {
	g := &grid{cells: make([]int, 64)}
	//svm:pdo loops(i)
	for i := 0; i < 64; i++ {
		g.cells[i] = i
		if i%2 == 0 {
			g.cells[0] += i
		}
	}
}
