package main

func main() {
	a := make([]float64, 64)
	hits := make([]int, 4)
	//svm:pdo loops(i)
	for i := 1; i < 64; i++ {
		//svm:ignore race: the counts are approximate, a lost update is fine
		hits[i%4]++
		a[i] = a[i-1] + 1
	}
	//svm:ignore race: nothing here
	println(len(a))
	g := &grid{cells: make([]int, 8)}
	//svm:pdo loops(i)
	for i := 0; i < 8; i++ {
		//svm:ignore race: for --mpi, where g is each rank's own
		g.set(i, i)
	}
	println(g.cells[7])
}

type grid struct{ cells []int }

func (g *grid) set(i, v int) { g.cells[i] = v }
